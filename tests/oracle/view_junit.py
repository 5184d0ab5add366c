# SPDX-License-Identifier: GPL-2.0-only
"""The JUnit XML report as figures: the measured value of each budget's
testcase ("budget.PROBE.METRIC" or "budget.METRIC": "measured X UNIT")."""
import re
import xml.etree.ElementTree as ET

from printed import add

UNIT = {'ns': 1, 'us': 1000, '\u00b5s': 1000, 'ms': 10**6, 's': 10**9, 'W': 1, 'mW': 1e-3,
        '': 1}
LAT = ('min', 'mean', 'p50', 'p90', 'p99', 'p99.9', 'p99.99', 'max')
COUNT = {'over': 'over', 'missed': 'missed', 'dropped': 'dropped'}
KERNEL = re.compile(r'judged on the kernel-attributable figure: host time taken off; raw '
                    r'(\S+)\s*(ns|us|\u00b5s|ms|s)?\b')
MEASURED = re.compile(r'measured[ =]\s*(\S+)\s*(ns|us|\u00b5s|ms|s|mW|W)?\b')


def parse(path):
    out, facts = [], {'state': '', 'verdict': ''}
    root = ET.parse(path).getroot()
    for tc in root.iter('testcase'):
        name = tc.get('name') or ''
        parts = name.split('.')
        texts = [tc.findtext('system-out') or '']
        for f in list(tc.findall('failure')) + list(tc.findall('error')):
            texts.append((f.get('message') or '') + ' ' + (f.text or ''))
            facts['verdict'] += 'FAIL %s\n' % name
        if tc.find('failure') is None and tc.find('error') is None and \
                tc.find('skipped') is None:
            facts['verdict'] += 'PASS %s\n' % name
        m = None
        for t in texts:
            m = MEASURED.search(t)
            if m:
                break
        if not m or parts[0] != 'budget':
            continue
        where = '%s: testcase %s' % (path, name)
        metric = parts[-1] if len(parts) > 1 else ''
        probe = parts[1] if len(parts) > 2 else None
        # judged on the kernel-attributable figure (latwatt(1), analyze
        # --judge): the measured figure is that twin, the raw one follows
        k = KERNEL.search(' '.join(texts))
        cat = 'klat' if k else 'lat'
        if metric in LAT and probe:
            add(out, (cat, probe, 'all', metric), m.group(1), UNIT.get(m.group(2) or 'us', 1000),
                where)
            if k:
                add(out, ('lat', probe, 'all', metric), k.group(1),
                    UNIT.get(k.group(2) or 'us', 1000), where + ' (raw)')
        elif metric in COUNT and probe:
            add(out, (cat, probe, 'all', COUNT[metric]), m.group(1), 1, where, exact=True)
            if k:
                add(out, ('lat', probe, 'all', COUNT[metric]), k.group(1), 1, where + ' (raw)',
                    exact=True)
        elif metric == 'power':
            add(out, ('power', 'total', 'average_w'), m.group(1), UNIT.get(m.group(2) or 'W', 1),
                where)
    for ts in root.iter('testsuite'):
        for p in ts.iter('property'):
            if p.get('name') in ('status', 'run_status'):
                facts['state'] = p.get('value') or ''
    return out, facts
