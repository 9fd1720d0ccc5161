#!/usr/bin/env bash
# The whole test bench in one command: the tests, then checks and benchmarks
# on a generated orders CSV of ROWS rows, next to the tools people use
# instead. Each step says what it checks; the first failure stops the run.
#
#   ./run_all.sh                  # 1,000,000 rows (about 56 MB): a few minutes
#   ROWS=20000000 ./run_all.sh    # about 1.1 GB
#
# WORK=DIR keeps the generated files in DIR instead of a temporary directory.
# GEN_FLAGS="-unix-ts" passes flags to scripts/csvgen: with -unix-ts the ts
# column is Unix seconds, 47-byte rows instead of 56, so 100M rows make
# 4.68 GB, the size of the Rust version's benchmark file.
# HOSTILE_SIZE=BYTES sets the size of the hostile CSV files (default 1 GiB,
# about four minutes).
# As root, it installs what it needs from Debian (ripgrep, sqlite3,
# python3-pandas); without them those comparisons are skipped.
set -euo pipefail
cd "$(dirname "$0")"
ROWS=${ROWS:-1000000}
HOSTILE_SIZE=${HOSTILE_SIZE:-1073741824}
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
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

step "install the comparison tools (Debian packages) where missing"
need=()
command -v rg > /dev/null || need+=(ripgrep)
command -v sqlite3 > /dev/null || need+=(sqlite3)
/usr/bin/python3 -c 'import pandas' 2> /dev/null || need+=(python3-pandas)
/usr/bin/python3 -c 'import pytest' 2> /dev/null || need+=(python3-pytest)
if [ ${#need[@]} -gt 0 ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
		apt-get update -qq && apt-get install -y -qq "${need[@]}" > /dev/null
	else
		echo "not installing ${need[*]} (needs root and apt-get): those comparisons will be skipped"
	fi
fi

step "build the csvidx binary (static: it starts faster)"
CGO_ENABLED=0 go build -o "$WORK/csvidx" ./cmd/csvidx
csvidx="$WORK/csvidx"

step "every test (./test.sh: Go tests, the differential test against Python's csv module, the Python binding)"
t=$(now)
./test.sh
note "./test.sh" "passed in $(elapsed "$t") s"

step "generate $ROWS orders rows"
go run ./scripts/csvgen -rows "$ROWS" ${GEN_FLAGS:-} -o "$WORK/orders.csv" -keys-out "$WORK/keys.txt" -keys-n 1000 -stats 2> "$WORK/stats.txt"
cat "$WORK/stats.txt"
ordinary=$(awk '/^ordinary ids present:/ { print $4 }' "$WORK/stats.txt")
heavy=$(awk '/^heavy ids present:/ { print $4 }' "$WORK/stats.txt")
missing=$(awk '/^missing id:/ { print $3 }' "$WORK/stats.txt")
note "CSV" "$ROWS rows, $(stat -c %s "$WORK/orders.csv") bytes"

step "build the index, and verify that it equals a fresh build"
"$csvidx" build "$WORK/orders.csv" --key user_id
"$csvidx" verify "$WORK/orders.csv"
note "csvidx verify" "the index equals a fresh build"

step "counts of about 2000 keys (existing, heavy, missing) against Python's csv module"
python3 scripts/check_counts.py --csv "$WORK/orders.csv" --csvidx "$csvidx"
note "scripts/check_counts.py" "every count equal"

step "parallel build, verify and update: the same index and tail at 1, 2 and 4 threads"
go run ./scripts/threads_check -csv "$WORK/orders.csv" -bin "$csvidx"
note "scripts/threads_check" "index and tail identical at every thread count, verified"

step "external sort: the same index at every memory limit, memory near the limit, no temp file left"
go run ./scripts/extsort_check -csv "$WORK/orders.csv" -bin "$csvidx" -limits 32,64,256,1024,100000
note "scripts/extsort_check" "identical at every limit, no temp file"

step "SIGKILL at random moments of build, update and compact (up to 5M rows)"
go run ./scripts/killcheck -rows $((ROWS < 5000000 ? ROWS : 5000000)) -kills 40 -bin "$csvidx"
note "scripts/killcheck" "0 broken"

step "disk full (tmpfs, as root) and file size limit during build, external sort, update and compact"
go run ./scripts/diskfull -rows 1000000 -bin "$csvidx"
note "scripts/diskfull" "old index intact, no temp bytes"

step "hostile CSV files of $HOSTILE_SIZE bytes (unterminated quote, one giant field and key, newlines in quotes, 10^8 tiny rows per GiB, NUL, invalid UTF-8, a million columns) at --mem-limit-mib 64"
go run ./scripts/hostile -size "$HOSTILE_SIZE" -mem 64 -bin "$csvidx" -work "$WORK/hostile"
note "scripts/hostile" "each built within 64+32 MiB and 4x a plain build, and checked"

step "the fence: lookups with and without it, warm and cold"
go run ./scripts/fence_check -csv "$WORK/orders.csv" -keys "$WORK/keys.txt" -bin "$csvidx"
note "scripts/fence_check" "table above"

step "benchmarks: csvidx next to grep, ripgrep, DuckDB, SQLite and pandas on the same file"
go run ./scripts/bench -csv "$WORK/orders.csv" -keys "$WORK/keys.txt" -bin "$csvidx" -work "$WORK" \
	-ordinary "$ordinary" -heavy "$heavy" -missing "$missing"
note "scripts/bench" "table above, JSON in results/"

step "summary"
printf '%-28s %s\n' "step" "result"
for row in "${summary[@]}"; do
	printf '%-28s %s\n' "${row%%|*}" "${row#*|}"
done
