#!/usr/bin/env bash
# The test bench in one command: tests, then a generated file of ROWS orders rows
# indexed, verified and queried next to a full scan.
#
#   ./run_all.sh                 # 1,000,000 rows (about 55 MB)
#   ROWS=20000000 ./run_all.sh   # about 1.1 GB
#
# WORK=DIR keeps the generated files in DIR instead of a temporary directory.
set -euo pipefail
cd "$(dirname "$0")"
ROWS=${ROWS:-1000000}
if [ -n "${WORK:-}" ]; then
	mkdir -p "$WORK"
else
	WORK=$(mktemp -d)
	trap 'rm -rf "$WORK"' EXIT
fi

step() { printf '\n== %s\n' "$*"; }
summary=()
note() { summary+=("$1|$2"); }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }

step "build the csvidx binary (static: it starts faster)"
CGO_ENABLED=0 go build -o "$WORK/csvidx" ./cmd/csvidx
csvidx="$WORK/csvidx"

step "unit, fuzz-corpus, golden and end-to-end tests (go test ./...)"
go test ./...
note "go test ./..." "passed"

step "differential test against Python's csv module"
python3 scripts/oracle_test.py
note "scripts/oracle_test.py" "passed"

step "generate $ROWS orders rows"
go run ./scripts/csvgen -rows "$ROWS" -o "$WORK/orders.csv" -keys-out "$WORK/keys.txt" -keys-n 1000 -stats 2> "$WORK/stats.txt"
cat "$WORK/stats.txt"
size=$(stat -c %s "$WORK/orders.csv")
ordinary=$(awk '/^ordinary ids present:/ { print $4 }' "$WORK/stats.txt")
heavy=$(awk '/^heavy ids present:/ { print $4 }' "$WORK/stats.txt")
note "CSV" "$ROWS rows, $size bytes"

step "build the index"
t=$(now)
"$csvidx" build "$WORK/orders.csv" --key user_id
note "build" "$(elapsed "$t") s"

step "verify: the index equals a fresh build"
"$csvidx" verify "$WORK/orders.csv"
note "verify" "equal"

step "counts: csvidx agrees with a full scan by grep"
for key in "$ordinary" "$heavy"; do
	want=$(grep -c -E "^[0-9]+,$key," "$WORK/orders.csv" || true)
	got=$("$csvidx" get "$WORK/orders.csv" "$key" | grep -c -E "^[0-9]+,$key," || true)
	echo "user $key: csvidx $got rows, grep $want lines"
	[ "$got" = "$want" ] || { echo "MISMATCH for user $key"; exit 1; }
done
note "csvidx vs grep counts" "equal for users $ordinary and $heavy"

step "benchmarks: csvidx next to full scans of the same file"
go run ./scripts/bench -csv "$WORK/orders.csv" -keys "$WORK/keys.txt" -bin "$csvidx" -rows "$ROWS" \
	-ordinary "$ordinary" -heavy "$heavy"
note "scripts/bench" "table above, JSON in results/"

step "summary"
printf '%-32s %s\n' "step" "result"
for row in "${summary[@]}"; do
	printf '%-32s %s\n' "${row%%|*}" "${row#*|}"
done
