#!/usr/bin/env bash
# Compiles the plugin (src → lib) and copies the sidecar binary into plugin-ts/bin/: the dev layout,
# where the plugin folder mounted by path finds its sidecar beside it (the npm packages carry theirs in
# the platform package instead). Runs setup first (cached).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/env.sh"
bash "$PLUGIN_DIR/scripts/setup.sh"
cd "$PLUGIN_DIR"
rm -rf lib
node node_modules/typescript/bin/tsc -p tsconfig.json
if [ -x "$SIDECAR_BIN" ]; then
  mkdir -p bin && cp "$SIDECAR_BIN" bin/somni-sidecar
fi
echo "[build] lib/ compiled$( [ -x bin/somni-sidecar ] && echo ', bin/somni-sidecar packaged')" >&2
