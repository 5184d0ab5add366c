#!/usr/bin/env bash
# Scenario files: `latwatt scenarios`, `latwatt run --scenario` with the
# shipped scenarios (av-stress, the headline, for 5 s), command-line
# overrides, the copy in the run directory, and bad files refused before a
# run directory is made.
. "$(dirname "$0")/lib.sh"
mk_tmp

# -- listing and checking need no privilege
"$LATWATT" scenarios >"$TMP/list" 2>&1
for s in idle audio video av av-stress nohz-isolated; do
	grep -Eq "^$s +[a-z]" "$TMP/list" && pass "listed-$s" || fail "listed-$s" "$(cat "$TMP/list")"
done
"$LATWATT" scenarios av-stress >"$TMP/show" 2>&1
grep -q '^  --workload=audio:' "$TMP/show" && grep -q '^  --load=name=hackbench ' "$TMP/show" &&
	pass "show-options" || fail "show-options" "$(cat "$TMP/show")"
"$LATWATT" scenarios --check "$TOP/tests/data/scenarios/bad/bad-interval.yaml" >"$TMP/out" 2>&1
[ $? = 2 ] && grep -q "bad-interval.yaml:3:11: interval: must be between 10us and 10s" "$TMP/out" &&
	pass "check-bad-file" || fail "check-bad-file" "$(cat "$TMP/out")"
LATWATT_SCENARIO_PATH=$TMP/none "$LATWATT" run --scenario no-such -o "$TMP/x" >"$TMP/out" 2>&1
[ $? = 2 ] && grep -q "no scenario named 'no-such' (looked in $TMP/none, " "$TMP/out" && [ ! -e "$TMP/x" ] &&
	pass "unknown-scenario" || fail "unknown-scenario" "$(cat "$TMP/out")"
"$LATWATT" run --scenario "$TOP/tests/data/scenarios/bad/unknown-key.yaml" -o "$TMP/x" >"$TMP/out" 2>&1
[ $? = 2 ] && grep -q "unknown-key.yaml:3:1: unknown key 'durration'" "$TMP/out" && [ ! -e "$TMP/x" ] &&
	pass "bad-scenario-no-run-dir" || fail "bad-scenario-no-run-dir" "$(cat "$TMP/out")"
# a scenario found through $LATWATT_SCENARIO_PATH before the shipped ones
mkdir -p "$TMP/mine"
printf 'description: mine, first in the path\nduration: 1s\n' >"$TMP/mine/idle.yaml"
LATWATT_SCENARIO_PATH=$TMP/mine "$LATWATT" scenarios >"$TMP/list2" 2>&1
grep -q '^idle  *mine, first in the path' "$TMP/list2" && grep -q '^av-stress ' "$TMP/list2" &&
	pass "scenario-path-first" || fail "scenario-path-first" "$(cat "$TMP/list2")"

need_root

# -- idle, with the command line overriding the file's duration and interval
if "$LATWATT" run --scenario idle -d 1s -i 500 -q -o "$TMP/idle" >"$TMP/out" 2>&1; then
	pass "idle-runs"
else
	fail "idle-runs" "$(cat "$TMP/out")"
fi
python3 - "$TMP/idle" "$TOP/workloads/scenarios/idle.yaml" <<'PY' && pass "idle-recorded-and-overridden" || fail "idle-recorded-and-overridden"
import json, sys
run, src = sys.argv[1:]
m = json.load(open(run + "/manifest.json"))
assert m["status"] == "complete"
s = m["scenario"]
assert s["name"] == "idle" and s["file"] == "scenario.yaml" and s["source"] == src, s
assert s["options"] == ["--duration=60s", "--interval=1000us", "--trace-buffer=4M", "--power=auto", "--power-rate=10"], s["options"]
assert open(run + "/scenario.yaml").read() == open(src).read()
assert m["duration_ns"] == 1000000000, m["duration_ns"]              # -d 1s wins
assert m["probes"]["cyclic"]["interval_ns"] == 500000                 # -i 500 wins
PY

# -- av-stress, the headline: workloads, external loads, no orphans
if command -v stress-ng >/dev/null && command -v hackbench >/dev/null; then
	"$LATWATT" run --scenario av-stress -d 5s -q -o "$TMP/avs" >"$TMP/out" 2>&1 &
	lw=$!
	sleep 2
	kids=$(pgrep -P $lw | tr '\n' ' ')
	wait $lw
	rc=$?
	[ $rc = 0 ] && pass "av-stress-5s-runs" || fail "av-stress-5s-runs" "exit $rc: $(cat "$TMP/out")"
	python3 - "$TMP/avs" <<'PY' && pass "av-stress-recorded" || fail "av-stress-recorded"
import json, os, sys
run = sys.argv[1]
m = json.load(open(run + "/manifest.json"))
assert m["status"] == "complete", m.get("status_reason")
assert m["scenario"]["name"] == "av-stress"
assert m["duration_ns"] == 5000000000
w = m["workloads"]
assert {"audio", "video", "stress"} <= set(w), w.keys()
l = {x["name"]: x for x in m["loads"]}
assert set(l) == {"hackbench", "stress-ng"}, l.keys()
for x in l.values():
    assert x["nice"] == 10 and x["runs"][-1]["stopped_by_latwatt"], x
assert os.path.exists(run + "/audio.records") and os.path.exists(run + "/video.records")
assert m["samples"]["written"] > 0
PY
	left=0
	for k in $kids; do [ -e /proc/$k ] && left=$((left + 1)); done
	[ $left = 0 ] && pass "av-stress-no-orphans" || fail "av-stress-no-orphans" "$left children left"
	# the scenario's deadlines are budgets: the verdict comes first, and the
	# exit status is its (0 PASS, 1 FAIL with the xruns or drops named)
	"$LATWATT" analyze "$TMP/avs" >"$TMP/an" 2>"$TMP/an.err"; rc=$?
	first=$(head -1 "$TMP/an")
	xr=$(python3 -c 'import json,sys; w=json.load(open(sys.argv[1]))["workloads"]; print(w["audio"]["xruns"] + w["video"]["dropped"])' "$TMP/avs/analysis.json")
	if grep -q '^probe audio' "$TMP/an" && grep -q '^  audio ' "$TMP/an" && grep -q '^  video ' "$TMP/an" &&
	   { { [ "$xr" = 0 ] && [ $rc = 0 ] && [ "${first#PASS: }" != "$first" ]; } ||
	     { [ "$xr" != 0 ] && [ $rc = 1 ] && [ "${first#FAIL: }" != "$first" ]; }; }; then
		pass "av-stress-analyzable-verdict-first"
	else
		fail "av-stress-analyzable-verdict-first" "exit $rc, misses $xr: $(head -8 "$TMP/an") $(cat "$TMP/an.err")"
	fi
else
	skip "av-stress" "needs stress-ng and hackbench (scripts/install-deps)"
fi

# -- nohz-isolated: runs where the kernel has nohz_full CPUs, a clear error elsewhere
nohz=$(cat /sys/devices/system/cpu/nohz_full 2>/dev/null)
if [ -z "$nohz" ] || [ "$nohz" = "(null)" ]; then
	"$LATWATT" run --scenario nohz-isolated -d 1s -q -o "$TMP/nohz" >"$TMP/out" 2>&1
	[ $? = 2 ] && grep -q 'nohz-isolated.yaml:[0-9]*:[0-9]*: ${nohz_full} is empty on this system (boot the kernel with nohz_full=' "$TMP/out" &&
		[ ! -e "$TMP/nohz" ] && pass "nohz-isolated-needs-nohz-full" ||
		fail "nohz-isolated-needs-nohz-full" "$(cat "$TMP/out")"
else
	"$LATWATT" run --scenario nohz-isolated -d 2s -q -o "$TMP/nohz" >"$TMP/out" 2>&1 &&
		pass "nohz-isolated-runs" || fail "nohz-isolated-runs" "$(cat "$TMP/out")"
fi
finish
