# SPDX-License-Identifier: GPL-2.0-only
"""The raw files of a run directory, read as doc/latwatt.1 (FILES) documents
them: samples, the records of the workloads, manifest.json, histogram.json,
monitor, power, idle.json, and the kernel trace through `trace-cmd report`.

Nothing here comes from latwatt's code: the layouts are the man page's."""
import json
import os
import re
import subprocess

import numpy as np

PROBES = {1: 'cyclic', 2: 'timerlat-irq', 3: 'timerlat-thread', 4: 'noise', 5: 'audio',
          6: 'video', 7: 'timerlat-user'}

# samples: a 64-byte header, then 24-byte records
SAMPLES_HDR = 64
SAMPLE = np.dtype([('expected', '<u8'), ('latency', '<u8'), ('missed', '<u4'), ('cpu', '<u2'),
                   ('probe', 'u1'), ('flags', 'u1')])
assert SAMPLE.itemsize == 24

# records: a 128-byte header, then records of the kind's size
RECORDS_HDR = 128
AUDIO = np.dtype([('boundary', '<u8'), ('period', '<u8'), ('irq', '<u4'), ('wakeup', '<u4'),
                  ('proc', '<u4'), ('slack', '<i4'), ('stream', '<u2'), ('cpu', '<u2'),
                  ('flags', '<u4')])
VIDEO = np.dtype([('vsync', '<u8'), ('frame', '<u8'), ('capture', '<u4'), ('dma', '<u4'),
                  ('wakeup', '<u4'), ('proc', '<u4'), ('latency', '<u4'), ('slack', '<i4'),
                  ('slot', '<u2'), ('cpu', '<u2'), ('flags', '<u4')])
assert AUDIO.itemsize == 40 and VIDEO.itemsize == 48
# version 2: every duration and the slack in 64 bits
AUDIO2 = np.dtype([('boundary', '<u8'), ('period', '<u8'), ('irq', '<u8'), ('wakeup', '<u8'),
                   ('proc', '<u8'), ('slack', '<i8'), ('stream', '<u2'), ('cpu', '<u2'),
                   ('flags', '<u4')])
VIDEO2 = np.dtype([('vsync', '<u8'), ('frame', '<u8'), ('capture', '<u8'), ('dma', '<u8'),
                   ('wakeup', '<u8'), ('proc', '<u8'), ('latency', '<u8'), ('slack', '<i8'),
                   ('slot', '<u2'), ('cpu', '<u2'), ('flags', '<u4')])
assert AUDIO2.itemsize == 56 and VIDEO2.itemsize == 72
RECORD_KINDS = {1: {'audio': AUDIO, 'video': VIDEO}, 2: {'audio': AUDIO2, 'video': VIDEO2}}
REC_MISS, REC_SKIPPED = 1, 2


class BadRun(Exception):
    """A raw file the oracle cannot read as documented."""


def _cstr(b):
    return b.split(b'\0', 1)[0].decode('utf-8', 'replace')


class Samples:
    """RUN/samples: the whole records, and what is left over."""

    def __init__(self, path):
        size = os.path.getsize(path)
        with open(path, 'rb') as f:
            hdr = f.read(SAMPLES_HDR)
        if len(hdr) < SAMPLES_HDR or hdr[:8] != b'LWSAMPLE':
            raise BadRun('%s: not a samples file (magic)' % path)
        self.version = int.from_bytes(hdr[8:12], 'little')
        self.record_size = int.from_bytes(hdr[12:16], 'little')
        self.start_ns = int.from_bytes(hdr[16:24], 'little')
        if self.record_size != SAMPLE.itemsize:
            raise BadRun('%s: record size %d, documented 24' % (path, self.record_size))
        body = size - SAMPLES_HDR
        self.records = body // SAMPLE.itemsize
        self.partial_bytes = body % SAMPLE.itemsize
        self.a = np.fromfile(path, dtype=SAMPLE, count=self.records, offset=SAMPLES_HDR)


class Records:
    """RUN/NAME.records of a workload."""

    def __init__(self, path):
        size = os.path.getsize(path)
        with open(path, 'rb') as f:
            hdr = f.read(RECORDS_HDR)
        if len(hdr) < RECORDS_HDR or hdr[:8] != b'LWRECORD':
            raise BadRun('%s: not a records file (magic)' % path)
        le = lambda a, b: int.from_bytes(hdr[a:b], 'little')
        self.version = le(8, 12)
        self.record_size = le(12, 16)
        self.start_ns = le(16, 24)
        self.kind = _cstr(hdr[24:40])
        self.instance = _cstr(hdr[40:72]) or os.path.basename(path)[:-len('.records')]
        self.num, self.den = le(72, 80), le(80, 88)
        self.streams = le(88, 92)
        if self.version not in RECORD_KINDS:
            raise BadRun('%s: records version %d' % (path, self.version))
        dt = RECORD_KINDS[self.version].get(self.kind)
        if dt is None:
            raise BadRun('%s: unknown record kind %r' % (path, self.kind))
        if self.record_size != dt.itemsize:
            raise BadRun('%s: record size %d, a %s record is %d' %
                         (path, self.record_size, self.kind, dt.itemsize))
        body = size - RECORDS_HDR
        self.count = body // dt.itemsize
        self.partial_bytes = body % dt.itemsize
        self.a = np.fromfile(path, dtype=dt, count=self.count, offset=RECORDS_HDR)
        self.period_ns = self.num / self.den if self.den else None


class Power:
    """RUN/power: rails, samples and gaps per rail, in file order."""

    def __init__(self, path):
        self.rails = {}         # id -> dict
        self.order = []
        self.start_ns = self.end_ns = None
        with open(path) as f:
            lines = f.read().split('\n')
        if not lines or lines[0].split('\t')[:1] != ['latwatt-power']:
            raise BadRun('%s: first line is not "latwatt-power 1"' % path)
        for no, line in enumerate(lines[1:], 2):
            if not line:
                continue
            f = line.split('\t')
            if f[0] == 'rail':
                r = {'id': int(f[1]), 'name': f[2], 'source': f[3], 'kind': f[4],
                     'flags': f[5].split(','), 'detail': f[6] if len(f) > 6 else '',
                     'points': [], 'gaps': 0}
                self.rails[r['id']] = r
                self.order.append(r['id'])
            elif f[0] == 's':
                num = lambda x: None if x == '-' else float(x)
                r = self.rails.get(int(f[1]))
                if r is None:
                    raise BadRun('%s:%d: sample of an undeclared rail' % (path, no))
                r['points'].append({'t': int(f[2]), 'w': num(f[3]), 'e': num(f[4]),
                                    'after_gap': r.pop('_gap', False)})
            elif f[0] == 'gap':
                r = self.rails.get(int(f[1]))
                if r is None:
                    raise BadRun('%s:%d: gap of an undeclared rail' % (path, no))
                r['gaps'] += 1
                r['_gap'] = True
            elif f[0] == 'start_ns':
                self.start_ns = int(f[1])
            elif f[0] == 'end_ns':
                self.end_ns = int(f[1])
            else:
                raise BadRun('%s:%d: unknown record %r' % (path, no, f[0]))


# `trace-cmd report -N -t`: no plugins (the kernel's own print formats), ns
TRACE_LINE = re.compile(r'^\s*(?P<comm>.*)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+'
                        r'(?P<sec>\d+)\.(?P<ns>\d{9}):\s+(?P<event>[\w:]+):\s*(?P<rest>.*)$')
FIELD = re.compile(r'(\w+)=(\S*)')


class TraceEvent:
    __slots__ = ('ts', 'cpu', 'pid', 'comm', 'name', 'rest', '_f')

    def __init__(self, ts, cpu, pid, comm, name, rest):
        self.ts, self.cpu, self.pid, self.comm, self.name, self.rest = ts, cpu, pid, comm, name, rest
        self._f = None

    def field(self, k):
        if self._f is None:
            self._f = dict(FIELD.findall(self.rest))
        return self._f.get(k)


def trace_events(path):
    """Every event of a trace.dat in time order, and the lost-event marks
    (cpu, ts of the next event) trace-cmd prints."""
    p = subprocess.run(['trace-cmd', 'report', '-N', '-t', path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, errors='replace')
    if p.returncode != 0:
        raise BadRun('trace-cmd report %s: exit %d: %s' % (path, p.returncode,
                                                           p.stderr.strip()[-300:]))
    events, lost = [], []
    pending_lost = set()
    for line in p.stdout.split('\n'):
        m = TRACE_LINE.match(line)
        if not m:
            lm = re.search(r'CPU:?\s*(\d+)\s*\[(?:\d+ )?(?:LOST|EVENTS DROPPED)', line)
            if lm:
                pending_lost.add(int(lm.group(1)))
            continue
        ts = int(m.group('sec')) * 10**9 + int(m.group('ns'))
        cpu = int(m.group('cpu'))
        ev = m.group('event')
        if ':' in ev:
            ev = ev.split(':')[-1]
        if cpu in pending_lost:
            pending_lost.discard(cpu)
            lost.append((cpu, ts))
        events.append(TraceEvent(ts, cpu, int(m.group('pid')), m.group('comm').strip(), ev,
                                 m.group('rest')))
    events.sort(key=lambda e: e.ts)    # trace-cmd merges the CPUs in time order already
    return events, lost


def read_json(path):
    with open(path) as f:
        return json.load(f)


class Run:
    """Every raw file of a run directory that is there."""

    def __init__(self, path):
        self.path = path
        j = lambda n: os.path.join(path, n)
        self.manifest = read_json(j('manifest.json')) if os.path.exists(j('manifest.json')) else None
        self.samples = Samples(j('samples')) if os.path.exists(j('samples')) else None
        self.histogram = read_json(j('histogram.json')) if os.path.exists(j('histogram.json')) \
            else None
        self.monitor = None
        if os.path.exists(j('monitor')):
            with open(j('monitor')) as f:
                lines = [json.loads(l) for l in f if l.strip()]
            if not lines or lines[0].get('format') != 'latwatt-monitor':
                raise BadRun('%s: no latwatt-monitor header' % j('monitor'))
            self.monitor = {'header': lines[0], 'intervals': lines[1:]}
        self.records = {}
        for n in sorted(os.listdir(path)):
            if n.endswith('.records'):
                r = Records(j(n))
                self.records[r.instance] = r
        self.power = Power(j('power')) if os.path.exists(j('power')) else None
        self.idle = read_json(j('idle.json')) if os.path.exists(j('idle.json')) else None
        self.trace_path = j('trace.dat') if os.path.exists(j('trace.dat')) else None
        self._trace = None
        self.cyclictest = None
        imp = (self.manifest or {}).get('imported') or {}
        if imp.get('from') == 'cyclictest' and imp.get('file') and os.path.exists(imp['file']):
            self.cyclictest = read_json(imp['file'])

    def trace(self):
        if self._trace is None:
            self._trace = trace_events(self.trace_path)
        return self._trace

    def m(self, *keys, default=None):
        """manifest[k0][k1]...; default when a key is not there"""
        d = self.manifest
        for k in keys:
            if isinstance(d, dict) and k in d:
                d = d[k]
            elif isinstance(d, list) and isinstance(k, int) and -len(d) <= k < len(d):
                d = d[k]
            else:
                return default
        return d
