#!/usr/bin/env bash
# run --stacks against a planted truth in the kernel: the module of tests/kmod
# (latwatt_plant), built against Debian's linux-headers for the QEMU board's
# PREEMPT_RT kernel (scripts/qemu-board module), loaded in the guest.  During
# a cyclic run on the isolated CPU 1 a shell pinned there writes "irqsoff
# 2000" four times, then "preemptoff 2000" four times, to /proc/latwatt_plant;
# the module logs each section it held (CPU, start and end on the monotonic
# clock).  A section held the probe back when its thread was woken during
# it, or by the interrupt taken as interrupts came back on at its end (within
# 300 us); later wake-ups (a timer the host or another CPU delayed past the
# end) are printed, not judged, and each kind needs 2 of its 4 judged (else a
# SKIP line: a busy host).  For each judged section, analyze must name the
# planted function from the kernel's stacks: woken during the section, where
# the writer left the CPU (latwatt_plant_preemptoff+0x.., or
# latwatt_plant_irqsoff+0x.. where the wake-up's IPI came: 6.1 queues the
# isolated CPU's timers on CPU 0); woken at its end, the code the timer's
# interrupt came in (latwatt_plant_irqsoff+0x..; 6.12 keeps the timer on the
# probe's CPU).  With preemption off, a wake-up stack of the writer names the
# function, not the udelay() helper it spun in.  The latency must fit the
# section: at least its length less a period, and the switch no more than
# 1 ms after its end beyond what the host took (host:* components).
#
# Section lengths come from the latency only: no Debian kernel has the
# preemptirq events (CONFIG_PREEMPTIRQ_TRACEPOINTS), so the "irqs off N us in
# FUNC" wording is skipped with that reason unless the guest kernel has them.
#
# Skips (77) without qemu-system-x86_64, busybox-static, make, the kernel or
# its headers package (cached or from apt), or the compiler Debian built the
# kernel with (gcc-12).  One boot: 25 to 60 s of wall time on two shared
# cores once the kernel and headers are cached (the first time downloads the
# kernel, 107 MB, and the headers, 15 MB).  Measures: run it under
# flock /tmp/latwatt-kernel.lock.
. "$(dirname "$0")/lib.sh"

board="$TOP/scripts/qemu-board"
kernel=${QEMU_TEST_KERNEL:-6.12-rt}
period=1000	# the cyclic probe's interval, us

need_cmd qemu-system-x86_64
need_cmd cpio
need_cmd make
need_cmd "$PYTHON"
[ -x "$LATWATT" ] || skip_all "no latwatt binary at $LATWATT (make)"
need_static_busybox
mk_tmp
[ -n "${KEEP:-}" ] && trap - EXIT && echo "keeping $TMP"
fetch_rt_kernel
mkdir -p "$TMP/overlay/lib/modules/latwatt"
if ! "$board" module "$kernel" -o "$TMP/kmod" >"$TMP/module.log" 2>&1; then
	why=$(grep error: "$TMP/module.log" | tail -n1)
	case $why in
	*"apt-get download"*|*"unknown to apt-cache"*|*"not installed"*)
		skip_all "the module cannot be built for $kernel: $why" ;;
	esac
	fail "the module builds against $kernel's headers" "$(tail -n 5 "$TMP/module.log")"
	finish
fi
pass "the module builds against $kernel's headers ($(sed -n 's/^compiler=//p' "$TMP/kmod/module.txt"))"
check "the module builds without warnings" [ -z "$(grep -i 'warning:' "$TMP/kmod/build.log")" ]
cp "$TMP/kmod/latwatt_plant.ko" "$TMP/overlay/lib/modules/latwatt/"

start=$(date +%s)
rc=0
"$board" boot "$kernel" -o "$TMP/g" --latwatt "$LATWATT" --overlay "$TMP/overlay" --timeout 240 -c "
	insmod /lib/modules/latwatt/latwatt_plant.ko
	echo \$? >\$LW_OUT/insmod.rc
	grep '\\[latwatt_plant\\]' /proc/kallsyms >\$LW_OUT/kallsyms
	ls /sys/kernel/tracing/events >\$LW_OUT/systems
	latwatt run -q --stacks -d 7s -c 1 -i $period --probes cyclic -o \$LW_OUT/r \
		>\$LW_OUT/run.out 2>&1 &
	pid=\$!
	i=0
	while [ ! -s \$LW_OUT/r/samples ] && [ \$i -lt 100 ]; do usleep 100000; i=\$((i + 1)); done
	sleep 1
	taskset -c 1 sh -c 'for k in irqsoff preemptoff; do
		for i in 1 2 3 4; do echo \"\$k 2000\" >/proc/latwatt_plant; usleep 300000; done
	done'
	wait \$pid
	echo \$? >\$LW_OUT/run.rc
	cat /proc/latwatt_plant >\$LW_OUT/plant.txt
" >"$TMP/board.log" 2>&1 || rc=$?
echo "  boot, load, a 7 s run with 8 planted sections: $(( $(date +%s) - start ))s wall"
g=$TMP/g
if [ $rc -ne 0 ] || [ ! -f "$g/run.rc" ]; then
	fail "the guest's run came back" "qemu-board status $rc: $(tail -n 3 "$TMP/board.log")"
	tail -n 20 "$g/console.log" 2>/dev/null | sed 's/^/  console: /'
	finish
fi
check "the module loads in the guest" [ "$(cat "$g/insmod.rc")" = 0 ]
check "/proc/kallsyms holds the module's functions, tagged" \
	grep -q '^[0-9a-f]* t latwatt_plant_irqsoff[[:space:]]*\[latwatt_plant\]' "$g/kallsyms"
check "the run with --stacks exits 0" [ "$(cat "$g/run.rc")" = 0 ]
[ -s "$g/r/trace.dat" ] || { fail "trace recorded" "no trace.dat: $(cat "$g/run.out")"; finish; }
"$LATWATT" analyze --spike-threshold $((period)) --top 100000 --json "$g/r" >"$TMP/a.json" 2>"$TMP/an.err"
[ $? -le 1 ] && pass "analyze" || fail "analyze" "$(cat "$TMP/an.err")"
"$LATWATT" analyze --spike-threshold $((period)) --top 100000 "$g/r" >"$TMP/a.txt" 2>&1

py "planted sections" "$TMP/a.json" "$g/plant.txt" "$TMP/a.txt" "$period" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
plant = [l.split() for l in open(sys.argv[2])]
text = open(sys.argv[3]).read()
period = int(sys.argv[4]) * 1000
def check(name, ok, why=''):
    print(('PASS: ' if ok else 'FAIL: ') + name + ('' if ok else ': ' + why))
want = {'irqsoff': 'latwatt_plant_irqsoff+0x', 'preemptoff': 'latwatt_plant_preemptoff+0x'}
check('the module logged 4 irqsoff and 4 preemptoff sections of at least 2000 us on CPU 1',
      sorted(k for k, *_ in plant) == ['irqsoff'] * 4 + ['preemptoff'] * 4 and
      all(c == '1' and int(e) - int(s) >= 2_000_000 for _, c, s, e in plant), repr(plant))
spikes = [s for s in a['spikes']['top'] if s['cpu'] == 1]
tested = {k: 0 for k in want}
for kind, cpu, s0, e0 in plant:
    s0, e0 = int(s0), int(e0)
    length = e0 - s0
    prefix = want[kind]
    # the wake-up the section held back: the spike whose window holds its end
    cover = [s for s in spikes if s['expected_ns'] < e0 <= s['expected_ns'] + s['latency_ns']]
    tag = '%s of %.0f us at %.3f s' % (kind, length / 1e3, s0 / 1e9)
    if not cover:
        check(tag + ': a spike across the section\'s end', False,
              'none of %d spikes on CPU 1' % len(spikes))
        continue
    s = cover[0]
    code = s.get('code') or {}
    host = sum(c['ns'] for c in s['components'] if c['kind'] == 'host')
    woken, late = s['woken_ns'], s['expected_ns'] + s['latency_ns'] - e0
    print('  %s: spike %.0f us (expected %+.0f us from the start), woken %s, switched in %.0f us '
          'after the end, host %.0f us, cause %s, code %s'
          % (tag, s['latency_ns'] / 1e3, (s['expected_ns'] - s0) / 1e3,
             'at %+.0f us from the end' % ((woken - e0) / 1e3) if woken else 'from idle',
             late / 1e3, host / 1e3, s.get('cause'), json.dumps(code)))
    # Held back by the section: the probe's thread was woken during it
    # (it then waited for the CPU: preemption off, or on 6.1 the wake-up's
    # IPI from the CPU its timer was queued on) or by the interrupt taken as
    # interrupts came back on at its end.  A later wake-up (a timer the host
    # or another CPU delayed past the end) is not the section's doing.
    if not woken or woken > e0 + 300_000:
        print('  %s: not judged: the probe was not woken before the section\'s end' % tag)
        continue
    tested[kind] += 1
    at = 'switch' if woken <= e0 else 'wakeup'
    where = code.get(at, {}).get('where', '')
    check(tag + ': the stack at the ' + at + ' names ' + prefix, where.startswith(prefix),
          repr(where))
    w = code.get('wakeup', {})
    if kind == 'preemptoff' and w and w.get('pid') == code.get('switch', {}).get('pid'):
        # the timer's interrupt came in the writer's spin: its function,
        # not the udelay() helper it was in
        check(tag + ': the stack at the wakeup names ' + prefix, w['where'].startswith(prefix),
              repr(w['where']))
    if s.get('cause_code') is not None:
        check(tag + ': the cause line names it', prefix in s['cause_code'], s['cause_code'])
    check(tag + ': latency at least the length less a period',
          s['latency_ns'] >= length - period, '%d < %d - %d' % (s['latency_ns'], length, period))
    check(tag + ': switched in within 1 ms of the end, the host\'s time aside',
          late - host <= 1_000_000, '%d us late, host %d us' % (late / 1e3, host / 1e3))
for kind, n in tested.items():
    if n >= 2:
        check('%s: %d of 4 sections judged' % (kind, n), True)
    else:
        print('SKIP: %s: only %d of 4 sections held the probe back: its timer came late '
              'for other reasons (a busy host)' % (kind, n))
for kind, prefix in want.items():
    check('the text names %s in a code line' % prefix,
          any(l.strip().startswith('code:') and prefix in l for l in text.splitlines()),
          'no "code:" line with it')
PY
if grep -qx preemptirq "$g/systems"; then
	grep -q '"irqs_off"' "$TMP/a.json" && pass "irqs-off sections from preemptirq events" ||
		fail "irqs-off sections from preemptirq events" "the guest has the events, analyze found no section"
else
	skip "section lengths from preemptirq events" "$kernel has no preemptirq events (no Debian kernel sets CONFIG_PREEMPTIRQ_TRACEPOINTS): lengths checked from the latency"
fi
finish
