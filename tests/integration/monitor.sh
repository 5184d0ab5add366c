#!/usr/bin/env bash
# Long-term monitoring, sped up: `run --monitor 1s` for 10 s keeps a histogram
# per second and raw samples only around spikes, within the memory and disk
# bounds it prints; analyze, report and db read the run.  With the trace on,
# a SCHED_FIFO spinner planted on the measured CPU makes certain spikes: a
# trace window is saved around each, analyze names the spinner for the
# spikes inside windows and leaves the others untraced, and the disk stays
# within the printed bound.
. "$(dirname "$0")/lib.sh"
need_root
mk_tmp

run=$TMP/mon
# --threshold 1: every sample is a spike (no machine wakes a thread within
# 1 us), so the windows would hold the whole run: the disk cap must stop them.
# --trace off: no kernel trace at all, as before the trace windows
/usr/bin/time -f %M -o "$TMP/rss" "$LATWATT" run -d 10s -i 1000 --monitor 1s --threshold 1 \
	--monitor-disk 100k --trace off -o "$run" -q >"$TMP/out" 2>&1
check "monitored run exits 0" [ $? -eq 0 ]
check "the bounds are printed at the start" \
	grep -q 'monitor: a histogram per 1s; memory for it at most .* MB, disk at most .* MB' "$TMP/out"

asan=$(ldd "$LATWATT" 2>/dev/null | grep -c libasan)
python3 - "$run" "$TMP/rss" "$asan" <<'PY'
import json, os, sys
run = sys.argv[1]
def check(name, ok, why=''):
    print(('PASS: ' if ok else 'FAIL: ') + name + ('' if ok else ': ' + str(why)))
m = json.load(open(run + '/manifest.json'))
lines = open(run + '/monitor').read().splitlines()
hdr = json.loads(lines[0])
ivs = [json.loads(l) for l in lines[1:]]
check('monitor header', hdr['format'] == 'latwatt-monitor' and hdr['interval_ns'] == 10**9, hdr)
check('an interval line a second (10 s: 10 or 11)', len(ivs) in (10, 11), len(ivs))
check('manifest counts the intervals', m['monitor']['intervals'] == len(ivs), m['monitor'])
total = sum(s['histogram']['total'] for iv in ivs for s in iv['series'])
# a sample whose interval was written already (the writer starved for
# seconds) is counted as late, not lost silently
late = m['monitor']['late_samples']
check('every measured sample is in an interval histogram or counted late',
      total + late == m['samples']['measured'] and total > 0, (total, late, m['samples']))
check('consecutive intervals', all(b['start_ns'] - a['start_ns'] == 10**9 for a, b in zip(ivs, ivs[1:])))
check('no kernel trace with --trace off', m['trace']['mode'] == 'off', m['trace'])
size = os.path.getsize(run + '/samples')
check('raw windows stop at the disk cap', size <= 64 + 100 * 1024, size)
check('the cap was reached and counted', m['monitor']['window_samples_over_cap'] > 0, m['monitor'])
disk = size + os.path.getsize(run + '/monitor')
b = m['monitor_bounds']
check('disk within the printed bound', disk <= b['disk_bytes'], (disk, b))
rss = int(open(sys.argv[2]).read().split()[-1]) * 1024
# the monitor's own memory is bounded; the process is the rest of a run with --trace off
if sys.argv[3] != '0':
    print('SKIP: peak RSS within 16 MB + the monitor bound: a sanitizer build (shadow memory)')
else:
    check('peak RSS within 16 MB + the monitor bound', rss <= 16 * 2**20 + b['memory_bytes'], (rss, b))
PY

"$LATWATT" analyze -n --json "$run" >"$TMP/a.json" 2>"$TMP/a.err"
# 0 or 1: the verdict (the planted spinner's spikes break --threshold)
check "analyze reads the monitored run" [ $? -le 1 ]
python3 - "$run" "$TMP/a.json" <<'PY'
import json, sys
def check(name, ok, why=''):
    print(('PASS: ' if ok else 'FAIL: ') + name + ('' if ok else ': ' + str(why)))
m = json.load(open(sys.argv[1] + '/manifest.json'))
a = json.load(open(sys.argv[2]))
ivs = [json.loads(l) for l in open(sys.argv[1] + '/monitor').read().splitlines()[1:]]
allc = a['probes']['cyclic']['all']
check('analysis source is the monitor', a['source'] == 'monitor', a['source'])
check('count is every sample in the histograms',
      allc['count'] == m['samples']['measured'] - m['monitor']['late_samples'], allc['count'])
mx = max(s['histogram']['max_ns'] for iv in ivs for s in iv['series'])
check('maximum is the largest interval maximum', allc['max_ns'] == mx, (allc['max_ns'], mx))
ot = a['over_time']['intervals']
check('latency over time: one row per interval', len(ot) == len(ivs), len(ot))
check('row maxima match the intervals', all(
    r['probes']['cyclic']['max_ns'] == max(s['histogram']['max_ns'] for s in iv['series'])
    for r, iv in zip(ot, ivs) if iv['series']))
PY
"$LATWATT" analyze -n "$run" >"$TMP/a.txt" 2>&1
check "analyze prints latency over time" grep -q 'latency over time: maximum per 1s' "$TMP/a.txt"

"$LATWATT" report -o "$TMP/r.html" "$run" >"$TMP/r.out" 2>&1
# 0 or 1: the verdict (the planted spinner's spikes break --threshold)
check "report of the monitored run" [ $? -le 1 ]
if command -v gnuplot >/dev/null 2>&1; then
	check "report has the maxima over time" grep -q 'data-plot="maxima-cyclic"' "$TMP/r.html"
	check "report has the histogram over time" grep -q 'data-plot="histtime-cyclic"' "$TMP/r.html"
else
	skip "report plots" "needs gnuplot"
fi
"$LATWATT" db --db "$TMP/db.sqlite" add "$run" >"$TMP/db.out" 2>&1
check "db add stores the monitored run" grep -q 'stored as db:1' "$TMP/db.out"

# a damaged monitor file: a clear error naming the file and line, exit 2
cp -r "$run" "$TMP/bad"
sed -i '3s/.*/{"start_ns": 1, "series": 7/' "$TMP/bad/monitor"
"$LATWATT" analyze -n "$TMP/bad" >"$TMP/bad.out" 2>&1
rc=$?
check "damaged monitor file: exit 2" [ $rc -eq 2 ]
check "damaged monitor file: names file and line" grep -q 'monitor:3:' "$TMP/bad.out"

# --trace with --monitor but no --threshold (no spikes) is refused; bad intervals too
"$LATWATT" run -d 1s --monitor 1s --trace default -o "$TMP/x" -q >"$TMP/x.out" 2>&1
check "--monitor with --trace but no --threshold refused" [ $? -eq 2 ]
"$LATWATT" run -d 1s --monitor 500ms -o "$TMP/y" -q >"$TMP/y.out" 2>&1
check "--monitor below 1s refused" grep -q 'at least 1s' "$TMP/y.out"

# The trace around spikes: a SCHED_FIFO 98 spinner (above the probe's 95) on
# the measured CPU holds it 30 ms at 2 s, 5 s and 8 s.
if [ ! -d /sys/kernel/tracing/instances ] && [ ! -d /sys/kernel/debug/tracing/instances ]; then
	skip "trace windows" "no tracefs"
	finish
fi
need_cmd python3
cpu=$(($(getconf _NPROCESSORS_ONLN) - 1))
cat >"$TMP/spin.py" <<'PY'
import ctypes, os, sys, time
cpu, out = int(sys.argv[1]), sys.argv[2]
ctypes.CDLL(None).prctl(15, b"lw-spin", 0, 0, 0)          # PR_SET_NAME: the trace's comm
os.sched_setaffinity(0, {cpu})
os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(98))
t = time.monotonic_ns()
with open(out, "w") as f:
    for at in (2, 5, 8):
        left = (t + at * 10**9 - time.monotonic_ns()) / 1e9
        if left > 0:
            time.sleep(left)
        t0 = time.monotonic_ns()
        while time.monotonic_ns() - t0 < 30_000_000:
            pass
        f.write("%d %d\n" % (t0, time.monotonic_ns()))
PY
trun=$TMP/montrace
"$LATWATT" run -d 11s -c "$cpu" -p 95 --monitor 1s --threshold 2000 --monitor-window 200ms \
	--trace-buffer 8M \
	--monitor-disk 32M -o "$trun" -q >"$TMP/t.out" 2>&1 &
lw=$!
sleep 0.3
python3 "$TMP/spin.py" "$cpu" "$TMP/spins" || fail "spinner" "the spinner could not run"
wait "$lw"
check "monitored run with trace windows exits 0" [ $? -eq 0 ]
check "the kernel memory of the trace ring is printed" \
	grep -q 'monitor: kernel memory for the trace ring .* MB' "$TMP/t.out"
"$LATWATT" analyze -n --json "$trun" >"$TMP/ta.json" 2>"$TMP/ta.err"
check "analyze reads the monitored run with trace windows" [ $? -le 1 ]
"$LATWATT" analyze -n "$trun" >"$TMP/ta.txt" 2>&1
check "analyze says how many spikes had a trace window" \
	grep -q 'monitored: .* spikes inside the .* trace windows saved' "$TMP/ta.txt"
# the trace holds only windows: no power estimate extrapolated from them
check "no power estimated from the windows, and it says why" \
	grep -q 'no power estimate: a monitored run.s trace holds only the windows' "$TMP/ta.err"
check "no power section from the windows" \
	python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["power"] is not None)' "$TMP/ta.json"
"$LATWATT" power estimate "$trun" >"$TMP/pe.out" 2>&1
check "power estimate of a monitored run: refused, exit 2" [ $? -eq 2 ]
python3 - "$trun" "$TMP/ta.json" "$TMP/spins" <<'PY'
import json, os, sys
def check(name, ok, why=''):
    print(('PASS: ' if ok else 'FAIL: ') + name + ('' if ok else ': ' + str(why)))
run = sys.argv[1]
m = json.load(open(run + '/manifest.json'))
a = json.load(open(sys.argv[2]))
spins = [tuple(map(int, l.split())) for l in open(sys.argv[3])]
t = m['trace']
wins = [(w['from_ns'], w['to_ns']) for w in t.get('windows', [])]
check('trace mode monitor', t['mode'] == 'monitor', t['mode'])
check('three spins planted', len(spins) == 3, spins)
inwin = lambda a0, b0: any(f <= a0 and b0 <= to for f, to in wins)
check('a trace window holds every planted spin', all(inwin(a0, b0) for a0, b0 in spins),
      (spins, wins))
check('windows in time order, apart', all(p[1] < q[0] for p, q in zip(wins, wins[1:])), wins)
tw = a['spikes'].get('trace_windows', {})
check('analysis counts the spikes with a trace window',
      tw.get('windows') == len(wins) and tw.get('spikes_in_windows', 0) >= 3 and
      tw['spikes_in_windows'] + tw['spikes_without_trace'] == a['spikes']['spikes_total'], tw)
spikes = a['spikes']['all']         # [cpu, expected_ns, latency_ns, probe, cause]
over = lambda s: any(a0 < s[1] + s[2] and b0 > s[1] for a0, b0 in spins)
caused = [s for s in spikes if over(s) and s[2] > 10_000_000 and inwin(s[1], s[1] + s[2])]
named = [s for s in caused if s[4] == 'preempt:lw-spin']
check('spikes the spinner caused inside windows are named after it',
      len(caused) >= 3 and len(named) >= len(caused) - 1, (len(caused), caused, named))
outside = [s for s in spikes if not inwin(s[1], s[1] + s[2])]
check('no spike outside every window is attributed', all(s[4] == 'unattributable' for s in outside),
      [s for s in outside if s[4] != 'unattributable'][:5])
used = os.path.getsize(run + '/samples') - 64 + t['window_bytes']
check('samples and trace windows within the disk cap', used <= m['monitor']['disk_cap_bytes'],
      (used, m['monitor']['disk_cap_bytes']))
disk = sum(os.path.getsize(os.path.join(run, f)) for f in ('samples', 'monitor', 'trace.dat'))
b = m['monitor_bounds']
check('disk within the printed bound', disk <= b['disk_bytes'], (disk, b))
check('kernel memory bound in the manifest', b['kernel_trace_bytes'] > 0, b)
PY

# windows past the cap are counted, not written
"$LATWATT" run -d 4s -c "$cpu" --monitor 1s --threshold 1 --monitor-disk 16k \
	-o "$TMP/tcap" -q >"$TMP/tcap.out" 2>&1
check "a tiny cap: the run exits 0" [ $? -eq 0 ]
python3 - "$TMP/tcap" <<'PY'
import json, os, sys
def check(name, ok, why=''):
    print(('PASS: ' if ok else 'FAIL: ') + name + ('' if ok else ': ' + str(why)))
m = json.load(open(sys.argv[1] + '/manifest.json'))
t = m['trace']
used = os.path.getsize(sys.argv[1] + '/samples') - 64 + t['window_bytes']
check('trace windows past the cap counted', t['windows_over_cap'] > 0, t)
check('the cap holds', used <= 16 * 1024, used)
PY
finish
