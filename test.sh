#!/usr/bin/env bash
# Every test csvidx has: the Go tests (unit, fuzz seed corpora, golden bytes,
# crash points and corruption, end-to-end CLI scripts), the differential test
# against Python's csv module, and the Python binding's tests against pandas.
# As root it installs what they need from Debian (python3-pandas,
# python3-pytest); .ci/run calls this same script.
set -euo pipefail
cd "$(dirname "$0")"

if ! /usr/bin/python3 -c 'import pandas, pytest' 2> /dev/null; then
	if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
		apt-get update -qq && apt-get install -y -qq python3-pandas python3-pytest > /dev/null
	else
		echo "test.sh: the Python binding's tests need Debian's python3-pandas and python3-pytest" >&2
		exit 1
	fi
fi

go test ./...
python3 scripts/oracle_test.py
python3 scripts/join_oracle_test.py
python/build.sh
PYTHONPATH=python /usr/bin/python3 -m pytest -q -p no:cacheprovider python/tests
