# SPDX-License-Identifier: GPL-2.0-only
"""Every figure latwatt's views show, recomputed from the raw files of a run
with the definitions of doc/latwatt.1 ("How the figures are computed").

A figure is a number, or Unknown (with the reason): the raw data do not give
it, and a view that prints a number for it is wrong.  Keys:
  ('state',)                                 complete, incomplete, killed, truncated
  ('lat', PROBE, CPU or 'all', STAT)         count min mean p50 p90 p99 p99.9 p99.99 max
                                             (ns) over missed dropped
  ('idle', PROBE, STATE, STAT)               count p50 p99 p99.9 max (ns)
  ('wl', INSTANCE, STAT)                     records misses skipped worst_slack (ns)
  ('power', 'total' or RAIL, STAT)           average_w energy_j duration_s (min_w max_w
                                             samples for a rail)
  ('nohz', CPU, STAT)                        idle_s busy_s idle_pct ticks_idle ticks_busy
                                             ticks_per_s_idle ticks_per_s_busy stopped kept
                                             wakeups wakeups_per_s; ('nohz', 'duration_s')
"""
import json
import math
import os
from collections import Counter, defaultdict
from fractions import Fraction

import re

import numpy as np

import power_model
import raw
from raw import PROBES, REC_MISS, REC_SKIPPED

PCTS = (('p50', '50'), ('p90', '90'), ('p99', '99'), ('p99.9', '99.9'), ('p99.99', '99.99'))
IDLE_PCTS = (('p50', '50'), ('p99', '99'), ('p99.9', '99.9'))
# a rate per second over less time than this is not a rate (doc/latwatt.1)
MIN_RATE_S = 1.0
EXIT_STATE = (4294967295, -1)
SOFTIRQS = ('HI', 'TIMER', 'NET_TX', 'NET_RX', 'BLOCK', 'IRQ_POLL', 'TASKLET', 'SCHED',
            'HRTIMER', 'RCU')
TICK_FNS = ('tick_nohz_handler', 'tick_sched_timer', 'tick_nohz_highres_handler')
# x86 vectors traced as irq_vectors:NAME_entry; the local timer is named by its callbacks
VECTORS = ('reschedule', 'call_function', 'call_function_single', 'irq_work',
           'x86_platform_ipi', 'thermal_apic', 'threshold_apic', 'deferred_error_apic',
           'reboot', 'error_apic', 'spurious_apic')


class Unknown:
    """A figure the raw data do not give."""

    def __init__(self, why):
        self.why = why

    def __repr__(self):
        return 'unknown (%s)' % self.why


def unknown(x):
    return isinstance(x, Unknown)


class NotChecked:
    """A figure shown but not recomputed (a binned power estimate's min and max)."""

    def __init__(self, why):
        self.why = why

    def __repr__(self):
        return 'not checked (%s)' % self.why


def rank(n, p):
    """nearest rank: the k-th smallest of n, k = ceil(p n / 100), 1 <= k <= n"""
    k = math.ceil(Fraction(p) * n / 100)
    return min(n, max(1, k))


def exact_stats(lat, missed, over):
    """figures of a series whose every sample is known (ns)"""
    n = int(lat.size)
    s = np.sort(lat)
    out = {'count': n, 'min': int(s[0]), 'max': int(s[-1]),
           'mean': int(lat.sum(dtype=np.uint64)) / n, 'missed': missed, 'over': over}
    for k, p in PCTS:
        out[k] = int(s[rank(n, p) - 1])
    return out


class Hist:
    """A histogram as documented for analysis.json, histogram.json and monitor."""

    def __init__(self, bucket_ns, nbuckets):
        self.w, self.nb = bucket_ns, nbuckets
        self.c = Counter()
        self.total = self.overflow = 0
        self.min = self.max = None
        self.sum = 0.0
        self.edge = None

    def add_json(self, h):
        if self.w != h['bucket_ns']:
            raise ValueError('histograms of different bucket widths')
        for i, c in h.get('buckets', []):
            self.c[int(i)] += int(c)
        self.total += int(h['total'])
        self.overflow += int(h.get('overflow', 0))
        if int(h.get('overflow', 0)):
            # below the lowest overflow edge of the parts, every sample is in a bucket
            edge = int(h.get('nbuckets', 0)) * self.w
            self.edge = edge if self.edge is None else min(self.edge, edge)
        if h['total']:
            mn, mx = h.get('min_ns'), h.get('max_ns')
            self.min = mn if self.min is None else min(self.min, mn)
            self.max = mx if self.max is None else max(self.max, mx)
        self.sum += float(h.get('sum_ns', 0))

    def value_at(self, k):
        """the k-th smallest: the largest latency its bucket holds (never above
        the max); unknown in the overflow, except the max itself"""
        if k == 1 and self.min is not None:
            return self.min
        if k == self.total:
            return self.max
        cum = 0
        for b in sorted(self.c):
            if self.edge is not None and (b + 1) * self.w > self.edge:
                break
            cum += self.c[b]
            if cum >= k:
                return min((b + 1) * self.w - 1, self.max)
        return Unknown('in the histogram\'s overflow: only known to be above %g us' %
                       ((self.edge if self.edge is not None else self.nb * self.w) / 1000))

    def stats(self, mean=None):
        n = self.total
        out = {'count': n, 'min': self.min, 'max': self.max,
               'mean': mean if mean is not None else (self.sum / n if n else None)}
        for k, p in PCTS:
            out[k] = self.value_at(rank(n, p))
        return out


def state_of(run):
    """complete, incomplete, killed (still "running" in its manifest, or no
    manifest at all: a partial last record is then expected) or truncated
    (fewer records on disk than written, or a partial record)"""
    st = run.m('status')
    if run.manifest is None or st == 'running' or \
            'kill' in str(run.m('status_reason') or '').lower():
        return 'killed', ['the manifest says %s' % (st or 'nothing')]
    elif st == 'complete':
        state = 'complete'
    else:
        state = 'incomplete'
    why = []
    s = run.samples
    if s is not None:
        if s.partial_bytes:
            why.append('samples ends in a partial record (%d bytes)' % s.partial_bytes)
        written = run.m('samples', 'written')
        if isinstance(written, int) and written > s.records and not run.monitor:
            why.append('samples holds %d records, the manifest says %d were written' %
                       (s.records, written))
    for inst, r in run.records.items():
        if r.partial_bytes:
            why.append('%s.records ends in a partial record' % inst)
        w = run.m('workloads', inst)
        if isinstance(w, dict):
            want = w.get('periods', w.get('frames'))
            if isinstance(want, int) and r.count < want:
                why.append('%s.records holds %d records, the manifest counts %d' %
                           (inst, r.count, want))
    if why:
        state = 'truncated'
    return state, why


def threshold_of(run, probe, override_ns=None):
    if override_ns is not None:
        return override_ns
    t = run.m('probes', probe, 'threshold_ns')
    return t if isinstance(t, int) and t > 0 else None


def dropped_of(run, probe, cpu):
    th = run.m('probes', probe, 'threads')
    if run.m('probes', probe) is None and probe in ('audio', 'video') and \
            run.m('samples', 'dropped') == 0:
        return 0        # a workload's samples: none of the run's was dropped
    if not isinstance(th, list) or not th:
        return Unknown('the manifest records no per-thread totals for %s' % probe)
    tot = 0
    for t in th:
        if cpu != 'all' and t.get('cpu') != cpu:
            continue
        if not isinstance(t.get('dropped'), int):
            return Unknown('the manifest records no dropped count for %s' % probe)
        tot += t['dropped']
    return tot


def latency_figures(run, fig, threshold_ns=None):
    """('lat', probe, cpu, stat) from samples, a monitor file, or a histogram"""
    series = {}         # (probe, cpu) -> stats
    if run.monitor:
        hdr = run.monitor['header']
        agg = {}
        for iv in run.monitor['intervals']:
            for s in iv.get('series', []):
                probe = s['probe'] if isinstance(s['probe'], str) else PROBES.get(s['probe'])
                h = s['histogram']
                for key in ((probe, s['cpu']), (probe, 'all')):
                    a = agg.setdefault(key, {'h': Hist(h['bucket_ns'], h.get('nbuckets', 0)),
                                             'missed': 0, 'over': 0})
                    a['h'].add_json(h)
                    a['missed'] += int(s.get('missed', 0))
                    a['over'] += int(s.get('over', 0))
        thr = hdr.get('threshold_ns') or None
        for key, a in agg.items():
            if not a['h'].total:
                continue
            st = a['h'].stats()
            st['missed'] = a['missed']
            st['over'] = a['over'] if thr else Unknown('no threshold')
            series[key] = st
    elif run.cyclictest is not None or run.histogram is not None:
        agg = {}
        if run.cyclictest is not None:
            for t in run.cyclictest['thread'].values():
                hist = {int(k): int(v) for k, v in t['histogram'].items()}
                nb = max(hist) + 1 if hist else 0
                inb = sum(hist.values())
                hj = {'bucket_ns': 1000, 'nbuckets': nb, 'buckets': sorted(hist.items()),
                      'total': t['cycles'], 'overflow': t['cycles'] - inb,
                      'min_ns': t['min'] * 1000, 'max_ns': t['max'] * 1000,
                      'sum_ns': t['avg'] * 1000 * t['cycles']}
                for key in (('cyclic', t['cpu']), ('cyclic', 'all')):
                    agg.setdefault(key, Hist(1000, nb)).add_json(hj)
        else:
            for probe, p in run.histogram['probes'].items():
                for c in p['cpus']:
                    h = c['histogram']
                    for key in ((probe, c['cpu']), (probe, 'all')):
                        agg.setdefault(key, Hist(h['bucket_ns'], h['nbuckets'])).add_json(h)
        src = run.m('imported', 'from') or 'a histogram'
        for key, h in agg.items():
            st = h.stats()
            st['missed'] = Unknown('%s records no missed periods' % src)
            st['over'] = Unknown('no samples, only a histogram')
            st['dropped'] = 0
            series[key] = st
    elif run.samples is not None:
        a = run.samples.a
        for pid in sorted(set(a['probe'].tolist())):
            probe = PROBES.get(pid, 'probe%d' % pid)
            sel = a[a['probe'] == pid]
            thr = threshold_of(run, probe, threshold_ns)
            cpus = sorted(set(sel['cpu'].tolist()))
            fig[('_sorted', probe)] = np.sort(sel['latency'])   # for counts above a threshold
            for cpu in cpus + ['all']:
                s = sel if cpu == 'all' else sel[sel['cpu'] == cpu]
                lat = s['latency']
                over = int((lat > thr).sum()) if thr else Unknown('no threshold')
                series[(probe, cpu)] = exact_stats(lat, int(s['missed'].sum(dtype=np.uint64)),
                                                   over)
    for (probe, cpu), st in series.items():
        if 'dropped' not in st:
            st['dropped'] = dropped_of(run, probe, cpu)
        for k, v in st.items():
            fig[('lat', probe, cpu, k)] = v
    return series


def kernel_figures(run, fig, threshold_ns=None):
    """('klat', probe, cpu, stat): the kernel-attributable figures, by
    latwatt(1)'s rule: each spike's sample less the host's time analyze
    found in its window (analysis.json host.adjust, [record index in
    RUN/samples, ns], the one input taken from the analysis: which time was
    the host's is the attribution's to prove, against planted host stops),
    never below 0; every other sample as it is; the figures as for 'lat'."""
    path = os.path.join(run.path, 'analysis.json')
    # only a run with every sample (a monitored run keeps windows around
    # spikes, an imported one a histogram)
    if run.samples is None or run.monitor or not os.path.exists(path):
        return
    try:
        with open(path) as f:
            adj = ((json.load(f).get('host') or {}).get('adjust'))
    except (OSError, ValueError):
        return
    if not isinstance(adj, list):
        return
    a = run.samples.a
    lat = a['latency'].astype(np.int64)
    for idx, ns in adj:
        if 0 <= idx < lat.size:
            lat[idx] = max(0, int(lat[idx]) - int(ns))
    for pid in sorted(set(a['probe'].tolist())):
        probe = PROBES.get(pid, 'probe%d' % pid)
        sel = a['probe'] == pid
        thr = threshold_of(run, probe, threshold_ns)
        cpus = sorted(set(a['cpu'][sel].tolist()))
        for cpu in cpus + ['all']:
            m = sel if cpu == 'all' else sel & (a['cpu'] == cpu)
            over = int((lat[m] > thr).sum()) if thr else Unknown('no threshold')
            st = exact_stats(lat[m], int(a['missed'][m].sum(dtype=np.uint64)), over)
            for k, v in st.items():
                fig[('klat', probe, cpu, k)] = v


def state_names(run):
    names = {}
    for c in run.m('system', 'cpuidle', 'cpus', default=[]) or []:
        for i, s in enumerate(c.get('states', [])):
            names[(c.get('cpu'), i)] = s.get('name') or 'state%d' % i
    return names


def windows_of(run):
    if run.m('trace', 'mode') != 'monitor':
        return None
    return sorted((w['from_ns'], w['to_ns']) for w in run.m('trace', 'windows', default=[]))


def trace_figures(run, fig):
    """('idle', ...) and ('nohz', ...) from `trace-cmd report`"""
    events, lost = run.trace()
    if not events:
        return
    names = state_names(run)
    wins = windows_of(run)
    ncpus = max(e.cpu for e in events) + 1
    # samples in time order
    a = run.samples.a if run.samples is not None else None
    if a is not None and a.size:
        order = np.argsort(a['expected'], kind='stable')
        exp, cpus, probes, lats = (a['expected'][order], a['cpu'][order], a['probe'][order],
                                   a['latency'][order])
    else:
        exp = np.zeros(0, dtype=np.uint64)
    nsmp, si = int(exp.size), 0
    sstate = [None] * nsmp
    cur = ['unknown'] * ncpus
    # NO_HZ accounting
    idle = [False] * ncpus
    since = [0] * ncpus
    idle_ns = [0] * ncpus
    waiting = [False] * ncpus
    first_cpu, last_cpu = [None] * ncpus, [None] * ncpus
    ticks = [[0, 0] for _ in range(ncpus)]
    stop = [[0, 0] for _ in range(ncpus)]
    wakeups = [0] * ncpus
    sources = [Counter() for _ in range(ncpus)]
    symbolic = [False, False]     # hrtimer functions: some named, some addresses
    first, last, untraced, wi = events[0].ts, events[-1].ts, 0, 0

    def wake(c, label):
        if waiting[c]:
            waiting[c] = False
            wakeups[c] += 1
            sources[c][label] += 1

    for ev in events:
        c = ev.cpu
        if wins and wi < len(wins) and ev.ts > wins[wi][1]:
            end = wins[wi][1]
            # samples due up to the window's end keep what the window said
            while si < nsmp and exp[si] <= end:
                sstate[si] = cur[cpus[si]] if cpus[si] < ncpus else 'unknown'
                si += 1
            for k in range(ncpus):
                if idle[k] and end > since[k]:
                    idle_ns[k] += end - since[k]
                idle[k] = waiting[k] = False
                cur[k] = 'unknown'
            untraced += ev.ts - end
            while wi < len(wins) and ev.ts > wins[wi][1]:
                wi += 1
        if first_cpu[c] is None:
            first_cpu[c] = ev.ts
        last_cpu[c] = ev.ts
        while si < nsmp and exp[si] <= ev.ts:
            # the state the CPU was in at the expected time: events before it
            sstate[si] = cur[cpus[si]] if cpus[si] < ncpus else 'unknown'
            si += 1
        n = ev.name
        if n == 'sched_switch':
            nxt = int(ev.field('next_pid') or 0)
            if nxt != 0:
                cur[c] = 'busy'
                wake(c, 'task:' + (ev.field('next_comm') or '?'))
        elif n == 'cpu_idle':
            st = int(ev.field('state'))
            if st in EXIT_STATE:
                cur[c] = 'busy'
                if idle[c]:
                    idle_ns[c] += ev.ts - since[c]
                idle[c] = False
            else:
                cur[c] = st
                if not idle[c]:
                    idle[c], since[c] = True, ev.ts
                waiting[c] = True
        elif n == 'irq_handler_entry':
            wake(c, 'irq:' + (ev.field('name') or '?'))
        elif n == 'softirq_entry':
            v = int(ev.field('vec'))
            wake(c, 'softirq:' + (SOFTIRQS[v] if v < len(SOFTIRQS) else '?'))
        elif n == 'hrtimer_expire_entry':
            fn = ev.field('function') or '?'
            symbolic[0 if fn.startswith('0x') else 1] = True
            if fn in TICK_FNS:
                ticks[c][0 if idle[c] else 1] += 1
            wake(c, 'timer:' + fn)
        elif n == 'ipi_entry':
            wake(c, 'ipi:' + (ev.field('reason') or ev.rest.strip('() ') or '?'))
        elif n.endswith('_entry') and n[:-6] in VECTORS:
            wake(c, 'ipi:' + n[:-6])
        elif n == 'tick_stop':
            ok = ev.field('success')
            stop[c][0 if ok not in (None, '0') else 1] += 1
    while si < nsmp:
        sstate[si] = 'unknown'
        si += 1
    # latency by idle state
    if nsmp:
        groups = defaultdict(list)
        for i in range(nsmp):
            st = sstate[i]
            if isinstance(st, int):
                st = names.get((int(cpus[i]), st), 'state%d' % st)
            groups[(PROBES.get(int(probes[i]), str(probes[i])), st)].append(int(lats[i]))
        for (probe, st), v in groups.items():
            v = np.sort(np.array(v, dtype=np.uint64))
            n = int(v.size)
            fig[('idle', probe, st, 'count')] = n
            fig[('idle', probe, st, 'max')] = int(v[-1])
            for k, p in IDLE_PCTS:
                fig[('idle', probe, st, k)] = int(v[rank(n, p) - 1])
    # NO_HZ
    secs = (last - first - untraced) / 1e9
    fig[('nohz', 'duration_s')] = secs
    no_ticks = symbolic[0] and not symbolic[1]
    for c in range(ncpus):
        if first_cpu[c] is None:
            continue
        if idle[c]:
            idle_ns[c] += last_cpu[c] - since[c]
        idle_s = idle_ns[c] / 1e9
        busy_s = secs - idle_s
        f = {'idle_s': idle_s, 'busy_s': busy_s,
             'idle_pct': 100 * idle_s / secs if secs > 0 else Unknown('no trace time'),
             'stopped': stop[c][0], 'kept': stop[c][1], 'wakeups': wakeups[c]}
        if no_ticks:
            why = 'the trace names no timer function (recorded without kallsyms)'
            for k in ('ticks_idle', 'ticks_busy', 'ticks_per_s_idle', 'ticks_per_s_busy'):
                f[k] = Unknown(why)
        else:
            f['ticks_idle'], f['ticks_busy'] = ticks[c]
            f['ticks_per_s_idle'] = rate(ticks[c][0], idle_s, 'idle')
            f['ticks_per_s_busy'] = rate(ticks[c][1], busy_s, 'busy')
        f['wakeups_per_s'] = rate(wakeups[c], secs, 'trace')
        for k, v in f.items():
            fig[('nohz', c, k)] = v
        for src, cnt in sources[c].items():
            fig[('nohz', c, 'source', src)] = rate(cnt, secs, 'trace')


def rate(count, secs, what):
    if secs < MIN_RATE_S:
        return Unknown('%d in %.3f s of %s time: too little time for a rate per second' %
                       (count, secs, what))
    return count / secs


def workload_figures(run, fig):
    for inst, r in run.records.items():
        a = r.a
        fig[('wl', inst, 'kind')] = r.kind
        fig[('wl', inst, 'records')] = r.count
        fig[('wl', inst, 'misses')] = int(((a['flags'] & REC_MISS) != 0).sum())
        fig[('wl', inst, 'skipped')] = int(((a['flags'] & REC_SKIPPED) != 0).sum())
        fig[('wl', inst, 'worst_slack')] = int(a['slack'].min()) if r.count else \
            Unknown('no records')
        if r.kind == 'audio':
            fig[('wl', inst, 'streams')] = r.streams
        # distributions over the records not skipped
        ok = a[(a['flags'] & REC_SKIPPED) == 0]
        if r.kind == 'audio':
            dists = {'interrupt->thread': ok['wakeup'].astype(np.uint64),
                     'boundary->thread': ok['irq'].astype(np.uint64) + ok['wakeup'],
                     'processing': ok['proc'].astype(np.uint64),
                     'boundary->interrupt': ok['irq'].astype(np.uint64)}
        else:
            dists = {'capture->display': ok['latency'].astype(np.uint64),
                     'capture (DMA)': ok['capture'].astype(np.uint64),
                     'processing': ok['proc'].astype(np.uint64),
                     'capture->thread': ok['wakeup'].astype(np.uint64)}
        for name, v in dists.items():
            if not v.size:
                continue
            v = np.sort(v)
            n = int(v.size)
            fig[('wl', inst, 'dist', name, 'count')] = n
            fig[('wl', inst, 'dist', name, 'min')] = int(v[0])
            fig[('wl', inst, 'dist', name, 'max')] = int(v[-1])
            fig[('wl', inst, 'dist', name, 'mean')] = float(v.sum()) / n
            for k, p in PCTS:
                fig[('wl', inst, 'dist', name, k)] = int(v[rank(n, p) - 1])
        # each deadline miss: its lateness
        for rec in a[(a['flags'] & REC_MISS) != 0]:
            idx = int(rec['period'] if r.kind == 'audio' else rec['frame'])
            sub = int(rec['stream']) if r.kind == 'audio' else 0
            fig[('wl', inst, 'miss', idx, sub)] = -int(rec['slack'])


def power_figures(run, fig, problems):
    p = run.power
    if p is None:
        return
    seen = Counter((r['name'], r['source']) for r in p.rails.values())
    for (name, src), n in seen.items():
        if n > 1:
            problems.append('power: rail %s (%s) declared %d times in RUN/power' % (name, src, n))
    meter = any('total' in r['flags'] and r['source'] == 'meter' for r in p.rails.values())
    tot_w = tot_e = tot_d = 0.0
    ntot, ok = 0, True
    for rid in p.order:
        r = p.rails[rid]
        energy = covered = 0.0
        prev = None
        ws = [q['w'] for q in r['points'] if q['w'] is not None and not math.isnan(q['w'])]
        for q in r['points']:
            if prev is not None and not q['after_gap']:
                dt = (q['t'] - prev['t']) / 1e9
                if 'energy' in r['flags']:
                    if q['e'] is not None and prev['e'] is not None:
                        energy += q['e'] - prev['e']
                        covered += dt
                elif q['w'] is not None and prev['w'] is not None:
                    energy += (q['w'] + prev['w']) / 2 * dt
                    covered += dt
            prev = q
        avg = energy / covered if covered > 0 else (ws[0] if len(ws) == 1 else None)
        key = r['name']
        fig[('power', key, 'samples')] = len(r['points'])
        fig[('power', key, 'average_w')] = avg if avg is not None else Unknown('no data')
        fig[('power', key, 'energy_j')] = energy if covered > 0 else Unknown('no interval')
        fig[('power', key, 'duration_s')] = covered
        fig[('power', key, 'min_w')] = min(ws) if ws else Unknown('no data')
        fig[('power', key, 'max_w')] = max(ws) if ws else Unknown('no data')
        in_total = 'total' in r['flags'] and (not meter or r['source'] == 'meter')
        if not in_total:
            continue
        ntot += 1
        if avg is None:
            ok = False
            continue
        tot_w += avg
        tot_e += energy if covered > 0 else 0
        tot_d = max(tot_d, covered)
    if ntot and ok:
        fig[('power', 'total', 'average_w')] = tot_w
        fig[('power', 'total', 'energy_j')] = tot_e
        fig[('power', 'total', 'duration_s')] = tot_d
        start, end = run.m('start', 'monotonic_ns'), run.m('end', 'monotonic_ns')
        if isinstance(start, int) and isinstance(end, int) and end > start:
            dur = (end - start) / 1e9
            # the sampler starts once the manifest is written and the
            # sample writer runs, and stops before the writer's last flush:
            # tens of ms of set-up at either end on a loaded host (0.07 s of
            # 3.11 s seen), never a second of the run
            if abs(tot_d - dur) > max(0.02 * dur, 0.1):
                problems.append('power: the total covers %.2f s of the %.2f s run (RUN/power '
                                'does not cover the whole run)' % (tot_d, dur))
    elif ntot:
        for k in ('average_w', 'energy_j', 'duration_s'):
            fig[('power', 'total', k)] = Unknown('a rail of the total has no data')


def trace_estimate(run, fig, problems):
    """RUN/power estimated from the trace (its rails say so): the oracle's own
    estimate with the board's documented energy model replaces the file's"""
    p = run.power
    if p is None or not run.trace_path:
        return
    traced = [r for r in p.rails.values() if r['source'] == 'model' and
              ('traced' in r['detail'] or 'from the trace' in r['detail'])]
    if not traced:
        return
    est = power_model.estimate(run, run.trace()[0], power_model.board_of(run))
    if est is None:
        return
    secs = est['seconds']
    for r in traced:
        m = re.match(r'^model/cpu(\d+)$', r['name'])
        if 'total' in r['flags']:
            e = est['total_j']
        elif m and int(m.group(1)) in est['cpus']:
            e = est['cpus'][int(m.group(1))]
        else:
            continue
        fig[('power', r['name'], 'energy_j')] = e
        fig[('power', r['name'], 'average_w')] = e / secs
        fig[('power', r['name'], 'duration_s')] = secs
        for k in ('min_w', 'max_w'):
            fig[('power', r['name'], k)] = NotChecked('binned by the estimator')
        if 'total' in r['flags']:
            fig[('power', 'total', 'energy_j')] = e
            fig[('power', 'total', 'average_w')] = e / secs
            fig[('power', 'total', 'duration_s')] = secs


def compute(run, threshold_ns=None):
    """(figures, problems of the raw data themselves)"""
    fig, problems = {}, []
    st, why = state_of(run)
    fig[('state',)] = st
    fig[('state', 'why')] = why
    latency_figures(run, fig, threshold_ns)
    kernel_figures(run, fig, threshold_ns)
    # the worst wake-up latency: not a busy loop's gaps (noise), nor the video
    # pipeline's capture-to-display latency
    maxima = [(v, k[1]) for k, v in fig.items() if k[0] == 'lat' and k[2] == 'all' and
              k[3] == 'max' and k[1] not in ('noise', 'video') and not unknown(v)]
    if maxima:
        worst, probe = max(maxima)
        fig[('worst',)] = worst
        a, start = run.samples.a if run.samples is not None else None, run.m('start', 'monotonic_ns')
        fig[('worst', 'at')] = NotChecked('the worst sample is not in RUN/samples once')
        if a is not None and a.size and isinstance(start, int):
            # (a monitored run keeps the samples around spikes: the worst among them)
            pid = {v: k for k, v in PROBES.items()}.get(probe)
            sel = a[(a['probe'] == pid) & (a['latency'] == worst)]
            if sel.size == 1:
                fig[('worst', 'at')] = (int(sel['expected'][0]) - start) / 1e9
    workload_figures(run, fig)
    power_figures(run, fig, problems)
    try:
        trace_estimate(run, fig, problems)
    except raw.BadRun as e:
        problems.append('power estimate from the trace: %s' % e)
    if run.trace_path and (run.samples is not None or run.monitor):
        try:
            trace_figures(run, fig)
        except Exception as e:       # an unreadable trace: every trace figure unknown
            fig[('trace', 'error')] = str(e)
    # workloads: the manifest's counts against the records
    for inst in run.records:
        w = run.m('workloads', inst)
        if not isinstance(w, dict):
            continue
        for k, want in (('periods', 'records'), ('frames', 'records'), ('xruns', 'misses'),
                        ('dropped', 'misses')):
            v = w.get(k)
            if isinstance(v, int) and fig[('wl', inst, 'kind')] == ('audio' if k in (
                    'periods', 'xruns') else 'video') and v != fig[('wl', inst, want)] \
                    and st == 'complete':
                problems.append('workload %s: the manifest counts %s %d, its records %d' %
                                (inst, k, v, fig[('wl', inst, want)]))
    return fig, problems
