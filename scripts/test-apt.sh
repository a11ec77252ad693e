#!/usr/bin/env bash
# The apt helper (scripts/lib/apt.sh) on this machine's real apt: another process holds dpkg's
# locks (as a fresh machine's boot-time upgrades do), and `apt-get check` (which takes them and changes
# nothing) waits for it and then succeeds, saying that it waited; with a bound shorter than the hold,
# it fails with one sentence naming the fix. Needs root and apt-get; elsewhere it says it skipped.
# The last line is "apt: N passed, N failed".
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$ROOT/scripts/lib/apt.sh"
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null || ! command -v python3 >/dev/null; then
  echo "apt: 0 passed, 0 failed, 2 skipped (needs root, apt-get and python3)"
  exit 0
fi
pass=0 fail=0
check() { if [ "$1" = ok ]; then pass=$((pass + 1)); echo "ok   $2"; else fail=$((fail + 1)); echo "FAIL $2"; fi; }

# hold SECONDS: take the dpkg locks as apt does (fcntl, not flock) and keep them SECONDS; prints the pid.
hold() {
  python3 - "$1" /var/lib/dpkg/lock-frontend /var/lib/dpkg/lock >/dev/null 2>&1 <<'PY' &
import fcntl, sys, time
held = [open(p, 'a') for p in sys.argv[2:]]
for f in held:
    fcntl.lockf(f, fcntl.LOCK_EX)
open('/tmp/somni-apt-held', 'w').close()
time.sleep(float(sys.argv[1]))
PY
  local pid=$!
  for _ in $(seq 100); do [ -e /tmp/somni-apt-held ] && break; sleep 0.05; done
  rm -f /tmp/somni-apt-held
  echo "$pid"
}
export DEBIAN_FRONTEND=noninteractive
log="$(mktemp)"
trap 'rm -f "$log"' EXIT

pid=$(hold 6)
if SOMNI_APT_LOCK_WAIT=120 apt_get check 2>"$log" && grep -q '^apt: another apt or dpkg holds its lock' "$log"; then
  check ok "apt waits for a held dpkg lock, says so, then succeeds"
else
  check fail "apt waits for a held dpkg lock, says so, then succeeds"; cat "$log"
fi
wait "$pid" 2>/dev/null

pid=$(hold 30)
if ! SOMNI_APT_LOCK_WAIT=2 apt_get check 2>"$log" && grep -q 'still holds its lock after 2 s.*SOMNI_APT_LOCK_WAIT' "$log"; then
  check ok "past its bound it fails with one sentence naming the fix"
else
  check fail "past its bound it fails with one sentence naming the fix"; cat "$log"
fi
kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null

echo "apt: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
