#!/usr/bin/env bash
# `make test-plugin`: setup (cached), compile, unit tests, then the end-to-end test in the real
# DSH harness against bin/somni-sidecar. Both suites always run; the last line is
# "plugin-ts: N passed, N failed" and the exit status is non-zero when anything failed.
# --unit: the unit tests and their type check only (`make check`). --e2e FILE…: unit tests, then only
# those e2e files.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/env.sh"
t0=$SECONDS
phase() { printf '[test] %s (%ds)\n' "$1" "$((SECONDS - t0))" >&2; }
if [ ! -x "$SIDECAR_BIN" ]; then
  echo "[test] $SIDECAR_BIN missing: run 'make build' at the repo root first" >&2
  echo "plugin-ts: 0 passed, 1 failed"
  exit 1
fi
bash "$PLUGIN_DIR/scripts/build.sh"
phase "setup + build done"
cd "$PLUGIN_DIR"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT

# num SED_EXPR: the number captured by a sed -nE 's/…/\1/p' expression on the last matching line of $out.
num() { sed -nE "$1" "$out" | tail -n1; }

set +e
node --test --test-reporter=spec test/unit/*.test.mjs 2>&1 | tee "$out"
unit_rc=${PIPESTATUS[0]}
set -e
# The tests' type check (test/tsconfig.json, against lib/'s declarations): an error counts as a failed unit test.
if ! node node_modules/typescript/bin/tsc -p test/tsconfig.json >&2; then
  echo "[test] test type check failed" >&2
  echo "ℹ fail $(( $(num 's/^ℹ fail ([0-9]+)$/\1/p') + 1 ))" >>"$out"
  unit_rc=1
fi
unit_pass=$(num 's/^ℹ pass ([0-9]+)$/\1/p'); unit_fail=$(num 's/^ℹ fail ([0-9]+)$/\1/p')
unit_pass=${unit_pass:-0}; unit_fail=${unit_fail:-0}
[ "$unit_rc" -ne 0 ] && [ "$unit_fail" -eq 0 ] && unit_fail=1 # the runner itself failed
phase "unit tests: $unit_pass passed, $unit_fail failed"
if [ "${1:-}" = --unit ]; then
  echo "plugin-ts: $unit_pass passed, $unit_fail failed (unit only; $((SECONDS - t0)) s)"
  exit "$unit_rc"
fi

# Each e2e file runs the real harness on its own and ends with "e2e: N passed, M failed";
# `--e2e FILE…` runs only those (e.g. `test.sh --e2e test/e2e/hints.mjs`).
e2e_files=(test/e2e/demo.mjs test/e2e/run.mjs test/e2e/hints.mjs test/e2e/hung-sidecar.mjs test/e2e/compaction.mjs test/e2e/compaction-web.mjs test/e2e/sync.mjs test/e2e/team.mjs)
if [ "${1:-}" = --e2e ] && [ $# -gt 1 ]; then e2e_files=("${@:2}"); fi
e2e_rc=0; e2e_pass=0; e2e_fail=0
for f in "${e2e_files[@]}"; do
  set +e
  node "$f" 2>&1 | tee "$out"
  rc=${PIPESTATUS[0]}
  set -e
  p=$(num 's/^e2e: ([0-9]+) passed, [0-9]+ failed$/\1/p'); fl=$(num 's/^e2e: [0-9]+ passed, ([0-9]+) failed$/\1/p')
  p=${p:-0}; fl=${fl:-0}
  [ "$rc" -ne 0 ] && [ "$fl" -eq 0 ] && fl=1 # crashed before its summary
  [ "$rc" -ne 0 ] && e2e_rc=$rc
  e2e_pass=$((e2e_pass + p)); e2e_fail=$((e2e_fail + fl))
done
phase "e2e: $e2e_pass passed, $e2e_fail failed"

echo "plugin-ts: $((unit_pass + e2e_pass)) passed, $((unit_fail + e2e_fail)) failed (unit $unit_pass/$((unit_pass + unit_fail)), e2e $e2e_pass/$((e2e_pass + e2e_fail)); $((SECONDS - t0)) s)"
[ "$unit_rc" -eq 0 ] && [ "$e2e_rc" -eq 0 ]
