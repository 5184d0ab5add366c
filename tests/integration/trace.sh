#!/usr/bin/env bash
# The kernel trace of a run, against the real tracefs: trace.dat that
# trace-cmd reads, markers on the samples' clock, the instance removed on
# every exit path (end, SIGINT, SIGTERM; `latwatt cleanup` after SIGKILL),
# another tracer's buffers untouched, the flight recorder, bad options.
. "$(dirname "$0")/lib.sh"
need_tracefs
need_cmd trace-cmd
need_cmd "$PYTHON"
mk_tmp

# What another tool set up must be the same afterwards: the top level's knobs
# (read only: the machine is shared) and a tracer in an instance of its own,
# whose buffer keeps what it held.
top_state() {
	for f in tracing_on current_tracer set_event trace_clock buffer_size_kb tracing_cpumask \
		 options/overwrite; do
		printf '%s=%s\n' "$f" "$(cat "$TRACEFS/$f" 2>/dev/null | tr '\n' ' ')"
	done
}
other=$TRACEFS/instances/lwtest-other-$$
mkdir "$other" || skip_all "cannot create a trace instance in $TRACEFS"
trap 'rmdir "$other" 2>/dev/null; rm -rf "$TMP"' EXIT
echo 1 >"$other/events/sched/sched_switch/enable"
echo "other tool was here $$" >"$other/trace_marker"
echo 0 >"$other/tracing_on"	# its buffer now keeps the marker
other_state() { cat "$other/tracing_on" "$other/set_event" "$other/trace_clock" "$other/buffer_size_kb"; }
before_top=$(top_state)
before_other=$(other_state)

# -- a 3-second traced run, markers above 20 us
"$LATWATT" run -d 3s -i 1000 --threshold 20 -q -o "$TMP/r" >"$TMP/out" 2>&1 &
pid=$!
sleep 1
[ -d "$TRACEFS/instances/latwatt-$pid" ] && pass "instance-exists-during-run" ||
	fail "instance-exists-during-run" "no $TRACEFS/instances/latwatt-$pid"
wait $pid && pass "run-exit-0" || fail "run-exit-0" "$(cat "$TMP/out")"
[ ! -e "$TRACEFS/instances/latwatt-$pid" ] && pass "instance-removed-after-run" ||
	fail "instance-removed-after-run" "latwatt-$pid is still there"
[ -s "$TMP/r/trace.dat" ] && pass "trace-dat-written" || fail "trace-dat-written"
ls -a "$TMP/r" | grep -q '^\.trace-cpu' && fail "temporary-files-removed" || pass "temporary-files-removed"

if trace-cmd report -t "$TMP/r/trace.dat" >"$TMP/report" 2>"$TMP/report.err" &&
   ! grep -qi 'error\|fail\|bug' "$TMP/report.err"; then
	pass "trace-cmd-report-parses"
else
	fail "trace-cmd-report-parses" "$(head -5 "$TMP/report.err")"
fi
n_switch=$(grep -c ' sched_switch: ' "$TMP/report")
[ "$n_switch" -gt 100 ] && pass "sched-switch-present ($n_switch)" ||
	fail "sched-switch-present" "$n_switch sched_switch events"
# what trace-cmd reads and what latwatt's reader reads agree: the same events
# (timestamp in ns, CPU, name) in the same order, as many as the manifest says
"$LATWATT" tracedump "$TMP/r" | awk '{split($4, a, ":"); print $1, $2, a[2]}' >"$TMP/ours"
sed -E -n 's/.*\[([0-9]+)\] +([0-9]+)\.([0-9]+): ([a-z_0-9]+):.*/\2\3 \1 \4/p' "$TMP/report" |
	awk '{print $1, $2 + 0, $3}' >"$TMP/theirs"
n_ours=$(wc -l <"$TMP/ours")
n_manifest=$(json "$TMP/r/manifest.json" '["trace"]["events_recorded"]')
cmp -s "$TMP/ours" "$TMP/theirs" && [ "$n_ours" = "$n_manifest" ] &&
	pass "reader-agrees-with-trace-cmd ($n_ours events)" ||
	fail "reader-agrees-with-trace-cmd" "tracedump $n_ours, trace-cmd $(wc -l <"$TMP/theirs"), manifest $n_manifest"
"$LATWATT" tracedump --count "$TMP/r" | grep -q "^$n_manifest events$" && pass "tracedump-count" ||
	fail "tracedump-count"

"$PYTHON" - "$TMP/r" <<'PY' && pass "manifest-trace-object" || fail "manifest-trace-object"
import json, sys
t = json.load(open(sys.argv[1] + "/manifest.json"))["trace"]
assert t["format"] == "trace-cmd" and t["format_version"] == 6, t
assert t["clock"] == "mono" and t["mode"] == "stream", t
assert "sched:sched_switch" in t["events"] and "power:cpu_idle" in t["events"], t["events"]
assert t["instance_removed"] is True
for c in t["cpus"]:
    for k in ("overrun", "commit_overrun", "dropped_events", "missed_pages", "incomplete"):
        assert k in c, (k, c)
    assert isinstance(c["incomplete"], list)
print("lost", t["lost_events"], "complete", t["complete"])
PY

# Every marker is a sample above the threshold, written right after its
# wake-up: same clock, so marker time - (expected + latency) is small and
# never negative.  (The write(2) of a marker takes ~0.8 us on the shared VM
# this was written on, so "within 1 us" holds for most, not all, markers.)
"$PYTHON" - "$TMP/r" "$TMP/report" <<'PY' && pass "markers-match-samples" || fail "markers-match-samples"
import re, struct, sys
run, report = sys.argv[1], sys.argv[2]
d = open(run + "/samples", "rb").read()
over = {}
for off in range(64, len(d), 24):
    exp, lat, mis, cpu, probe, flags = struct.unpack_from("<QQIHBB", d, off)
    if flags & 1:
        over[(cpu, exp)] = lat
diffs = []
pat = re.compile(r"\[(\d+)\]\s+(\d+)\.(\d+): print:.*latwatt spike probe=cyclic cpu=(\d+) latency_ns=(\d+) expected_ns=(\d+)")
for line in open(report):
    m = pat.search(line)
    if not m:
        continue
    tcpu, sec, frac, cpu, lat, exp = m.groups()
    ts = int(sec) * 10**9 + int(frac.ljust(9, "0"))
    key = (int(cpu), int(exp))
    assert key in over, ("marker without a sample", line)
    assert over.pop(key) == int(lat), line
    assert int(tcpu) == int(cpu), line
    diffs.append(ts - (int(exp) + int(lat)))
assert diffs, "no marker at all (threshold 20us)"
assert not over, ("samples over the threshold without a marker", len(over))
diffs.sort()
n = len(diffs)
within = sum(1 for x in diffs if x <= 1000) / n
print("markers", n, "marker - wake-up ns: min", diffs[0], "p50", diffs[n // 2],
      "p99", diffs[int(n * .99)], "max", diffs[-1], "within 1us %.0f%%" % (100 * within))
assert diffs[0] >= 0, "a marker before its wake-up: not the same clock"
assert diffs[n // 2] <= 20000, "markers far from their samples: not the same clock"
PY

[ "$(top_state)" = "$before_top" ] && pass "top-level-untouched" ||
	fail "top-level-untouched" "$(diff <(echo "$before_top") <(top_state) | tr '\n' ' ')"
[ "$(other_state)" = "$before_other" ] && grep -q "other tool was here $$" "$other/trace" &&
	pass "other-instance-untouched" || fail "other-instance-untouched"

# -- interrupted: SIGINT and SIGTERM end cleanly, the trace is kept
for sig in INT TERM; do
	"$LATWATT" run -d 30s -q -o "$TMP/s$sig" >"$TMP/out" 2>&1 &
	pid=$!
	sleep 1.5
	kill -$sig $pid
	wait $pid
	rc=$?
	want=$((128 + $(kill -l $sig)))
	[ $rc -eq $want ] && pass "sig$sig-exit-$want" || fail "sig$sig-exit-$want" "exit $rc"
	[ ! -e "$TRACEFS/instances/latwatt-$pid" ] && pass "sig$sig-instance-removed" ||
		fail "sig$sig-instance-removed"
	trace-cmd report "$TMP/s$sig/trace.dat" >/dev/null 2>&1 && pass "sig$sig-trace-readable" ||
		fail "sig$sig-trace-readable"
done

# -- SIGKILL leaves the instance; cleanup removes it and says so
"$LATWATT" run -d 30s -q -o "$TMP/k" >/dev/null 2>&1 &
pid=$!
sleep 1.5
kill -KILL $pid
wait $pid 2>/dev/null
[ -d "$TRACEFS/instances/latwatt-$pid" ] && pass "sigkill-leaves-instance" ||
	fail "sigkill-leaves-instance"
"$LATWATT" cleanup >"$TMP/clean" 2>&1
grep -q "removed trace instance latwatt-$pid " "$TMP/clean" && pass "cleanup-says-what" ||
	fail "cleanup-says-what" "$(cat "$TMP/clean")"
[ ! -e "$TRACEFS/instances/latwatt-$pid" ] && pass "cleanup-removed-instance" ||
	fail "cleanup-removed-instance"
[ -d "$other" ] && pass "cleanup-keeps-other-instances" || fail "cleanup-keeps-other-instances"

# -- flight recorder: tracing stops at the break, the moments before it are kept
"$LATWATT" run -d 20s --break-on 1 --trace-buffer 256k -q -o "$TMP/b" >"$TMP/out" 2>&1 &&
	pass "break-on-exit-0" || fail "break-on-exit-0" "$(cat "$TMP/out")"
"$PYTHON" - "$TMP/b" <<'PY' && pass "flight-recorder-stops-at-break" || fail "flight-recorder-stops-at-break"
import json, struct, sys
run = sys.argv[1]
m = json.load(open(run + "/manifest.json"))
t = m["trace"]
assert t["mode"] == "flight-recorder", t["mode"]
d = open(run + "/samples", "rb").read()
breaks = []
for off in range(64, len(d), 24):
    exp, lat, mis, cpu, probe, flags = struct.unpack_from("<QQIHBB", d, off)
    if lat > 1000:
        breaks.append(exp + lat)
first_break = min(breaks)
last = max(c["last_ns"] for c in t["cpus"])
print("last event", last - first_break, "ns after the break")
assert t["events_recorded"] > 0
assert last - first_break < 2_000_000, "events recorded long after the break"
PY

# -- --trace off, an event the kernel lacks, bad options
"$LATWATT" run -d 500ms --trace off -q -o "$TMP/off" >/dev/null 2>&1 && [ ! -e "$TMP/off/trace.dat" ] &&
	[ "$(json "$TMP/off/manifest.json" '["trace"]["mode"]')" = off ] && pass "trace-off" || fail "trace-off"
"$LATWATT" run -d 500ms --trace sched:sched_switch,nosuch:event,default -q -o "$TMP/miss" >"$TMP/out" 2>&1 &&
	"$PYTHON" -c "
import json,sys; t=json.load(open(sys.argv[1]))['trace']
assert 'nosuch:event' in t['missing'] and 'sched:sched_switch' in t['events'], t" "$TMP/miss/manifest.json" &&
	grep -q 'nosuch:event does not exist' "$TMP/out" && pass "missing-event-listed" ||
	fail "missing-event-listed" "$(cat "$TMP/out")"
for bad in "--trace sched" "--trace sched:" "--trace a:b," "--trace-buffer 1" "--trace-buffer lots"; do
	# shellcheck disable=SC2086
	"$LATWATT" run -d 1s $bad -o "$TMP/bad" >"$TMP/out" 2>&1
	rc=$?
	[ $rc -eq 2 ] && grep -q -- "${bad%% *}" "$TMP/out" && [ ! -e "$TMP/bad" ] &&
		pass "bad-option ${bad}" || fail "bad-option ${bad}" "exit $rc: $(cat "$TMP/out")"
done
finish
