#!/bin/sh
# Builds csvidx's native library in place, python/csvidx/_libcsvidx.so, so
# that the package runs from the source tree:
#
#   python/build.sh && PYTHONPATH=python python3 -c 'import csvidx'
#
# Needs the Go toolchain and a C compiler (cgo). pip install ./python runs
# the same go build through python/buildsupport/csvidx_backend.py.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
# -pgo: the CLI's CPU profile (profile-guided optimization) serves the same code here.
CGO_ENABLED=1 go build -buildmode=c-shared -trimpath -pgo=cmd/csvidx/default.pgo -o "$here/csvidx/_libcsvidx.so" ./python/capi
rm -f "$here/csvidx/_libcsvidx.h" # the C header cgo writes; the ABI is documented in python/capi/main.go
echo "built $here/csvidx/_libcsvidx.so"
