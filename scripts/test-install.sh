#!/usr/bin/env bash
# make test-install: somni's npm packages as a user gets them (plugin-ts/test/install/run.mjs).
# Builds dist/ at VERSION and, for the upgrade, the same packages at the next patch version in a
# temp folder; installs the pinned verdaccio (cached in .cache); runs the test. The last line is
# "install: N passed, N failed"; the exit status is non-zero when anything failed.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$ROOT/plugin-ts/scripts/env.sh"
export PATH="/usr/local/go/bin:$PATH"
t0=$SECONDS
V="${SOMNI_VERSION:-$(tr -d ' \n' <"$ROOT/VERSION")}"
NEXT="$(node -p 'const [a, b, c] = process.argv[1].split("-")[0].split(".").map(Number); `${a}.${b}.${c + 1}`' "$V")"
next_dir="$(mktemp -d "${TMPDIR:-/tmp}/somni-dist-next.XXXXXX")"
trap 'rm -rf "$next_dir"' EXIT
verdaccio="$(bash "$ROOT/scripts/dist/setup-registry.sh")"
echo "[test-install] dist $V and $NEXT" >&2
SOMNI_VERSION="$V" bash "$ROOT/scripts/dist.sh"
SOMNI_VERSION="$NEXT" SOMNI_DIST_DIR="$next_dir" bash "$ROOT/scripts/dist.sh"
echo "[test-install] packages built ($((SECONDS - t0)) s)" >&2
SOMNI_VERDACCIO="$verdaccio" SOMNI_DIST_DIR="$ROOT/dist" SOMNI_DIST_NEXT_DIR="$next_dir" \
  node "$ROOT/plugin-ts/test/install/run.mjs"
