#!/usr/bin/env bash
# run --deepest-idle-state N[@CPULIST]: the cpuidle states deeper than N are
# disabled on the CPUs during the run and put back exactly as they were
# after it, after SIGINT, and after SIGKILL by 'latwatt cleanup'.
#  - On this machine: where it has a cpuidle driver, state K > 0 is disabled
#    on the probe's CPU during a run and restored after; where it has none,
#    the option is refused with the reason (exit status 2), as --pm-qos is
#    where it cannot be held.
#  - A machine with haltpoll's idle states (POLL, "haltpoll idle") plus a
#    third one an administrator had already disabled on one CPU, made in a
#    mount namespace of its own (a tmpfs over /sys/devices/system/cpu, the
#    path latwatt writes, and its journal replays): the same checks, there.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd "$PYTHON"
ncpu=$(getconf _NPROCESSORS_ONLN)
cpu=$((ncpu - 1))
CPUD=/sys/devices/system/cpu

states() {	# every cpuC/stateK=disable
	local f
	for f in "$CPUD"/cpu[0-9]*/cpuidle/state*/disable; do
		[ -e "$f" ] && echo "${f#"$CPUD"/}=$(cat "$f")"
	done
}
applied() {	# applied: state1 of the probe's CPU disabled
	[ "$(cat "$CPUD/cpu$cpu/cpuidle/state1/disable" 2>/dev/null)" = 1 ]
}
wait_applied() {
	for _ in $(seq 1 100); do applied && return 0; sleep 0.05; done
	return 1
}
run_bg() {	# run_bg DIR DURATION: a run capping the probe's CPU at state 0
	"$LATWATT" run -q -d "$2" -c "$cpu" --probes cyclic --trace off --deepest-idle-state 0 \
		-o "$1" >"$1.out" 2>&1 &
	runpid=$!
}

if [ "${1:-}" = --ns ]; then
	# in the namespace: a haltpoll machine
	TMP=$2
	mount -t tmpfs lw-cpu "$CPUD" || { fail "ns-tmpfs" "cannot mount a tmpfs on $CPUD"; finish; }
	cpuidle_tree ""
	for c in $(seq 0 $cpu); do
		d=$CPUD/cpu$c/cpuidle/state2
		mkdir -p "$d"
		echo "deep" >"$d/name"; echo 100 >"$d/latency"; echo 0 >"$d/time"; echo 0 >"$d/usage"
		[ "$c" = "$cpu" ] && echo 1 >"$d/disable" || echo 0 >"$d/disable"
	done
	before=$(states)
	want=$(echo "$before" | sed -E "s|^(cpu$cpu/cpuidle/state[12]/disable)=.*|\1=1|")

	run_bg "$TMP/ns1" 3s
	wait_applied; during=$(states)
	wait "$runpid"; rc=$?
	[ $rc -eq 0 ] && pass "ns-run" || fail "ns-run" "status $rc: $(cat "$TMP/ns1.out")"
	[ "$during" = "$want" ] && pass "ns-deeper-states-disabled-during-run" ||
		fail "ns-deeper-states-disabled-during-run" "$(diff <(echo "$want") <(echo "$during") | tr '\n' ' ')"
	[ "$(states)" = "$before" ] && pass "ns-restored-after-run" ||
		fail "ns-restored-after-run" "$(diff <(echo "$before") <(states) | tr '\n' ' ')"
	py ns-manifest "$TMP/ns1/manifest.json" "$cpu" <<'PY'
import json, sys
m, cpu = json.load(open(sys.argv[1])), sys.argv[2]
ic = m.get("idle_cap")
ok = (ic and len(ic) == 1 and ic[0]["deepest"] == 0 and ic[0]["cpus"] == cpu and
      ic[0]["driver"] == "haltpoll" and
      ic[0]["disabled"] == ["cpu%s/state1" % cpu, "cpu%s/state2" % cpu] and
      ic[0]["already_disabled"] == ["cpu%s/state2" % cpu])
print("PASS: ns-manifest" if ok else "FAIL: ns-manifest: %s" % ic)
sys.exit(0 if ok else 1)
PY

	run_bg "$TMP/ns2" 30s
	if wait_applied; then
		kill -INT "$runpid"; wait "$runpid"; rc=$?
		[ $rc -eq 130 ] && [ "$(states)" = "$before" ] && pass "ns-restored-after-sigint" ||
			fail "ns-restored-after-sigint" "status $rc: $(diff <(echo "$before") <(states) | tr '\n' ' ')"
	else
		kill -INT "$runpid"; wait "$runpid"
		fail "ns-restored-after-sigint" "the cap was never applied: $(cat "$TMP/ns2.out")"
	fi

	run_bg "$TMP/ns3" 30s
	if wait_applied; then
		sleep 0.3
		kill -KILL "$runpid"; wait "$runpid" 2>/dev/null
		[ "$(states)" != "$before" ] && pass "ns-sigkill-leaves-it-disabled" ||
			fail "ns-sigkill-leaves-it-disabled" "nothing to restore: the test proves nothing"
		"$LATWATT" cleanup >"$TMP/cleanup.out" 2>&1 || fail "ns-cleanup" "$(cat "$TMP/cleanup.out")"
		[ "$(states)" = "$before" ] && pass "ns-restored-by-cleanup-after-sigkill" ||
			fail "ns-restored-by-cleanup-after-sigkill" "$(diff <(echo "$before") <(states) | tr '\n' ' '): $(cat "$TMP/cleanup.out")"
	else
		kill -KILL "$runpid"; wait "$runpid" 2>/dev/null
		fail "ns-restored-by-cleanup-after-sigkill" "the cap was never applied: $(cat "$TMP/ns3.out")"
	fi
	finish
fi

mk_tmp
drv=$(cat "$CPUD/cpuidle/current_driver" 2>/dev/null || echo none)
if [ "$drv" = none ] || [ ! -e "$CPUD/cpu$cpu/cpuidle/state1/disable" ]; then
	skip "live-deeper-states-disabled" "no cpuidle driver with a state 1 here (current_driver: $drv)"
	"$LATWATT" run -q -d 1s -c "$cpu" --probes cyclic --trace off --deepest-idle-state 0 \
		-o "$TMP/none" >"$TMP/none.out" 2>&1
	rc=$?
	[ $rc -eq 2 ] && grep -q "no cpuidle" "$TMP/none.out" && [ ! -e "$TMP/none" ] &&
		pass "refused-without-cpuidle-driver" ||
		fail "refused-without-cpuidle-driver" "status $rc: $(cat "$TMP/none.out")"
else
	before=$(states)
	run_bg "$TMP/live" 3s
	wait_applied && pass "live-deeper-states-disabled" ||
		fail "live-deeper-states-disabled" "state1 of cpu$cpu not disabled during the run"
	wait "$runpid"
	[ "$(states)" = "$before" ] && pass "live-restored-after-run" ||
		fail "live-restored-after-run" "$(diff <(echo "$before") <(states) | tr '\n' ' ')"
fi

if unshare -m --propagation private true 2>/dev/null; then
	unshare -m --propagation private "$BASH" "$0" --ns "$TMP" || _status=1
else
	skip "haltpoll-machine" "cannot make a mount namespace here (unshare -m)"
fi
finish
