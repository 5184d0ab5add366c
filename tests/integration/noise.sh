#!/usr/bin/env bash
# The noise probe on a real CPU: samples, manifest totals, RT throttling
# restored, interruption, and refused CPU sets.
. "$(dirname "$0")/lib.sh"
need_root
need_tracefs
mk_tmp

ncpu=$(getconf _NPROCESSORS_ONLN)
[ "$ncpu" -ge 2 ] || skip_all "needs two online CPUs (one stays for housekeeping)"
[ "$(cat /sys/devices/system/cpu/cpu1/online 2>/dev/null || echo 0)" = 1 ] ||
	skip_all "cpu 1 is offline"
RT=/proc/sys/kernel/sched_rt_runtime_us
rt_before=$(cat $RT)
S="$PYTHON $TOP/tests/integration/samples.py"

# 1. three seconds on cpu 1 (this machine has no isolated CPU: chosen explicitly)
run=$TMP/noise
"$LATWATT" run -o "$run" -d 3s -q --probes noise --noise-cpus 1 --threshold 20 \
	>"$TMP/out" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
	fail "noise run" "exit $rc: $(cat "$TMP/out")"
	finish
fi
pass "noise run exits 0"
m=$run/manifest.json
check "manifest complete" [ "$(json "$m" '["status"]')" = complete ]
check "only noise selected" [ "$(json "$m" '["probes"]["selected"]')" = "['noise']" ]
check "noise on cpu 1" [ "$(json "$m" '["probes"]["noise"]["threads"][0]["cpu"]')" = 1 ]
check "rt throttling restored" [ "$(cat $RT)" = "$rt_before" ]
check "rt throttling recorded" [ "$(json "$m" '["probes"]["noise"]["rt_throttling"]["sched_rt_runtime_us"]')" = "$rt_before" ]

$S "$run/samples" --summary >"$TMP/sum" || fail "samples readable" "$(cat "$TMP/sum")"
py "noise manifest against samples" "$m" "$TMP/sum" <<'PY' >"$TMP/checks"
import json, sys
m = json.load(open(sys.argv[1]))
s = json.load(open(sys.argv[2]))
t = m['probes']['noise']['threads'][0]
thr = m['probes']['noise']['gap_threshold_ns']
p = s['probes'].get('4/1', {'n': 0, 'sum': 0, 'max': 0, 'min': None, 'flagged': 0,
                            'first': 0, 'last': 0})
def check(name, ok, why=''):
    print(('PASS: ' if ok else 'FAIL: ') + name + ('' if ok else ': ' + why))
check('only noise samples of cpu 1', list(s['probes']) in ([], ['4/1']), str(list(s['probes'])))
check('busy loop ran (>1M loops in 3s)', t['loops'] > 1000000, str(t['loops']))
check('loop cost plausible (<1us)', 0 < t['min_loop_ns'] < 1000 or t['loops'] == 0, str(t['min_loop_ns']))
check('observed ~3s', 2.5e9 < t['observed_ns'] < 3.5e9, str(t['observed_ns']))
check('one sample per gap', p['n'] == t['gaps'] - t['dropped'], f"{p['n']} vs {t['gaps']}")
if t['dropped'] == 0:
    check('sample sum = noise total', p['sum'] == t['noise_ns'], f"{p['sum']} vs {t['noise_ns']}")
check('max gap covers the samples', t['max_gap_ns'] >= p['max'], f"{t['max_gap_ns']} vs {p['max']}")
check('every sample above the gap threshold', p['n'] == 0 or p['min'] > thr, str(p['min']))
check('flagged = over threshold', p['flagged'] == t['over_threshold'],
      f"{p['flagged']} vs {t['over_threshold']}")
check('gaps inside the run', p['n'] == 0 or (t['start_ns'] <= p['first'] and p['last'] <= t['end_ns']),
      f"{p['first']}..{p['last']} vs {t['start_ns']}..{t['end_ns']}")
check('samples written = manifest count', s['count'] == m['samples']['written'],
      f"{s['count']} vs {m['samples']['written']}")
avail = t['cpu_available_percent']
check('cpu available percent in range', 0 <= avail <= 100, str(avail))
PY
cat "$TMP/checks"
grep -q '^FAIL' "$TMP/checks" && _status=1
flags_ok=$($S "$run/samples" | awk '{ over = ($4 > 20000); if (over != ($6 % 2)) bad++ } END { print bad + 0 }')
check "threshold flag matches latency > --threshold" [ "$flags_ok" = 0 ]

# 2. interrupted: data kept, marked incomplete, RT throttling restored
run2=$TMP/noise-int
"$LATWATT" run -o "$run2" -d 60s -q --probes noise --noise-cpus 1 >"$TMP/out2" 2>&1 &
pid=$!
# wait until the run is under way (the manifest says "running"), then a bit
for _ in $(seq 100); do
	[ -f "$run2/manifest.json" ] && grep -q '"running"' "$run2/manifest.json" && break
	sleep 0.1
done
sleep 1
kill -INT $pid
wait $pid
rc=$?
check "SIGINT exits 130" [ $rc -eq 130 ]
check "interrupted run is incomplete" [ "$(json "$run2/manifest.json" '["status"]')" = incomplete ]
check "interrupted run has noise totals" [ "$(json "$run2/manifest.json" '["probes"]["noise"]["threads"][0]["loops"] > 0')" = True ]
check "rt throttling restored after SIGINT" [ "$(cat $RT)" = "$rt_before" ]

# 3. refused CPU sets
all=$(cat /sys/devices/system/cpu/online)
"$LATWATT" run -o "$TMP/bad1" -d 1s -q --probes noise --noise-cpus "$all" >"$TMP/e1" 2>&1
rc=$?
check "noise on every CPU refused (exit 2)" [ $rc -eq 2 ]
check "refusal names the housekeeping CPU" grep -q 'every online CPU.*housekeeping' "$TMP/e1"
"$LATWATT" run -o "$TMP/bad2" -d 1s -q --probes noise --noise-cpus 4095 >"$TMP/e2" 2>&1
check "offline noise CPU refused (exit 2)" [ $? -eq 2 ]
check "error names --noise-cpus" grep -q -- '--noise-cpus' "$TMP/e2"
"$LATWATT" run -o "$TMP/bad3" -d 1s -q --probes cyclic,noise --cpus 1 --noise-cpus 1 >"$TMP/e3" 2>&1
check "no CPU left for cyclic refused (exit 2)" [ $? -eq 2 ]
check "no run directory left by refused runs" [ ! -e "$TMP/bad1" -a ! -e "$TMP/bad3" ]
check "rt throttling untouched by refused runs" [ "$(cat $RT)" = "$rt_before" ]
finish
