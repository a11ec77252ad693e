#!/usr/bin/env bash
# Installs the independent MCP client the npm-side MCP test uses: the TypeScript SDK
# (@modelcontextprotocol/sdk), pinned in scripts/mcp-npm/package.json and package-lock.json, into
# .cache/mcp-client-<version> (gitignored) with `npm ci`. Idempotent: a stamp holding the lockfile's
# sha256 makes a rerun a no-op. Prints the install folder (holding node_modules) on stdout.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
. "$ROOT/plugin-ts/scripts/env.sh" # Node 22 + npm on PATH
SRC="$ROOT/scripts/mcp-npm"
VER="$(node -p "require('$SRC/package.json').dependencies['@modelcontextprotocol/sdk']")"
DEST="$ROOT/.cache/mcp-client-$VER"
want="$(cat "$SRC/package.json" "$SRC/package-lock.json" | sha256sum | cut -d' ' -f1)"
if [ ! -f "$DEST/.stamp" ] || [ "$(cat "$DEST/.stamp")" != "$want" ] || [ ! -f "$DEST/node_modules/@modelcontextprotocol/sdk/package.json" ]; then
  echo "[mcp-npm setup] installing @modelcontextprotocol/sdk@$VER into $DEST" >&2
  rm -rf "$DEST" && mkdir -p "$DEST"
  cp "$SRC/package.json" "$SRC/package-lock.json" "$DEST/"
  (cd "$DEST" && npm ci --no-audit --no-fund --loglevel=error --ignore-scripts >&2)
  echo "$want" >"$DEST/.stamp"
fi
echo "$DEST"
