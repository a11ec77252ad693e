#!/usr/bin/env bash
# npm-tool.sh SRC PACKAGE NAME: installs the npm tool pinned by SRC/package.json + SRC/package-lock.json
# into .cache/NAME-<version> with `npm ci` (no scripts), unless the stamp there says
# those two files have not changed. Prints the install folder (holding node_modules) on stdout.
# The one installer behind scripts/dist/setup-registry.sh (verdaccio) and scripts/mcp-npm/setup.sh.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$ROOT/plugin-ts/scripts/env.sh" # Node 22 + npm on PATH
SRC="$1" PKG="$2" NAME="$3"
VER="$(node -p "require('$SRC/package.json').dependencies['$PKG']")"
DEST="$ROOT/.cache/$NAME-$VER"
want="$(cat "$SRC/package.json" "$SRC/package-lock.json" | sha256sum | cut -d' ' -f1)"
if [ ! -f "$DEST/.stamp" ] || [ "$(cat "$DEST/.stamp")" != "$want" ] || [ ! -f "$DEST/node_modules/$PKG/package.json" ]; then
  echo "[npm-tool] installing $PKG@$VER into $DEST" >&2
  rm -rf "$DEST" && mkdir -p "$DEST"
  cp "$SRC/package.json" "$SRC/package-lock.json" "$DEST/"
  (cd "$DEST" && npm ci --no-audit --no-fund --loglevel=error --ignore-scripts >&2)
  echo "$want" >"$DEST/.stamp"
fi
echo "$DEST"
