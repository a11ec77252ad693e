#!/usr/bin/env bash
# Compiles the plugin (src → lib) and copies the sidecar binary into plugin-ts/bin/ so a packed
# tarball carries it. Runs setup first (cached).
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
