#!/usr/bin/env bash
# `make demo`: builds the plugin (the Makefile built the sidecar), installs the harness locally
# (cached in plugin-ts/.harness) and plays the three-session story in test/e2e/demo.mjs.
# With DEEPSEEK_API_KEY set, the story talks to the real DeepSeek model.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/env.sh"
bash "$PLUGIN_DIR/scripts/build.sh"
if [ ! -x "$SIDECAR_BIN" ]; then
  echo "[demo] $SIDECAR_BIN missing: run 'make build' first" >&2
  exit 1
fi
exec node "$PLUGIN_DIR/test/e2e/demo.mjs"
