#!/usr/bin/env bash
# The tree's structure, from its sources (no binary, no kernel state):
# - the #includes between modules (lib/run.c and lib/run.h are the module
#   lib/run; a module's internal header X_int.h, shared by the files it
#   was split into, is part of it) form no circle;
# - no folder includes one of a higher layer (HACKING.md, "Layout and
#   layering": lib <- probes, workloads <- boards <- power <- analysis <-
#   reports <- cmd);
# - every child process goes through lib/spawn.c: no other file forks,
#   execs or waits, and nothing runs a shell (popen, system);
# - every sort goes through lib/sort.h's lw_qsort(): qsort(NULL, 0) is
#   undefined, and an empty array is often NULL.
. "$(dirname "$0")/lib.sh"
cd "$TOP" || exit 2
py layers <<'PY'
import os, re, sys

FOLDERS = ["lib", "probes", "workloads", "boards", "power", "analysis", "reports", "cmd"]
# a folder includes its own and those of lower rank; probes and workloads
# share a rank and do not include each other
RANK = {"lib": 0, "probes": 1, "workloads": 1, "boards": 2, "power": 3, "analysis": 4,
        "reports": 5, "cmd": 6}

# The one home of child processes, and the files allowed a call of the
# kind lib/spawn.c makes, each with its reason.
SPAWN_HOME = "lib/spawn.c"
SPAWN_EXCEPTIONS = {
    # none: the probes' and workloads' threads are pthreads (lib/thread.c),
    # not processes.  tests/ and fuzz/ are not latwatt and are not read: the
    # unit tests fork concurrent writers and run sh to make their conditions.
}
SPAWN_CALLS = re.compile(r'(?<![\w.>])(fork|vfork|clone3?|posix_spawnp?|popen|pclose|system|'
                         r'exec(?:l|lp|le|v|vp|vpe|ve)|fexecve|waitpid|wait|wait3|wait4|waitid)'
                         r'\s*\(')
INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]+"([^"]+)"', re.M)

def sources():
    for d in FOLDERS:
        for root, _, files in os.walk(d):
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    yield os.path.join(root, f)

def code_only(text):
    """The text without comments, string and character literals."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j)); i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c); i = j + 1
        else:
            out.append(c); i += 1
    return "".join(out)

status = 0
def fail(name, why):
    global status
    print("FAIL: %s: %s" % (name, why)); status = 1

def module(path):
    m = os.path.splitext(path)[0]
    return m[:-4] if m.endswith("_int") else m


files = list(sources())
deps = {}          # module -> {module: "file:line"}
bad_layer = []
for path in files:
    text = open(path, encoding="utf-8", errors="replace").read()
    mod = module(path)
    for m in INCLUDE.finditer(text):
        inc = m.group(1)
        line = text.count("\n", 0, m.start()) + 1
        if not os.path.exists(inc):
            continue       # generated or a system header in quotes
        target = module(inc)
        if target != mod:
            deps.setdefault(mod, {}).setdefault(target, "%s:%d" % (path, line))
        top, itop = path.split("/")[0], inc.split("/")[0]
        if itop in RANK and itop != top and RANK[itop] >= RANK[top]:
            bad_layer.append("%s:%d includes %s (%s may not include %s)" %
                             (path, line, inc, top + "/", itop + "/"))

# circles: strongly connected components of more than one module (Tarjan)
index, low, on, stack, sccs, counter = {}, {}, set(), [], [], [0]
sys.setrecursionlimit(10000)
def visit(v):
    index[v] = low[v] = counter[0]; counter[0] += 1
    stack.append(v); on.add(v)
    for w in sorted(deps.get(v, {})):
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            sccs.append(sorted(comp))
for v in sorted(set(deps) | {w for d in deps.values() for w in d}):
    if v not in index:
        visit(v)

def one_cycle(comp):
    """A shortest circle through the component's first module, with the
    include that makes each step."""
    members, start = set(comp), comp[0]
    prev, queue = {start: None}, [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(deps.get(v, {})):
            if w not in members:
                continue
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                path.reverse()
                steps = [(a, b) for a, b in zip(path, path[1:] + [start])]
                return " -> ".join("%s (%s)" % (b, deps[a][b]) for a, b in steps)
            if w not in prev:
                prev[w] = v; queue.append(w)
    return ""

if sccs:
    for comp in sccs:
        fail("include-circles", "%s: %s" % (", ".join(comp), one_cycle(comp)))
else:
    print("PASS: include-circles (%d modules)" % len(set(deps) | {w for d in deps.values() for w in d}))
if bad_layer:
    for b in bad_layer:
        fail("include-layers", b)
else:
    print("PASS: include-layers")

spawn_bad = []
for path in files:
    if path == SPAWN_HOME or path in SPAWN_EXCEPTIONS:
        continue
    code = code_only(open(path, encoding="utf-8", errors="replace").read())
    for m in SPAWN_CALLS.finditer(code):
        spawn_bad.append("%s:%d: %s()" % (path, code.count("\n", 0, m.start()) + 1, m.group(1)))
if spawn_bad:
    for b in spawn_bad:
        fail("one-home-for-child-processes", b + " outside " + SPAWN_HOME)
else:
    print("PASS: one-home-for-child-processes")

QSORT = re.compile(r'(?<![\w.>])qsort\s*\(')
qsort_bad = []
for path in files:
    if path == "lib/sort.h":
        continue
    code = code_only(open(path, encoding="utf-8", errors="replace").read())
    for m in QSORT.finditer(code):
        qsort_bad.append("%s:%d" % (path, code.count("\n", 0, m.start()) + 1))
for b in qsort_bad:
    fail("sorts-through-lw_qsort", b + ": qsort() where lw_qsort() (lib/sort.h) is meant")
if not qsort_bad:
    print("PASS: sorts-through-lw_qsort")
sys.exit(status)
PY
finish
