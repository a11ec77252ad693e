#!/usr/bin/env bash
# Regenerates the shipped tool schemas from the sidecar, compiles the plugin (src → lib) and copies the sidecar binary into plugin-ts/bin/: the dev layout,
# where the plugin folder mounted by path finds its sidecar beside it (the npm packages carry theirs in
# the platform package instead). Runs setup first (cached).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/env.sh"
bash "$PLUGIN_DIR/scripts/setup.sh"
cd "$PLUGIN_DIR"
rm -rf lib
# The memory tools' schemas ship in the package (src/tool-schemas.ts) so they are registered at load;
# regenerated from the built sidecar's own tools.list whenever it is there, so the two cannot drift.
if [ -x "$SIDECAR_BIN" ]; then
  node scripts/gen-tool-schemas.mjs "$SIDECAR_BIN" src/tool-schemas.ts
fi
node node_modules/typescript/bin/tsc -p tsconfig.json
# The Memory tab's browser bundle (lib/client.js): type-checked on its own (DOM, JSX), bundled by esbuild.
node node_modules/typescript/bin/tsc -p client/tsconfig.json
node scripts/build-client.mjs
if [ -x "$SIDECAR_BIN" ]; then
  mkdir -p bin && cp "$SIDECAR_BIN" bin/somni-sidecar
fi
echo "[build] lib/ compiled$( [ -x bin/somni-sidecar ] && echo ', bin/somni-sidecar packaged')" >&2
