# SPDX-License-Identifier: GPL-2.0-only
"""The board's energy model applied to the trace, as boards/README.md ("The
energy model") documents it: a running CPU draws the operating points' power
interpolated at its frequency (the highest OPP without frequency events; the
model's active power without OPPs), an idle one its state's power_mw (else
model.idle_power_mw; POLL counts as running unless model.poll_power_mw says
otherwise), static_power_mw once.  A CPU with no idle event is running the
whole time; one whose first idle event is an exit was idle since the start,
in the first non-polling state.  Over the run, from the manifest's start to
its end."""
import json
import os
import re

EXIT = (4294967295, -1)


def _scalar(v):
    v = v.strip()
    if v.startswith(('"', "'")):
        return v[1:-1]
    for conv in (int, float):
        try:
            return conv(v)
        except ValueError:
            pass
    return {'true': True, 'false': False, 'null': None, '~': None}.get(v, v)


def _flow(v):
    """{a: 1, b: x} -> dict (the board files' one-line mappings)"""
    out = {}
    for part in v.strip()[1:-1].split(','):
        if ':' in part:
            k, x = part.split(':', 1)
            out[k.strip()] = _scalar(x)
    return out


def board_yaml(path):
    """the part of a board file the model needs: top-level scalars, the
    model: mapping, and the idle_states and operating_points lists"""
    out, cur = {}, None
    with open(path) as f:
        for line in f:
            line = re.sub(r'\s+#.*$', '', line.rstrip('\n'))
            if not line.strip() or line.lstrip().startswith('#'):
                continue
            if not line.startswith(' '):
                k, _, v = line.partition(':')
                cur = k.strip()
                out[cur] = _scalar(v) if v.strip() else None
            elif cur in ('model',) and ':' in line:
                k, _, v = line.strip().partition(':')
                if not isinstance(out.get(cur), dict):
                    out[cur] = {}
                out[cur][k.strip()] = _scalar(v)
            elif cur in ('idle_states', 'operating_points') and line.strip().startswith('- {'):
                if not isinstance(out.get(cur), list):
                    out[cur] = []
                out[cur].append(_flow(line.strip()[2:]))
    return out


def board_of(run):
    bj, by = {}, {}
    if os.path.exists(os.path.join(run.path, 'board.json')):
        with open(os.path.join(run.path, 'board.json')) as f:
            bj = json.load(f)
    if os.path.exists(os.path.join(run.path, 'board.yaml')):
        by = board_yaml(os.path.join(run.path, 'board.yaml'))
    b = {}
    for k in ('idle_states', 'operating_points', 'static_power_mw', 'model', 'cpus'):
        b[k] = bj.get(k) if bj.get(k) not in (None, [], {}) else by.get(k)
    return b


class Model:
    def __init__(self, board):
        self.model = board.get('model') or {}
        self.opps = sorted((o['freq_khz'], o['power_mw']) for o in board.get('operating_points')
                           or [] if o.get('power_mw') is not None)
        self.states = {s['name']: s['power_mw'] for s in board.get('idle_states') or []
                       if s.get('power_mw') is not None}
        self.order = [(s.get('name'), s['power_mw']) for s in board.get('idle_states') or []
                      if s.get('power_mw') is not None]
        self.static = board.get('static_power_mw') or 0

    def active(self, khz):
        if not self.opps:
            return self.model.get('active_power_mw', 0) or 0
        if khz is None:
            return self.opps[-1][1]
        if khz <= self.opps[0][0]:
            return self.opps[0][1]
        for (f0, p0), (f1, p1) in zip(self.opps, self.opps[1:]):
            if khz <= f1:
                return p0 + (p1 - p0) * (khz - f0) / (f1 - f0)
        return self.opps[-1][1]

    def idle(self, name, khz):
        if name in self.states:
            return self.states[name]
        if name == 'POLL':
            p = self.model.get('poll_power_mw')
            return p if p is not None else self.active(khz)
        if self.model.get('idle_power_mw') is not None:
            return self.model['idle_power_mw']
        # boards/README.md: else the board's first idle state that is not POLL
        for n, p in self.order:
            if n != 'POLL':
                return p
        return 0


def estimate(run, events, board):
    """{'cpus': {cpu: energy J}, 'total_j', 'seconds'} over the run"""
    start, end = run.m('start', 'monotonic_ns'), run.m('end', 'monotonic_ns')
    if not isinstance(start, int) or not isinstance(end, int) or end <= start:
        return None
    m = Model(board)
    ncpus = max(run.m('system', 'cpu', 'count', default=0) or 0,
                (board.get('cpus') or {}).get('count', 0) or 0, 1)
    names = {}
    for c in run.m('system', 'cpuidle', 'cpus', default=[]) or []:
        names[c.get('cpu')] = [s.get('name') for s in c.get('states', [])]

    # with no cpuidle driver (no names in the manifest), the board's idle
    # states in order (boards/README.md)
    bnames = [s.get('name') for s in board.get('idle_states') or []]

    def sname(cpu, idx):
        n = names.get(cpu, []) if any(names.values()) else bnames
        return n[idx] if 0 <= idx < len(n) else None

    def first_nonpoll(cpu):
        for i, n in enumerate(names.get(cpu, [])):
            if n != 'POLL':
                return i
        return None
    idle_ev = [e for e in events if e.name == 'cpu_idle']
    freq_ev = [e for e in events if e.name == 'cpu_frequency']
    firsts = {}
    for e in idle_ev:
        c = int(e.field('cpu_id') or e.cpu)
        firsts.setdefault(c, int(e.field('state')))
    # state per CPU: ('run',) or ('idle', index or None)
    st, khz, t, energy = {}, {}, {}, {}
    for c in range(ncpus):
        f = firsts.get(c)
        st[c] = ('idle', first_nonpoll(c)) if f in EXIT else ('run',)
        khz[c] = None
        t[c] = start
        energy[c] = 0.0

    def power(c):
        if st[c][0] == 'run':
            return m.active(khz[c])
        idx = st[c][1]
        return m.idle(sname(c, idx) if idx is not None else None, khz[c])

    def advance(c, to):
        to = min(max(to, start), end)
        if to > t[c]:
            energy[c] += power(c) * (to - t[c]) / 1e12     # mW * ns -> J
            t[c] = to
    for e in sorted(idle_ev + freq_ev, key=lambda e: e.ts):
        c = int(e.field('cpu_id') or e.cpu)
        if c not in st:
            continue
        advance(c, e.ts)
        if e.name == 'cpu_idle':
            s = int(e.field('state'))
            st[c] = ('run',) if s in EXIT else ('idle', s)
        else:
            khz[c] = int(e.field('state'))
    for c in st:
        advance(c, end)
    secs = (end - start) / 1e9
    total = sum(energy.values()) + m.static * secs / 1e3
    return {'cpus': energy, 'total_j': total, 'seconds': secs}
