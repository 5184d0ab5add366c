#!/bin/bash
# LAVA's own dispatcher on the QEMU reference board: scripts/lava-check runs
# boards/lava/latwatt.yaml with lava-run (no server) against Debian's 6.1
# PREEMPT_RT kernel and checks every test case: the board's budgets met, a
# budget broken on purpose failing, the metrics with measurements, the run
# directory back over the console.  About 35 s once the kernel is cached.
#
# Skips (77), saying why, without lava-dispatcher and python3-jinja2
# (scripts/deps-lava.txt), the QEMU board's tools, the kernel package, or
# LAVA's device-type templates (lava-server's package, fetched with
# apt-get download).
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/integration/lib.sh"

need_root
need_cmd lava-run
need_cmd qemu-system-x86_64
[ -x "$LATWATT" ] || skip_all "no latwatt binary at $LATWATT (make)"
need_static_busybox
mk_tmp

start=$(date +%s)
rc=0
"$TOP/scripts/lava-check" -k "${QEMU_TEST_KERNEL:-6.1-rt}" -o "$TMP/check" --latwatt "$LATWATT" \
	>"$TMP/check.log" 2>&1 || rc=$?
sed 's/^/  /' "$TMP/check.log"
echo "  lava-check: $(( $(date +%s) - start ))s wall"
if [ $rc = 77 ]; then
	skip_all "$(grep -m1 'cannot check:' "$TMP/check.log" | sed 's/.*cannot check: //')"
fi

# every line of the check, as a test result
while read -r word rest; do
	case $word in
	ok) pass "$rest" ;;
	FAIL) fail "${rest%%:*}" "${rest#*: }" ;;
	esac
done <"$TMP/check.log"
if [ $rc = 0 ]; then
	pass "lava-check exits 0"
else
	fail "lava-check exits 0" "status $rc"
	# keep what the dispatcher said for whoever reads the test log
	tail -n 20 "$TMP/check/lava.log" 2>/dev/null | cut -c1-300 | sed 's/^/  lava.log: /'
fi
finish
