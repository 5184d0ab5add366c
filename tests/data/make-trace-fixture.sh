#!/usr/bin/env bash
# Record tests/data/trace-run: the small run directory (trace.dat, samples,
# manifest.json) that tests/unit/test_trace.c reads.  As root, with tracefs:
#   tests/data/make-trace-fixture.sh [./latwatt]
# It is committed; re-record it only when the trace.dat writer changes.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
lw=${1:-$top/latwatt}
out=$top/tests/data/trace-run
rm -rf "$out"
"$lw" run -d 200ms -i 1000 --threshold 20 --no-kallsyms --trace-buffer 256k -q -o "$out"
rm -f "$out"/analysis.json
du -sh "$out"
