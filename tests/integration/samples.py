#!/usr/bin/env python3
# Read RUN/samples (lib/samples.h) for the integration tests.
#   samples.py FILE            one line per record: probe cpu expected_ns latency_ns missed flags
#   samples.py FILE --summary  JSON: count, per probe and cpu: n, sum, max, flagged
import json
import struct
import sys

HDR = 64
REC = struct.Struct('<QQIHBB')


def records(path):
    with open(path, 'rb') as f:
        data = f.read()
    if len(data) < HDR or data[:8] != b'LWSAMPLE':
        sys.exit(f'{path}: not a latwatt sample file')
    version, size = struct.unpack_from('<II', data, 8)
    if size != REC.size:
        sys.exit(f'{path}: record size {size}, expected {REC.size}')
    body = data[HDR:]
    if len(body) % size:
        sys.exit(f'{path}: truncated')
    for off in range(0, len(body), size):
        expected, latency, missed, cpu, probe, flags = REC.unpack_from(body, off)
        yield probe, cpu, expected, latency, missed, flags


def main():
    path = sys.argv[1]
    if '--summary' in sys.argv[2:]:
        out = {'count': 0, 'probes': {}}
        for probe, cpu, expected, latency, missed, flags in records(path):
            out['count'] += 1
            k = f'{probe}/{cpu}'
            s = out['probes'].setdefault(k, {'n': 0, 'sum': 0, 'max': 0, 'min': None,
                                              'flagged': 0, 'first': expected,
                                              'last': expected})
            s['n'] += 1
            s['sum'] += latency
            s['max'] = max(s['max'], latency)
            s['min'] = latency if s['min'] is None else min(s['min'], latency)
            s['flagged'] += flags & 1
            s['first'] = min(s['first'], expected)
            s['last'] = max(s['last'], expected)
        print(json.dumps(out))
    else:
        for r in records(path):
            print(*r)


main()
