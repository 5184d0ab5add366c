# SPDX-License-Identifier: GPL-2.0-only
"""analyze's printed text as figures.  Sections are found by their heading
lines and tables by their header lines, wherever they are, so that the
order of the sections and a verdict block above them do not matter."""
import re

from printed import add, kernel_line, verdict_line

UNIT = {'ns': 1, 'us': 1000, '\u00b5s': 1000, 'ms': 10**6, 's': 10**9}
LAT_COLS = {'samples': 'count', 'count': 'count', 'min': 'min', 'mean': 'mean', 'p50': 'p50',
            'p90': 'p90', 'p99': 'p99', 'p99.9': 'p99.9', 'p99.99': 'p99.99', 'max': 'max',
            'over': 'over', 'missed': 'missed', 'dropped': 'dropped'}
COUNTS = ('count', 'over', 'missed', 'dropped')
PROBE_HEAD = re.compile(r'^\s*probe (\S+) \(latency in (\S+)\)')
IDLE_HEAD = re.compile(r'^\s*latency by the idle state.*\((\S+)\)\s*$')
NOHZ_HEAD = re.compile(r'^\s*NO_HZ\b')
TOTAL = re.compile(r'^\s*total\s+(\S+) W average,\s+(\S+) J over (\S+?)s\b')
RAILL = re.compile(r'^\s*(\S+)\s+(measured|estimated)\s+avg\s+(\S+) W\s+min\s+(\S+)\s+max\s+(\S+)'
                   r'\s+(\d+) samples')
AUDIO = re.compile(r'^\s*(\S+): (\S+) periods \((\S+) streams?\), (\S+) xruns \((\S+) skipped\),'
                   r' worst slack (\S+?)us')
VIDEO = re.compile(r'^\s*(\S+): (\S+) frames\b.*?, (\S+) dropped\b(?: \((\S+) skipped\))?'
                   r'(?:.*worst slack (\S+?)us)?')
DIST = re.compile(r'^\s{3,}(\S.*?)\s+(min\s+\S+\s+p50\s.*)us\s*$')
STATE = re.compile(r'^\s*run (.+?): (\S.*)$')


def parse(path):
    with open(path, errors='replace') as f:
        lines = f.read().split('\n')
    out, facts = [], {'state': '', 'verdict': ''}
    i = 0
    probe = unit = wl = None
    while i < len(lines):
        ln = lines[i]
        where = '%s:%d' % (path, i + 1)
        m = STATE.match(ln)
        if m and not facts['state']:
            facts['state'] = m.group(2)
        if re.search(r'\bverdict\b', ln, re.I):
            facts['verdict'] += ln.strip() + '\n'
        # the verdict block: its first line says it, figures on the lines below
        if i == 0 and re.match(r'^(verdict: )?[A-Z][A-Z ]+\b', ln):
            facts['verdict'] += ln.strip() + '\n'
            j = i + 1
            while j < len(lines) and lines[j].startswith('  ') and lines[j].strip():
                f = lines[j].split(None, 1)
                if len(f) == 2:
                    verdict_line(out, f[0], f[1], '%s:%d' % (path, j + 1))
                j += 1
        kernel_line(out, ln, where)
        m = PROBE_HEAD.match(ln)
        if m:
            probe, unit = m.group(1), UNIT.get(m.group(2), 1000)
        toks = ln.split()
        if probe and toks[:1] == ['cpu'] and 'samples' in toks:
            cols = [LAT_COLS.get(t) for t in toks[1:]]
            i += 1
            while i < len(lines) and lines[i].strip():
                row = lines[i].split()
                where = '%s:%d' % (path, i + 1)
                cpu = row[0] if row[0] == 'all' else int(row[0]) if row[0].isdigit() else None
                if cpu is None:
                    break
                for col, tok in zip(cols, row[1:]):
                    if col:
                        add(out, ('lat', probe, cpu, col), tok, 1 if col in COUNTS else unit,
                            where, exact=col in COUNTS)
                i += 1
            probe = None
            continue
        m = IDLE_HEAD.match(ln)
        if m:
            unit = UNIT.get(m.group(1), 1000)
            i += 1
            hdr = lines[i].split() if i < len(lines) else []
            if hdr[:2] == ['probe', 'state']:
                cols = [LAT_COLS.get(t, t) for t in hdr[2:]]
                i += 1
                while i < len(lines) and lines[i].strip():
                    row = lines[i].split()
                    where = '%s:%d' % (path, i + 1)
                    if len(row) < 2 + len(cols):
                        break
                    nums = row[len(row) - len(cols):]
                    state = ' '.join(row[1:len(row) - len(cols)])
                    for col, tok in zip(cols, nums):
                        add(out, ('idle', row[0], state, col), tok,
                            1 if col == 'count' else unit, where, exact=col == 'count')
                    i += 1
            continue
        if NOHZ_HEAD.match(ln):
            i = nohz(lines, i + 1, path, out)
            continue
        m = TOTAL.match(ln)
        if m:
            for k, tok in zip(('average_w', 'energy_j', 'duration_s'), m.groups()):
                add(out, ('power', 'total', k), tok, 1, where)
        m = RAILL.match(ln)
        if m:
            r = m.group(1)
            for k, tok in zip(('average_w', 'min_w', 'max_w', 'samples'), m.groups()[2:]):
                add(out, ('power', r, k), tok, 1, where, exact=k == 'samples')
        m = DIST.match(ln)
        if m and wl:
            for k, tok in re.findall(r'(min|p50|p90|p99\.9|p99|max)\s+(\S+)', m.group(2)):
                add(out, ('wl', wl, 'dist', m.group(1).strip(), k), tok, 1000, where)
        m = AUDIO.match(ln)
        if m:
            wl = m.group(1)
            inst = m.group(1)
            for k, tok in zip(('records', 'streams', 'misses', 'skipped'), m.groups()[1:5]):
                add(out, ('wl', inst, k), tok, 1, where, exact=True)
            add(out, ('wl', inst, 'worst_slack'), m.group(6), 1000, where)
        else:
            m = VIDEO.match(ln)
            if m and 'frames' in ln:
                inst = wl = m.group(1)
                add(out, ('wl', inst, 'records'), m.group(2), 1, where, exact=True)
                add(out, ('wl', inst, 'misses'), m.group(3), 1, where, exact=True)
                if m.group(4):
                    add(out, ('wl', inst, 'skipped'), m.group(4), 1, where, exact=True)
                if m.group(5):
                    add(out, ('wl', inst, 'worst_slack'), m.group(5), 1000, where)
        i += 1
    return out, facts


def nohz(lines, i, path, out):
    """the NO_HZ table: its header names the columns"""
    if i >= len(lines):
        return i
    hdr = lines[i]
    # the columns in the header's order, by name
    names = [('ticks/s idle', 'ticks_per_s_idle'), ('idle ticks/s', 'ticks_per_s_idle'),
             ('ticks/s busy', 'ticks_per_s_busy'), ('busy ticks/s', 'ticks_per_s_busy'),
             ('tick stop', 'stopped'), ('kept', 'kept'), ('wakeups/s', 'wakeups_per_s'),
             ('idle', 'idle_pct')]
    pos = []
    rest = hdr
    for text, key in names:
        j = rest.find(text)
        if j >= 0:
            pos.append((j, key))
            rest = rest[:j] + ' ' * len(text) + rest[j + len(text):]
    if 'cpu' not in hdr or not pos:
        return i
    cols = [k for _, k in sorted(pos)]
    i += 1
    while i < len(lines) and lines[i].strip():
        row = lines[i].split()
        where = '%s:%d' % (path, i + 1)
        if not row[0].isdigit():
            break
        cpu = int(row[0])
        vals = row[1:1 + len(cols)]
        for col, tok in zip(cols, vals):
            tok = tok.rstrip('%')
            add(out, ('nohz', cpu, col), tok, 1, where, exact=col in ('stopped', 'kept'))
        src = row[1 + len(cols):]
        for s, r in zip(src[0::2], src[1::2]):
            # "n=COUNT": too little time for a rate, the count instead
            add(out, ('nohz', cpu, 'source', s), '-' if r.startswith('n=') else r, 1, where)
        i += 1
    return i
