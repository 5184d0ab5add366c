#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""An independent oracle for latwatt's views.

    oracle.py [--kind NAME] RUN [--json FILE] [--text FILE] [--html FILE]
              [--markdown FILE] [--junit FILE] [--analyze-status N] [--report FILE]

From the raw files of RUN alone (the formats of doc/latwatt.1, FILES, and
`trace-cmd report` of RUN/trace.dat), figures.py recomputes every figure
the views show, with the definitions of doc/latwatt.1 ("How the figures are
computed"); each view given is parsed by its own module (view_*.py) and
checked figure by figure.  A printed number agrees when it is within half
its last printed digit of the oracle's; an unknown figure must be printed
as unknown.  Prints PASS/FAIL lines and exits 1 on any discrepancy.

Python 3 with the standard library and numpy only; nothing of latwatt's code."""
import argparse
import json
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import figures                     # noqa: E402
import raw                         # noqa: E402
import view_html                   # noqa: E402
import view_json                   # noqa: E402
import view_junit                  # noqa: E402
import view_markdown               # noqa: E402
import view_text                   # noqa: E402
from figures import unknown        # noqa: E402

VIEWS = (('json', view_json, 'analysis.json'), ('text', view_text, "analyze's text"),
         ('html', view_html, 'HTML report'), ('markdown', view_markdown, 'Markdown report'),
         ('junit', view_junit, 'JUnit XML'))
LAT_STATS = ('count', 'min', 'mean', 'p50', 'p90', 'p99', 'p99.9', 'p99.99', 'max', 'over',
             'missed', 'dropped')


def required(view, fig):
    """the oracle's figures a view must show"""
    want = []
    for k in fig:
        c = k[0]
        if c.startswith('_'):
            continue
        if c == 'lat':
            if view in ('json', 'text', 'html'):
                want.append(k)
            elif view == 'markdown' and k[2] == 'all' and \
                    k[3] in ('count', 'p50', 'p99', 'p99.9', 'max', 'missed', 'dropped'):
                want.append(k)
        elif c == 'klat':
            if view == 'json' or (view in ('text', 'html', 'markdown') and k[2] == 'all' and
                                  k[3] in ('p99', 'p99.9', 'max')):
                want.append(k)
        elif c == 'idle':
            if view == 'json' or (view in ('text', 'html') and k[3] in ('count', 'p50', 'p99',
                                                                        'max')):
                want.append(k)
        elif c == 'wl':
            if k[2] in ('records', 'misses') and view in ('json', 'text', 'html'):
                want.append(k)
        elif c == 'power' and k[1] == 'total':
            if k[2] in ('average_w', 'energy_j') and view in ('json', 'text', 'html'):
                want.append(k)
        elif c == 'nohz' and len(k) == 3:
            if view == 'json' and k[2] in ('idle_s', 'busy_s', 'ticks_per_s_idle',
                                           'ticks_per_s_busy', 'wakeups_per_s'):
                want.append(k)
            elif view == 'text' and k[2] in ('ticks_per_s_idle', 'ticks_per_s_busy',
                                             'wakeups_per_s'):
                want.append(k)
    return want


def fmt(v):
    if unknown(v):
        return repr(v)
    if isinstance(v, float):
        return '%.6g' % v
    return str(v)


def agree(key, want, p):
    """None when the printed figure @p agrees with the oracle's @want, else why not"""
    if p.value == 'unparsed':
        return 'printed %r, neither a number nor "unknown"' % p.raw
    if unknown(want):
        if p.value is None:
            return None
        return 'printed a number (%s) where the figure is unknown: %s' % (p.raw, want.why)
    if isinstance(want, (str, figures.NotChecked)):
        return None
    if p.value is None:
        if p.bound is not None:
            return 'printed a bound %s where the raw data give %s' % (p.raw, fmt(want))
        return 'printed unknown (%s) where the raw data give %s' % (p.raw, fmt(want))
    tol = (p.res or 0) / 2 + 1e-9 * abs(want) + 1e-12
    if key[0] in ('lat', 'klat') and key[3] == 'mean':
        tol = max(tol, 1.0)          # a mean in whole ns
    if abs(p.value - want) <= tol:
        return None
    return 'printed %s, the raw data give %s' % (p.raw, fmt(want))


STATE_WORDS = {'complete': ('complete',), 'incomplete': ('incomplete', 'interrupted'),
               'killed': ('killed', 'incomplete'), 'truncated': ('truncated',)}


def check_state(state, facts):
    """a view's words for the run's state, and no PASS for a run not whole"""
    problems = []
    words = facts.get('state', '').lower()
    if words:
        ok = any(w in words for w in STATE_WORDS[state])
        if state == 'complete' and 'incomplete' in words:
            ok = False
        if state != 'complete' and ('running' in words or
                                    ('complete' in words and 'incomplete' not in words)):
            ok = False
        if not ok:
            problems.append('run state: says %r, the raw files say %s' %
                            (facts['state'].strip(), state))
    elif state != 'complete':
        problems.append('run state: does not say the run is %s' % state)
    verdict = facts.get('verdict', '')
    if state != 'complete' and ('PASS' in verdict or '"pass"' in verdict.lower()):
        problems.append('verdict: PASS for a run that is %s' % state)
    return problems


class Result:
    def __init__(self, kind):
        self.kind = kind
        self.fails = []          # (view, key, why, where)
        self.passes = 0

    def fail(self, view, key, why, where=''):
        self.fails.append((view, key, why, where))


def check_view(res, view, label, printed, facts, fig):
    seen = {}
    for p in printed:
        seen.setdefault(p.key, []).append(p)
        if p.key[0] == 'above':         # samples above a threshold the view names
            srt = fig.get(('_sorted', p.key[1]))
            if srt is not None:
                want = int(srt.size - np.searchsorted(srt, p.key[2], side='right'))
                why = agree(p.key, want, p)
                if why:
                    res.fail(view, p.key, why + ' (samples above %d ns)' % p.key[2], p.where)
                else:
                    res.passes += 1
            continue
        want = fig.get(p.key)
        if p.key not in fig:
            cats = {k[0] for k in fig}
            if p.value is None and p.bound is None:
                continue            # "-" for a figure the raw data do not have either
            if p.key[0] in cats and not (p.key[0] == 'wl' and p.key[2] == 'streams'):
                res.fail(view, p.key, 'shown (%s), but the raw data have no such figure' % p.raw,
                         p.where)
            continue
        why = agree(p.key, want, p)
        if why:
            res.fail(view, p.key, why, p.where)
        else:
            res.passes += 1
    for k in required(view, fig):
        if k not in seen:
            res.fail(view, k, 'not shown (the raw data give %s)' % fmt(fig[k]), label)
    for why in check_state(fig[('state',)], facts):
        res.fail(view, ('state',), why, label)
    # deadlines missed: no view calls the run a pass
    missed = {k[1]: v for k, v in fig.items() if k[0] == 'wl' and len(k) == 3 and
              k[2] == 'misses' and isinstance(v, int) and v > 0}
    verdict = facts.get('verdict', '')
    if missed and re.search(r'\bpass(ed)?\b', verdict, re.I) and \
            not re.search(r'\bfail(ed)?\b', verdict, re.I):
        res.fail(view, ('verdict',), 'says pass with deadlines missed (%s)' %
                 ', '.join('%s %d' % kv for kv in sorted(missed.items())), label)
    # a list of misses holds them all, or says it holds the first N of M
    for inst, n in (facts.get('misses_listed') or {}).items():
        m = fig.get(('wl', inst, 'misses'))
        if isinstance(m, int) and n < m and not re.search(r'first %d of %d' % (n, m),
                                                          facts.get('text', '')):
            res.fail(view, ('wl', inst, 'miss list'), 'lists %d of the %d misses and does not '
                     'say "first %d of %d"' % (n, m, n, m), label)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('run')
    ap.add_argument('--kind', default=None)
    for v, _, _ in VIEWS:
        ap.add_argument('--' + v)
    ap.add_argument('--threshold-ns', type=int)
    ap.add_argument('--analyze-status', type=int,
                    help="analyze's exit status: 0 is PASS, which a run not whole never is")
    ap.add_argument('--report', help='append the discrepancies as JSON lines to this file')
    ap.add_argument('--dump', action='store_true', help="print the oracle's figures")
    o = ap.parse_args()
    kind = o.kind or os.path.basename(os.path.normpath(o.run))
    run = raw.Run(o.run)
    fig, problems = figures.compute(run, o.threshold_ns)
    if o.dump:
        for k in sorted((k for k in fig if not k[0].startswith('_')), key=repr):
            print('%-60s %s' % (k, fmt(fig[k])))
    res = Result(kind)
    for why in problems:
        res.fail('raw files', ('raw',), why, o.run)
    if ('trace', 'error') in fig:
        res.fail('raw files', ('trace',), 'the trace cannot be read: ' + fig[('trace', 'error')],
                 o.run)
    state = fig[('state',)]
    if state != 'complete' and o.analyze_status == 0:
        res.fail('exit status', ('state',), 'analyze exited 0 (PASS) for a run that is %s (%s)' %
                 (state, '; '.join(fig[('state', 'why')]) or 'its manifest says so'), o.run)
    for v, mod, label in VIEWS:
        path = getattr(o, v)
        if not path:
            continue
        if not os.path.exists(path) or os.path.getsize(path) == 0:
            res.fail(v, (v,), 'the view was not written', path)
            continue
        try:
            printed, facts = mod.parse(path)
        except Exception as e:          # a view the parser cannot read is a failure
            res.fail(v, (v,), 'cannot parse: %s: %s' % (type(e).__name__, e), path)
            continue
        check_view(res, v, label, printed, facts, fig)
    byview = {}
    for f in res.fails:
        byview.setdefault(f[0], []).append(f)
    for v, fs in byview.items():
        print('FAIL: oracle %s %s: %d discrepancies' % (kind, v, len(fs)))
        for _, key, why, where in fs[:60]:
            print('    %s: %s  [%s]' % ('/'.join(str(x) for x in key), why, where))
        if len(fs) > 60:
            print('    ... and %d more' % (len(fs) - 60))
    if not res.fails:
        print('PASS: oracle %s: %d figures agree in every view' % (kind, res.passes))
    else:
        print('       (%d figures agree)' % res.passes)
    if o.report:
        with open(o.report, 'a') as f:
            for v, key, why, where in res.fails:
                f.write(json.dumps({'kind': kind, 'view': v, 'figure': '/'.join(map(str, key)),
                                    'why': why, 'where': where}) + '\n')
    return 1 if res.fails else 0


if __name__ == '__main__':
    sys.exit(main())
