# Sourced by the scripts that install Debian packages (models.sh, test-tools.sh).
#
# apt_get ARGS…: apt-get, waiting for another apt or dpkg instead of failing on its lock. A fresh
# machine runs its boot-time upgrades for minutes, and apt-get then stops at once with "Could not get
# lock /var/lib/dpkg/lock-frontend" (apt's own DPkg::Lock::Timeout covers the dpkg locks but not
# `apt-get update`'s lists lock). It retries every 5 s for up to SOMNI_APT_LOCK_WAIT seconds
# (default 600), saying once on stderr that it waits and for whom, and fails with one sentence naming
# the fix when the lock is still held then. Anything else apt-get says is passed through as it is.
# A caller that is not root sets the array apt_as=(sudo -n) first.
apt_get() {
  local bound=${SOMNI_APT_LOCK_WAIT:-600} t0=$SECONDS out rc said=
  out="$(mktemp)"
  while :; do
    "${apt_as[@]}" apt-get "$@" >"$out" 2>&1 && rc=0 || rc=$?
    if [ "$rc" -eq 0 ] || ! grep -q 'Could not get lock' "$out"; then
      cat "$out" >&2
      rm -f "$out"
      return "$rc"
    fi
    if [ $((SECONDS - t0)) -ge "$bound" ]; then
      grep 'Could not get lock' "$out" | head -n1 >&2
      echo "apt: another apt or dpkg still holds its lock after ${bound} s (boot-time upgrades, unattended-upgrades?): let it finish (ps -C apt-get,apt,dpkg,unattended-upgr) and run this again, or wait longer with SOMNI_APT_LOCK_WAIT=SECONDS" >&2
      rm -f "$out"
      return "$rc"
    fi
    if [ -z "$said" ]; then
      echo "apt: another apt or dpkg holds its lock ($(grep -o 'held by process.*' "$out" | head -n1 || true)); waiting up to ${bound} s for it to finish" >&2
      said=1
    fi
    sleep 5
  done
}
