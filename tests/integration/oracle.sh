#!/usr/bin/env bash
# The independent oracle (tests/oracle) over real runs of every kind: idle,
# av-stress, --monitor, power sampled over cpuidle counters, --repeat, an imported cyclictest run, a run stopped
# with SIGINT, one killed with SIGKILL (then `latwatt cleanup`), samples cut
# at a record boundary and in the middle of a record, and an imported meter
# log.  Each is analyzed and reported (text, analysis.json, HTML, Markdown,
# JUnit); the oracle recomputes every figure from the raw files and checks
# every view, figure by figure.  A few seconds a run, under 3 minutes in all.
. "$(dirname "$0")/lib.sh"
need_root
need_tracefs
need_cmd trace-cmd
need_cmd "$PYTHON"
"$PYTHON" -c 'import numpy' 2>/dev/null || skip_all "needs numpy for $PYTHON (python3-numpy)"
if [ -n "${ORACLE_KEEP:-}" ]; then	# keep the runs and views there, for a look
	TMP=$ORACLE_KEEP; mkdir -p "$TMP"
else
	mk_tmp
fi
ORACLE=$TOP/tests/oracle/oracle.py
R=$TMP/runs
mkdir -p "$R" "$TMP/v"
# budgets only so that the JUnit XML carries measured figures
BUDGETS=(--budget 'p99<10000000us' --budget 'max<10000000us' --budget 'missed<1000000000')

# views NAME RUN: analyze and report the run, then the oracle over every view
views() {
	local n=$1 run=$2 v=$TMP/v/$1 rc
	"$LATWATT" analyze "$run" >"$v.txt" 2>"$v.err"
	rc=$?
	echo "$n: analyze exit $rc" >>"$TMP/status"
	"$LATWATT" report "$run" -o "$v.html" --markdown "$v.md" --junit "$v.xml" "${BUDGETS[@]}" \
		>"$v.rep" 2>&1
	echo "$n: report exit $?" >>"$TMP/status"
	"$PYTHON" "$ORACLE" --kind "$n" "$run" --json "$run/analysis.json" --text "$v.txt" \
		--html "$v.html" --markdown "$v.md" --junit "$v.xml" --analyze-status $rc \
		--report "$TMP/discrepancies.jsonl"
	case $? in
	0|1) ;;
	*) fail "oracle $n" "the oracle itself failed" ;;
	esac
}

# run NAME ARGS...: a run of a few seconds into $R/NAME
run() {
	local n=$1; shift
	"$LATWATT" run -q -o "$R/$n" "$@" >"$TMP/$n.out" 2>&1
	local rc=$?
	[ $rc -eq 0 ] || { fail "run $n" "exit $rc: $(tail -3 "$TMP/$n.out")"; return 1; }
}

# started NAME: wait until the run is under way
started() {
	for _ in $(seq 100); do
		grep -q '"running"' "$R/$1/manifest.json" 2>/dev/null && [ -s "$R/$1/samples" ] && return 0
		sleep 0.1
	done
	return 1
}

run idle -d 3s && views idle "$R/idle"

# The oracle itself: one figure changed in each view (p99 of all CPUs, by
# more than its printed rounding) must be caught in that view.
if [ -s "$TMP/v/idle.txt" ]; then
	mkdir -p "$TMP/mut"
	py "planted errors" "$R/idle/analysis.json" "$TMP/v/idle" "$TMP/mut/idle" <<'PY'
import json, re, sys
src, v, out = sys.argv[1], sys.argv[2], sys.argv[3]
def check(name, ok, why=''):
    print(('PASS: ' if ok else 'FAIL: ') + name + ('' if ok else ': ' + str(why)))
a = json.load(open(src))
a['probes']['cyclic']['all']['p99_ns'] += 1000
json.dump(a, open(out + '.json', 'w'))
t = open(v + '.txt').read().split('\n')
hdr = None
for i, ln in enumerate(t):
    if ln.split()[:2] == ['cpu', 'samples']:
        hdr = ln.split()
    elif hdr and ln.split()[:1] == ['all']:
        f = ln.split()
        j = hdr.index('p99')
        old = f[j]
        t[i] = ln.replace(' ' + old + ' ', ' %.1f ' % (float(old) + 1.0), 1)
        break
open(out + '.txt', 'w').write('\n'.join(t))
h = open(v + '.html').read()
h2 = re.sub(r'(data-cpu="all" data-key="p99_ns" data-value="\d+">)([\d.]+)<',
            lambda m: m.group(1) + '%.1f<' % (float(m.group(2)) + 1.0), h, count=1)
open(out + '.html', 'w').write(h2)
md = open(v + '.md').read().split('\n')
for i, ln in enumerate(md):
    if ln.startswith('| cyclic |'):
        c = ln.split('|')
        c[4] = ' %.1f us ' % (float(c[4].split()[0]) + 1.0)
        md[i] = '|'.join(c)
        break
open(out + '.md', 'w').write('\n'.join(md))
x = open(v + '.xml').read()
x2 = re.sub(r'(testcase name="budget.cyclic.p99".*?measured )([\d.]+)',
            lambda m: m.group(1) + '%.3f' % (float(m.group(2)) + 1.0), x, count=1, flags=re.S)
open(out + '.xml', 'w').write(x2)
check('a figure planted in every view', h2 != h and x2 != x and t != open(v + '.txt').read())
PY
	"$PYTHON" "$ORACLE" --kind planted "$R/idle" --json "$TMP/mut/idle.json" --text "$TMP/mut/idle.txt" \
		--html "$TMP/mut/idle.html" --markdown "$TMP/mut/idle.md" --junit "$TMP/mut/idle.xml" \
		--report "$TMP/mut/found.jsonl" >"$TMP/mut/out" 2>&1
	# (JUnit's budget judged on the kernel-attributable p99 on a virtual
	# machine: the figure changed is that twin)
	for view in json text html markdown junit; do
		grep -Eq "\"view\": \"$view\", \"figure\": \"k?lat/cyclic/all/p99\"" "$TMP/mut/found.jsonl" &&
			pass "the oracle finds a p99 changed in the $view view" ||
			fail "the oracle finds a p99 changed in the $view view" "$(grep -v "^    " "$TMP/mut/out")"
	done
fi

if command -v stress-ng >/dev/null && command -v hackbench >/dev/null; then
	run av-stress --scenario av-stress -d 3s && views av-stress "$R/av-stress"
else
	skip "oracle av-stress" "needs stress-ng and hackbench (scripts/install-deps)"
fi

run monitor -d 3s --monitor 1s --threshold 100 && views monitor "$R/monitor"

# power sampled as on a machine with a cpuidle driver: the board's model over
# the counters of a copy of such a sysfs tree (every CPU active: it holds still)
cpuidle_tree "$TMP/cpuidle"
run counters -d 3s --sysfs-root "$TMP/cpuidle" && views counters "$R/counters"

if run repeat -d 2s --repeat 2 --settle 0; then
	for r in "$R"/repeat/run-*; do views "repeat-$(basename "$r")" "$r"; done
fi

"$LATWATT" import cyclictest "$TOP/tests/data/cyclictest/rt-tests-2.40.json" -o "$R/cyclictest" \
	>"$TMP/ct.out" 2>&1 && views cyclictest "$R/cyclictest" ||
	fail "import cyclictest" "$(cat "$TMP/ct.out")"

"$LATWATT" run -q -d 30s -o "$R/sigint" >"$TMP/sigint.out" 2>&1 &
pid=$!
started sigint && sleep 1.5
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] && views sigint "$R/sigint" || fail "run sigint" "exit $rc, not 130"

"$LATWATT" run -q -d 30s -o "$R/sigkill" >"$TMP/sigkill.out" 2>&1 &
pid=$!
started sigkill && sleep 1.5
{ kill -KILL $pid; wait $pid; } 2>/dev/null	# no "Killed" notice from bash
"$LATWATT" cleanup >"$TMP/cleanup.out" 2>&1 || fail "cleanup after SIGKILL" "$(cat "$TMP/cleanup.out")"
views sigkill "$R/sigkill"

# samples cut at a record boundary (half the records gone) and in a record
if [ -d "$R/idle" ]; then
	n=$(( ($(stat -c %s "$R/idle/samples") - 64) / 24 ))
	for cut in boundary midrecord; do
		cp -a "$R/idle" "$R/trunc-$cut"
		rm -f "$R/trunc-$cut/analysis.json"
		size=$((64 + 24 * (n / 2)))
		[ $cut = midrecord ] && size=$((size + 10))
		truncate -s $size "$R/trunc-$cut/samples"
		views "truncated-$cut" "$R/trunc-$cut"
	done
fi

# a trace window that ends between a sample and the next event: the sample
# keeps the idle state the window gave its CPU (analyze called it unknown,
# the time up to the window's end being traced)
if [ -d "$R/idle" ] && [ -s "$R/idle/trace.dat" ]; then
	cp -a "$R/idle" "$R/cutwin"
	rm -f "$R/cutwin/analysis.json"
	if "$PYTHON" - "$R/cutwin" "$TOP/tests/oracle" <<'PY'
import json, os, sys
sys.path.insert(0, sys.argv[2])
import numpy as np
from raw import Run
run = Run(sys.argv[1])
events, _ = run.trace()
ts = np.array([e.ts for e in events], dtype=np.int64)
seen = set()
first_on = {}
for e in events:
    first_on.setdefault(e.cpu, e.ts)
a = np.sort(run.samples.a, order='expected')
# a sample in the second half of the run, after its CPU's first event, with
# room before the next event of any CPU
for s in a[len(a) // 2:]:
    e, c = int(s['expected']), int(s['cpu'])
    if c not in first_on or first_on[c] >= e:
        continue
    i = int(np.searchsorted(ts, e, side='right'))
    if i < len(ts) and ts[i] - e >= 4:
        end = e + (int(ts[i]) - e) // 2
        break
else:
    sys.exit(1)
p = os.path.join(sys.argv[1], 'manifest.json')
m = json.load(open(p))
m['trace']['mode'] = 'monitor'
m['trace']['windows'] = [{'from_ns': int(ts[0]) - 1, 'to_ns': end}]
json.dump(m, open(p, 'w'), indent=2)
PY
	then
		views cut-window "$R/cutwin"
	else
		skip "oracle cut-window" "no sample with room before the next trace event"
	fi
fi

# a meter's log: 4 W for the length of the run, sampled every 100 ms; the
# import is made twice (it must not count the meter twice)
if run meter -d 2s --power off; then
	"$PYTHON" - "$R/meter/manifest.json" >"$TMP/meter.csv" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
secs = (m['end']['monotonic_ns'] - m['start']['monotonic_ns']) / 1e9
print('time_s,P (W)')
t = 0.0
while t <= secs + 0.1:
    print('%.3f,%.1f' % (t, 4.0 + (t * 10 % 2)))
    t += 0.1
PY
	"$LATWATT" power import "$R/meter" "$TMP/meter.csv" --offset 0 >"$TMP/imp.out" 2>&1 ||
		fail "power import" "$(cat "$TMP/imp.out")"
	"$LATWATT" power import "$R/meter" "$TMP/meter.csv" --offset 0 >>"$TMP/imp.out" 2>&1
	rm -f "$R/meter/analysis.json"
	views meter "$R/meter"
fi

sed 's/^/    /' "$TMP/status"
finish
