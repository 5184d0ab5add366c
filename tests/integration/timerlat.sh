#!/usr/bin/env bash
# The timerlat probe.  Without the tracer: the printed reason and a run with
# the cyclic probe alone.  With it (PREEMPT_RT kernels, the QEMU RT board):
# IRQ and thread samples, our own instance removed, osnoise knobs restored,
# also after SIGINT.
. "$(dirname "$0")/lib.sh"
need_root
need_tracefs
mk_tmp

if ! grep -qw timerlat "$TRACEFS/available_tracers"; then
	"$LATWATT" run -o "$TMP/run" -d 1s -q >"$TMP/out" 2>&1
	rc=$?
	check "run without timerlat exits 0" [ $rc -eq 0 ]
	check "the reason is printed" \
		grep -q 'timerlat: the kernel has no timerlat tracer; the cyclic probe alone' "$TMP/out"
	check "manifest says timerlat did not run" \
		[ "$(json "$TMP/run/manifest.json" '["probes"]["timerlat"]["ran"]')" = False ]
	check "the cyclic probe ran" \
		[ "$(json "$TMP/run/manifest.json" '["probes"]["selected"]')" = "['cyclic']" ]
	"$LATWATT" run -o "$TMP/run2" -d 1s -q --probes timerlat >"$TMP/out2" 2>&1
	check "--probes timerlat without the tracer: cyclic alone, exit 0" [ $? -eq 0 ]
	skip "timerlat samples" "the kernel has no timerlat tracer ($(uname -r)); the QEMU PREEMPT_RT board runs this part"
	finish
fi

OS=$TRACEFS/osnoise
knobs="cpus timerlat_period_us stop_tracing_us stop_tracing_total_us print_stack"
save_knobs() { for k in $knobs; do [ -e "$OS/$k" ] && printf '%s=%s\n' "$k" "$(cat "$OS/$k")"; done; }
save_knobs >"$TMP/knobs.before"
top_tracer=$(cat "$TRACEFS/current_tracer")
ncpu=$(getconf _NPROCESSORS_ONLN)
cpus=0; [ "$ncpu" -ge 2 ] && cpus=0-1

run=$TMP/tl
"$LATWATT" run -o "$run" -d 3s -q --probes timerlat --cpus $cpus --timerlat-period 500 \
	--threshold 50 >"$TMP/out" 2>&1
rc=$?
check "timerlat run exits 0" [ $rc -eq 0 ]
[ $rc -eq 0 ] || { cat "$TMP/out"; finish; }
m=$run/manifest.json
check "timerlat ran" [ "$(json "$m" '["probes"]["timerlat"]["ran"]')" = True ]
check "period recorded" [ "$(json "$m" '["probes"]["timerlat"]["period_ns"]')" = 500000 ]
check "instance removed" [ -z "$(ls "$TRACEFS/instances" | grep '^latwatt-timerlat-')" ]
save_knobs >"$TMP/knobs.after"
check "osnoise knobs restored" cmp -s "$TMP/knobs.before" "$TMP/knobs.after"
check "top-level tracer untouched" [ "$(cat "$TRACEFS/current_tracer")" = "$top_tracer" ]

"$PYTHON" "$TOP/tests/integration/samples.py" "$run/samples" >"$TMP/samples.txt" ||
	fail "samples readable" "samples.py exited with status $?"
"$PYTHON" "$TOP/tests/integration/timerlat_check.py" "$m" "$TMP/samples.txt" "$cpus" 500000 50000 ||
	fail "timerlat samples checked" "the checker exited with status $?"

# Interrupted: instance gone and knobs restored as well.
"$LATWATT" run -o "$TMP/tl2" -d 60s -q --probes timerlat >"$TMP/out2" 2>&1 &
pid=$!
for _ in $(seq 100); do [ -d "$TRACEFS/instances/latwatt-timerlat-$pid" ] && break; sleep 0.1; done
sleep 1
check "instance exists while running" [ -d "$TRACEFS/instances/latwatt-timerlat-$pid" ]
kill -INT $pid
wait $pid
check "SIGINT exits 130" [ $? -eq 130 ]
check "instance removed after SIGINT" [ ! -d "$TRACEFS/instances/latwatt-timerlat-$pid" ]
save_knobs >"$TMP/knobs.after2"
check "osnoise knobs restored after SIGINT" cmp -s "$TMP/knobs.before" "$TMP/knobs.after2"
check "interrupted run is incomplete" [ "$(json "$TMP/tl2/manifest.json" '["status"]')" = incomplete ]
finish
