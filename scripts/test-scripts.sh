#!/usr/bin/env bash
# `make test-scripts`: the suite's own scripts, as a newcomer meets them.
# - make test (scripts/test.sh) with a part that fails: every part still runs and is in the table, the
#   exit status is non-zero, and a part that touches a tracked file fails the clean-tree check.
# - the apt helper (scripts/lib/apt.sh) on this machine's real apt: another process holds dpkg's
# locks (as a fresh machine's boot-time upgrades do), and `apt-get check` (which takes them and changes
# nothing) waits for it and then succeeds, saying that it waited; with a bound shorter than the hold,
# it fails with one sentence naming the fix. Needs root and apt-get; elsewhere it is skipped.
# The last line is "scripts: N passed, N failed".
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$ROOT/scripts/lib/apt.sh"
pass=0 fail=0
check() { if [ "$1" = ok ]; then pass=$((pass + 1)); echo "ok   $2"; else fail=$((fail + 1)); echo "FAIL $2"; fi; }
log="$(mktemp)"
tmp="$(mktemp -d)"
trap 'rm -rf "$log" "$tmp"' EXIT

# make test's runner on a throwaway repository whose parts are: one that fails, one that passes with
# a closing line, one that edits a tracked file.
git -C "$tmp" init -q && mkdir -p "$tmp/scripts" && cp "$ROOT/scripts/test.sh" "$tmp/scripts/"
printf 'tracked\n' >"$tmp/file.txt"
printf 'red:\n\t@echo "red: 0 passed, 2 failed"; exit 1\ngreen:\n\t@echo "green: 7 passed, 0 failed"\ndirty:\n\t@echo changed >>file.txt\n' >"$tmp/Makefile"
git -C "$tmp" add -A && git -C "$tmp" -c user.name=t -c user.email=t@t commit -qm init
if SOMNI_TEST_PARTS="red green" bash "$tmp/scripts/test.sh" >"$log" 2>&1; then rc=0; else rc=$?; fi
if [ "$rc" -ne 0 ] && grep -qE '^red +FAILED .*red: 0 passed, 2 failed' "$log" && grep -qE '^green +ok .*green: 7 passed, 0 failed' "$log" &&
  grep -qE '^clean tree +ok' "$log" && [ "$(tail -n1 "$log")" = "parts: 2 passed, 1 failed" ]; then
  check ok "make test: a failing part does not hide the next one's result, and the run fails"
else
  check fail "make test: a failing part does not hide the next one's result, and the run fails (exit $rc)"; cat "$log"
fi
if SOMNI_TEST_PARTS="dirty green" bash "$tmp/scripts/test.sh" >"$log" 2>&1; then rc=0; else rc=$?; fi
if [ "$rc" -ne 0 ] && grep -qE '^clean tree +FAILED' "$log" && grep -q 'M file.txt' "$log"; then
  check ok "make test: a part that changes a tracked file fails the clean-tree check"
else
  check fail "make test: a part that changes a tracked file fails the clean-tree check (exit $rc)"; cat "$log"
fi

if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null || ! command -v python3 >/dev/null; then
  echo "skip the apt helper's checks (need root, apt-get and python3)"
  echo "scripts: $pass passed, $fail failed, 2 skipped"
  [ "$fail" -eq 0 ]
  exit
fi

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

echo "scripts: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
