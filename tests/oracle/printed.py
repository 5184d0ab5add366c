# SPDX-License-Identifier: GPL-2.0-only
"""A figure as a view prints it: its key (figures.py), the value in the
key's unit, the resolution it was printed with, and where it was found."""
import re

# what a view prints for a figure it does not know
UNKNOWN_MARKS = {'-', '--', '\u2014', 'unknown', 'n/a', 'na', '?', 'null', 'none', 'not known',
                 'unknown.', 'not recorded'}
NUM = re.compile(r'^([<>]=?|\u2265|\u2264)?\s*([-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)')


class Printed:
    __slots__ = ('key', 'value', 'res', 'raw', 'where', 'bound')

    def __init__(self, key, value, res, raw, where, bound=None):
        self.key, self.value, self.res, self.raw, self.where = key, value, res, raw, where
        self.bound = bound

    def __repr__(self):
        return '%s=%r (%s)' % (self.key, self.raw, self.where)


def number(tok, scale=1.0):
    """(value, resolution, bound) of a printed number in the key's unit:
    (None, None, None) for an unknown mark, bound '>' etc. for a bound,
    raises ValueError for anything else"""
    t = tok.strip().replace(',', '').replace('\u00a0', ' ')
    t = re.sub(r'\s*\([^)]*\)\s*$', '', t)      # "- (no deadlines)": a remark after it
    if t.lower() in UNKNOWN_MARKS or t == '':
        return None, None, None
    m = NUM.match(t)
    if not m:
        raise ValueError('not a number: %r' % tok)
    s = m.group(2)
    frac = s.split('.', 1)[1] if '.' in s else ''
    frac = re.sub(r'[eE].*', '', frac)
    res = 10.0 ** -len(frac) * scale
    if 'e' in s.lower():
        res = 0.0
    v = float(s) * scale
    if m.group(1):
        return None, res, (m.group(1), v)
    return v, res, None


def add(out, key, tok, scale, where, exact=False):
    """parse @tok into a Printed of @key; unparseable text is kept as such"""
    try:
        v, res, bound = number(tok, scale)
    except ValueError:
        out.append(Printed(key, 'unparsed', None, tok, where))
        return
    if exact and res is not None:
        res = 0.0
    out.append(Printed(key, v, res, tok, where, bound))


# the verdict block's lines: "worst 12.51 ms (cyclic, CPU 0, at 0.30 s): ...",
# "20 xruns in 2240 periods", "0 dropped frames in 89 frames"
WORST = re.compile(r'^\s*(\S+)\s*(ns|us|\u00b5s|ms|s)\s*\(([\w-]+), CPU (\d+)'
                   r'(?:, at (\S+) s)?')
MISSES = re.compile(r'^\s*(\S+) (xruns|dropped frames|misses|deadline misses) in (\S+) '
                    r'(periods|frames)\b')
SCALE = {'ns': 1, 'us': 1000, '\u00b5s': 1000, 'ms': 10**6, 's': 10**9}


def verdict_line(out, label, text, where):
    """the figures of one line of a verdict block, labelled (worst, or a
    workload's instance)"""
    if label == 'worst':
        m = WORST.match(text)
        if m:
            add(out, ('worst',), m.group(1), SCALE[m.group(2)], where)
            add(out, ('lat', m.group(3), int(m.group(4)), 'max'), m.group(1), SCALE[m.group(2)],
                where)
            if m.group(5):
                add(out, ('worst', 'at'), m.group(5), 1, where)
        return
    m = MISSES.match(text)
    if m:
        add(out, ('wl', label, 'misses'), m.group(1), 1, where, exact=True)
        add(out, ('wl', label, 'records'), m.group(3), 1, where, exact=True)


# the host's line of each view: "kernel-attributable cyclic: p99 3637.3us
# (raw 7741.6), p99.9 ..., max ..." (the twin, then the raw figure)
KLINE = re.compile(r'^\s*(?:[-*] )?kernel-attributable (\S+): (.*)$')
KFIG = re.compile(r'(p\d+(?:\.\d+)?|max|mean|min) (\S+?)(us|ms|ns) \(raw (\S+?)\)')


def kernel_line(out, text, where):
    """the figures of a host's kernel-attributable line, if @text is one"""
    m = KLINE.match(text)
    if not m:
        return False
    for f in KFIG.finditer(m.group(2)):
        add(out, ('klat', m.group(1), 'all', f.group(1)), f.group(2), SCALE[f.group(3)], where)
        add(out, ('lat', m.group(1), 'all', f.group(1)), f.group(4), SCALE[f.group(3)],
            where + ' (raw)')
    return True
