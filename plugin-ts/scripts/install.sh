#!/usr/bin/env bash
# `make install PROFILE=web`: packs the plugin (compiled lib/ plus the sidecar binary) and installs
# the tarball into a DSH profile with `dsh plugin --profile P add`, which also applies the bundle
# patch (cordis.patch.yml) so the plugin is mounted on the profile's next boot.
# DSH_HOME decides which user's profiles are changed (default ~/.dsh).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/env.sh"
PROFILE="${1:-${PROFILE:-web}}"
bash "$PLUGIN_DIR/scripts/build.sh"
if [ ! -x "$PLUGIN_DIR/bin/somni-sidecar" ]; then
  echo "[install] $SIDECAR_BIN missing: run 'make build' first" >&2
  exit 1
fi
out="$HARNESS_DIR/pack"
rm -rf "$out" && mkdir -p "$out"
(cd "$PLUGIN_DIR" && pnpm pack --pack-destination "$out" >/dev/null)
tgz="$(ls "$out"/dsh-somni-*.tgz)"
listing="$(tar -tzf "$tgz")"
grep -qx 'package/bin/somni-sidecar' <<<"$listing" || { echo "[install] $tgz lacks bin/somni-sidecar" >&2; exit 1; }
# Keep a stable copy: the profile's package.json refers to the tarball by path.
dest="${DSH_HOME:-$HOME/.dsh}/somni-plugin"
mkdir -p "$dest"
cp "$tgz" "$dest/"
final="$dest/$(basename "$tgz")"
echo "[install] adding $final to profile $PROFILE" >&2
dsh plugin --profile "$PROFILE" add "$final"
echo "[install] done: 'dsh --profile $PROFILE' now loads dsh-somni (memory in ${DSH_HOME:-$HOME/.dsh}/somni)" >&2
