#!/usr/bin/env bash
# latwatt tune, planted truth (a): a timer storm on the measured CPU
# (tests/integration/plant-timerstorm.c: a task pinned to the last CPU,
# SCHED_FIFO 96, above the probe's 95, woken every 97 us by its timer,
# 75 us of work at each wake-up: a probe woken meanwhile waits for the
# rest of the burst).  97 us does not divide the probe's 1 ms, so the
# probe's wake-ups drift across the storm's bursts.  Budget cyclic.p90<50us:
# with the storm about 40 % of the samples are over 50 us; without it, a
# few percent on this busy 2-CPU VM.
#   - tune --knobs irq,tasks: the system as found FAILs; irq (a device's
#     IRQs, not the storm) does not meet it; tasks (every task on the
#     measured CPU moved off it, the storm with them) PASSes and is the
#     recommendation; the storm and a task pinned beside it are moved
#     while it is judged and back on their CPU after; a pinned task moved
#     and gone before it is set back is passed over without a word;
#   - the recommendation's apply.sh run, then runs judged against the budget
#     as tune judges them (run --repeat auto, up to 8 runs): PASS, the storm
#     still running (every thread's affinity is put back as it was after);
#     undecided by the machine's noise is skipped with its figures, FAIL fails;
#   - tune killed with SIGKILL while the tasks are moved: 'latwatt cleanup'
#     sets their affinity back from the journal.
# About 30 s (30-45 s here), under the machine-wide lock.
. "$(dirname "$0")/lib.sh"
need_root
need_tracefs
need_cmd cc
need_cmd taskset
mk_tmp

ncpu=$(getconf _NPROCESSORS_ONLN)
[ "$ncpu" -ge 2 ] || skip_all "one CPU: nowhere to move the storm to"
cpu=$((ncpu - 1))
budget='cyclic.p90<50us'
cc -O2 -o "$TMP/plant" "$TOP/tests/integration/plant-timerstorm.c" ||
	skip_all "cannot build the plant with cc"

plant=
others=
saved=
affinity() { sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null; }
# every thread's affinity, to put back after apply.sh
save_all() {
	for t in /proc/[0-9]*/task/[0-9]*; do
		a=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$t/status" 2>/dev/null) &&
			[ -n "$a" ] && echo "${t##*/} $a"
	done >"$1"
}
restore_all() {
	while read -r tid a; do taskset -p -c "$a" "$tid" >/dev/null 2>&1; done <"$1"
}
end() {
	[ -n "$saved" ] && restore_all "$saved"
	for p in $plant $others; do kill "$p" 2>/dev/null; done
	rm -rf "$TMP"
}
trap end EXIT

"$TMP/plant" "$cpu" 97 75 96 0 >"$TMP/plant.out" 2>&1 &
plant=$!
for _ in $(seq 50); do grep -qs ready "$TMP/plant.out" && break; sleep 0.1; done
grep -qs ready "$TMP/plant.out" || skip_all "the plant did not start: $(cat "$TMP/plant.out")"
taskset -c "$cpu" sleep 300 &
beside=$!
taskset -c "$cpu" sleep 300 &
short=$!
others="$beside $short"

# -- (a) the storm found and moved away
# what the storm's affinity is while tune runs; once it is moved, a task
# moved with it ends (gone before it is set back)
( while kill -0 $plant 2>/dev/null; do
	a=$(affinity $plant)
	echo "$a"
	[ "$a" != "$cpu" ] && kill $short 2>/dev/null
	sleep 0.2
done ) >"$TMP/seen" 2>/dev/null &
watch=$!
"$LATWATT" tune -d 1s -c "$cpu" --max-runs 6 --knobs irq,tasks --budget "$budget" -o "$TMP/a" \
	>"$TMP/a.out" 2>"$TMP/a.err"
rc=$?
kill $watch 2>/dev/null
wait $watch 2>/dev/null
# Where the machine's own noise leaves the storm-free candidate undecided
# (its share near the limit: a fresh chroot here saw 7-13 % over 50 us with
# the storm moved, 0.7-2.2 % on other runs), tune cannot tell and says so
# (exit 2); the claims that need its recommendation are skipped with that,
# never passed; a wrong decision (tasks FAIL, or another knob recommended)
# still fails
undecided=$("$PYTHON" - "$TMP/a/tune.json" <<'PY' 2>/dev/null
import json, sys
d = json.load(open(sys.argv[1]))
t = [x for x in d["candidates"] if "tasks" in x["knobs"]][-1:]
if d["recommended"] is None and t and t[0]["decision"] not in ("PASS", "FAIL"):
    print(t[0]["reason"])
PY
)
if [ -n "$undecided" ] && [ $rc -eq 2 ]; then
	skip "storm-moved-recommended" "tasks left undecided by this machine's noise: $undecided"
elif [ $rc -eq 0 ] && grep -q '^recommended: \(irq + \)\?tasks, meets every budget' "$TMP/a.out" &&
	grep -q "^  tasks: [0-9]* tasks\? moved to CPU [0-9,-]*; left on CPU $cpu: [0-9]* kernel thread" \
		"$TMP/a.out"; then
	pass "storm-moved-recommended"
else
	fail "storm-moved-recommended" "exit $rc: $(cat "$TMP/a.out" "$TMP/a.err")"
fi
# what tune said, for the log
grep -E '^(candidate [0-9]+:|  (PASS|FAIL|undecided|continue) after|  tasks: |recommended: )' \
	"$TMP/a.out" | sed 's/^/# /'
py "storm-json" "$TMP/a/tune.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = d["candidates"]
# as found: the storm breaks the budget
assert c[0]["name"] == "as found" and c[0]["decision"] == "FAIL", c[0]
if d["recommended"] is not None:
    r = c[d["recommended"]]
    assert r["decision"] == "PASS" and "tasks" in r["knobs"], r
    assert " moved to CPU " in r["knobs"]["tasks"]["done"], r["knobs"]
else:   # undecided (above): the tasks candidate moved the storm all the same
    t = [x for x in c if "tasks" in x["knobs"]]
    assert t and " moved to CPU " in t[0]["knobs"]["tasks"]["done"], c
# every candidate without the tasks knob left the storm where it was
for x in c:
    if "tasks" not in x["knobs"]:
        assert x["decision"] != "PASS", x
print("PASS: storm-json")
PY
if grep -qvx "$cpu" "$TMP/seen" && [ "$(affinity $plant)" = "$cpu" ] &&
	[ "$(affinity $beside)" = "$cpu" ]; then
	pass "tasks-back"
else
	fail "tasks-back" "storm seen on $(sort -u "$TMP/seen" | tr '\n' ' '), now $(affinity $plant), the task beside it $(affinity $beside)"
fi
wait $short 2>/dev/null
! kill -0 $short 2>/dev/null && ! grep -q 'cannot set the CPU affinity' "$TMP/a.err" &&
	pass "gone-passed-over" || fail "gone-passed-over" "$(cat "$TMP/a.err")"

# -- the recommendation applied, then judged as tune judges it
if [ -f "$TMP/a/apply.sh" ]; then
	saved=$TMP/saved
	save_all "$saved"
	sh "$TMP/a/apply.sh" >"$TMP/apply.out" 2>&1
	moved=$(affinity $plant)
	"$LATWATT" run --repeat auto --min-runs 2 --max-runs 8 -d 1s -c "$cpu" --budget "$budget" \
		-o "$TMP/confirm" >"$TMP/confirm.out" 2>&1
	rc=$?
	restore_all "$saved"
	saved=
	if [ $rc -eq 0 ] && [ "$moved" != "$cpu" ] && kill -0 $plant &&
		grep -q ': PASS: cyclic p90' "$TMP/confirm.out"; then
		pass "apply-confirmed"
	elif [ $rc -eq 0 ] && [ "$moved" != "$cpu" ] &&
		grep -q '^undecided after [0-9]* runs: cyclic p90' "$TMP/confirm.out"; then
		# as for tune above: the machine's own noise near the limit (CI saw
		# 3.7 % over 50 us, upper bound 10.9 % after 4 runs, with the storm
		# moved) leaves it undecided, which is not a contradiction of
		# tune's PASS; a FAIL (the storm still there: ~40 %) is
		skip "apply-confirmed" "left undecided by this machine's noise: $(grep '^undecided after' "$TMP/confirm.out")"
	else
		fail "apply-confirmed" "exit $rc, storm on CPU $moved: $(cat "$TMP/apply.out" "$TMP/confirm.out")"
	fi
elif [ -n "$undecided" ]; then
	skip "apply-confirmed" "no recommendation to apply: tasks left undecided"
else
	fail "apply-confirmed" "no apply.sh"
fi
[ "$(affinity $plant)" = "$cpu" ] || fail "apply-confirmed" "the storm not put back on CPU $cpu"

# -- SIGKILL while the tasks are moved: cleanup sets them back
"$LATWATT" tune -d 3s -c "$cpu" --max-runs 2 --knobs tasks --budget "$budget" -o "$TMP/k" \
	>"$TMP/k.out" 2>&1 &
pid=$!
for _ in $(seq 150); do
	[ "$(affinity $plant)" != "$cpu" ] && break
	sleep 0.1
done
wait_run_journal $pid	# and its run past its own replay
set=$(affinity $plant)
kill -KILL $pid
wait $pid 2>/dev/null
sleep 1	# the run it started stops on its own (SIGTERM at its parent's death)
left=$(affinity $plant)
"$LATWATT" cleanup >"$TMP/clean.out" 2>&1
now=$(affinity $plant)
if [ "$set" != "$cpu" ] && [ "$left" = "$set" ] && [ "$now" = "$cpu" ] &&
	[ "$(affinity $beside)" = "$cpu" ] &&
	grep -q "set task $plant's CPU affinity to $cpu" "$TMP/clean.out"; then
	pass "sigkill-cleanup-tasks"
else
	fail "sigkill-cleanup-tasks" "set $set, left $left, after cleanup $now (was $cpu): $(cat "$TMP/k.out" "$TMP"/k/cand-*.log "$TMP/clean.out" 2>/dev/null)"
fi
finish
