#!/bin/sh
# Builds one index over many CSV files with GNU parallel: the recipe of
# docs/distributed.md ("Recipes"), which cmd/csvidx's TestRecipeParallel
# runs as it is written here.
#
#   scripts/recipes/parallel.sh MANIFEST KEY FILE...     # FILE: paths, or quoted patterns
#
# PARTITIONS (default 4) is the number of index files, JOBS (default: the
# cores) how many tasks run at once; add --sshlogin to parallel's options
# to spread the tasks over machines that see the same files.
set -eu
manifest=$1 key=$2
shift 2
csvidx plan "$@" --key "$key" --index "$manifest" --partitions "${PARTITIONS:-4}" > "$manifest.plan-out"
read -r plan tasks parts < "$manifest.plan-out"
rm "$manifest.plan-out"
opts="--will-cite --halt now,fail=1 --retries 2 --jobs ${JOBS:-100%}"
seq 0 $((tasks - 1)) | parallel $opts csvidx map --plan "$plan" --task {}
seq 0 $((parts - 1)) | parallel $opts csvidx reduce --plan "$plan" --partition {}
csvidx commit --plan "$plan"
