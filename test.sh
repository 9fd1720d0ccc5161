#!/usr/bin/env bash
# Every test csvidx has, in five stages: the Go tests (unit, fuzz seed
# corpora, golden bytes, crash points and corruption, end-to-end CLI
# scripts), the differential tests against Python's csv module (get, then
# join), and the Python binding, built and tested against pandas. It takes
# a few minutes (about 3 on 2 cores) and prints a line as each stage starts.
# As root it installs what the Python tests need from Debian
# (python3-pandas, python3-pytest); .ci/run calls this same script.
set -euo pipefail
cd "$(dirname "$0")"

stages=5
stage=0
step() {
	stage=$((stage + 1))
	printf 'test.sh [%d/%d, %ds]: %s\n' "$stage" "$stages" "$SECONDS" "$*"
}

echo "test.sh: every test of csvidx in $stages stages; this takes a few minutes"
if ! /usr/bin/python3 -c 'import pandas, pytest' 2> /dev/null; then
	if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
		echo "test.sh: installing Debian's python3-pandas and python3-pytest (apt-get)"
		apt-get update -qq && apt-get install -y -qq python3-pandas python3-pytest > /dev/null
	else
		echo "test.sh: the Python binding's tests need Debian's python3-pandas and python3-pytest: run as root to install them, or apt-get install them" >&2
		exit 1
	fi
fi

step "Go tests (go test ./...)"
go test ./...
step "oracle: get against Python's csv module (scripts/oracle_test.py)"
python3 scripts/oracle_test.py
step "join oracle: join against a reference join over Python's csv (scripts/join_oracle_test.py)"
python3 scripts/join_oracle_test.py
step "Python build: the binding's C shared library (python/build.sh)"
python/build.sh
step "Python tests: the binding against pandas (python/tests)"
PYTHONPATH=python /usr/bin/python3 -m pytest -q -p no:cacheprovider python/tests
echo "test.sh: all $stages stages passed in ${SECONDS}s"
