#!/usr/bin/env bash
# Spike attribution against a kernel section the probe cannot preempt,
# planted in a QEMU guest (bench/attribution-recall/qemu-nonpreempt, one
# round): Debian's generic kernel (PREEMPT_DYNAMIC) booted with
# preempt=none, the cyclic probe on CPU 1 beside a SCHED_OTHER task mapping
# 64 MB populated at once, unmapping it and starting again 50 ms later
# (tests/integration/plant-nonpreempt.c).  Its spikes above 2 ms must be
# named non-preemptible:lw-unmap (recall 75 %, precision 90 %; the bench
# measured 97 % and 100 %).  The control, the same guest with preempt=full:
# the probe preempts the task at the end of the interrupt that woke it, so
# at most half as many spikes are named so: those that fell in a section
# under a spinlock, which the emulator stretches the more the host is
# loaded (the bench measured 1 against 1420 on a quiet host; with
# stress-ng --cpu 2 on the host, 69 against 268, each rightly named).
#
# Skips (77) without qemu-system-x86_64, a static busybox, a static C
# library or the kernel package.  Two boots under TCG: 1 to 3 minutes (a
# guest that hangs is booted once more, and the bench says so).
. "$(dirname "$0")/lib.sh"
need_cmd "$PYTHON"
mk_tmp
[ -n "${KEEP:-}" ] && trap - EXIT && echo "keeping $TMP"
rc=0
LATWATT=$LATWATT "$TOP/bench/attribution-recall/qemu-nonpreempt" --rounds 1 --seconds 6 \
	--kernel "${QEMU_TEST_KERNEL:-6.1}" --out "$TMP/b" >"$TMP/bench.out" 2>&1 || rc=$?
sed 's/^/  /' "$TMP/bench.out"
case $rc in
0) ;;
77) skip_all "$(sed -n 's/^qemu-nonpreempt: unavailable: //p' "$TMP/bench.out" | tail -n1)" ;;
*)	# what the guest was doing when it failed or timed out
	for f in "$TMP"/b/*.board "$TMP"/b/*/console.log; do
		[ -f "$f" ] && { echo "  --- tail of $f"; tail -n 25 "$f" | sed 's/^/  /'; }
	done
	fail "guest-runs" "status $rc"; finish ;;
esac
pass "guest-runs"
for m in none full; do
	check "guest-preempt-$m" grep -qx "Dynamic Preempt: $m" "$TMP/b/$m.1.model"
done
"$PYTHON" - "$TMP/b/totals.json" <<'PY' && pass "nonpreempt-recall-precision" || fail "nonpreempt-recall-precision" "see above"
import json, sys
t = json.load(open(sys.argv[1]))["none"]
print("preempt=none: %d of %d caused named, %d of %d named correct" % (t["named"], t["caused"], t["correct"], t["attributed"]))
assert t["caused"] >= 5, "too few spikes to judge"
assert t["named"] >= 0.75 * t["caused"]
assert t["attributed"] and t["correct"] >= 0.9 * t["attributed"]
PY
"$PYTHON" - "$TMP/b/totals.json" <<'PY' && pass "preempt-full-control" || fail "preempt-full-control" "see above"
import json, sys
t = json.load(open(sys.argv[1]))
n, f = t["none"]["attributed"], t["full"]["attributed"]
print("named non-preemptible:lw-unmap: %d with preempt=none, %d with preempt=full" % (n, f))
assert 2 * f <= n
PY
finish
