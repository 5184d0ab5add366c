#!/usr/bin/env bash
# Spike and noise attribution against causes planted on the real kernel,
# each logging when it held the CPU (tests/integration/plant.py), scored by
# bench/attribution-recall/score.py:
#   - a timer storm (2000 timerfds expiring at one instant, every 50 ms) on
#     the cyclic probe's CPU: named timer:timerfd_tmrproc; the task arming
#     them (SCHED_FIFO 98) named preempt:lw-storm;
#   - the same on a noise-probe CPU: each gap named after what interrupted
#     the loop, never after the loop itself (lw-noise/N, or "latwatt", the
#     name it had before it named itself);
#   - idle phases against held ones (PM QoS 0 and a lowest-priority spinner
#     keeping the CPU out of idle): no spike in a held phase is blamed on an
#     idle state, and a spike that woke from idle in a released phase is
#     named after the idle state (idle-exit or idle-late), not "unexplained".
# Recall and precision must reach 90 % (the bench's goal is 95 %: the tests
# leave room for randomness).
. "$(dirname "$0")/lib.sh"
need_tracefs
need_cmd python3
mk_tmp
[ -n "${KEEP:-}" ] && trap - EXIT && echo "keeping $TMP"
ncpu=$(getconf _NPROCESSORS_ONLN)
cpu=$((ncpu - 1))
plant="$TOP/tests/integration/plant.py"
score="$TOP/bench/attribution-recall/score.py"

# run NAME PLANT SECONDS LATWATT-RUN-ARGS...: a run beside a planter. The
# planter is set up before the run starts and stopped after it ends: on a
# busy machine starting python alone took 3 s, and a planter started after
# the run overlapped the last second of it.
run() {
	local name=$1 kind=$2 secs=$3
	shift 3
	rm -f "$TMP/$name.ready" "$TMP/$name.stop"
	python3 "$plant" "$kind" "$cpu" "$TMP/$name.log" $((secs + 60)) "$TMP/$name.ready" "$TMP/$name.stop" &
	local pl=$!
	for _ in $(seq 600); do [ -e "$TMP/$name.ready" ] || ! kill -0 $pl 2>/dev/null && break; sleep 0.05; done
	[ -e "$TMP/$name.ready" ] || { kill $pl 2>/dev/null; fail "$name-plant" "the planter did not start"; return 1; }
	"$LATWATT" run -q -d "${secs}s" "$@" -o "$TMP/$name" >"$TMP/$name.out" 2>&1
	local rc=$?
	touch "$TMP/$name.stop"
	wait $pl || fail "$name-plant" "the planter failed"
	[ $rc -eq 0 ] || { fail "$name-run" "$(tail -3 "$TMP/$name.out")"; return 1; }
	[ -s "$TMP/$name/trace.dat" ] || { fail "$name-trace" "no trace.dat"; return 1; }
	return 0
}

# at_least NAME SCORES KIND FIELD MIN: a figure of the scores, and enough evidence
at_least() {
	python3 - "$2" "$3" "$4" "$5" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))[sys.argv[2]]
field, low = sys.argv[3], float(sys.argv[4])
base = r["caused"] if field == "recall" else r["attributed"]
print("%s %s: %s (%d spikes)" % (sys.argv[2], field, r[field], base))
assert base >= 5, "too few spikes to judge"
assert r[field] >= low
PY
	[ $? -eq 0 ] && pass "$1" || fail "$1" "see above"
}

# -- a timer storm on the cyclic probe's CPU; the run's --threshold is the
# spike threshold, and every text says it with the count above it
if run storm storm 7 -c "$cpu" -i 200 -p 95 --threshold 30; then
	"$LATWATT" analyze --json --top 100000 "$TMP/storm" >"$TMP/storm.json" 2>/dev/null
	python3 - "$TMP/storm.json" <<'PY' && pass "threshold-the-runs" || fail "threshold-the-runs"
import json, sys
a = json.load(open(sys.argv[1]))
t = a["spikes"]["thresholds"]["cyclic"]
over = a["probes"]["cyclic"]["all"]["over_threshold"]
print("threshold", t, "samples over the run's threshold", over, "spikes", a["spikes"]["spikes_total"])
assert t["threshold_ns"] == 30000 and t["source"] == "the run's --threshold"
assert t["above"] == over == a["spikes"]["spikes_total"] > 0
PY
	n=$(json "$TMP/storm.json" '["spikes"]["spikes_total"]')
	"$LATWATT" analyze "$TMP/storm" >"$TMP/storm.txt" 2>/dev/null
	"$LATWATT" report -o "$TMP/storm.html" "$TMP/storm" 2>/dev/null
	check "threshold-in-analyze-text" grep -q "cyclic: $n samples above 30.0us (the run's --threshold)" "$TMP/storm.txt"
	check "threshold-in-report" grep -q "cyclic: $n samples above 30.0 us (the run&#39;s --threshold)\|cyclic: $n samples above 30.0 us (the run's --threshold)" "$TMP/storm.html"
	python3 "$score" "$TMP/storm.json" cyclic "$TMP/storm.log:storm=timer:timerfd_tmrproc,held=preempt:lw-storm" --json >"$TMP/storm.score"
	python3 "$score" "$TMP/storm.json" cyclic "$TMP/storm.log:storm=timer:timerfd_tmrproc,held=preempt:lw-storm"
	at_least "storm-recall" "$TMP/storm.score" storm recall 0.9
	at_least "storm-precision" "$TMP/storm.score" storm precision 0.9
	at_least "storm-task-recall" "$TMP/storm.score" held recall 0.9
	at_least "storm-task-precision" "$TMP/storm.score" held precision 0.9
fi

# -- the same on a noise CPU: gaps named after what interrupted the loop
if run noise storm 7 --probes noise --noise-cpus "$cpu"; then
	"$LATWATT" analyze -n --json --top 100000 "$TMP/noise" >"$TMP/noise.json" 2>/dev/null
	python3 "$score" "$TMP/noise.json" noise "$TMP/noise.log:storm=timer:timerfd_tmrproc,held=preempt:lw-storm" --json >"$TMP/noise.score"
	python3 "$score" "$TMP/noise.json" noise "$TMP/noise.log:storm=timer:timerfd_tmrproc,held=preempt:lw-storm"
	at_least "noise-storm-recall" "$TMP/noise.score" storm recall 0.9
	at_least "noise-storm-precision" "$TMP/noise.score" storm precision 0.9
	at_least "noise-task-recall" "$TMP/noise.score" held recall 0.9
	at_least "noise-task-precision" "$TMP/noise.score" held precision 0.9
	python3 - "$TMP/noise.json" <<'PY' && pass "noise-never-the-loop" || fail "noise-never-the-loop"
import json, sys
a = json.load(open(sys.argv[1]))
gaps = [s for s in a["spikes"]["top"] if s["probe"] == 4]
assert len(gaps) == a["spikes"]["spikes_total"], "not every gap listed"
bad = [(s["cause"], c["cause"]) for s in gaps for c in s["components"]
       if "lw-noise" in c["name"] or c["name"] == "latwatt" or
       c["kind"] in ("probe", "non-preemptible", "timer-late")]
print("%d gaps, %d components charged to the loop" % (len(gaps), len(bad)), bad[:5])
assert not bad
PY
	# a gap in which the trace saw nothing is unexplained; when the machine
	# made none, there is nothing to check
	python3 - "$TMP/noise.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
empty = [s for s in a["spikes"]["top"] if s["probe"] == 4 and not s.get("timeline_truncated")
         and {t["kind"] for t in s["timeline"]} == {"unexplained"}]
wrong = [s["cause"] for s in empty if s["cause"] != "unexplained"]
print("%d gaps with nothing in the trace, %d not called unexplained" % (len(empty), len(wrong)))
sys.exit(2 if not empty else 1 if wrong else 0)
PY
	case $? in
	0) pass "noise-empty-gap-unexplained" ;;
	2) skip "noise-empty-gap-unexplained" "no gap with nothing in the trace in this run" ;;
	*) fail "noise-empty-gap-unexplained" ;;
	esac
fi

# -- idle phases against held ones, the same CPU
if run idle idle 7 -c "$cpu" -i 1000 -p 95; then
	# no --threshold in this run: the board's latency budget, else p99.9
	"$LATWATT" analyze -n --json --board imx8mp-evk "$TMP/idle" >"$TMP/idle-board.json" 2>/dev/null
	"$LATWATT" analyze -n --json --board local "$TMP/idle" >"$TMP/idle-local.json" 2>/dev/null
	python3 - "$TMP/idle-board.json" "$TMP/idle-local.json" <<'PY' && pass "threshold-budget-then-p99.9" || fail "threshold-budget-then-p99.9"
import json, sys
b, l = (json.load(open(p)) for p in sys.argv[1:])
tb, tl = b["spikes"]["thresholds"]["cyclic"], l["spikes"]["thresholds"]["cyclic"]
print(tb, tl)
assert tb["threshold_ns"] == 40000 and tb["source"].startswith("board imx8mp-evk latency budget")
assert tb["above"] == b["spikes"]["spikes_total"]
assert tl["source"].startswith("p99.9") and tl["threshold_ns"] == l["probes"]["cyclic"]["all"]["p99.9_ns"]
PY
	"$LATWATT" analyze -n --json --spike-threshold 50 --top 100000 "$TMP/idle" >"$TMP/idle.json" 2>/dev/null
	python3 "$score" "$TMP/idle.json" cyclic "$TMP/idle.log:released=idle,held=-" --json >"$TMP/idle.score"
	python3 "$score" "$TMP/idle.json" cyclic "$TMP/idle.log:released=idle,held=-"
	python3 - "$TMP/idle.score" <<'PY' && pass "idle-never-blamed-while-held" || fail "idle-never-blamed-while-held"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["held"]["wrongly_named"] == 0
PY
	# recall is about 92 % here (bench/README.md, attribution-recall: the
	# spikes it loses spent their time in the probe's own path after a late
	# wake-up); a run has some 30 such spikes, so the bar allows for that
	# count: below 75 % is a change of the engine, not chance (P < 0.5 %)
	python3 - "$TMP/idle.score" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["released"]
sys.exit(2 if r["caused"] < 5 else 0 if r["recall"] >= 0.75 and (r["precision"] or 0) >= 0.9 else 1)
PY
	case $? in
	0) pass "idle-exit-named" ;;
	2) skip "idle-exit-named" "fewer than 5 spikes woke from idle in the released phases" ;;
	*) fail "idle-exit-named" "recall under 75 % or precision under 90 %"
	   python3 "$score" "$TMP/idle.json" cyclic "$TMP/idle.log:released=idle,held=-" --misses 8 ;;
	esac
fi
finish
