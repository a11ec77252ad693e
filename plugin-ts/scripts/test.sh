#!/usr/bin/env bash
# `make test-plugin`: setup (cached), compile, unit tests, then the end-to-end test in the real
# DSH harness against bin/somni-sidecar. Prints the time each phase took.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/env.sh"
t0=$SECONDS
phase() { printf '[test] %s (%ds)\n' "$1" "$((SECONDS - t0))" >&2; }
bash "$PLUGIN_DIR/scripts/build.sh"
phase "setup + build done"
cd "$PLUGIN_DIR"
node --test --test-reporter=spec "test/unit/*.test.mjs"
phase "unit tests passed"
if [ ! -x "$SIDECAR_BIN" ]; then
  echo "[test] $SIDECAR_BIN missing: run 'make build' at the repo root first" >&2
  exit 1
fi
node test/e2e/run.mjs
phase "e2e passed"
