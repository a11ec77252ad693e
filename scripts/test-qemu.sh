#!/usr/bin/env bash
# `make test-qemu`: the linux-arm64 package from dist/ runs under qemu-aarch64 (user mode, Debian's
# qemu-user-static with libc6/libstdc++6-arm64-cross as the target's root): it answers ping over a
# pipe with the local embedder live, and embeds the same texts as this machine's own build within
# 1e-4 (x64 and arm64 ONNX Runtime kernels round differently, never by more).
# Usage: scripts/test-qemu.sh [DIST_DIR]   (default dist/). Exit 0 when every check passed.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIST="${1:-$ROOT/dist}"
QEMU="$(command -v qemu-aarch64-static || command -v qemu-aarch64 || true)"
SYSROOT=/usr/aarch64-linux-gnu
fail() { echo "test-qemu: FAIL: $*" >&2; exit 1; }
[ -n "$QEMU" ] || fail "qemu-aarch64 not installed (apt-get install qemu-user-static)"
[ -f "$SYSROOT/lib/libstdc++.so.6" ] || fail "$SYSROOT lacks libstdc++ (apt-get install libc6-arm64-cross libstdc++6-arm64-cross libgcc-s1-arm64-cross)"
arm_tgz="$(ls "$DIST"/dsh-somni-linux-arm64-*.tgz 2>/dev/null | head -n1 || true)"
model_tgz="$(ls "$DIST"/dsh-somni-model-use-lite-*.tgz 2>/dev/null | head -n1 || true)"
x64_tgz="$(ls "$DIST"/dsh-somni-linux-x64-*.tgz 2>/dev/null | head -n1 || true)"
[ -n "$arm_tgz" ] && [ -n "$model_tgz" ] && [ -n "$x64_tgz" ] || fail "no linux-arm64, linux-x64 or model package in $DIST (run make dist)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for t in "$arm_tgz" "$x64_tgz" "$model_tgz"; do
  d="$work/$(basename "$t" .tgz)"; mkdir -p "$d"; tar -xzf "$t" -C "$d"
done
arm="$work/$(basename "$arm_tgz" .tgz)/package"
x64="$work/$(basename "$x64_tgz" .tgz)/package"
model="$work/$(basename "$model_tgz" .tgz)/package"
# field PKG_DIR KEY: a path from the package's "somni" field, made absolute.
field() { python3 -c 'import json,sys; print(sys.argv[1] + "/" + json.load(open(sys.argv[1] + "/package.json"))["somni"][sys.argv[2]])' "$1" "$2"; }
arm_bin="$(field "$arm" binary)"; arm_lib="$(field "$arm" ortLib)"
x64_bin="$(field "$x64" binary)"; x64_lib="$(field "$x64" ortLib)"
model_dir="$(field "$model" modelDir)"
chmod +x "$arm_bin" "$x64_bin"
file -b "$arm_bin" | grep -q 'ARM aarch64' || fail "$arm_bin is not an aarch64 executable: $(file -b "$arm_bin")"

run_arm() { "$QEMU" -L "$SYSROOT" "$arm_bin" "$@"; }
flags=(--data-dir "$work/data" --embed local --embed-model-dir "$model_dir" --ort-lib "$arm_lib" --log-level error)

echo "test-qemu: ping over a pipe" >&2
# Pings until the index is open (the embedder's id shows), up to a minute: under emulation the open
# usually takes about a second, but a loaded machine has stalled it past a fixed wait.
python3 - "$QEMU" "$SYSROOT" "$arm_bin" "$arm_lib" "${flags[@]}" <<'PY' || fail "ping under qemu"
import json, subprocess, sys, time
qemu, sysroot, binary, lib, flags = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
p = subprocess.Popen([qemu, "-L", sysroot, binary, *flags], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
deadline, r, n = time.time() + 60, None, 0
while time.time() < deadline:
    n += 1
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": n, "method": "ping", "params": {}}).encode() + b"\n")
    p.stdin.flush()
    line = p.stdout.readline()
    assert line, "the sidecar closed stdout"
    frame = json.loads(line)
    assert frame.get("id") == n, f"unexpected frame {frame}"
    r = frame["result"]
    if r["embed"].get("id"):
        break
    time.sleep(0.25)
p.stdin.close()
p.wait(timeout=30)
e = r["embed"]
assert e.get("id", "").startswith("local:") and not e.get("degraded"), f"embedder after {n} pings: {e}"
assert e["runtimeLib"] == lib and e["runtime"] == "purego", f"runtime {e}"
assert r["vector"] is True, f"vector {r['vector']}"
print(f"test-qemu: ping ok after {n} pings: version {r['version']}, embedder {e['id']}", file=sys.stderr)
PY

echo "test-qemu: embed under qemu vs this machine" >&2
texts=$'staging postgres runs on pg-stage-7, port 6543\n上线新版本的步骤：先跑迁移，再切流量\nAnn prefers tea'
t0=$(date +%s%N)
arm_vecs="$(printf '%s\n' "$texts" | run_arm "${flags[@]}" embed)"
t1=$(date +%s%N)
x64_vecs="$(printf '%s\n' "$texts" | "$x64_bin" --data-dir "$work/data" --embed local --embed-model-dir "$model_dir" --ort-lib "$x64_lib" --log-level error embed)"
python3 - "$arm_vecs" "$x64_vecs" "$(( (t1 - t0) / 1000000 ))" <<'PY' || fail "arm64 vectors"
import json, sys
a, b = json.loads(sys.argv[1]), json.loads(sys.argv[2])
assert a["id"] == b["id"] and a["id"].startswith("local:"), (a["id"], b["id"])
assert len(a["vectors"]) == len(b["vectors"]) == 3
worst = max(abs(x - y) for va, vb in zip(a["vectors"], b["vectors"]) for x, y in zip(va, vb))
assert worst <= 1e-4, f"arm64 and x64 differ by {worst}"
print(f"test-qemu: embed ok: 3 texts, max |arm64 - x64| = {worst:.2g}, {sys.argv[3]} ms under emulation", file=sys.stderr)
PY
echo "test-qemu: passed"
