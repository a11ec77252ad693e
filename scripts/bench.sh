#!/usr/bin/env bash
# Prints every performance number the issues ask for. Benchmarks live beside the
# code they measure (go test -bench); this only runs them in one place.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "# somni bench $(date -u +%FT%TZ) $(go version | cut -d' ' -f3) $(nproc) cores"

# The release build, as scripts/dist.sh makes it: its size, what runs before
# main (package initialisation, median of 21 starts), and the binary the
# spawn benchmark starts.
rel_dir=$(mktemp -d)
trap 'rm -rf "$rel_dir"' EXIT
rel="$rel_dir/somni-sidecar"
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$rel" ./cmd/somni-sidecar
echo "release binary $(go env GOOS)/$(go env GOARCH) (CGO_ENABLED=0 -trimpath -s -w): $(stat -c %s "$rel" 2>/dev/null || stat -f %z "$rel") bytes"
trace="$rel_dir/inittrace"
for run in $(seq 21); do
  GODEBUG=inittrace=1 "$rel" --help 2>&1 >/dev/null | awk -v run="$run" '/^init /{print run, $2, $5}'
done >"$trace"
median=$(awk '{s[$1] += $3} END {for (r in s) print s[r]}' "$trace" | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
echo "init before main (sum of package inits, median of 21 starts): $median ms; most costly, mean ms:"
awk '{ms[$2] += $3} END {for (p in ms) printf "  %.3f %s\n", ms[p] / 21, p}' "$trace" | sort -rn | head -8

SOMNI_BENCH_BIN="$rel" go test -run '^$' -bench . -skip SessionAppend -benchtime "${BENCHTIME:-2s}" -count 1 ./... 2>&1 | grep -Ev '^(goos|goarch|pkg|cpu):|^PASS$|^ok ' || true
# Capture as the outside measurement counts it: 20k pipelined appends a run
# (a longer run fills session-log with more files), median of 5 runs.
for run in 1 2 3 4 5; do
  SOMNI_BENCH_BIN="$rel" go test -run '^$' -bench SessionAppend -benchtime 20000x -count 1 ./cmd/somni-sidecar 2>&1 | awk '/^BenchmarkSessionAppend/{print $1, $3}'
done | sort -k1,1 -k2,2n | awk '{v[$1] = v[$1] " " $2; n[$1]++} END {for (k in v) {split(substr(v[k], 2), a, " "); print k, "appends/s median of", n[k] ":", a[int((n[k] + 1) / 2)], "(runs:" v[k] ")"}}' | sort
