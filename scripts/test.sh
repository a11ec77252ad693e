#!/usr/bin/env bash
# `make test`: every part of the suite, each run whatever happened to the ones before it, so a red
# part never hides the others' results. Each part is a Makefile target; its own output streams as it
# runs, and the end is a table of every part with its verdict, its own closing line and its time.
# The exit status is non-zero when any part failed.
#
# A run must also leave the checkout as it found it (tests write to temp dirs and gitignored caches,
# never to tracked files): `git status` before and after is compared, and a difference is a failed part.
#
# SOMNI_TEST_PARTS="test-go test-plugin" runs only those parts (still with the checks around them).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# Setup parts first (a failure there is reported, and the rest still tried: most parts can say
# something useful on their own), then the suites, cheapest first.
parts=(${SOMNI_TEST_PARTS:-test-tools build fmt-check vet test-scripts test-go test-plugin test-mcp-npm test-install test-browser test-qemu})

tree_state() { git status --porcelain=v1 --untracked-files=all 2>/dev/null; }
before="$(tree_state)"

declare -a rows
failed=0
t_all=$SECONDS
for part in "${parts[@]}"; do
  log="$(mktemp)"
  t0=$SECONDS
  echo "::: make $part"
  make --no-print-directory "$part" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  # A suite's own closing line ("go: …", "plugin-ts: N passed, N failed", "browser: …"), if it has one.
  summary="$(grep -E '(^|: )[0-9]+ passed, [0-9]+ failed' "$log" | tail -n1 | cut -c1-100)"
  if [ "$part" = test-go ]; then
    summary="$(awk '/^ok /{ok++} /^FAIL\t/{f++} /^--- FAIL/{t++} END{printf "%d packages ok, %d failed (%d failing tests)", ok, f, t}' "$log")"
  fi
  rm -f "$log"
  if [ "$rc" -eq 0 ]; then verdict=ok; else verdict=FAILED; failed=$((failed + 1)); fi
  rows+=("$(printf '%-13s %-7s %5ss  %s' "$part" "$verdict" "$((SECONDS - t0))" "$summary")")
done

after="$(tree_state)"
if [ "$before" != "$after" ]; then
  failed=$((failed + 1))
  rows+=("$(printf '%-13s %-7s %5s   %s' "clean tree" FAILED "" "the run changed the checkout:")")
  while IFS= read -r l; do rows+=("                             $l"); done < <(diff <(printf '%s\n' "$before") <(printf '%s\n' "$after") | grep '^[<>]')
else
  rows+=("$(printf '%-13s %-7s %5s   %s' "clean tree" ok "" "git status as before the run")")
fi

echo
echo "== make test: every part ($(( (SECONDS - t_all) / 60 )) min $(( (SECONDS - t_all) % 60 )) s)"
printf '%s\n' "${rows[@]}"
total=$(( ${#parts[@]} + 1 ))
echo "parts: $((total - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
