#!/usr/bin/env bash
# `make install PROFILE=web`: installs the npm packages `make dist` wrote (dist/, or $SOMNI_DIST_DIR)
# into a DSH profile, the way `dsh plugin add dsh-somni` installs them from a registry: the plugin,
# the model package and this machine's platform package. No registry is needed: the tarballs are
# copied to $DSH_HOME/somni-dist/<version>-<hash>/, the profile's package.json gets pnpm overrides pointing
# the plugin's dependencies at them (the other platforms' optional packages at "-", i.e. dropped),
# and `dsh plugin --profile P add file:…/dsh-somni-<version>.tgz` installs and applies the bundle
# patch. Installing a newer version (or a rebuild) replaces plugin, binary and model; old copies are deleted.
# `make uninstall PROFILE=web` (`install.sh --uninstall P`): `dsh plugin --profile P remove dsh-somni`,
# and the overrides and copies this script added. The memory ($DSH_HOME/somni) is never touched.
# DSH_HOME decides which user's profiles are changed (default ~/.dsh).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/env.sh"
mode=install
if [ "${1:-}" = --uninstall ]; then mode=uninstall; shift; fi
PROFILE="${1:-${PROFILE:-web}}"
HOME_DIR="${DSH_HOME:-$HOME/.dsh}"
PROFILE_DIR="$HOME_DIR/profiles/$PROFILE"
KEEP="$HOME_DIR/somni-dist"
log() { printf '[%s] %s\n' "$mode" "$*" >&2; }
die() { printf '[%s] ERROR: %s\n' "$mode" "$*" >&2; exit 1; }

# set_overrides JSON: replaces the dsh-somni* keys of the profile's pnpm.overrides with JSON's.
set_overrides() {
  node - "$PROFILE_DIR/package.json" "$1" <<'JS'
const fs = require('node:fs');
const [file, add] = process.argv.slice(2);
const pkg = JSON.parse(fs.readFileSync(file, 'utf8'));
const ov = Object.fromEntries(Object.entries(pkg.pnpm?.overrides ?? {}).filter(([k]) => !k.startsWith('dsh-somni')));
Object.assign(ov, JSON.parse(add));
pkg.pnpm = { ...pkg.pnpm, overrides: ov };
if (Object.keys(ov).length === 0) delete pkg.pnpm.overrides;
if (Object.keys(pkg.pnpm).length === 0) delete pkg.pnpm;
fs.writeFileSync(file, JSON.stringify(pkg, null, 2) + '\n');
JS
}
depends_on_somni() {
  [ -f "$PROFILE_DIR/package.json" ] &&
    node -e 'process.exit(require(process.argv[1]).dependencies?.["dsh-somni"] ? 0 : 1)' "$PROFILE_DIR/package.json"
}

if [ "$mode" = uninstall ]; then
  if ! depends_on_somni; then
    log "profile $PROFILE ($PROFILE_DIR) has no dsh-somni; nothing to remove"
    exit 0
  fi
  set_overrides '{}'
  dsh plugin --profile "$PROFILE" remove dsh-somni
  rm -rf "$KEEP"
  log "done: dsh-somni removed from profile $PROFILE (memory in $HOME_DIR/somni kept)"
  exit 0
fi

DIST="${SOMNI_DIST_DIR:-$REPO_DIR/dist}"
shopt -s nullglob
plugins=("$DIST"/dsh-somni-[0-9]*.tgz)
[ "${#plugins[@]}" -eq 1 ] || die "want exactly one dsh-somni-<version>.tgz in $DIST (found ${#plugins[@]}): run 'make dist'"
VERSION="$(basename "${plugins[0]}" .tgz)"
VERSION="${VERSION#dsh-somni-}"
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) host=linux-x64 ;;
  Linux-aarch64 | Linux-arm64) host=linux-arm64 ;;
  Darwin-x86_64) host=darwin-x64 ;;
  Darwin-arm64) host=darwin-arm64 ;;
  MINGW* | MSYS* | CYGWIN*) host=win32-x64 ;;
  *) die "no somni platform package for $(uname -s) $(uname -m)" ;;
esac
tgzs=()
for p in dsh-somni dsh-somni-model-use-lite "dsh-somni-$host"; do
  [ -f "$DIST/$p-$VERSION.tgz" ] || die "$DIST/$p-$VERSION.tgz missing: run 'make dist'"
  tgzs+=("$DIST/$p-$VERSION.tgz")
done
# The folder is named by version and content: pnpm keeps a file: dependency whose path did not
# change, so a rebuilt package of the same version must arrive under a new path to replace the old.
dest="$KEEP/$VERSION-$(cat "${tgzs[@]}" | sha256sum | cut -c1-12)"
rm -rf "$dest" && mkdir -p "$dest"
cp "${tgzs[@]}" "$dest/"

# The profile must exist before its package.json can carry the overrides (dsh initialises it).
[ -f "$PROFILE_DIR/package.json" ] || dsh plugin --profile "$PROFILE" list >/dev/null
ov="{\"dsh-somni-model-use-lite\": \"file:$dest/dsh-somni-model-use-lite-$VERSION.tgz\""
for p in linux-x64 linux-arm64 darwin-x64 darwin-arm64 win32-x64; do
  if [ "$p" = "$host" ]; then ov+=", \"dsh-somni-$p\": \"file:$dest/dsh-somni-$p-$VERSION.tgz\""; else ov+=", \"dsh-somni-$p\": \"-\""; fi
done
set_overrides "$ov}"
log "adding dsh-somni $VERSION ($host) to profile $PROFILE"
dsh plugin --profile "$PROFILE" add "file:$dest/dsh-somni-$VERSION.tgz"
for f in "$PROFILE_DIR/node_modules/dsh-somni" "$PROFILE_DIR/node_modules/dsh-somni-$host"; do
  got="$(node -p 'require(process.argv[1]).version' "$f/package.json")"
  [ "$got" = "$VERSION" ] || die "$f is $got after the install, not $VERSION"
done
for old in "$KEEP"/*; do [ "$old" = "$dest" ] || rm -rf "$old"; done
log "done: 'dsh --profile $PROFILE' now loads dsh-somni $VERSION (memory in $HOME_DIR/somni)"
