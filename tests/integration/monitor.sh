#!/usr/bin/env bash
# Long-term monitoring, sped up: `run --monitor 1s` for 10 s keeps a histogram
# per second and raw samples only around spikes, within the memory and disk
# bounds it prints; analyze, report and db read the run.
. "$(dirname "$0")/lib.sh"
need_root
mk_tmp

run=$TMP/mon
# --threshold 1: every sample is a spike (no machine wakes a thread within
# 1 us), so the windows would hold the whole run: the disk cap must stop them.
/usr/bin/time -f %M -o "$TMP/rss" "$LATWATT" run -d 10s -i 1000 --monitor 1s --threshold 1 \
	--monitor-disk 100k -o "$run" -q >"$TMP/out" 2>&1
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
check('no kernel trace in monitor mode', m['trace']['mode'] == 'off', m['trace'])
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
check "analyze reads the monitored run" [ $? -eq 0 ]
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
check "report of the monitored run" [ $? -eq 0 ]
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

# --trace with --monitor is refused; bad intervals too
"$LATWATT" run -d 1s --monitor 1s --trace default -o "$TMP/x" -q >"$TMP/x.out" 2>&1
check "--monitor with --trace refused" [ $? -eq 2 ]
"$LATWATT" run -d 1s --monitor 500ms -o "$TMP/y" -q >"$TMP/y.out" 2>&1
check "--monitor below 1s refused" grep -q 'at least 1s' "$TMP/y.out"
finish
