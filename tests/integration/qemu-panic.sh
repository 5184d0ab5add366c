#!/bin/bash
# QEMU reference board, failure paths: a guest whose init is wrong panics
# (panic=-1, -no-reboot) and qemu-board ends at once with status 3, a clear
# error and the console log; a guest that hangs is killed at --timeout with
# status 4.  Neither needs latwatt in the guest.
#
# Skips (77) without qemu-system-x86_64, busybox-static or the kernel package.
# About 30 s of wall time.
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/integration/lib.sh"

board="$TOP/scripts/qemu-board"
kernel=${QEMU_TEST_KERNEL:-6.1-rt}

need_cmd qemu-system-x86_64
need_cmd cpio
need_static_busybox
mk_tmp
if ! "$board" fetch "$kernel" >"$TMP/fetch.log" 2>&1; then
	skip_all "kernel $kernel not available: $(grep error: "$TMP/fetch.log" | tail -n1)"
fi

# A wrong init: /bin/false exits, the kernel panics, QEMU exits.
start=$(date +%s)
rc=0
"$board" boot "$kernel" -o "$TMP/panic" --no-latwatt --rdinit /bin/false --timeout 120 -c true \
	>"$TMP/panic.log" 2>&1 || rc=$?
secs=$(( $(date +%s) - start ))
sed 's/^/  /' "$TMP/panic.log"
[ $rc -eq 3 ] && pass "panic: exit status 3" || fail "panic: exit status 3" "status $rc"
check "panic: error names the panic" grep -q 'error: guest kernel panicked: Kernel panic - not syncing' "$TMP/panic.log"
check "panic: error names the console log" grep -q "console log: $TMP/panic/console.log" "$TMP/panic.log"
check "panic: console log kept" grep -q 'Kernel panic - not syncing' "$TMP/panic/console.log"
[ $secs -lt 100 ] && pass "panic: no wait for the timeout (${secs}s)" || fail "panic: no wait for the timeout" "${secs}s"

# A hang: the guest command never ends.
start=$(date +%s)
rc=0
"$board" boot "$kernel" -o "$TMP/hang" --no-latwatt --timeout 20 -c 'sleep 600' \
	>"$TMP/hang.log" 2>&1 || rc=$?
secs=$(( $(date +%s) - start ))
sed 's/^/  /' "$TMP/hang.log"
[ $rc -eq 4 ] && pass "hang: exit status 4" || fail "hang: exit status 4" "status $rc"
check "hang: error names the timeout" grep -q 'error: guest did not finish within 20s' "$TMP/hang.log"
check "hang: console log kept" grep -q 'latwatt-guest: job start' "$TMP/hang/console.log"
[ $secs -lt 60 ] && pass "hang: killed in time (${secs}s)" || fail "hang: killed in time" "${secs}s"
finish
