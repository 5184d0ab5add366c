#!/usr/bin/env python3
"""Recall and precision of spike attribution against planted causes.

    score.py ANALYSIS.json PROBE LOG[:KIND=CAUSE[,KIND=CAUSE...]]... [--json] [--misses N]

ANALYSIS.json is `latwatt analyze --json --top 100000` of the run; PROBE
the probe whose spikes count (cyclic, noise); each LOG holds lines "KIND
START_NS END_NS" written by tests/integration/plant.py, and KIND=CAUSE says
which cause names that kind (a cause ending in ':' matches every name of
that cause kind; "idle" matches idle-exit and idle-late, and counts as
caused only the spikes whose CPU was idle at the expected time; a
"non-preemptible:" cause counts as caused only the spikes in which the
probe, once woken, waited at least half of its latency to be switched in:
a section that cannot be preempted delays the switch, not the wake-up).

Only spikes inside the planters' time (from the first span to the last)
count.  A spike was caused by a kind when at least half of its window lies in that
kind's spans.  Recall: of those, the share whose dominant cause is the
kind's.  Precision: of the spikes whose dominant cause is the kind's, the
share whose window touches one of its spans (padded by PAD_NS each side: a
planter logs a little inside the time it holds the CPU).  A kind with
CAUSE "-" is a control: no spike in its spans may name any of the others'
causes, nor the probe's own thread (--forbid).  --misses N lists, for each
kind, up to N of the spikes it caused that were named otherwise, with their
components and timeline (what the engine saw instead).
"""
import json, sys

PAD_NS = 200_000
PROBES = {"cyclic": 1, "timerlat-irq": 2, "timerlat-thread": 3, "noise": 4, "audio": 5}


def matches(cause, want):
    if cause is None:
        return False
    if want == "idle":
        return cause.startswith("idle-exit") or cause.startswith("idle-late")
    if want.endswith(":"):
        return cause.startswith(want)
    return cause == want


def overlap(e, w, spans):
    return sum(max(0, min(w, b) - max(e, a)) for a, b in spans)


def main(argv):
    as_json = "--json" in argv
    argv = [a for a in argv if a != "--json"]
    misses = 0
    if "--misses" in argv:
        i = argv.index("--misses")
        misses = int(argv[i + 1])
        del argv[i:i + 2]
    a = json.load(open(argv[0]))
    probe = PROBES[argv[1]]
    spans, want = {}, {}
    for arg in argv[2:]:
        path, _, kinds = arg.partition(":")
        for kv in kinds.split(","):
            k, _, c = kv.partition("=")
            want[k] = c
        for line in open(path):
            k, s, e = line.split()
            spans.setdefault(k, []).append((int(s), int(e)))
    # only while the planters ran: outside, nothing is known of the truth
    lo = min(a0 for sp in spans.values() for a0, _ in sp)
    hi = max(b0 for sp in spans.values() for _, b0 in sp)
    spikes = [s for s in a["spikes"]["top"] if s["probe"] == probe and "unattributable" not in s
              and s["expected_ns"] >= lo and s["expected_ns"] + s["latency_ns"] <= hi]
    out = {}
    for k, c in want.items():
        sp = spans.get(k, [])
        padded = [(s - PAD_NS, e + PAD_NS) for s, e in sp]
        caused = [s for s in spikes if s["latency_ns"] > 0 and
                  overlap(s["expected_ns"], s["expected_ns"] + s["latency_ns"], sp) * 2 >= s["latency_ns"]]
        if c == "idle":
            # the plant lets the CPU idle; the spikes it caused woke from idle
            caused = [s for s in caused if s.get("idle_state") is not None]
        if c.startswith("non-preemptible:"):
            # it holds the CPU against a probe already woken
            caused = [s for s in caused if s.get("woken_ns") and s.get("switched_in_ns") and
                      (s["switched_in_ns"] - max(s["woken_ns"], s["expected_ns"])) * 2 >= s["latency_ns"]]
        if c == "-":
            others = [w for kk, w in want.items() if w != "-"]
            bad = [s for s in caused if any(matches(s.get("cause"), w) for w in others)]
            out[k] = {"spans": len(sp), "spikes": len(caused), "wrongly_named": len(bad)}
            continue
        named = [s for s in caused if matches(s.get("cause"), c)]
        blamed = [s for s in spikes if matches(s.get("cause"), c)]
        right = [s for s in blamed if overlap(s["expected_ns"], s["expected_ns"] + s["latency_ns"], padded) > 0]
        out[k] = {"cause": c, "spans": len(sp), "caused": len(caused), "named": len(named),
                  "recall": len(named) / len(caused) if caused else None,
                  "attributed": len(blamed), "correct": len(right),
                  "precision": len(right) / len(blamed) if blamed else None}
        if misses:
            out[k]["missed"] = [s for s in caused if not matches(s.get("cause"), c)][:misses]
    if as_json:
        json.dump(out, sys.stdout)
        print()
        return
    for k, r in out.items():
        if "recall" not in r:
            print("%-10s control: %d spikes in %d spans, %d named after a planted cause"
                  % (k, r["spikes"], r["spans"], r["wrongly_named"]))
            continue
        pct = lambda x: "-" if x is None else "%.1f%%" % (100 * x)
        print("%-10s %-28s recall %6s (%d of %d caused)  precision %6s (%d of %d attributed)"
              % (k, r["cause"], pct(r["recall"]), r["named"], r["caused"], pct(r["precision"]),
                 r["correct"], r["attributed"]))
        for s in r.get("missed", []):
            print("  missed: expected %d latency %.1f us cause %s idle_state %s" %
                  (s["expected_ns"], s["latency_ns"] / 1e3, s.get("cause"), s.get("idle_state")))
            print("    components: " + ", ".join("%s %.1f us" % (c["cause"], c["ns"] / 1e3)
                                                 for c in s.get("components", [])))
            t0 = s["expected_ns"]
            print("    timeline: " + ", ".join("%+.1f..%+.1f %s:%s" % ((g["start_ns"] - t0) / 1e3,
                                              (g["end_ns"] - t0) / 1e3, g["kind"], g["name"])
                                              for g in s.get("timeline", [])))


if __name__ == "__main__":
    main(sys.argv[1:])
