#!/usr/bin/env python3
# Rewrite a version 6 trace.dat (argv[1]) into argv[2] holding every event
# format of the running kernel (/sys/kernel/tracing/events/*/*/format), with
# the same pages: a check that the trace.dat validator accepts every format
# a real kernel writes (tests/integration/fuzz-regressions.sh).
import struct,sys,os,glob
src,dst=sys.argv[1],sys.argv[2]
d=open(src,'rb').read(); p=0
def take(n):
    global p; b=d[p:p+n]; p+=n; return b
def u(n): return int.from_bytes(take(n),'little')
def cstr():
    global p; e=d.index(b'\0',p); s=d[p:e+1]; p=e+1; return s
out=bytearray(); out+=take(10)+cstr()+take(2); ps=u(4); out+=struct.pack('<I',ps)
for name in (b'header_page\0',b'header_event\0'):
    out+=take(len(name)); n=u(8); out+=struct.pack('<Q',n)+take(n)
for i in range(u(4)): n=u(8); take(n)
ft=[open(f,'rb').read() for f in sorted(glob.glob('/sys/kernel/tracing/events/ftrace/*/format'))]
out+=struct.pack('<I',len(ft))
for f in ft: out+=struct.pack('<Q',len(f))+f
for i in range(u(4)):
    cstr()
    for j in range(u(4)): n=u(8); take(n)
systems={}
for f in sorted(glob.glob('/sys/kernel/tracing/events/*/*/format')):
    sysname=f.split('/')[-3]
    if sysname=='ftrace': continue
    systems.setdefault(sysname,[]).append(open(f,'rb').read())
out+=struct.pack('<I',len(systems))
for k,v in systems.items():
    out+=k.encode()+b'\0'+struct.pack('<I',len(v))
    for e in v: out+=struct.pack('<Q',len(e))+e
print(sum(len(v) for v in systems.values())+len(ft),'formats')
for sz in (4,4,8):
    n=u(sz); out+=n.to_bytes(sz,'little')+take(n)
cpus=u(4); out+=struct.pack('<I',cpus)
assert take(10)==b'options  \0'; out+=b'options  \0'
while True:
    oid=u(2); out+=struct.pack('<H',oid)
    if oid==0: break
    n=u(4); out+=struct.pack('<I',n)+take(n)
assert take(10)==b'flyrecord\0'; out+=b'flyrecord\0'
rng=[(u(8),u(8)) for c in range(cpus)]
cl=u(8); clock=take(cl)
data=[d[o:o+s] for o,s in rng]
hdrlen=len(out)+16*cpus+8+cl
off=(hdrlen+ps-1)//ps*ps
for c in range(cpus):
    out+=struct.pack('<QQ',off if data[c] else 0,len(data[c])); off+=len(data[c])
out+=struct.pack('<Q',cl)+clock
while len(out)%ps: out+=b'\0'
for c in range(cpus): out+=data[c]
open(dst,'wb').write(out)
