#!/usr/bin/env bash
# Every test csvidx has, in eight stages: the Go tests (unit, fuzz seed
# corpora, golden bytes, crash points and corruption, end-to-end CLI
# scripts), those scripts again with the codecs build and with the remote
# build, the differential tests against Python's csv module (get, then
# join), the Python binding, built and tested against pandas, and the man
# pages, which must be what the commands' help makes now. It takes
# a few minutes (2.3 on a 2-core VM from a cold Go build cache, 1.5 with a
# warm one) and prints a line as each stage starts.
# As root it installs what the tests need from Debian (python3-pandas,
# python3-pytest, python3-distributed for csvidx.dask, and the compressors
# the compressed sources are compared with: tabix's bgzip, zstd, pigz; GNU
# parallel for the recipe of docs/distributed.md), and
# versitygw with go install; .ci/run calls this same script.
set -euo pipefail
cd "$(dirname "$0")"

stages=8
stage=0
step() {
	stage=$((stage + 1))
	printf 'test.sh [%d/%d, %ds]: %s\n' "$stage" "$stages" "$SECONDS" "$*"
}

echo "test.sh: every test of csvidx in $stages stages; this takes a few minutes"
if ! /usr/bin/python3 -c 'import pandas, pytest, distributed' 2> /dev/null || ! command -v bgzip zstd pzstd pigz parallel > /dev/null; then
	if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
		echo "test.sh: installing Debian's python3-pandas, python3-pytest, python3-distributed (Dask), tabix (bgzip), zstd, pigz and GNU parallel (apt-get)"
		apt-get update -qq && apt-get install -y -qq python3-pandas python3-pytest python3-distributed tabix zstd pigz parallel > /dev/null
	else
		echo "test.sh: the tests need Debian's python3-pandas, python3-pytest, python3-distributed, tabix (bgzip), zstd, pigz and GNU parallel: run as root to install them, or apt-get install them" >&2
		exit 1
	fi
fi
# versitygw, a real S3 server the remote tests start on 127.0.0.1 (built
# from the Go module proxy once, about a minute; cached after).
export PATH="$(go env GOPATH)/bin:$PATH"
if ! command -v versitygw > /dev/null; then
	echo "test.sh: installing versitygw v1.8.0 (go install github.com/versity/versitygw/cmd/versitygw@v1.8.0)"
	go install github.com/versity/versitygw/cmd/versitygw@v1.8.0
fi
export CSVIDX_REQUIRE_TOOLS=1 # the differential tests of compressed sources, and the tests against versitygw, fail, not skip, without their tools

step "Go tests (go test ./...)"
go test ./...
step "the CLI scripts with the codecs build (go test -tags codecs ./cmd/csvidx -run TestScripts)"
# The test binary doubles as csvidx in the scripts: built with -tags codecs,
# it is csvidx-codecs, which must answer every plain-file script as the
# default build does. (TestCodecsBuild, in go test ./..., builds both
# binaries itself and runs the default one with and without csvidx-codecs.)
go test -tags codecs ./cmd/csvidx -run '^TestScripts$'
step "the CLI scripts with the remote build, and its own tests (go test -tags remote ./cmd/csvidx -run 'TestScripts|TestRemoteSchemes|TestJoinNote|TestGapFlag')"
# As csvidx-remote, the test binary reads URLs and compressed files, and
# must answer every local script as the default build does (TestRemoteBuild
# runs the real binaries against an HTTP server).
go test -tags remote ./cmd/csvidx -run '^(TestScripts|TestRemoteSchemes|TestJoinNote|TestGapFlag)$'
step "oracle: get against Python's csv module (scripts/oracle_test.py)"
python3 scripts/oracle_test.py
step "join oracle: join against a reference join over Python's csv (scripts/join_oracle_test.py)"
python3 scripts/join_oracle_test.py
step "Python build: the binding's C shared library (python/build.sh)"
python/build.sh
step "Python tests: the binding against pandas (python/tests)"
PYTHONPATH=python /usr/bin/python3 -m pytest -q -p no:cacheprovider python/tests
step "man pages: docs/man is what the help makes (cd scripts/man && go run . to update it)"
(cd scripts/man && go test ./...)
echo "test.sh: all $stages stages passed in ${SECONDS}s"
