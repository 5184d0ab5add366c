#!/usr/bin/env bash
# latwatt's timerlat probe reads the kernel's timerlat samples as rtla does:
# in the QEMU PREEMPT_RT board (Debian's 6.12-rt, else 6.1-rt), one timerlat run read by
# latwatt and by Debian's `rtla timerlat hist` at once (each its own trace
# instance), and rtla's histogram found as one stretch of latwatt's samples
# with not one sample different, per CPU and stage (IRQ, thread), in
# rtla's 100 ns buckets (bench/rtla-timerlat --same-samples).  A decoding
# that moved one sample in fifty by 100 ns is caught (counted hundreds
# apart).  Also: the guest's latwatt keeps its run lock and journal in /run.
#
# Skips (77) without qemu-system-x86_64, busybox-static, the kernel package
# or rtla's package (cached or from apt).  About 35 s of guest time, 60 s of
# wall time on two shared cores once both are cached.  Measures: run it under
# flock /tmp/latwatt-kernel.lock.
. "$(dirname "$0")/lib.sh"

need_cmd qemu-system-x86_64
need_cmd cpio
need_cmd dpkg-deb
[ -x "$LATWATT" ] || skip_all "no latwatt binary at $LATWATT (make)"
need_static_busybox
mk_tmp
board="$TOP/scripts/qemu-board"
kernel=${QEMU_TEST_KERNEL:-6.12-rt}
fetch_rt_kernel

rc=0
LATWATT=$LATWATT "$TOP/bench/rtla-timerlat" --same-samples --duration 5 --kernel "$kernel" --out "$TMP/b" \
	>"$TMP/bench.out" 2>&1 || rc=$?
if grep -q "cannot download Debian's rtla package" "$TMP/bench.out"; then
	skip_all "rtla's package not cached and not downloadable (apt-get download rtla)"
fi
if [ $rc -ne 0 ]; then
	fail "same-samples" "bench exit $rc: $(tail -n 5 "$TMP/bench.out")"
	finish
fi
sed 's/^/  /' "$TMP/bench.out"
counts=$(grep -E '^\| (irq|thread) \| [0-9]+ \| [0-9]+ \|' "$TMP/bench.out" | awk -F'|' '{print $4}')
few=$(echo "$counts" | awk '$1 < 4000' | wc -l)
if grep -q '^same samples: 4 of 4 series identical' "$TMP/bench.out" && [ "$few" = 0 ] &&
	[ "$(echo "$counts" | wc -l)" = 4 ]; then
	pass "same-samples"
else
	fail "same-samples" "rtla's samples per series: $(echo $counts); $(grep '^same samples' "$TMP/bench.out")"
fi
if grep -q 'no run lock\|no restore journal' "$TMP/b/guest/latwatt-1.log"; then
	fail "guest-run-state" "$(cat "$TMP/b/guest/latwatt-1.log")"
else
	pass "guest-run-state"
fi
finish
