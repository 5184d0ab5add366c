#!/usr/bin/env bash
# run --aligned and --warm-up on the cyclic probe (3 runs of 1 s, ~5 s):
# the wake-ups of the threads of two CPUs on one grid (RUN/samples'
# expected_ns), the offset of --aligned US between them, two free threads
# not on one grid; the warm-up's samples in RUN/warmup-samples only, before
# its end, and in no statistic (analyze's counts are RUN/samples'; its
# header says so).
. "$(dirname "$0")/lib.sh"
need_root
mk_tmp

[ "$(cat /sys/devices/system/cpu/cpu1/online 2>/dev/null || echo 0)" = 1 ] ||
	skip_all "needs cpu 0 and cpu 1 online"
S="$PYTHON $TOP/tests/integration/samples.py"

# one run: NAME OPTIONS...
r() {
	local n=$1; shift
	"$LATWATT" run -o "$TMP/$n" -d 1s -q -c 0,1 -i 1000 --probes cyclic --trace off \
		--power off "$@" >"$TMP/$n.out" 2>&1
	check "run $n exits 0" [ $? -eq 0 ]
}
r aligned --aligned 0 --warm-up 300ms
r offset --aligned 250
r free

for n in aligned offset free; do
	$S "$TMP/$n/samples" >"$TMP/$n.txt" || fail "$n: samples readable" "$(head -3 "$TMP/$n.txt")"
done
$S "$TMP/aligned/warmup-samples" >"$TMP/aligned.warm" ||
	fail "warm-up samples readable" "$(head -3 "$TMP/aligned.warm")"

# the grid: each CPU's expected_ns modulo the interval; aligned, the same
# phase on both CPUs (0 us apart), offset 250 us apart, free anything but
# the same, and the common start recorded in the manifest on that grid
py "grids" "$TMP" <<'PY'
import json, sys
d = sys.argv[1]
I = 1000000
def phases(name, extra=()):
    ph = {}
    for f in (f'{d}/{name}.txt',) + tuple(extra):
        for line in open(f):
            probe, cpu, exp = (int(x) for x in line.split()[:3])
            ph.setdefault(cpu, set()).add(exp % I)
    return ph
def check(name, ok, why):
    print(('PASS: ' if ok else 'FAIL: ') + name + ('' if ok else ': ' + why))
a = phases('aligned', (f'{d}/aligned.warm',))
check('aligned: one phase per CPU', all(len(v) == 1 for v in a.values()) and len(a) == 2, repr(a))
check('aligned: both CPUs wake at the same instants', len(set().union(*a.values())) == 1, repr(a))
m = json.load(open(f'{d}/aligned/manifest.json'))
al = m['probes']['cyclic'].get('aligned', {})
check('aligned: the common start recorded, on the grid',
      al.get('offset_ns') == 0 and al.get('start_ns', -1) % I in a[0], repr(al))
o = phases('offset')
check('offset: one phase per CPU', all(len(v) == 1 for v in o.values()) and len(o) == 2, repr(o))
if len(o) == 2:
    p0, p1 = min(o[0]), min(o[1])
    check('offset: cpu 1 wakes 250 us after cpu 0', (p1 - p0) % I == 250000, f'{p0} {p1}')
f = phases('free')
check('free: the two threads are not on one grid (the control)',
      len(f) == 2 and f[0] != f[1], repr(f))
PY

# the warm-up: its samples before start + 300 ms, apart; the statistics are
# the other file's
"$LATWATT" analyze -n --json "$TMP/aligned" >"$TMP/a.json" 2>"$TMP/a.err"
check "analyze exits 0" [ $? -eq 0 ]
"$LATWATT" analyze -n "$TMP/aligned" >"$TMP/a.txt" 2>&1
check "analyze says the warm-up's samples are kept apart" \
	grep -q '^warm-up: the samples of the first 0.3 s ([0-9]*) kept apart in RUN/warmup-samples' "$TMP/a.txt"
if "$PYTHON" -c 'import jsonschema' 2>/dev/null; then
	check "analysis.json with run.warm_up holds to doc/analysis.schema.json" "$PYTHON" -c '
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))' \
		"$TOP/doc/analysis.schema.json" "$TMP/a.json"
else
	skip "analysis.json against its schema" "needs python3-jsonschema (scripts/install-deps)"
fi
py "warm-up" "$TMP" <<'PY'
import json, sys
d = sys.argv[1]
def check(name, ok, why):
    print(('PASS: ' if ok else 'FAIL: ') + name + ('' if ok else ': ' + why))
m = json.load(open(f'{d}/aligned/manifest.json'))
a = json.load(open(f'{d}/a.json'))
start = m['probes']['cyclic']['aligned']['start_ns']
w = m.get('warm_up', {})
warm = [int(l.split()[2]) for l in open(f'{d}/aligned.warm')]
kept = [int(l.split()[2]) for l in open(f'{d}/aligned.txt')]
# the run's start (the manifest's start.monotonic_ns), before the probe's
t0 = m['start']['monotonic_ns']
end = t0 + 300000000
check('warm-up recorded', w.get('duration_ns') == 300000000 and w.get('file') == 'warmup-samples'
      and w.get('samples') == len(warm), repr(w))
check('warm-up samples all due before its end', warm and max(warm) < end, f'{max(warm or [0])} {end}')
check('kept samples all due after it', kept and min(kept) >= end, f'{min(kept or [0])} {end}')
check('a warm-up of 300 ms holds about 2 x 300 - 2 samples', 500 <= len(warm) <= 602, str(len(warm)))
check("analyze's run.warm_up is the manifest's", a['run'].get('warm_up') == w, repr(a['run'].get('warm_up')))
check('samples.written counts RUN/samples only', m['samples']['written'] == len(kept),
      f"{m['samples']['written']} {len(kept)}")
n = sum(c['count'] for c in a['probes']['cyclic']['cpus'])
check("analyze counts RUN/samples' samples, not the warm-up's", n == len(kept),
      f'{n} {len(kept)} (warm-up {len(warm)})')
PY

# bad values: exit 2, the option named, no run directory
"$LATWATT" run -o "$TMP/bad1" -d 1s --warm-up 1s >"$TMP/e1" 2>&1
check "a warm-up as long as the run is refused (exit 2)" [ $? -eq 2 ]
check "the refusal names --warm-up" grep -q -- "--warm-up" "$TMP/e1"
"$LATWATT" run -o "$TMP/bad2" -d 1s --aligned x >"$TMP/e2" 2>&1
check "--aligned x refused (exit 2)" [ $? -eq 2 ]
check "the refusal names --aligned" grep -q -- "--aligned" "$TMP/e2"
check "no run directory left by refused runs" [ ! -e "$TMP/bad1" -a ! -e "$TMP/bad2" ]
finish
