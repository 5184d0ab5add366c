#!/usr/bin/env bash
# LTTng-UST: a real session records latwatt:spike and latwatt:probe_sample
# events whose fields match the run's samples, read back with babeltrace2.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd lttng
need_cmd lttng-sessiond
need_cmd babeltrace2
[ -f "$(dirname "$LATWATT")/liblatwatt-ust.so" ] ||
	skip_all "no liblatwatt-ust.so next to latwatt (install liblttng-ust-dev, rebuild)"
# the binary itself carries no LTTng: the provider is loaded by `run` alone
check "latwatt is not linked with liblttng-ust" \
	bash -c "! ldd '$LATWATT' | grep -q liblttng-ust"
mk_tmp

# A root session daemon: use the running one, else start one and stop it at the end.
PIDFILE=/var/run/lttng/lttng-sessiond.pid
started=
session=latwatt-it-$$
cleanup() {
	lttng destroy "$session" >/dev/null 2>&1
	if [ -n "$started" ]; then
		kill "$started" 2>/dev/null
		for _ in $(seq 50); do kill -0 "$started" 2>/dev/null || break; sleep 0.1; done
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT
if ! lttng list >/dev/null 2>&1; then
	lttng-sessiond --daemonize --no-kernel >"$TMP/sessiond.log" 2>&1 ||
		skip_all "cannot start lttng-sessiond: $(cat "$TMP/sessiond.log")"
	started=$(cat "$PIDFILE" 2>/dev/null)
	[ -n "$started" ] || skip_all "lttng-sessiond started but wrote no $PIDFILE"
fi

lttng create "$session" --output="$TMP/trace" >"$TMP/lttng.log" 2>&1 &&
	lttng enable-event -u 'latwatt:*' -s "$session" >>"$TMP/lttng.log" 2>&1 &&
	lttng add-context -u -t vpid -s "$session" >>"$TMP/lttng.log" 2>&1 &&
	lttng start "$session" >>"$TMP/lttng.log" 2>&1
check "lttng session started" [ $? -eq 0 ]

run=$TMP/run
# A low threshold: most cyclic samples are spikes.
"$LATWATT" run -o "$run" -d 3s -q --probes cyclic --threshold 2 >"$TMP/out" 2>&1 &
lwpid=$!
wait "$lwpid"
rc=$?
check "latwatt run exits 0" [ $rc -eq 0 ]
check "run loaded the provider (a session daemon runs)" \
	[ "$(json "$run/manifest.json" "['probes']['lttng_ust']['loaded']")" = True ]

# Other commands start no LTTng threads and load no LTTng library, even with
# a session daemon running.
if command -v strace >/dev/null 2>&1; then
	strace -f -qq -e trace=clone,clone3,openat -o "$TMP/strace" \
		"$LATWATT" analyze -n "$run" >/dev/null 2>&1
	# a sanitizer build's leak checker clones a thread of its own at exit
	if ldd "$LATWATT" 2>/dev/null | grep -q libasan; then
		skip "analyze starts no thread" "a sanitizer build starts the leak checker's thread"
	else
		check "analyze starts no thread" bash -c "! grep -q 'clone' '$TMP/strace'"
	fi
	check "analyze loads no LTTng library" bash -c "! grep -q 'lttng' '$TMP/strace'"
	# --lttng off: a run without them, session daemon or not
	strace -f -qq -e trace=openat -o "$TMP/strace2" \
		"$LATWATT" run -o "$TMP/run3" -d 500ms -q --probes cyclic --trace off --lttng off \
		>/dev/null 2>&1
	check "run --lttng off loads no LTTng library" bash -c "! grep -q 'liblttng-ust' '$TMP/strace2'"
	check "run --lttng off says so in the manifest" \
		[ "$(json "$TMP/run3/manifest.json" "['probes']['lttng_ust']['loaded']")" = False ]
else
	skip "analyze starts no thread" "needs strace"
fi
lttng stop "$session" >>"$TMP/lttng.log" 2>&1
lttng destroy "$session" >>"$TMP/lttng.log" 2>&1
check "lttng session stopped" [ $? -eq 0 ]

babeltrace2 "$TMP/trace" >"$TMP/events.txt" 2>"$TMP/bt.err"
check "babeltrace2 reads the trace" [ $? -eq 0 ]
"$PYTHON" "$TOP/tests/integration/samples.py" "$run/samples" >"$TMP/samples.txt" ||
	fail "samples readable" "samples.py exited with status $?"

py "lttng spike events" "$TMP/events.txt" "$TMP/samples.txt" "$TMP/bt.err" "$lwpid" <<'PY'
import re, sys
# other latwatt processes may run meanwhile: only this run's (vpid) count
ev = re.compile(r'latwatt:(\w+): \{ cpu_id = (\d+) \}, \{ vpid = (\d+) \}, \{ probe = "([\w-]+)", '
                r'cpu = (\d+), expected_ns = (\d+), latency_ns = (\d+) \}')
spikes, psamples = [], []
for line in open(sys.argv[1]):
    m = ev.search(line)
    if not m:
        continue
    name, cpu_id, vpid, probe, cpu, exp, lat = m.groups()
    if int(vpid) != int(sys.argv[4]):
        continue
    rec = (probe, int(cpu), int(exp), int(lat))
    (spikes if name == 'spike' else psamples).append((rec, int(cpu_id)))
samples = {}
flagged = set()
for line in open(sys.argv[2]):
    probe, cpu, exp, lat, missed, flags = map(int, line.split())
    key = ({1: 'cyclic'}.get(probe, str(probe)), cpu, exp, lat)
    samples[key] = flags
    if flags & 1:
        flagged.add(key)
discarded = 'discarded' in open(sys.argv[3]).read().lower()
def check(name, ok, why=''):
    print(('PASS: ' if ok else 'FAIL: ') + name + ('' if ok else ': ' + why))
check('spike events recorded', len(spikes) > 100, f'{len(spikes)} spike events')
bad = [r for r, _ in spikes if r not in samples]
check('every spike matches a sample (cpu, expected_ns, latency_ns)', not bad, f'{len(bad)} unmatched, e.g. {bad[:2]}')
check('every spike is a flagged sample', all(samples.get(r, 0) & 1 for r, _ in spikes))
check('spike emitted on the measured cpu', all(c == r[1] for r, c in spikes),
      str([x for x in spikes if x[0][1] != x[1]][:2]))
if discarded:
    print('SKIP: spike count: lttng discarded events (buffers full)')
else:
    check('one spike per flagged sample', len(spikes) == len(flagged), f'{len(spikes)} vs {len(flagged)}')
    check('one probe_sample per sample', len(psamples) == len(samples), f'{len(psamples)} vs {len(samples)}')
check('spike latency above --threshold 2us', all(r[3] > 2000 for r, _ in spikes))
PY

# Without a session the events are inert: a run still works and writes samples.
"$LATWATT" run -o "$TMP/run2" -d 1s -q --probes cyclic --threshold 2 >"$TMP/out2" 2>&1
check "run without a session exits 0" [ $? -eq 0 ]
finish
