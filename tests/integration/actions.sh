#!/usr/bin/env bash
# run --on-threshold / --on-end on a planted truth: a SCHED_FIFO thread of
# higher priority than the probe spins 3 ms every 0.4 s on the probe's CPU,
# so that samples above --break-on 1500us come from it at known moments.
#   exec     its environment holds the figures of a sample that is in
#            RUN/samples, above the threshold; without continue the run ends
#            at that first crossing (complete, "break:")
#   signal   a planted process receives it
#   continue the run goes on to its duration and the actions fire again
#   trace    with continue, trace.dat ends at the first crossing; without,
#            it is the flight recorder up to it
#   on-end   an exec after the run directory is saved: LATWATT_STATUS; a
#            signal with no PID reaches latwatt's parent
# Each action is in RUN/actions.json with its time and outcome.
. "$(dirname "$0")/lib.sh"
need_tracefs
need_cmd "$PYTHON"
mk_tmp
[ -n "${KEEP:-}" ] && trap - EXIT && echo "keeping $TMP"
ncpu=$(getconf _NPROCESSORS_ONLN)
cpu=$((ncpu - 1))

cat >"$TMP/hog.py" <<'PY'
import os, sys, time
cpu, secs = int(sys.argv[1]), float(sys.argv[2])
os.sched_setaffinity(0, {cpu})
os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(98))
end = time.monotonic() + secs
time.sleep(0.3)
while time.monotonic() < end:
    t0 = time.monotonic_ns()
    while time.monotonic_ns() - t0 < 3_000_000:
        pass
    time.sleep(0.4)
os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
PY
# writes its environment's LATWATT_* to $1 (one file per call: $1.N)
cat >"$TMP/env.sh" <<'SH'
#!/bin/sh
n=0
while [ -e "$1.$n" ]; do n=$((n + 1)); done
env | grep '^LATWATT_' | sort >"$1.$n"
SH
chmod +x "$TMP/env.sh"
# the planted process: counts the SIGUSR1 it receives until SIGTERM
cat >"$TMP/catcher.py" <<'PY'
import signal, sys, time
out = sys.argv[1]
got, done = [], []
signal.signal(signal.SIGUSR1, lambda s, f: got.append(time.monotonic_ns()))
signal.signal(signal.SIGTERM, lambda s, f: done.append(1))
end = time.monotonic() + 30
open(out + ".ready", "w").close()
while time.monotonic() < end and not done:
    time.sleep(0.01)
with open(out, "w") as f:
    f.write("%d\n" % len(got))
PY

hog() { "$PYTHON" "$TMP/hog.py" "$cpu" "$1" & hogpid=$!; }

# 1. exec, no continue: the first crossing ends the run
hog 10
"$LATWATT" run -q -d 10s -c "$cpu" --probes cyclic -i 500 -b 1500 --trace-buffer 512k \
	--on-threshold trace --on-threshold "exec:$TMP/env.sh $TMP/thr" \
	--on-end "exec:$TMP/env.sh $TMP/end" -o "$TMP/r1" >"$TMP/r1.out" 2>&1
rc=$?
kill "$hogpid" 2>/dev/null; wait "$hogpid" 2>/dev/null
[ $rc -eq 0 ] && pass "run-stops-at-threshold" || fail "run-stops-at-threshold" "$(cat "$TMP/r1.out")"
py exec-env-is-a-sample "$TMP/r1" "$TMP/thr" "$TMP/end" <<'PY'
import json, os, struct, sys
run, thr, end = sys.argv[1:4]
def env(f):
    return dict(l.rstrip("\n").split("=", 1) for l in open(f))
def samples(run):
    d = open(os.path.join(run, "samples"), "rb").read()
    return [struct.unpack_from("<QQIHBB", d, o) for o in range(64, len(d) - 23, 24)]
ok = True
def check(name, cond, why=""):
    global ok
    print(("PASS: %s" % name) if cond else ("FAIL: %s: %s" % (name, why)))
    ok = ok and cond
m = json.load(open(os.path.join(run, "manifest.json")))
check("status-complete-break", m["status"] == "complete" and
      m.get("status_reason", "").startswith("break:"), "%s %s" % (m["status"], m.get("status_reason")))
files = sorted(f for f in os.listdir(os.path.dirname(thr)) if f.startswith(os.path.basename(thr) + "."))
check("exec-ran-once", len(files) == 1, "ran %d times" % len(files))
if files:
    e = env(os.path.join(os.path.dirname(thr), files[0]))
    lat, t, c = int(e["LATWATT_LATENCY_NS"]), int(e["LATWATT_TIME_NS"]), int(e["LATWATT_CPU"])
    match = [s for s in samples(run) if s[0] == t and s[1] == lat and s[3] == c and s[4] == 1]
    check("exec-env-equals-a-sample", len(match) == 1 and e["LATWATT_PROBE"] == "cyclic",
          "no sample at %d latency %d cpu %d" % (t, lat, c))
    check("exec-sample-above-threshold", lat > 1_500_000 and
          e["LATWATT_THRESHOLD_NS"] == "1500000", e)
    check("exec-run-dir", os.path.samefile(e["LATWATT_RUN_DIR"], run), e["LATWATT_RUN_DIR"])
    check("exec-event", e["LATWATT_EVENT"] == "threshold", e["LATWATT_EVENT"])
    a = json.load(open(os.path.join(run, "actions.json")))
    fired = [x for x in a["actions"] if x["event"] == "threshold"]
    check("log-threshold", [x["kind"] for x in fired] == ["trace", "exec"] and
          all(x["ok"] and x["time"]["monotonic_ns"] >= t for x in fired) and
          fired[1]["sample"]["latency_ns"] == lat, fired)
    ends = [x for x in a["actions"] if x["event"] == "end"]
    check("log-end", len(ends) == 1 and ends[0]["ok"], ends)
    ee = env(end + ".0") if os.path.exists(end + ".0") else {}
    check("on-end-env", ee.get("LATWATT_EVENT") == "end" and
          ee.get("LATWATT_STATUS") == "complete" and ee.get("LATWATT_LATENCY_NS") == str(lat), ee)
    check("manifest-actions", m["actions"]["on_threshold"][1].startswith("exec:") and
          m["actions"]["continue"] is False and m["actions"]["crossings_fired"] == 1, m["actions"])
sys.exit(0 if ok else 1)
PY
# the flight recorder up to the crossing
if [ -s "$TMP/r1/trace.dat" ]; then
	"$LATWATT" tracedump "$TMP/r1" >"$TMP/r1.dump" 2>/dev/null
	py trace-up-to-crossing "$TMP/r1" "$TMP/r1.dump" <<'PY'
import json, sys
a = json.load(open(sys.argv[1] + "/actions.json"))
s = [x for x in a["actions"] if x["kind"] == "trace"][0]["sample"]
ts = [int(l.split()[0]) for l in open(sys.argv[2]) if l[:1].isdigit()]
cross = s["expected_ns"] + s["latency_ns"]
ok = ts and max(ts) < cross + 50_000_000
print("PASS: trace-up-to-crossing" if ok else
      "FAIL: trace-up-to-crossing: last event %s ns after the crossing" % (max(ts) - cross if ts else None))
sys.exit(0 if ok else 1)
PY
else
	fail "trace-up-to-crossing" "no trace.dat"
fi

# 2. signal and continue, with trace: the run goes to its end, tracing stops at the first crossing
"$PYTHON" "$TMP/catcher.py" "$TMP/caught" & catcher=$!
for _ in $(seq 1 100); do [ -e "$TMP/caught.ready" ] && break; sleep 0.05; done
hog 4
"$LATWATT" run -q -d 3s -c "$cpu" --probes cyclic -i 500 -b 1500 --trace-buffer 512k \
	--on-threshold "signal:USR1:$catcher" --on-threshold trace --on-threshold continue \
	-o "$TMP/r2" >"$TMP/r2.out" 2>&1
rc=$?
kill "$hogpid" 2>/dev/null; wait "$hogpid" 2>/dev/null
kill -TERM "$catcher" 2>/dev/null; wait "$catcher" 2>/dev/null
[ $rc -eq 0 ] && pass "run-with-continue" || fail "run-with-continue" "$(cat "$TMP/r2.out")"
# every crossing the actions ran for signalled it
fired=$(json "$TMP/r2/actions.json" '["crossings_fired"]')
[ "$(cat "$TMP/caught" 2>/dev/null)" = "$fired" ] && pass "signal-reached-planted-process" ||
	fail "signal-reached-planted-process" "caught: $(cat "$TMP/caught" 2>/dev/null), fired $fired"
"$LATWATT" tracedump "$TMP/r2" >"$TMP/r2.dump" 2>/dev/null
py continue-to-duration "$TMP/r2" "$TMP/r2.dump" <<'PY'
import json, os, struct, sys
run = sys.argv[1]
m = json.load(open(run + "/manifest.json"))
a = json.load(open(run + "/actions.json"))
ok = True
def check(name, cond, why=""):
    global ok
    print(("PASS: %s" % name) if cond else ("FAIL: %s: %s" % (name, why)))
    ok = ok and cond
d = open(run + "/samples", "rb").read()
s = [struct.unpack_from("<QQIHBB", d, o) for o in range(64, len(d) - 23, 24)]
over = [x for x in s if x[1] > 1_500_000]
span = (s[-1][0] - s[0][0]) / 1e9 if s else 0
check("continue-complete", m["status"] == "complete" and not m.get("status_reason"),
      "%s %s" % (m["status"], m.get("status_reason")))
check("continue-measured-to-the-end", span > 2.5, "samples span %.2f s" % span)
check("continue-several-crossings", len(over) >= 2 and a["crossings"] >= 2 and
      a["crossings_fired"] >= 2, "%d samples over, %d fired" % (len(over), a["crossings_fired"]))
sig = [x for x in a["actions"] if x["kind"] == "signal"]
check("signal-logged", sig and all(x["ok"] and "sent SIGUSR1" in x["outcome"] for x in sig),
      [x["outcome"] for x in sig])
first = min(x["sample"]["expected_ns"] + x["sample"]["latency_ns"] for x in a["actions"])
ts = [int(l.split()[0]) for l in open(sys.argv[2]) if l[:1].isdigit()]
later = [x for x in over if x[0] > first + 100_000_000]
check("trace-ends-at-first-crossing", ts and max(ts) < first + 50_000_000 and later,
      "last event %s ns after the first crossing; %d crossings after it" %
      (max(ts) - first if ts else None, len(later)))
tr = [x for x in a["actions"] if x["kind"] == "trace"]
check("trace-logged", tr and tr[0]["ok"] and "stopped at the crossing" in tr[0]["outcome"] and
      all("earlier crossing" in x["outcome"] for x in tr[1:]), [x["outcome"] for x in tr])
sys.exit(0 if ok else 1)
PY

# 3. signal's default process is latwatt's parent (rtla's pid=parent):
# a parent that waits for latwatt and counts the SIGUSR1 it receives
"$PYTHON" - "$LATWATT" "$cpu" "$TMP/r3" >"$TMP/r3.parent" 2>"$TMP/r3.out" <<'PY'
import signal, subprocess, sys
got = []
signal.signal(signal.SIGUSR1, lambda s, f: got.append(1))
rc = subprocess.call([sys.argv[1], "run", "-q", "-d", "1s", "-c", sys.argv[2], "--probes",
                      "cyclic", "--trace", "off", "--on-end", "signal:USR1", "-o", sys.argv[3]])
print(rc, len(got))
PY
[ "$(cat "$TMP/r3.parent")" = "0 1" ] && pass "signal-default-is-the-parent" ||
	fail "signal-default-is-the-parent" "status and signals: $(cat "$TMP/r3.parent") $(cat "$TMP/r3.out")"
finish
