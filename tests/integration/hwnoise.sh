#!/usr/bin/env bash
# The hwnoise probe, planted truth: in the QEMU PREEMPT_RT board (Debian's
# 6.12-rt has osnoise with OSNOISE_IRQ_DISABLE; this host's kernel has no
# osnoise), the host stops the whole guest (SIGSTOP/SIGCONT of its QEMU
# process: every vCPU with it) PAUSES times for PAUSE_MS while a run of
# --probes hwnoise measures CPU 1 with interrupts off.  The guest's clock
# goes on across a stop (under TCG QEMU's virtual clock follows the
# host's), so each stop is a gap the guest sees.  Checked, one boot:
#   - a run without stops (control) and one with them (plant) exit 0; the
#     plant has a gap of the stop's length (within 20 %, + 30 ms) for at
#     least PAUSES - 1 stops (a stop across a period's end is cut in two),
#     spaced as the stops were (within 30 ms), each attributed to
#     hardware/firmware (the host's: hardware/firmware:host); the control
#     has no gap of half a stop;
#   - osnoise/options and tracing_thresh as before, no instance left, after
#     each run, after SIGINT (exit 130) and after SIGKILL and `latwatt
#     cleanup`;
#   - the per-period figures in the manifest (periods, max single noise);
#   - analyze's text and the HTML report show the hwnoise probe;
#   - here (a kernel without osnoise or its OSNOISE_IRQ_DISABLE, as this
#     host's): --probes hwnoise refused with the reason, exit 2.
# Skips (77) without qemu-system-x86_64, busybox-static or the kernel
# package (cached or from apt), or where the guest kernel lacks the option.
# About 60 s of wall time on two shared cores once the kernel is cached.
# HWNOISE_KEEP=DIR keeps the guest's runs there.  Measures: run it under
# flock /tmp/latwatt-kernel.lock.
. "$(dirname "$0")/lib.sh"

board="$TOP/scripts/qemu-board"
kernel=${QEMU_TEST_KERNEL:-6.12-rt}
PAUSES=${PAUSES:-3}
PAUSE_MS=${PAUSE_MS:-500}
GAP_MS=${GAP_MS:-1200}

# here: a kernel without the osnoise tracer (this host's) or without
# OSNOISE_IRQ_DISABLE refuses the probe with the reason, exit 2, nothing made
[ -x "$LATWATT" ] || skip_all "no latwatt binary at $LATWATT (make)"
if [ -r "$TRACEFS/available_tracers" ] && { ! grep -qw osnoise "$TRACEFS/available_tracers" ||
	! grep -qs OSNOISE_IRQ_DISABLE "$TRACEFS/osnoise/options"; }; then
	out=$(mktemp -d /tmp/latwatt-hwn.XXXXXX)
	rc=0
	"$LATWATT" run -o "$out/r" -d 1s -q --probes hwnoise >"$out/log" 2>&1 || rc=$?
	check "here: --probes hwnoise refused (exit 2)" [ $rc = 2 ]
	check "here: the reason named" grep -qE "hwnoise: the kernel('s osnoise tracer)? has no" "$out/log"
	check "here: no run directory made" [ ! -e "$out/r" ]
	rm -rf "$out"
else
	skip "here: the refusal" "this kernel has the osnoise tracer with OSNOISE_IRQ_DISABLE"
fi

need_cmd qemu-system-x86_64
need_cmd cpio
need_cmd "$PYTHON"
need_static_busybox
mk_tmp
if [ -n "${HWNOISE_KEEP:-}" ]; then	# keep the guest's runs (debugging, bench/)
	trap 'rm -rf "$HWNOISE_KEEP"; mv "$TMP" "$HWNOISE_KEEP"' EXIT
fi
if ! "$board" fetch "$kernel" >"$TMP/fetch.log" 2>&1; then
	skip_all "kernel $kernel not available: $(grep error: "$TMP/fetch.log" | tail -n1)"
fi

# qemu_of PID: the QEMU process among PID's descendants
qemu_of() {
	local k c
	for k in $(ps -o pid= --ppid "$1" 2>/dev/null || true); do
		c=$(cat "/proc/$k/comm" 2>/dev/null || true)
		case $c in qemu-system*) echo "$k"; return 0 ;; esac
		if qemu_of "$k"; then return 0; fi
	done
	return 1
}

T=/sys/kernel/tracing
start=$(date +%s)
"$board" boot "$kernel" -o "$TMP/g" --latwatt "$LATWATT" --timeout 240 -c "
	mkdir -p /run/latwatt
	state() { cat $T/osnoise/options $T/tracing_thresh $T/osnoise/cpus $T/osnoise/period_us \
		$T/osnoise/runtime_us; ls $T/instances; }
	state >\$LW_OUT/state.before
	cat $T/osnoise/options >\$LW_OUT/options
	grep -q OSNOISE_IRQ_DISABLE $T/osnoise/options || exit 0
	latwatt run -o \$LW_OUT/control -d 4s -q --probes hwnoise --cpus 0-1 >\$LW_OUT/control.out 2>&1
	echo \$? >\$LW_OUT/control.rc
	state >\$LW_OUT/state.control
	latwatt run -o \$LW_OUT/plant -d 8s -q --probes hwnoise --cpus 0-1 >\$LW_OUT/plant.out 2>&1 &
	pid=\$!
	n=0
	# the stops once the loop measures: the tracer on in the run's instance
	until [ \$n -ge 200 ] || grep -qsx osnoise $T/instances/latwatt-hwnoise-*/current_tracer &&
		grep -qsx 1 $T/instances/latwatt-hwnoise-*/tracing_on; do sleep 0.1; n=\$((n + 1)); done
	sleep 1
	echo 'latwatt-guest: hwnoise plant now'
	wait \$pid
	echo \$? >\$LW_OUT/plant.rc
	state >\$LW_OUT/state.plant
	latwatt run -o \$LW_OUT/int -d 60s -q --probes hwnoise --cpus 0-1 --trace off >\$LW_OUT/int.out 2>&1 &
	pid=\$!
	sleep 3
	kill -INT \$pid
	wait \$pid
	echo \$? >\$LW_OUT/int.rc
	state >\$LW_OUT/state.int
	latwatt run -o \$LW_OUT/kill -d 60s -q --probes hwnoise --cpus 0-1 --trace off >\$LW_OUT/kill.out 2>&1 &
	pid=\$!
	sleep 3
	grep -h . $T/osnoise/options $T/tracing_thresh >\$LW_OUT/during.kill
	kill -KILL \$pid
	wait \$pid
	latwatt cleanup >\$LW_OUT/cleanup.out 2>&1
	echo \$? >\$LW_OUT/cleanup.rc
	state >\$LW_OUT/state.kill
" >"$TMP/board.log" 2>&1 &
bp=$!
# the stops, once the guest's run has its instance
planted=0
for _ in $(seq 1 1800); do
	grep -q 'latwatt-guest: hwnoise plant now' "$TMP/g/console.log" 2>/dev/null && { planted=1; break; }
	kill -0 "$bp" 2>/dev/null || break
	sleep 0.1
done
if [ $planted = 1 ]; then
	if qp=$(qemu_of "$bp"); then
		"$PYTHON" "$TOP/tests/integration/host_stop.py" "$qp" "$PAUSES" "$PAUSE_MS" "$GAP_MS" \
			"$TMP/stops" || fail "stops planted" "host_stop.py failed"
	else
		fail "the guest's QEMU process found" "none under pid $bp"
	fi
fi
rc=0
wait "$bp" || rc=$?
echo "  boot, two measured runs, an interrupted and a killed one: $(( $(date +%s) - start ))s wall"
g=$TMP/g
if [ $rc -ne 0 ] || [ ! -f "$g/state.before" ]; then
	fail "the guest's runs came back" "qemu-board status $rc: $(tail -n 3 "$TMP/board.log")"
	tail -n 20 "$g/console.log" 2>/dev/null | sed 's/^/  console: /'
	finish
fi
if ! grep -q OSNOISE_IRQ_DISABLE "$g/options"; then
	skip_all "the guest kernel's osnoise has no OSNOISE_IRQ_DISABLE: $(cat "$g/options")"
fi
check "control run exits 0" [ "$(cat "$g/control.rc")" = 0 ]
check "planted run exits 0" [ "$(cat "$g/plant.rc")" = 0 ]
check "the stops were planted" [ $planted = 1 ]
for s in control plant; do
	check "osnoise options, tracing_thresh, cpus, period, runtime and instances as before after the $s run" \
		cmp -s "$g/state.before" "$g/state.$s"
done
check "interrupted run exits 130" [ "$(cat "$g/int.rc")" = 130 ]
check "as before after SIGINT" cmp -s "$g/state.before" "$g/state.int"
check "the interrupted run is incomplete" [ "$(json "$g/int/manifest.json" '["status"]')" = incomplete ]
check "interrupts off while the killed run measured" grep -qE "(^| )OSNOISE_IRQ_DISABLE" "$g/during.kill"
check "latwatt cleanup after SIGKILL exits 0" [ "$(cat "$g/cleanup.rc")" = 0 ]
check "as before after SIGKILL and cleanup" cmp -s "$g/state.before" "$g/state.kill"
if ! cmp -s "$g/state.before" "$g/state.kill"; then
	diff "$g/state.before" "$g/state.kill" | sed 's/^/  /'
	sed 's/^/  cleanup: /' "$g/cleanup.out"
fi
for s in control plant; do
	"$LATWATT" analyze --top 50 "$g/$s" >"$g/$s.analyze.txt" 2>&1 || true
	[ -f "$g/$s/analysis.json" ] || fail "$s analyzed" "$(tail -n 3 "$g/$s.analyze.txt")"
	"$PYTHON" "$TOP/tests/integration/samples.py" "$g/$s/samples" >"$g/$s.txt" ||
		fail "$s: samples readable" "$(cat "$g/$s.out")"
done
check "analyze's text has the hwnoise probe" grep -q "^probe hwnoise" "$g/plant.analyze.txt"
check "analyze's text names hardware/firmware" grep -q "hardware/firmware" "$g/plant.analyze.txt"
"$LATWATT" report -o "$TMP/plant.html" "$g/plant" >/dev/null 2>&1
check "the HTML report has the hwnoise probe" grep -q "hwnoise" "$TMP/plant.html"
check "analyze's text has the per-period figures" grep -q "^hwnoise cpu 1 (interrupts off): [0-9]* periods" "$g/plant.analyze.txt"
check "the HTML report has the per-period figures" grep -q "<li data-hwnoise-line>hwnoise cpu 1" "$TMP/plant.html"

py "planted stops" "$g" "$TMP/stops" "$PAUSES" "$PAUSE_MS" <<'PY'
import json, sys
g, stops_file, pauses, pause_ms = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
def check(name, ok, why=''):
    print(('PASS: ' if ok else 'FAIL: ') + name + ('' if ok else ': ' + why))
def gaps(run):
    out = []
    for line in open(f'{g}/{run}.txt'):
        probe, cpu, exp, lat = (int(x) for x in line.split()[:4])
        if probe == 8:
            out.append((exp, lat, cpu))
    return sorted(out)
stops = [tuple(map(int, l.split())) for l in open(stops_file) if not l.startswith('#')]
check(f'{pauses} stops of {pause_ms:.0f} ms logged on the host', len(stops) == pauses, repr(stops))
half = pause_ms * 1e6 / 2
ctl = gaps('control')
check('control: hwnoise gaps recorded on CPU 1 only', ctl and all(c == 1 for _, _, c in ctl),
      repr(ctl[:3]))
big_ctl = [x for x in ctl if x[1] >= half]
check(f'control: no gap of half a stop ({half / 1e6:.0f} ms) or more', not big_ctl, repr(big_ctl))
pl = gaps('plant')
big = [x for x in pl if x[1] >= half]
print('  stops (host, ms): ' + ' '.join('%.1f' % ((b - a) / 1e6) for a, b in stops))
print('  gaps of half a stop or more (guest, ms): ' + ' '.join('%.1f' % (l / 1e6) for _, l, _ in big))
# each stop's length as the host measured it (SIGSTOP to after SIGCONT)
# against the gaps; the clocks are not mapped: the gaps' spacing must match
# the stops' once the first gap is put over its stop
matched = []
for e, l, c in big:
    for i, (a, b) in enumerate(stops):
        if 0.8 * (b - a) <= l <= 1.2 * (b - a) + 30e6:
            matched.append((i, e, l))
            break
check(f'plant: a gap of the stop\'s length for {pauses - 1} of {pauses} stops or more',
      len(matched) >= pauses - 1, f'{len(matched)} gaps {[(l / 1e6) for _, _, l in matched]}')
if len(big) >= 2:
    d_guest = [(big[i + 1][0] - big[0][0]) / 1e6 for i in range(len(big) - 1)]
    firsts = [a for a, _ in stops]
    ok = any(all(any(abs(d - (f - firsts[j]) / 1e6) <= 30 for f in firsts) for d in d_guest)
             for j in range(len(firsts)))
    check('plant: the gaps spaced as the stops were (30 ms)', ok,
          f'guest {d_guest} host {[(f - firsts[0]) / 1e6 for f in firsts]}')
check('plant: no more gaps of half a stop than stops', len(big) <= pauses, repr(big))
a = json.load(open(f'{g}/plant/analysis.json'))
sp = [s for s in a['spikes']['top'] if s['probe'] == 8 and s['latency_ns'] >= half]
check('plant: the stops\' gaps among the spikes', len(sp) == len(big), f'{len(sp)} of {len(big)}')
bad = [(s['latency_ns'], s.get('cause')) for s in sp
       if not str(s.get('cause', '')).startswith('hardware/firmware')]
check('plant: each attributed to hardware/firmware', sp and not bad, repr(bad))
m = json.load(open(f'{g}/plant/manifest.json'))
h = m['probes']['hwnoise']
pc = h['per_cpu'][0]
check('plant: per-period figures in the manifest (periods, max single noise)',
      pc['cpu'] == 1 and pc['periods'] >= 4 and pc['max_single_us'] * 1000 >= 0.8 * max(
          (b - a) for a, b in stops), repr(pc))
check('plant: the osnoise/1 thread recorded', [t['cpu'] for t in h['threads']] == [1],
      repr(h['threads']))
check('plant: no event lost', h['lost_events'] == 0 and h['dropped'] == 0, repr(h))
# an NMI of 20 ms inside the first stop's gap, as the tracer would have
# recorded it (osnoise:nmi_noise), for the analysis below; one on CPU 0 is
# not the loop's
if big:
    e, l, _ = big[0]
    h['nmis'] = [{'cpu': 1, 'start_ns': e + l // 4, 'ns': 20000000},
                 {'cpu': 0, 'start_ns': e + l // 2, 'ns': 30000000}]
    json.dump(m, open(f'{g}/nmi-manifest.json', 'w'))
    open(f'{g}/nmi-gap', 'w').write('%d %d\n' % (e, l))
PY
# the analysis of a gap with an NMI inside: irq:NMI for the NMI, the rest
# the hardware's (here the host's)
if [ -f "$g/nmi-gap" ]; then
	cp -a "$g/plant" "$g/nmi"
	cp "$g/nmi-manifest.json" "$g/nmi/manifest.json"
	"$LATWATT" analyze "$g/nmi" >"$g/nmi.analyze.txt" 2>&1 || true
	py "an NMI in a gap" "$g" <<'PY'
import json, sys
g = sys.argv[1]
def check(name, ok, why=''):
    print(('PASS: ' if ok else 'FAIL: ') + name + ('' if ok else ': ' + why))
e, l = map(int, open(f'{g}/nmi-gap').read().split())
a = json.load(open(f'{g}/nmi/analysis.json'))
sp = [s for s in a['spikes']['top'] if s['probe'] == 8 and s['expected_ns'] == e]
comp = {c['cause']: c['ns'] for c in sp[0].get('components', [])} if sp else {}
check('nmi: the gap\'s 20 ms NMI is irq:NMI', comp.get('irq:NMI') == 20000000, repr(comp))
check('nmi: the rest hardware/firmware:host', comp.get('hardware/firmware:host') == l - 20000000,
      repr(comp))
check('nmi: the NMI is not the host\'s time', sp and sp[0].get('host_ns') == l - 20000000,
      repr(sp[0].get('host_ns') if sp else None))
PY
fi
finish
