#!/usr/bin/env bash
# make test-browser: the web client's Memory tab of the installed dsh-somni, in headless Chromium
# (plugin-ts/test/install/browser.mjs). Builds the packages for this machine's platform only into a
# temp dir (fresh, whatever dist/ holds), installs the pinned verdaccio (cached), needs apt's chromium
# (scripts/test-tools.sh installs it). Screenshots land in .cache/screenshots/ (SOMNI_SCREENSHOTS, which
# `make screenshots` points at the committed docs/screenshots/). The last line is
# "browser: N passed, N failed"; the exit status is non-zero when anything failed.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$ROOT/plugin-ts/scripts/env.sh"
export PATH="/usr/local/go/bin:$PATH"
chromium="${SOMNI_CHROMIUM:-/usr/bin/chromium}"
[ -x "$chromium" ] || { echo "[test-browser] $chromium missing: run scripts/test-tools.sh (apt-get install chromium)" >&2; echo "browser: 0 passed, 1 failed"; exit 1; }
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) host=linux-x64 ;;
  Linux-aarch64 | Linux-arm64) host=linux-arm64 ;;
  Darwin-x86_64) host=darwin-x64 ;;
  Darwin-arm64) host=darwin-arm64 ;;
  *) echo "[test-browser] no somni platform package for $(uname -s) $(uname -m)" >&2; exit 1 ;;
esac
dist="$(mktemp -d "${TMPDIR:-/tmp}/somni-dist-browser.XXXXXX")"
trap 'rm -rf "$dist"' EXIT
verdaccio="$(bash "$ROOT/scripts/dist/setup-registry.sh")"
SOMNI_DIST_DIR="$dist" SOMNI_DIST_PLATFORMS="$host" bash "$ROOT/scripts/dist.sh"
cd "$ROOT/plugin-ts"
SOMNI_VERDACCIO="$verdaccio" SOMNI_DIST_DIR="$dist" SOMNI_CHROMIUM="$chromium" node test/install/browser.mjs
