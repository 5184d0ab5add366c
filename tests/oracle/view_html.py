# SPDX-License-Identifier: GPL-2.0-only
"""The HTML report as figures, read with html.parser: tables are told apart
by their header cells (and the headings above them), never by position."""
import re
from html.parser import HTMLParser

from printed import add, kernel_line, verdict_line

UNIT = {'ns': 1, 'us': 1000, '\u00b5s': 1000, 'ms': 10**6, 's': 10**9}
LAT_COLS = {'samples': 'count', 'count': 'count', 'min': 'min', 'mean': 'mean', 'p50': 'p50',
            'p90': 'p90', 'p99': 'p99', 'p99.9': 'p99.9', 'p99.99': 'p99.99', 'max': 'max',
            'over threshold': 'over', 'over': 'over', 'missed periods': 'missed',
            'missed': 'missed', 'dropped': 'dropped'}
COUNTS = ('count', 'over', 'missed', 'dropped')


class Table:
    def __init__(self, attrs, headings):
        self.attrs = dict(attrs)
        self.headings = list(headings)     # h1..h3 texts above it, outermost first
        self.rows = []                     # [[(tag, attrs, text)]]


class Doc(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables, self.ids, self.texts = [], {}, []
        self.head = {}            # level -> text
        self.stack = []           # open elements: (tag, attrs, text parts)
        self.table = None
        self.row = None
        self.cell = None
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ('svg', 'style', 'script'):
            self.skip += 1
        if self.skip:
            return
        a = dict(attrs)
        if tag in ('h1', 'h2', 'h3', 'h4'):
            lvl = int(tag[1])
            for k in list(self.head):
                if k >= lvl:
                    del self.head[k]
        if tag == 'table':
            self.table = Table(attrs, [self.head[k] for k in sorted(self.head)])
            self.tables.append(self.table)
        elif tag == 'tr' and self.table is not None:
            self.row = []
            self.table.rows.append(self.row)
        elif tag in ('td', 'th') and self.row is not None:
            self.cell = [tag, a, []]
            self.row.append(self.cell)
        if tag not in ('br', 'img', 'meta', 'link', 'hr', 'input'):
            self.stack.append((tag, a, []))

    def handle_startendtag(self, tag, attrs):
        if tag in ('svg', 'style', 'script'):
            return
        if not self.skip and tag not in ('br', 'img', 'meta', 'link', 'hr', 'input'):
            self.handle_starttag(tag, attrs)
            self.handle_endtag(tag)

    def handle_endtag(self, tag):
        if tag in ('svg', 'style', 'script'):
            self.skip = max(0, self.skip - 1)
            return
        if self.skip:
            return
        while self.stack:
            t, a, parts = self.stack.pop()
            text = ' '.join(''.join(parts).split())
            if self.stack:
                self.stack[-1][2].append(''.join(parts))
            if a.get('id'):
                self.ids[a['id']] = (a, text)
            if t in ('h1', 'h2', 'h3', 'h4'):
                self.head[int(t[1])] = text
            if t in ('td', 'th') and self.cell is not None:
                self.cell[2] = text
                self.cell = None
            if t == 'tr':
                self.row = None
            if t == 'table':
                self.table = None
            if t in ('p', 'li', 'span', 'td', 'th', 'h1', 'h2', 'h3', 'figcaption'):
                self.texts.append((t, a, text))
            if t == tag:
                break

    def handle_data(self, data):
        if not self.skip and self.stack:
            self.stack[-1][2].append(data)


def header_of(t):
    """the first row whose cells are all th: the column names"""
    for r in t.rows:
        if r and all(c[0] == 'th' for c in r):
            return [c[2] for c in r]
    return None


def col_unit(name):
    m = re.match(r'^(.*?)\s*\(([^)]*)\)\s*$', name)
    if m:
        return m.group(1).strip(), m.group(2).strip()
    return name.strip(), None


def parse(path):
    d = Doc()
    with open(path, errors='replace') as f:
        d.feed(f.read())
    d.close()
    out, facts = [], {'state': '', 'verdict': ''}
    if 'verdict' in d.ids:
        a, text = d.ids['verdict']
        facts['verdict'] = '%s %s' % (a.get('data-verdict', ''), text)
    for tag, a, text in d.texts:
        if re.search(r'\bverdict\b', ' '.join('%s %s' % kv for kv in a.items()) + ' ' + text,
                     re.I) and tag in ('p', 'span', 'li', 'h2', 'td'):
            facts['verdict'] += '\n' + text
    for tag, a, text in d.texts:
        if tag == 'li':
            kernel_line(out, text, '%s: <li> %s' % (path, text[:40]))
    for ti, t in enumerate(d.tables):
        hdr = header_of(t)
        ctx = ' / '.join(t.headings)
        where = '%s: table %s under "%s"' % (path, ' '.join(hdr or [])[:60], ctx)
        if not hdr:
            # key-value tables: the run's state
            for r in t.rows:
                if len(r) == 2 and r[0][2].strip().lower() == 'status':
                    facts['state'] = r[1][2]
            continue
        if t.attrs.get('class') == 'vlines' or (len(hdr) <= 3 and t.rows and
                                                 all(r and r[0][0] == 'th' for r in t.rows)):
            # the verdict block: a label, then the line
            for r in t.rows:
                if len(r) >= 2:
                    verdict_line(out, r[0][2], r[-1][2], where)
            continue
        names = [col_unit(h) for h in hdr]
        low = [n.lower() for n, _ in names]
        state_col = [j for j, n in enumerate(low) if n == 'state' or n.endswith(' state')]
        if 'samples' in low and any(n.startswith('p99') for n in low) and not state_col:
            probe = t.attrs.get('data-probe')
            if not probe:
                m = re.search(r'[Pp]robe (\S+)', ctx)
                probe = m.group(1) if m else None
            for r in t.rows:
                if all(c[0] == 'th' for c in r) or not r:
                    continue
                first = r[0][2].strip()
                cpu = 'all' if first.lower() == 'all' else int(first) if first.isdigit() else None
                for (name, unit), c in zip(names[1:], r[1:]):
                    col = LAT_COLS.get(name.lower())
                    if not col:
                        continue
                    count = col in COUNTS
                    add(out, ('lat', probe, cpu, col), c[2], 1 if count else UNIT.get(unit, 1000),
                        where, exact=count)
                    dv = c[1].get('data-value')
                    if dv is not None:
                        add(out, ('lat', probe, cpu, col), dv, 1 if count else 1,
                            where + ' data-value', exact=col != 'mean')
        elif state_col and ('samples' in low or 'count' in low):
            pi = low.index('probe') if 'probe' in low else None
            si = state_col[0]
            probe_ctx = t.attrs.get('data-probe')
            for r in t.rows:
                if not r or all(c[0] == 'th' for c in r):
                    continue
                probe = r[pi][2] if pi is not None else probe_ctx
                state = r[si][2]
                for j, (name, unit) in enumerate(names):
                    col = LAT_COLS.get(name.lower())
                    if col and j < len(r) and j not in (pi, si):
                        add(out, ('idle', probe, state, col), r[j][2],
                            1 if col == 'count' else UNIT.get(unit, 1000), where,
                            exact=col == 'count')
        elif 'rail' in low:
            for r in t.rows:
                if not r or all(c[0] == 'th' for c in r):
                    continue
                rail = r[0][2]
                for (name, unit), c in zip(names, r):
                    key = {'mean': 'average_w', 'average': 'average_w', 'min': 'min_w',
                           'max': 'max_w', 'energy': 'energy_j', 'samples': 'samples'
                           }.get(name.lower())
                    if key:
                        scale = {'mW': 1e-3, 'W': 1, 'mJ': 1e-3, 'J': 1}.get(unit, 1)
                        add(out, ('power', rail, key), c[2], scale, where,
                            exact=key == 'samples')
        elif 'workload' in low and any(w in ' '.join(low) for w in ('xruns', 'periods', 'frames',
                                                                     'misses')):
            if any('time' in n for n in low) and 'cause' in low:
                misses_table(t, low, where, out, facts)
            else:
                wl_table(t, names, low, where, out)
    if 'power-total' in d.ids:
        a, text = d.ids['power-total']
        m = re.search(r'([\d.]+)\s*(mW|W) average,\s*([\d.]+)\s*(mJ|J) over\s*([\d.]+)\s*s', text)
        where = '%s: #power-total' % path
        if m:
            add(out, ('power', 'total', 'average_w'), m.group(1),
                1e-3 if m.group(2) == 'mW' else 1, where)
            add(out, ('power', 'total', 'energy_j'), m.group(3),
                1e-3 if m.group(4) == 'mJ' else 1, where)
            add(out, ('power', 'total', 'duration_s'), m.group(5), 1, where)
        else:
            add(out, ('power', 'total', 'average_w'), text, 1, where)
    facts['sections'] = [t.headings for t in d.tables]
    facts['text'] = '\n'.join(x[2] for x in d.texts)
    return out, facts


def misses_table(t, low, where, out, facts):
    """the list of deadline misses: each one's lateness; how many are listed"""
    wi = low.index('workload')
    di = low.index('detail') if 'detail' in low else None
    listed = facts.setdefault('misses_listed', {})
    for r in t.rows:
        if not r or all(c[0] == 'th' for c in r) or di is None or di >= len(r):
            continue
        inst = r[wi][2]
        listed[inst] = listed.get(inst, 0) + 1
        d = r[di][2]
        m = re.search(r'(?:period|frame) (\d+)(?:, stream (\d+))?.*?([-\d.]+) (us|ms) late', d)
        if m:
            add(out, ('wl', inst, 'miss', int(m.group(1)), int(m.group(2) or 0)), m.group(3),
                UNIT[m.group(4)], where)


def wl_table(t, names, low, where, out):
    """the workloads table: one row per workload instance"""
    wi = low.index('workload') if 'workload' in low else 0
    for r in t.rows:
        if not r or all(c[0] == 'th' for c in r):
            continue
        inst = r[wi][2]
        for j, name in enumerate(low):
            key = {'periods': 'records', 'frames': 'records', 'xruns': 'misses',
                   'dropped': 'misses', 'dropped frames': 'misses', 'skipped': 'skipped',
                   'streams': 'streams', 'periods or frames': 'records',
                   'deadline misses': 'misses', 'misses': 'misses'}.get(name)
            if key and j < len(r):
                add(out, ('wl', inst, key), r[j][2], 1, where, exact=True)
            elif name.startswith('worst slack') and j < len(r):
                unit = col_unit(names[j][0] + (' (%s)' % names[j][1] if names[j][1] else ''))[1]
                add(out, ('wl', inst, 'worst_slack'), r[j][2], UNIT.get(unit, 1000), where)
