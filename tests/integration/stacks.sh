#!/usr/bin/env bash
# run --stacks on the real kernel: the code behind a spike.  A SCHED_FIFO
# thread of higher priority than the probe ("lw-hog", as attribution.sh
# plants it) spins 300 us in user space about every 50 ms on the measured
# CPU, then sleeps in clock_nanosleep.  The spikes attributed to it must name
# where it was from the kernel's stacks: in user space when the probe's timer
# fired (the interrupt's stack ends at its entry; or still in its
# clock_nanosleep, woken a moment before: nowhere else), and clock_nanosleep
# where it left the CPU to the probe.  A run without --stacks has no stacks.
. "$(dirname "$0")/lib.sh"
need_tracefs
need_cmd "$PYTHON"
[ -e "$TRACEFS/events/sched/sched_switch/trigger" ] ||
	skip_all "this kernel has no event triggers ($TRACEFS/events/sched/sched_switch/trigger)"
grep -q stacktrace "$TRACEFS/events/sched/sched_switch/trigger" ||
	skip_all "this kernel has no stacktrace trigger"
mk_tmp
[ -n "${KEEP:-}" ] && trap - EXIT && echo "keeping $TMP"
ncpu=$(getconf _NPROCESSORS_ONLN)
cpu=$((ncpu - 1))

cat >"$TMP/hog.py" <<'PY'
import ctypes, os, random, sys, time
cpu, out, secs = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
ctypes.CDLL(None).prctl(15, b"lw-hog", 0, 0, 0)
os.sched_setaffinity(0, {cpu})
os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(98))
spins = []
end = time.monotonic_ns() + int(secs * 1e9)
nxt = time.monotonic_ns() + 20_000_000
while nxt < end:
    left = (nxt - time.monotonic_ns()) / 1e9
    if left > 0:
        time.sleep(left)
    t0 = time.monotonic_ns()
    while time.monotonic_ns() - t0 < 300_000:
        pass
    spins.append((t0, time.monotonic_ns()))
    nxt += 50_000_000 + random.randrange(200_000)
os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
with open(out, "w") as f:
    for a, b in spins:
        f.write("%d %d\n" % (a, b))
PY

"$LATWATT" run -q --stacks -d 4s -c "$cpu" -i 200 -p 95 -o "$TMP/r" >"$TMP/run.out" 2>&1 &
lw=$!
sleep 0.5
"$PYTHON" "$TMP/hog.py" "$cpu" "$TMP/spins" 3 || fail "hog-ran" "the spinner could not run"
wait "$lw" && pass "run-with-stacks" || fail "run-with-stacks" "$(cat "$TMP/run.out")"
[ -s "$TMP/r/trace.dat" ] || { fail "trace-recorded" "no trace.dat"; finish; }
[ "$(json "$TMP/r/manifest.json" '["trace"]["stacks"]')" = True ] && pass "manifest-stacks" ||
	fail "manifest-stacks" "manifest's trace.stacks is not true"

"$LATWATT" analyze --spike-threshold 150 --top 100000 --json "$TMP/r" >"$TMP/a.json" 2>"$TMP/an.err"
[ $? -le 1 ] && pass "analyze" || fail "analyze" "$(cat "$TMP/an.err")"
"$LATWATT" analyze --spike-threshold 150 "$TMP/r" >"$TMP/a.txt" 2>&1
py "hog-code-named" "$TMP/a.json" "$TMP/spins" "$TMP/a.txt" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
spins = [tuple(map(int, l.split())) for l in open(sys.argv[2])]
text = open(sys.argv[3]).read()
def overlaps(s):
    e, w = s["expected_ns"], s["expected_ns"] + s["latency_ns"]
    return any(a0 < w and b0 > e for a0, b0 in spins)
hog = [s for s in a["spikes"]["top"] if s.get("cause") == "preempt:lw-hog" and overlaps(s)]
coded = [s for s in hog if s.get("cause_code")]
user = [s for s in coded if s["cause_code"].startswith("in user space at the wake-up")]
sleep = [s for s in coded if "(clock_nanosleep)" in s["cause_code"]]
print("spikes caused by lw-hog during its spins: %d, with the code named: %d, in user space "
      "at the wake-up: %d, leaving the CPU in clock_nanosleep: %d"
      % (len(hog), len(coded), len(user), len(sleep)))
for s in hog[:3]:
    print("  %d ns: %s %s" % (s["latency_ns"], s["cause"], s.get("cause_code")))
for s in hog:
    if s not in user:
        print("  not in user space at the wake-up: %d ns, %s, code %s"
              % (s["latency_ns"], s.get("cause_code"), json.dumps(s.get("code"))))
# where the spinner was when the probe's timer fired: in user space (its
# spin) or, woken a moment before, still in its clock_nanosleep: nothing else
own = [s for s in hog if s.get("code", {}).get("wakeup", {}).get("pid") == s["cause_task"]["pid"]]
wrong = [s for s in own if s["code"]["wakeup"]["where"] != "user space"
         and "(clock_nanosleep)" not in s["code"]["wakeup"]["where"]]
for s in wrong:
    print("  wrong place at the wake-up:", s["code"]["wakeup"]["where"])
ok = len(hog) >= 5 and len(coded) >= 0.9 * len(hog) and len(sleep) >= 0.9 * len(hog) \
     and len(user) >= 0.5 * len(hog) and not wrong
print("%s: hog-code-named" % ("PASS" if ok else "FAIL"))
# a spike's code belongs to its cause's task only
bad = [s for s in a["spikes"]["top"] if s.get("cause_code") and not s.get("cause_task")]
print("%s: code-only-with-a-task (%d without)" % ("FAIL" if bad else "PASS", len(bad)))
shown = "in user space at the wake-up; left the CPU in" in text
print("%s: text-names-the-code" % ("PASS" if shown else "FAIL"))
PY

if "$PYTHON" -c 'import jsonschema' 2>/dev/null; then
	py "schema-with-code" "$TOP/doc/analysis.schema.json" "$TMP/a.json" <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
errs = list(jsonschema.Draft202012Validator(schema).iter_errors(json.load(open(sys.argv[2]))))
for e in errs[:5]:
    print(e.json_path, e.message[:200])
print("%s: schema-with-code" % ("FAIL" if errs else "PASS"))
PY
else
	skip "schema-with-code" "needs python3-jsonschema (scripts/install-deps)"
fi

# without --stacks: no stacks, no code
"$LATWATT" run -q -d 1s -c "$cpu" -i 200 -p 95 -o "$TMP/r0" >"$TMP/run0.out" 2>&1 ||
	fail "run-without-stacks" "$(cat "$TMP/run0.out")"
"$LATWATT" analyze --spike-threshold 1 --top 100000 --json "$TMP/r0" >"$TMP/a0.json" 2>/dev/null
py "no-stacks-no-code" "$TMP/a0.json" "$TMP/r0/manifest.json" <<'PY'
import json, sys
a, m = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
n = [s for s in a["spikes"]["top"] if "code" in s or "cause_code" in s]
ok = not n and "stacks" not in m["trace"]
print("%s: no-stacks-no-code (%d spikes with code, manifest stacks: %s)"
      % ("PASS" if ok else "FAIL", len(n), m["trace"].get("stacks")))
PY
finish
