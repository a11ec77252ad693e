#!/usr/bin/env bash
# Prints every performance number the issues ask for. Benchmarks live beside the
# code they measure (go test -bench); this only runs them in one place.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "# somni bench $(date -u +%FT%TZ) $(go version | cut -d' ' -f3) $(nproc) cores"
go test -run '^$' -bench . -benchtime "${BENCHTIME:-2s}" -count 1 ./... 2>&1 | grep -Ev '^(goos|goarch|pkg|cpu):|^PASS$|^ok ' || true
