#!/usr/bin/env python3
# Checks of a timerlat run: timerlat_check.py MANIFEST SAMPLES.txt CPUS PERIOD_NS THRESHOLD_NS
# (SAMPLES.txt as printed by samples.py).  Prints PASS:/FAIL: lines.
# Used by tests/integration/timerlat.sh, and usable on the output of a run
# made elsewhere (the QEMU PREEMPT_RT board).
import json, sys
m = json.load(open(sys.argv[1]))
tl = m['probes']['timerlat']
def cpulist(t):
    out = []
    for part in t.split(','):
        a, _, b = part.partition('-')
        out += range(int(a), int(b or a) + 1)
    return out
cpus = cpulist(sys.argv[3])
period, thresh = int(sys.argv[4]), int(sys.argv[5])
irq, thr = {}, {}
for line in open(sys.argv[2]):
    probe, cpu, exp, lat, missed, flags = map(int, line.split())
    if probe == 2:
        irq.setdefault(cpu, []).append((exp, lat, flags))
    elif probe == 3:
        thr.setdefault(cpu, []).append((exp, lat, flags))
def check(name, ok, why=''):
    print(('PASS: ' if ok else 'FAIL: ') + name + ('' if ok else ': ' + why))
for c in cpus:
    i, t = irq.get(c, []), thr.get(c, [])
    # An emulated board (TCG) is slow: activations come late and periods are
    # skipped, so count coverage, not samples per period.
    check(f'cpu {c}: irq samples', len(i) > 10, str(len(i)))
    check(f'cpu {c}: thread samples', len(t) > 10, str(len(t)))
    check(f'cpu {c}: one thread sample per irq sample', abs(len(i) - len(t)) <= 2 + len(i) // 20,
          f'{len(i)} irq, {len(t)} thread')
    # samples until the end (the start may wait for the tracer's setup)
    end = m['start']['monotonic_ns'] + m['duration_ns']
    last = max(x[0] for x in i) if i else 0
    check(f'cpu {c}: samples until the end of the run', end - last < m['duration_ns'] // 10,
          f'last expiry {(end - last) / 1e6:.1f} ms before the end')
    check(f'cpu {c}: thread latency >= irq latency (median)',
          sorted(x[1] for x in t)[len(t) // 2] >= sorted(x[1] for x in i)[len(i) // 2] if i and t else False)
    iexp = set(x[0] for x in i)
    paired = sum(1 for x in t if x[0] in iexp)
    check(f'cpu {c}: thread samples share their irq expiry', paired >= 0.9 * len(t), f'{paired}/{len(t)}')
    steps = sorted(iexp)
    d = [b - a for a, b in zip(steps, steps[1:])]
    # expiries lie on the timer's grid: whole periods apart, give or take the
    # time the kernel took to write the event
    res = [min(x % period, period - x % period) for x in d]
    near = sum(1 for r in res if r < period // 10)
    check(f'cpu {c}: expiries whole periods apart', len(d) > 0 and near >= 0.9 * len(d),
          f'{near}/{len(d)}')
    flagged = all(((thresh > 0 and x[1] > thresh) == bool(x[2] & 1)) for x in i + t)
    check(f'cpu {c}: threshold flags', flagged)
pc = {e['cpu']: e for e in tl['per_cpu']}
for c in cpus:
    check(f'cpu {c}: manifest counts', c in pc and pc[c]['irq_samples'] == len(irq.get(c, [])) and
          pc[c]['thread_samples'] == len(thr.get(c, [])))
check('no samples of other CPUs', set(irq) | set(thr) <= set(cpus), str(sorted(set(irq) | set(thr))))
check('no lost events', tl['lost_events'] == 0 and not tl['lost_events_unknown'],
      f"{tl['lost_events']}")
