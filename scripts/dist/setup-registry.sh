#!/usr/bin/env bash
# Installs the throwaway local npm registry the install test publishes to: verdaccio, pinned in
# scripts/dist/verdaccio/package.json and package-lock.json, into .cache/verdaccio-<version>
# (gitignored) with `npm ci`. Idempotent: a stamp holding the lockfile's sha256 makes a rerun a no-op.
# Prints the path of the verdaccio executable on stdout.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
. "$ROOT/plugin-ts/scripts/env.sh" # Node 22 + npm on PATH
SRC="$ROOT/scripts/dist/verdaccio"
VER="$(node -p "require('$SRC/package.json').dependencies.verdaccio")"
DEST="$ROOT/.cache/verdaccio-$VER"
want="$(cat "$SRC/package.json" "$SRC/package-lock.json" | sha256sum | cut -d' ' -f1)"
if [ ! -f "$DEST/.stamp" ] || [ "$(cat "$DEST/.stamp")" != "$want" ] || [ ! -x "$DEST/node_modules/.bin/verdaccio" ]; then
  echo "[setup-registry] installing verdaccio@$VER into $DEST" >&2
  rm -rf "$DEST" && mkdir -p "$DEST"
  cp "$SRC/package.json" "$SRC/package-lock.json" "$DEST/"
  (cd "$DEST" && npm ci --no-audit --no-fund --loglevel=error --ignore-scripts >&2)
  echo "$want" >"$DEST/.stamp"
fi
echo "$DEST/node_modules/.bin/verdaccio"
