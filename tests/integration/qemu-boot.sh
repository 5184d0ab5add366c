#!/bin/bash
# QEMU reference board, end to end: boot Debian's 6.1 PREEMPT_RT kernel under
# TCG, run 'latwatt run -d 10s' in the guest, and check the run directory that
# comes back: complete, PREEMPT_RT as the guest itself recorded it, the
# board's command line, and 'latwatt analyze' accepts it.
#
# Skips (77) without qemu-system-x86_64, busybox-static, the kernel package
# (cached or from apt) or a latwatt binary.  About 20 s of wall time on two
# shared cores once the kernel is cached (about 35 s the first time).
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/integration/lib.sh"

board="$TOP/scripts/qemu-board"
kernel=${QEMU_TEST_KERNEL:-6.1-rt}

need_cmd qemu-system-x86_64
need_cmd cpio
[ -x "$LATWATT" ] || skip_all "no latwatt binary at $LATWATT (make)"
need_static_busybox
mk_tmp
if ! "$board" fetch "$kernel" >"$TMP/fetch.log" 2>&1; then
	skip_all "kernel $kernel not available: $(grep error: "$TMP/fetch.log" | tail -n1)"
fi

run=$TMP/out/$kernel
start=$(date +%s)
rc=0
"$board" run "$kernel" -o "$run" --latwatt "$LATWATT" --timeout 240 -- -d 10s \
	>"$TMP/board.log" 2>&1 || rc=$?
secs=$(( $(date +%s) - start ))
sed 's/^/  /' "$TMP/board.log"
echo "  boot + 10 s run: ${secs}s wall"

if [ $rc -eq 0 ]; then pass "qemu-board run exits 0"; else fail "qemu-board run exits 0" "status $rc"; fi
check "console log kept next to the run" test -s "$run.console.log"
check "host record kept next to the run" grep -q '^result=job-exit-0$' "$run.qemu.txt"
if [ ! -f "$run/manifest.json" ]; then
	fail "run directory came back" "no $run/manifest.json"
	tail -n 30 "$run.console.log" 2>/dev/null | sed 's/^/  console: /'
	finish
fi
pass "run directory came back"

m=$run/manifest.json
status=$(json "$m" '["status"]' 2>/dev/null || echo "?")
[ "$status" = complete ] && pass "manifest status complete" || fail "manifest status complete" "status is $status"
version=$(json "$m" '["system"]["kernel"]["version"]' 2>/dev/null || echo "?")
case $version in
*PREEMPT_RT*) pass "guest kernel version says PREEMPT_RT" ;;
*) fail "guest kernel version says PREEMPT_RT" "system.kernel.version is '$version'" ;;
esac
rt=$(json "$m" '["system"]["preempt"]["rt"]' 2>/dev/null || echo "?")
[ "$rt" = True ] && pass "manifest system.preempt.rt" || fail "manifest system.preempt.rt" "is $rt"
sysrt=$(json "$m" '["system"]["preempt"]["sys_kernel_realtime"]' 2>/dev/null || echo "?")
[ "$sysrt" = True ] && pass "guest /sys/kernel/realtime recorded" || fail "guest /sys/kernel/realtime recorded" "is $sysrt"
nohz=$(json "$m" '["system"]["nohz_full"]' 2>/dev/null || echo "?")
[ "$nohz" = 1 ] && pass "guest nohz_full is CPU 1" || fail "guest nohz_full is CPU 1" "is '$nohz'"
board_name=$(json "$m" '["board"]' 2>/dev/null || echo "?")
[ "$board_name" = qemu-x86_64 ] && pass "manifest board qemu-x86_64" || fail "manifest board qemu-x86_64" "is '$board_name'"

# analyze exits 1 when the run breaks one of the board's budgets (a slow
# host can): that is a verdict, not a failure to analyze
rc=0
"$LATWATT" analyze "$run" >"$TMP/analyze.txt" 2>&1 || rc=$?
if [ $rc -eq 0 ] || { [ $rc -eq 1 ] && grep -q '^verdict: FAIL: ' "$TMP/analyze.txt"; }; then
	pass "latwatt analyze on the guest's run"
	sed 's/^/  /' "$TMP/analyze.txt"
else
	fail "latwatt analyze on the guest's run" "$(tail -n 3 "$TMP/analyze.txt")"
fi
finish
