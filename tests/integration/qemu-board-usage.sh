#!/bin/bash
# scripts/qemu-board command line: help, bad usage (status 2), the board
# file's kernel matrix.  Needs neither QEMU nor the network.
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/integration/lib.sh"

board="$TOP/scripts/qemu-board"
mk_tmp

expect_status() {
	local name=$1 want=$2 rc=0
	shift 2
	"$@" >"$TMP/out" 2>&1 || rc=$?
	if [ $rc -eq "$want" ]; then pass "$name"; else fail "$name" "status $rc, want $want: $(tail -n1 "$TMP/out")"; fi
}

expect_status "--help exits 0" 0 "$board" --help
check "--help lists the commands" grep -q '^  matrix -o DIR' "$TMP/out"
expect_status "no command: status 2" 2 "$board"
expect_status "unknown command: status 2" 2 "$board" frobnicate
expect_status "unknown option: status 2" 2 "$board" --frob list
expect_status "option without argument: status 2" 2 "$board" run 6.1-rt -o
expect_status "run without -o: status 2" 2 "$board" run 6.1-rt
expect_status "boot without a command: status 2" 2 "$board" boot 6.1-rt -o "$TMP/b"
expect_status "bad --timeout: status 2" 2 "$board" --timeout soon boot 6.1-rt -o "$TMP/b" -c true
expect_status "unknown kernel: status 2" 2 "$board" --cache "$TMP/cache" fetch 9.9-imaginary
check "unknown kernel: names the matrix" grep -q 'have: 6.1 6.1-rt 6.12 6.12-rt' "$TMP/out"
expect_status "module without -o: status 2" 2 "$board" module 6.1-rt
expect_status "module of a missing source: status 2" 2 "$board" module 6.1-rt -o "$TMP/m" "$TMP/none"
check "module of a missing source: names it" grep -q "no module source directory $TMP/none" "$TMP/out"
expect_status "missing board file: status 2" 2 "$board" -b "$TMP/none.yaml" list
mkdir -p "$TMP/exists/x"
expect_status "existing output refused: status 2" 2 "$board" --no-latwatt boot 6.1-rt -o "$TMP/exists" -c true

# The matrix comes from the board file.
"$board" --help >/dev/null
kernels=$(awk '/^    - name:/ { printf "%s ", $3 }' "$TOP/boards/qemu-x86_64.yaml")
[ "$kernels" = "6.1 6.1-rt 6.12 6.12-rt " ] && pass "board file lists the four kernels" ||
	fail "board file lists the four kernels" "got '$kernels'"
finish
