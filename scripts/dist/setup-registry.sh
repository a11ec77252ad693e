#!/usr/bin/env bash
# Installs the throwaway local npm registry the install test publishes to: verdaccio, pinned in
# scripts/dist/verdaccio/package.json and package-lock.json, into .cache/verdaccio-<version>
# (gitignored) with `npm ci`. Idempotent: a stamp holding the lockfile's sha256 makes a rerun a no-op.
# Prints the path of the verdaccio executable on stdout.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dir="$(bash "$ROOT/scripts/npm-tool.sh" "$ROOT/scripts/dist/verdaccio" verdaccio verdaccio)"
echo "$dir/node_modules/.bin/verdaccio"
