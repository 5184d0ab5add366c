# SPDX-License-Identifier: GPL-2.0-only
"""The Markdown report as figures: pipe tables by their header cells."""
import re

from printed import add, kernel_line, verdict_line

UNIT = {'ns': 1, 'us': 1000, '\u00b5s': 1000, 'ms': 10**6, 's': 10**9}
LAT_COLS = {'samples': 'count', 'count': 'count', 'min': 'min', 'mean': 'mean', 'p50': 'p50',
            'p90': 'p90', 'p99': 'p99', 'p99.9': 'p99.9', 'p99.99': 'p99.99', 'max': 'max',
            'over': 'over', 'over threshold': 'over', 'missed': 'missed',
            'missed periods': 'missed', 'dropped': 'dropped'}
COUNTS = ('count', 'over', 'missed', 'dropped')


def cells(line):
    s = line.strip()
    if not (s.startswith('|') and s.endswith('|')):
        return None
    return [c.strip() for c in s[1:-1].split('|')]


def value_unit(tok):
    """'34.1 us' -> ('34.1', 1000); a bare number -> (tok, None)"""
    m = re.match(r'^(.*?)\s*(ns|us|\u00b5s|ms|s)$', tok.strip())
    if m and m.group(1):
        return m.group(1), UNIT[m.group(2)]
    return tok, None


def parse(path):
    with open(path, errors='replace') as f:
        lines = f.read().split('\n')
    out, facts = [], {'state': '', 'verdict': ''}
    heading = ''
    i = 0
    while i < len(lines):
        ln = lines[i]
        if ln.startswith('#'):
            heading = ln.lstrip('#').strip()
            facts['verdict'] += heading + '\n'
        m = re.search(r'\brun (\S+) \(([^)]*)\)', ln)
        if m and not facts['state']:
            facts['state'] = m.group(2)
        if re.search(r'\b(verdict|PASS|FAIL)\b', ln):
            facts['verdict'] += ln + '\n'
        kernel_line(out, ln, '%s:%d' % (path, i + 1))
        m = re.match(r'^\s*[-*] \*\*([^*]+)\*\*:?\s*(.*)$', ln)
        if m:
            verdict_line(out, m.group(1), m.group(2), '%s:%d' % (path, i + 1))
        hdr = cells(ln)
        if hdr and i + 1 < len(lines) and re.match(r'^\|[\s:|-]+\|$', lines[i + 1].strip()):
            low = [h.lower() for h in hdr]
            i += 2
            rows = []
            while i < len(lines) and cells(lines[i]) is not None:
                rows.append((i + 1, cells(lines[i])))
                i += 1
            where = '%s: table %s' % (path, ' '.join(hdr)[:60])
            if 'probe' in low and ('samples' in low or 'p99' in low) and 'state' not in low:
                for no, r in rows:
                    probe = r[low.index('probe')]
                    cpu = r[low.index('cpu')] if 'cpu' in low else 'all'
                    cpu = int(cpu) if isinstance(cpu, str) and cpu.isdigit() else cpu
                    for name, tok in zip(low, r):
                        col = LAT_COLS.get(name)
                        if not col:
                            continue
                        v, unit = value_unit(tok)
                        add(out, ('lat', probe, cpu, col), v, 1 if col in COUNTS else unit or 1000,
                            '%s:%d' % (path, no), exact=col in COUNTS)
            elif 'state' in low and 'probe' in low:
                for no, r in rows:
                    probe, state = r[low.index('probe')], r[low.index('state')]
                    for name, tok in zip(low, r):
                        col = LAT_COLS.get(name)
                        if col and name not in ('probe', 'state'):
                            v, unit = value_unit(tok)
                            add(out, ('idle', probe, state, col), v,
                                1 if col == 'count' else unit or 1000, '%s:%d' % (path, no),
                                exact=col == 'count')
            elif 'workload' in low:
                for no, r in rows:
                    inst = r[low.index('workload')]
                    for name, tok in zip(low, r):
                        key = {'periods': 'records', 'frames': 'records', 'xruns': 'misses',
                               'dropped frames': 'misses', 'dropped': 'misses'}.get(name)
                        if key:
                            add(out, ('wl', inst, key), tok, 1, '%s:%d' % (path, no), exact=True)
            continue
        i += 1
    return out, facts
