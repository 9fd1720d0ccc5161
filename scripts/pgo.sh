#!/usr/bin/env bash
# Writes cmd/csvidx/default.pgo, the CPU profile that go build applies to the
# csvidx binary (profile-guided optimization, https://go.dev/doc/pgo): with
# it the compiler inlines the calls of the scan's per-row loop and lays out
# its hot code: 10% less CPU in the scan phase of a 100M-row build (6.34 to
# 5.68 s; README, Parallel build). The profile is of the library's own benchmarks
# on a generated CSV: builds (the scan, the sort, the writing) and lookups.
# Run it again after changing those paths; any profile gives a correct
# binary, a stale one only a slower one.
#
#   scripts/pgo.sh               # 20M rows, about 1 GB and a minute
#   ROWS=5000000 scripts/pgo.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-20000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

csv=$work/orders.csv
go run ./scripts/csvgen -rows "$ROWS" -unix-ts -o "$csv" -keys-out "$work/keys.txt" -keys-n 1000
CGO_ENABLED=0 go build -o "$work/csvidx" ./cmd/csvidx
"$work/csvidx" build "$csv" --key user_id # the index BenchmarkLookup reads
export CSVIDX_BENCH_CSV=$csv CSVIDX_BENCH_KEYS=$work/keys.txt
go test ./index -run '^$' -bench '^BenchmarkBuild$' -benchtime 3x -cpuprofile "$work/build.pprof" -o "$work/index.test"
go test ./index -run '^$' -bench '^BenchmarkLookup$' -benchtime 1s -cpuprofile "$work/lookup.pprof" -o "$work/index.test"
head -n $((ROWS / 10 + 1)) "$csv" > "$work/left.csv"
awk -v n=$((ROWS / 20)) 'BEGIN { print "user_id,name,country"; for (i = 1; i <= n; i++) print i ",user " i "," (i % 6) }' > "$work/users.csv"
"$work/csvidx" build "$work/users.csv" --key user_id
export CSVIDX_BENCH_JOIN_LEFT=$work/left.csv CSVIDX_BENCH_JOIN_RIGHT=$work/users.csv CSVIDX_BENCH_JOIN_KEY=user_id
go test ./join -run '^$' -bench '^BenchmarkJoin$' -benchtime 3x -cpuprofile "$work/join.pprof" -o "$work/join.test"
# The profiles name functions, not binaries: one merged profile serves every package of the binary.
go tool pprof -proto "$work/index.test" "$work/build.pprof" "$work/lookup.pprof" > "$work/index.pgo"
go tool pprof -proto "$work/join.test" "$work/join.pprof" > "$work/join.pgo"
go tool pprof -proto "$work/index.pgo" "$work/join.pgo" > cmd/csvidx/default.pgo
echo "wrote cmd/csvidx/default.pgo"
