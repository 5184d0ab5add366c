#!/usr/bin/env bash
# The timerlat probe with user-space threads (timerlat_fd) and with the
# kernel's, in the QEMU PREEMPT_RT board (Debian's 6.12-rt: timerlat_fd since
# 6.5), one boot: a 3 s run of each.  User threads: three samples per
# activation (IRQ, thread, return to user) with one expected time, in that
# order of lateness; osnoise/options back to OSNOISE_WORKLOAD, also after
# SIGINT; analyze shows the three stages, and finds the woken thread (ours)
# behind the thread and return-to-user spikes in the trace.  Kernel threads: no return-to-user
# sample.
#
# Skips (77) without qemu-system-x86_64, busybox-static or the kernel
# package (cached or from apt).  About 30 s of guest time, 70 s of wall time
# on two shared cores once the kernel is cached.  Measures: run it under
# flock /tmp/latwatt-kernel.lock.
. "$(dirname "$0")/lib.sh"

board="$TOP/scripts/qemu-board"
kernel=${QEMU_TEST_KERNEL:-6.12-rt}

need_cmd qemu-system-x86_64
need_cmd cpio
[ -x "$LATWATT" ] || skip_all "no latwatt binary at $LATWATT (make)"
need_static_busybox
mk_tmp
if ! "$board" fetch "$kernel" >"$TMP/fetch.log" 2>&1; then
	skip_all "kernel $kernel not available: $(grep error: "$TMP/fetch.log" | tail -n1)"
fi

O=/sys/kernel/tracing/osnoise
start=$(date +%s)
rc=0
"$board" boot "$kernel" -o "$TMP/g" --latwatt "$LATWATT" --timeout 240 -c "
	cat $O/options >\$LW_OUT/options.before
	ls $O/per_cpu/cpu0 >\$LW_OUT/percpu
	latwatt run -o \$LW_OUT/user -d 3s -q --probes timerlat --cpus 0-1 --no-kallsyms >\$LW_OUT/user.out 2>&1
	echo \$? >\$LW_OUT/user.rc
	cat $O/options >\$LW_OUT/options.after
	latwatt run -o \$LW_OUT/kern -d 3s -q --probes timerlat --cpus 0-1 --trace off \
		--timerlat-threads kernel >\$LW_OUT/kern.out 2>&1
	echo \$? >\$LW_OUT/kern.rc
	latwatt run -o \$LW_OUT/int -d 60s -q --probes timerlat --cpus 0-1 --trace off >\$LW_OUT/int.out 2>&1 &
	pid=\$!
	sleep 4
	kill -INT \$pid
	wait \$pid
	echo \$? >\$LW_OUT/int.rc
	cat $O/options >\$LW_OUT/options.int
	ls /sys/kernel/tracing/instances >\$LW_OUT/instances.int
" >"$TMP/board.log" 2>&1 || rc=$?
echo "  boot + two 3 s runs and an interrupted one: $(( $(date +%s) - start ))s wall"
if [ $rc -ne 0 ] || [ ! -f "$TMP/g/user.rc" ]; then
	fail "the guest's runs came back" "qemu-board status $rc: $(tail -n 3 "$TMP/board.log")"
	tail -n 20 "$TMP/g/console.log" 2>/dev/null | sed 's/^/  console: /'
	finish
fi
g=$TMP/g
if ! grep -qx timerlat_fd "$g/percpu"; then
	skip "user-space timerlat threads" "the guest kernel has no timerlat_fd"
	finish
fi
check "user-thread run exits 0" [ "$(cat "$g/user.rc")" = 0 ]
check "kernel-thread run exits 0" [ "$(cat "$g/kern.rc")" = 0 ]
check "osnoise/options as before (OSNOISE_WORKLOAD)" cmp -s "$g/options.before" "$g/options.after"
check "OSNOISE_WORKLOAD was set before" grep -qw OSNOISE_WORKLOAD "$g/options.before"
check "interrupted user-thread run exits 130" [ "$(cat "$g/int.rc")" = 130 ]
check "osnoise/options as before after SIGINT" cmp -s "$g/options.before" "$g/options.int"
check "no latwatt-timerlat instance left after SIGINT" [ -z "$(grep '^latwatt-timerlat-' "$g/instances.int")" ]
check "the interrupted run is incomplete" [ "$(json "$g/int/manifest.json" '["status"]')" = incomplete ]
"$LATWATT" analyze -n --json "$g/user" >"$TMP/a.json" 2>"$TMP/a.err"
check "analyze of the user-thread run" [ -s "$TMP/a.json" ]
for n in user kern; do
	[ -f "$g/$n/samples" ] && "$PYTHON" "$TOP/tests/integration/samples.py" "$g/$n/samples" \
		>"$g/$n.txt" || fail "$n: samples readable" "$(cat "$g/$n.out")"
done

py "timerlat stages" "$g" "$TMP/a.json" <<'PY'
import collections, json, sys
g, aj = sys.argv[1], sys.argv[2]
def check(name, ok, why=''):
    print(('PASS: ' if ok else 'FAIL: ') + name + ('' if ok else ': ' + why))
def load(n):
    acts = collections.defaultdict(dict)
    count = collections.Counter()
    for line in open(f'{g}/{n}.txt'):
        probe, cpu, exp, lat = (int(x) for x in line.split()[:4])
        count[(probe, cpu)] += 1
        acts[(cpu, exp)][probe] = lat
    return acts, count
m = json.load(open(f'{g}/user/manifest.json'))
t = m['probes']['timerlat']
check('user run: user threads', t.get('threads_mode') == 'user', repr(t.get('threads_mode')))
check('user run: probe id 7 for the return to user', t['probe_ids'].get('user') == 7,
      repr(t['probe_ids']))
check('user run: a thread per CPU that read', sorted(u['cpu'] for u in t.get('user_threads', []))
      == [0, 1] and all(u['reads'] > 1000 for u in t['user_threads']), repr(t.get('user_threads')))
acts, count = load('user')
for cpu in (0, 1):
    n2, n3, n7 = count[(2, cpu)], count[(3, cpu)], count[(7, cpu)]
    check(f'user run cpu {cpu}: irq, thread and return-to-user samples (3 s at 1 ms)',
          n2 > 1000 and n3 > 1000 and n7 > 1000 and abs(n2 - n7) <= 2, f'{n2} {n3} {n7}')
    pc = [c for c in t['per_cpu'] if c['cpu'] == cpu][0]
    check(f'user run cpu {cpu}: manifest counts the file\'s',
          pc.get('user_samples') == n7 and pc['irq_samples'] == n2, f'{pc} {n2} {n7}')
whole = [a for a in acts.values() if set(a) == {2, 3, 7}]
check('most activations have their three samples on one expected time',
      len(whole) > 0.95 * len(acts), f'{len(whole)} of {len(acts)}')
bad = [a for a in whole if not a[2] <= a[3] <= a[7]]
check('irq <= thread <= return to user in every whole activation', not bad, repr(bad[:3]))
a = json.load(open(aj))
check('analyze has the three stages', all(p in a['probes'] for p in
      ('timerlat-irq', 'timerlat-thread', 'timerlat-user')), repr(list(a['probes'])))
tids = sorted((u['cpu'], u['tid']) for u in t.get('user_threads', []))
for name in ('timerlat-thread', 'timerlat-user'):
    e = m['probes'].get(name) or {}
    check(f'{name}: the woken threads recorded under its name',
          sorted((x['cpu'], x['tid']) for x in e.get('threads', [])) == tids and
          e.get('policy') == 'SCHED_FIFO' and e.get('priority') == 95, repr(e))
sp = [x for x in a['spikes']['top'] if x['probe'] in (3, 7)]
check('spikes of the thread and return-to-user stages: the thread\'s wake-up and switch-in '
      'found in the trace', sp and all(x['woken_ns'] and x['switched_in_ns'] for x in sp),
      repr([(x['probe'], x['woken_ns'], x['switched_in_ns']) for x in sp[:4]]))
mk = json.load(open(f'{g}/kern/manifest.json'))
check('kernel run: kernel threads', mk['probes']['timerlat'].get('threads_mode') == 'kernel',
      repr(mk['probes']['timerlat'].get('threads_mode')))
_, ck = load('kern')
check('kernel run: irq and thread samples, no return to user',
      ck[(2, 0)] > 1000 and ck[(3, 0)] > 1000 and not any(p == 7 for p, _ in ck), repr(ck))
PY
finish
