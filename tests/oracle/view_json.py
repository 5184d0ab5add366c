# SPDX-License-Identifier: GPL-2.0-only
"""analysis.json (doc/latwatt.1, FILES and LATWATT ANALYZE) as figures."""
import json

from printed import Printed

LAT = {'count': 'count', 'min_ns': 'min', 'mean_ns': 'mean', 'p50_ns': 'p50', 'p90_ns': 'p90',
       'p99_ns': 'p99', 'p99.9_ns': 'p99.9', 'p99.99_ns': 'p99.99', 'max_ns': 'max',
       'over_threshold': 'over', 'missed_periods': 'missed', 'dropped': 'dropped'}
IDLE = {'count': 'count', 'p50_ns': 'p50', 'p99_ns': 'p99', 'p99.9_ns': 'p99.9', 'max_ns': 'max'}
# a workload's distributions: its summary key and the name the text prints
DISTS = {'audio': (('wakeup_ns', 'interrupt->thread'), ('latency_ns', 'boundary->thread'),
                   ('proc_ns', 'processing'), ('irq_ns', 'boundary->interrupt')),
         'video': (('latency_ns', 'capture->display'), ('capture_ns', 'capture (DMA)'),
                   ('proc_ns', 'processing'), ('wakeup_ns', 'capture->thread'))}
RAIL = ('average_w', 'min_w', 'max_w', 'energy_j', 'samples', 'duration_s')
NOHZ = ('idle_s', 'busy_s', 'ticks_idle', 'ticks_busy', 'ticks_per_s_idle', 'ticks_per_s_busy',
        'wakeups', 'wakeups_per_s')


def val(out, key, v, where, res=0.0):
    if key[0] == 'power' and isinstance(v, (int, float)) and not isinstance(v, bool):
        res = max(res, 2e-6 * abs(v))       # RUN/power holds 9 significant digits
    if v is None:
        out.append(Printed(key, None, None, 'null', where))
    elif isinstance(v, bool) or not isinstance(v, (int, float)):
        out.append(Printed(key, 'unparsed', None, repr(v), where))
    else:
        out.append(Printed(key, v, res, repr(v), where))


def parse(path):
    """(figures printed, facts: state and verdict words)"""
    with open(path) as f:
        a = json.load(f)
    out, facts = [], {}
    run = a.get('run') or {}
    facts['state'] = ' '.join(str(run.get(k) or '') for k in ('status', 'status_reason'))
    facts['verdict'] = json.dumps(a.get('verdict')) if 'verdict' in a else ''
    for probe, p in (a.get('probes') or {}).items():
        rows = [(c.get('cpu'), c) for c in p.get('cpus') or []]
        if 'all' in p:
            rows.append(('all', p['all']))
        for cpu, c in rows:
            for k, stat in LAT.items():
                if k in c:
                    where = 'probes.%s.%s.%s' % (probe, 'all' if cpu == 'all' else
                                                 'cpus[cpu %s]' % cpu, k)
                    val(out, ('lat', probe, cpu, stat), c[k], where, 1.0 if stat == 'mean' else 0)
    # the kernel-attributable twins (the host's time taken off each spike)
    for probe, p in ((a.get('kernel_attributable') or {}).get('probes') or {}).items():
        rows = [(c.get('cpu'), c) for c in p.get('cpus') or []]
        if 'all' in p:
            rows.append(('all', p['all']))
        for cpu, c in rows:
            for k, stat in LAT.items():
                if k in c and stat not in ('dropped',):
                    where = 'kernel_attributable.probes.%s.%s.%s' % (
                        probe, 'all' if cpu == 'all' else 'cpus[cpu %s]' % cpu, k)
                    val(out, ('klat', probe, cpu, stat), c[k], where,
                        1.0 if stat == 'mean' else 0)
    # a check judged on a kernel-attributable figure: that figure, and the raw
    for c in a.get('checks') or []:
        parts = str(c.get('name', '')).split('.')
        if c.get('judged_on') != 'kernel' or len(parts) < 3 or parts[0] != 'budget' or \
                c.get('unit') != 'us':
            continue
        stat = c.get('metric')
        where = 'checks[%s]' % c.get('name')
        val(out, ('klat', parts[1], 'all', stat), c['measured'] * 1000, where + '.measured',
            1e-6)
        val(out, ('lat', parts[1], 'all', stat), c['raw_measured'] * 1000,
            where + '.raw_measured', 1e-6)
    # the spike threshold of each probe and the samples above it
    for probe, t in ((a.get('spikes') or {}).get('thresholds') or {}).items():
        if isinstance(t, dict) and isinstance(t.get('threshold_ns'), int) and 'above' in t:
            val(out, ('above', probe, t['threshold_ns']), t['above'],
                'spikes.thresholds.%s.above' % probe)
            if 'p99.9' in str(t.get('source')):
                val(out, ('lat', probe, 'all', 'p99.9'), t['threshold_ns'],
                    'spikes.thresholds.%s.threshold_ns (%s)' % (probe, t.get('source')))
    for probe, rows in (a.get('idle_latency') or {}).items():
        for r in rows:
            for k, stat in IDLE.items():
                if k in r:
                    val(out, ('idle', probe, r.get('state'), stat), r[k],
                        'idle_latency.%s[%s].%s' % (probe, r.get('state'), k))
    for inst, w in (a.get('workloads') or {}).items():
        if not isinstance(w, dict):
            continue
        where = 'workloads.%s' % inst
        for k, stat in (('periods', 'records'), ('frames', 'records'), ('records', 'records'),
                        ('xruns', 'misses'), ('dropped', 'misses'), ('skipped', 'skipped'),
                        ('worst_slack_ns', 'worst_slack'), ('streams', 'streams')):
            if k in w and not (k == 'records' and ('periods' in w or 'frames' in w)):
                val(out, ('wl', inst, stat), w[k], where + '.' + k)
        for k, name in DISTS.get(w.get('kind'), ()):
            d = w.get(k)
            if not isinstance(d, dict):
                continue
            for dk, stat in (('count', 'count'), ('min', 'min'), ('mean', 'mean'), ('p50', 'p50'),
                             ('p90', 'p90'), ('p99', 'p99'), ('p999', 'p99.9'), ('max', 'max')):
                if dk in d:
                    val(out, ('wl', inst, 'dist', name, stat), d[dk], '%s.%s.%s' % (where, k, dk),
                        1.0 if stat == 'mean' else 0)
        for lk in ('xrun_list', 'drop_list', 'dropped_list', 'misses'):
            for e in w.get(lk) or []:
                if isinstance(e, dict) and 'lateness_ns' in e:
                    idx = e.get('period', e.get('frame'))
                    val(out, ('wl', inst, 'miss', idx, e.get('stream', 0)), e['lateness_ns'],
                        '%s.%s[%s]' % (where, lk, idx))
    pw = a.get('power')
    if isinstance(pw, dict):
        tot = pw.get('total')
        if isinstance(tot, dict):
            for k in ('average_w', 'energy_j', 'duration_s'):
                if k in tot:
                    val(out, ('power', 'total', k), tot[k], 'power.total.' + k, 1e-9)
        for r in pw.get('rails') or []:
            for k in RAIL:
                if k in r:
                    val(out, ('power', r.get('name'), k), r[k], 'power.rails[%s].%s' %
                        (r.get('name'), k), 1e-9)
    nz = a.get('nohz')
    if isinstance(nz, dict):
        if 'duration_s' in nz:
            val(out, ('nohz', 'duration_s'), nz['duration_s'], 'nohz.duration_s', 1e-6)
        for c in nz.get('cpus') or []:
            cpu = c.get('cpu')
            for k in NOHZ:
                if k in c:
                    val(out, ('nohz', cpu, k), c[k], 'nohz.cpus[%s].%s' % (cpu, k), 1e-6)
            ts = c.get('tick_stop') or {}
            for k in ('stopped', 'kept'):
                if k in ts:
                    val(out, ('nohz', cpu, k), ts[k], 'nohz.cpus[%s].tick_stop.%s' % (cpu, k))
            for s in c.get('wakeup_sources') or []:
                val(out, ('nohz', cpu, 'source', s.get('source')), s.get('per_s'),
                    'nohz.cpus[%s].wakeup_sources[%s].per_s' % (cpu, s.get('source')), 1e-6)
    return out, facts
