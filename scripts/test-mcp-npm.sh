#!/usr/bin/env bash
# `make test-mcp-npm`: `somni-sidecar mcp` driven by an independent client from npm, the TypeScript SDK
# (@modelcontextprotocol/sdk, pinned in scripts/mcp-npm/, installed by scripts/mcp-npm/setup.sh into
# .cache/mcp-client-<version>), compared with the sidecar's JSON-RPC path on the same data.
# SOMNI_SIDECAR_BIN overrides bin/somni-sidecar. Last line: "mcp-npm: N passed, N failed".
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$ROOT/plugin-ts/scripts/env.sh" # Node 22 on PATH
export SOMNI_SIDECAR_BIN="${SOMNI_SIDECAR_BIN:-$ROOT/bin/somni-sidecar}"
if [ ! -x "$SOMNI_SIDECAR_BIN" ]; then
  echo "[mcp-npm] $SOMNI_SIDECAR_BIN missing: run 'make build' at the repo root first" >&2
  echo "mcp-npm: 0 passed, 1 failed"
  exit 1
fi
client="$(bash "$ROOT/scripts/mcp-npm/setup.sh")"
exec node "$ROOT/scripts/mcp-npm/run.mjs" "$client"
