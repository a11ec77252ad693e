#!/usr/bin/env bash
# The tools the whole suite needs beyond `make models` and the plugin toolchain, installed the same
# way for CI (.ci/run) and for `make test` on a newcomer's machine: Debian's file, chromium and a CJK font (test-browser), qemu-aarch64 and the
# arm64 runtime libraries (test-qemu), the pinned verdaccio registry (test-install), the pinned MCP
# TypeScript SDK (test-mcp-npm), and the ONNX Runtime tarballs the packages are built from.
# Idempotent: what is present is checked and skipped, so a second run costs about a second.
# Debian packages need root: as another user it uses sudo when it can, else it names the command.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

apt_pkgs=(file chromium fonts-wqy-zenhei qemu-user-static libc6-arm64-cross libstdc++6-arm64-cross libgcc-s1-arm64-cross)
missing=()
for p in "${apt_pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  if ! command -v apt-get >/dev/null; then
    echo "test-tools: need ${missing[*]} (the Debian names; install them with your package manager)" >&2
    exit 1
  fi
  as_root=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
      as_root=(sudo -n)
    else
      echo "test-tools: need root to install ${missing[*]}: sudo apt-get install -y ${missing[*]}" >&2
      exit 1
    fi
  fi
  echo "test-tools: installing ${missing[*]} from apt" >&2
  export DEBIAN_FRONTEND=noninteractive
  # shellcheck source=lib/apt.sh
  . "$ROOT/scripts/lib/apt.sh"
  apt_as=("${as_root[@]}")
  apt_get install -y -q "${missing[@]}" >/dev/null ||
    { apt_get update -q >/dev/null && apt_get install -y -q "${missing[@]}" >/dev/null; }
fi
bash "$ROOT/scripts/dist/setup-registry.sh" >/dev/null
bash "$ROOT/scripts/mcp-npm/setup.sh" >/dev/null
bash "$ROOT/scripts/dist.sh" --fetch >/dev/null
