#!/usr/bin/env bash
# latwatt compare and latwatt db against the real binary: two short real runs
# (one holding PM QoS at 0), the comparison JSON schema, exit status 0/1/2 for
# rules that pass, fail and are malformed, the results store from two
# processes at once, and comparing after the run directory is gone.
. "$(dirname "$0")/lib.sh"
need_root
mk_tmp

"$LATWATT" run -d 2s -o "$TMP/a" -q >"$TMP/out" 2>&1 || fail "run-a" "$(cat "$TMP/out")"
"$LATWATT" run -d 2s --pm-qos 0 -o "$TMP/b" -q >"$TMP/out" 2>&1 || fail "run-b" "$(cat "$TMP/out")"
[ -s "$TMP/a/samples" ] && [ -s "$TMP/b/samples" ] && pass "two-real-runs" || fail "two-real-runs"

# -- a rule that passes: exit 0, JSON written and well-formed
"$LATWATT" compare "$TMP/a" "$TMP/b" --block 50ms -o "$TMP/c.json" \
	--fail-on 'p99>+100000%' --fail-on 'xruns>0' >"$TMP/table" 2>&1; rc=$?
[ "$rc" -eq 0 ] && pass "rule-passes-exit-0" || fail "rule-passes-exit-0" "exit $rc: $(cat "$TMP/table")"
grep -q "^B vs A: probe cyclic" "$TMP/table" && grep -q "^  p99 " "$TMP/table" &&
	grep -q "^  per CPU: cyclic " "$TMP/table" &&
	grep -q "^  distribution " "$TMP/table" && pass "table-printed" || fail "table-printed" "$(head -20 "$TMP/table")"
"$PYTHON" - "$TMP/c.json" "$TMP/a" "$TMP/b" <<'PY' && pass "comparison-json-schema" || fail "comparison-json-schema"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "latwatt-comparison" and d["version"] == 2, d["schema"]
assert d["tool"]["name"] == "latwatt"
s = d["settings"]
for k in ("alpha", "practical", "confidence", "inference", "power", "resamples", "seed", "thresholds_ns", "evt"):
    assert k in s, k
assert s["evt"]["block_ns"] == 50000000 and s["evt"]["model"] == "gev"
assert d["baseline"] == 0 and len(d["runs"]) == 2 and len(d["comparisons"]) == 1
for i, r in enumerate(d["runs"]):
    assert r["index"] == i and r["label"] == sys.argv[2 + i] and r["source"] == "directory"
    for k in ("kernel_release", "preempt_model", "rt", "nohz_full", "status", "duration_ns",
              "probes", "workloads", "power", "idle", "causes", "pm_qos"):
        assert k in r, k
    c = r["probes"]["cyclic"]
    assert c["exact"] is True and c["count"] > 1000
    for p in ("p50", "p90", "p99", "p99.9", "p99.99"):
        v = c["percentiles"][p]
        assert v["value_ns"] > 0
        lo, hi = v["ci_ns"]
        assert lo <= hi
    assert [o["threshold_ns"] for o in c["over"]] == [50000, 100000]
    assert c["block_maxima"]["blocks"] >= 30
    wc = c["worst_case"]
    assert wc["estimated"] in (True, False)
    if wc["estimated"]:
        assert wc["return_level_ns"] >= c["max_ns"] * 0.5 and wc["horizon_ns"] == 3600 * 10**9
    else:
        assert wc["reason"]
assert d["runs"][1]["pm_qos"]["mode"] == "held"
assert d["runs"][0]["workloads"] is None
for r in d["runs"]:	# power and idle residency where the run recorded them
    assert r["power"] is None or r["power"]["mean_w"] > 0
    assert r["idle"] is None or 0 <= r["idle"]["active"] <= 1
names = [m["name"] for m in d["comparisons"][0]["metrics"]]
for n in ("cyclic.p50", "cyclic.p99", "cyclic.p99.99", "cyclic.mean", "cyclic.max", "cyclic.blockmax",
          "cyclic.worst", "cyclic.distribution", "cyclic.over:50us", "cyclic.over:100us",
          "cyclic.missed", "cyclic.dropped", "xruns", "dropped_frames", "power"):
    assert n in names, n
for m in d["comparisons"][0]["metrics"]:
    assert m["verdict"] in ("better", "worse", "no significant difference", "n/a"), m
    for k in ("kind", "unit", "baseline", "value", "change", "rel", "test", "p"):
        assert k in m, (m["name"], k)
    assert "judged_on" in m, m["name"]
    if m["verdict"] in ("better", "worse"):
        j = m["judged_on"]
        assert m["p_adjusted"] < s["alpha"], m
        assert j["stat"] in ("rel", "rate_rel", "cliffs_delta", "change"), m
        assert j["value"] is not None and abs(j["value"]) > j["practical"], m
        assert (j["value"] > 0) == (m["verdict"] == "worse"), m
        if j["stat"] in ("rel", "rate_rel"):
            assert j["practical"] == s["practical"] and j["value"] == m[j["stat"]], m
    elif m["verdict"] == "n/a":
        assert m["judged_on"] is None, m
    if m["name"] == "cyclic.distribution":
        assert -1 <= m["cliffs_delta"] <= 1 and 0 <= m["prob_superiority"] <= 1
    # one run a side: figures, never a verdict
    assert m["verdict"] in ("n/a", "no significant difference"), m
c0 = d["comparisons"][0]
assert c0["verdicts"] is False and c0["repeats_needed"] >= 3 and c0["runs"] == [1, 1], c0
assert len(d["groups"]) == 2 and d["groups"][1]["runs"] == [1]
assert [r["result"] for r in d["rules"]] == ["pass", "undecided"], d["rules"]
assert d["rules"][0]["name"] == "p99>+100000%" and d["rules"][0]["unit"] == "%" and d["rules"][0]["limit"] == 100000
assert "probes" not in d		# the old per-run report view, with its group's verdicts, is gone
assert d["result"] == "pass"
# per CPU: each CPU the probe measured, compactly (the worst CPU of each figure)
import os
pc = d["comparisons"][0]["per_cpu"]
assert [e["probe"] for e in pc] == ["cyclic"], pc
ncpu = len(os.sched_getaffinity(0))
percpu = [m for m in d["comparisons"][0]["metrics"] if "cpu" in m]
if ncpu > 1:
    assert pc[0]["cpus"] == sorted(os.sched_getaffinity(0)) and "note" not in pc[0], pc
    assert pc[0]["tested"] == 0 and pc[0]["shown"] == len(percpu) == 4, (pc, percpu)  # one run a side
    for m in percpu:
        assert m["cpu"] in pc[0]["cpus"] and m["name"].startswith("cyclic.cpu%d." % m["cpu"]), m
        assert m["probe"] == "cyclic" and m["verdict"] == "n/a", m
    assert sorted(m["name"].split(".", 2)[2] for m in percpu) == ["blockmax", "over:100us", "over:50us", "p99"]
    assert [m["block_ns"] for m in percpu if m["kind"] == "block-maxima"] == [100000000]
else:
    assert pc[0]["cpus"] == [] and "one CPU" in pc[0]["note"] and not percpu, pc
# counts as counts: each group's total and its runs' own
m = [m for m in d["comparisons"][0]["metrics"] if m["name"] == "cyclic.over:50us"][0]
assert m["per_run"] == [[r["probes"]["cyclic"]["over"][0]["count"]] for r in d["runs"]], m
assert m["baseline_total"] == m["per_run"][0][0] and m["total"] == m["per_run"][1][0], m
PY

# -- one run a side: any:worse cannot be judged. Without --fail-on compare is a
# report (exit 0, the rule printed undecided); asked for as a gate, it exits 2
# naming what is missing, never 0 as if it had passed
"$LATWATT" compare "$TMP/a" "$TMP/b" --block 50ms >"$TMP/one" 2>&1; rc=$?
[ "$rc" -eq 0 ] && grep -q "^  undecided any:worse .*no verdict with 1 run against 1: verdicts need at least 2 runs a side" "$TMP/one" &&
	grep -q "^result: undecided" "$TMP/one" && ! grep -q "^  pass " "$TMP/one" &&
	pass "one-a-side-report-undecided" || fail "one-a-side-report-undecided" "exit $rc: $(tail -5 "$TMP/one")"
"$LATWATT" compare "$TMP/a" "$TMP/b" --block 50ms --fail-on any:worse -o "$TMP/gate.json" >"$TMP/out" 2>"$TMP/err"; rc=$?
[ "$rc" -eq 2 ] && grep -q "^latwatt: error: --fail-on: no rule could be judged.*at least 2 runs a side" "$TMP/err" &&
	[ "$(json "$TMP/gate.json" '["result"]')" = undecided ] &&
	[ "$(json "$TMP/gate.json" '["rules"][0]["result"]')" = undecided ] &&
	pass "one-a-side-gate-exit-2" || fail "one-a-side-gate-exit-2" "exit $rc: $(cat "$TMP/err")"

# -- a run with itself, and two groups of the same runs: never better or worse
"$LATWATT" compare "$TMP/a" "$TMP/a" --block 50ms --json >"$TMP/self.json" 2>"$TMP/err"; rc=$?
"$LATWATT" compare --group one "$TMP/a" "$TMP/b" --group two "$TMP/a" "$TMP/b" --block 50ms \
	--json >"$TMP/same.json" 2>>"$TMP/err"; rc2=$?
[ "$rc" -eq 0 ] && [ "$rc2" -eq 0 ] && "$PYTHON" - "$TMP/self.json" "$TMP/same.json" <<'PY' &&
import json, sys
for f in sys.argv[1:]:
    d = json.load(open(f))
    for c in d["comparisons"]:
        for m in c["metrics"]:
            assert m["verdict"] not in ("better", "worse"), (f, m)
same = json.load(open(sys.argv[2]))
c = same["comparisons"][0]
assert c["verdicts"] is True and c["runs"] == [2, 2], c
assert [g["name"] for g in same["groups"]] == ["one", "two"]
assert any(m["verdict"] == "no significant difference" and m["min_detectable"] for m in c["metrics"])
PY
	pass "same-runs-no-verdict" || fail "same-runs-no-verdict" "exit $rc/$rc2: $(cat "$TMP/err")"

# -- groups in the table: a count is the group's total with each run's beneath
# (not the mean per run printed as a count), and p is the Holm-adjusted one
"$LATWATT" compare --group one "$TMP/a" "$TMP/b" --group two "$TMP/b" "$TMP/a" "$TMP/b" --block 50ms \
	-o "$TMP/g3.json" >"$TMP/g3.txt" 2>"$TMP/err"
"$PYTHON" - "$TMP/g3.json" "$TMP/g3.txt" <<'PY' && pass "groups-table-counts-and-p" || fail "groups-table-counts-and-p" "$(head -30 "$TMP/g3.txt")"
import json, sys
d = json.load(open(sys.argv[1]))
lines = open(sys.argv[2]).read().split("\n")
ms = {m["name"]: m for m in d["comparisons"][0]["metrics"]}
assert "p (Holm)" in [l for l in lines if l.startswith("  metric ")][0]
for name in ("over:50us", "over:100us", "missed"):
    m = ms["cyclic." + name]
    i = [k for k, l in enumerate(lines) if l.startswith("  %-15s " % name)][0]
    f = lines[i].split()
    assert int(f[1]) == sum(m["per_run"][0]) == m["baseline_total"], (lines[i], m)
    assert int(f[3]) == sum(m["per_run"][1]) == m["total"], (lines[i], m)
    per = lines[i + 1].split()
    assert per[:2] == ["per", "run"] and [int(x) for x in per[2:]] == m["per_run"][0] + m["per_run"][1], lines[i + 1]
m = ms["cyclic.p50"]
line = [l for l in lines if l.startswith("  p50 ")][0]
want = "<0.001" if m["p_adjusted"] < 0.001 else "%.3f" % m["p_adjusted"]
assert (" %s " % want) in line, (line, m["p_adjusted"], m["p"])
PY

# -- where Debian's scipy is installed, it agrees: U, p, percentiles
if /usr/bin/python3 -c 'import scipy.stats, numpy' 2>/dev/null; then
	/usr/bin/python3 - "$TMP/c.json" "$TMP/a" "$TMP/b" <<'PY' && pass "agrees-with-scipy" || fail "agrees-with-scipy"
import json, sys, numpy as np
from scipy.stats import mannwhitneyu
REC = np.dtype([("e", "<u8"), ("lat", "<u8"), ("m", "<u4"), ("c", "<u2"), ("p", "u1"), ("f", "u1")])
d = json.load(open(sys.argv[1]))
a, b = (np.fromfile(r + "/samples", dtype=REC, offset=64)["lat"].astype(np.int64) for r in sys.argv[2:4])
u = mannwhitneyu(b, a, method="asymptotic")
m = [x for x in d["comparisons"][0]["metrics"] if x["name"] == "cyclic.distribution"][0]
assert m["u_b"] == u.statistic, (m["u_b"], u.statistic)
assert abs(m["mwu_p"] - u.pvalue) <= 1e-9 + 1e-6 * u.pvalue, (m["mwu_p"], u.pvalue)
for v, run in zip((a, b), d["runs"]):
    s = np.sort(v)
    for q, k in ((50, "p50"), (99, "p99")):
        assert run["probes"]["cyclic"]["percentiles"][k]["value_ns"] == s[-(-q * s.size // 100) - 1]
PY
else
	skip "agrees-with-scipy" "python3-scipy is not installed (optional)"
fi

# -- the HTML/Markdown report reads the comparison JSON
"$LATWATT" report --compare "$TMP/c.json" -o "$TMP/c.html" --markdown - >"$TMP/md" 2>&1; rc=$?
[ "$rc" -eq 0 ] && grep -q "p99>+100000%" "$TMP/md" && [ -s "$TMP/c.html" ] &&
	pass "report-reads-comparison" || fail "report-reads-comparison" "exit $rc: $(head -5 "$TMP/md")"

# -- a rule that fails: exit 1
"$LATWATT" compare "$TMP/a" "$TMP/b" --block 50ms --fail-on 'p50>0' --json >"$TMP/fail.json" 2>"$TMP/err"; rc=$?
[ "$rc" -eq 1 ] && [ "$(json "$TMP/fail.json" '["result"]')" = regression ] &&
	pass "rule-fails-exit-1" || fail "rule-fails-exit-1" "exit $rc: $(cat "$TMP/err")"

# -- a malformed rule: exit 2, one line naming the rule and the position
"$LATWATT" compare "$TMP/a" "$TMP/b" --fail-on 'p99>+10x' >"$TMP/out" 2>&1; rc=$?
[ "$rc" -eq 2 ] && grep -q "^latwatt: error: --fail-on 'p99>+10x': at 8: unknown unit 'x'" "$TMP/out" &&
	[ "$(wc -l <"$TMP/out")" -eq 1 ] && pass "malformed-rule-exit-2" || fail "malformed-rule-exit-2" "exit $rc: $(cat "$TMP/out")"

# -- the same seed gives the same document; another seed other intervals
"$LATWATT" compare "$TMP/a" "$TMP/b" --block 50ms --json >"$TMP/s1.json" 2>/dev/null
"$LATWATT" compare "$TMP/a" "$TMP/b" --block 50ms --json >"$TMP/s2.json" 2>/dev/null
cmp -s "$TMP/s1.json" "$TMP/s2.json" && pass "seeded-reproducible" || fail "seeded-reproducible"

# -- the results store: two processes adding at once both land
db=$TMP/store/results.db
"$LATWATT" db --db "$db" add "$TMP/a" >"$TMP/add1" 2>&1 & p1=$!
"$LATWATT" db --db "$db" add "$TMP/b" --label "pm-qos 0" >"$TMP/add2" 2>&1 & p2=$!
wait $p1; r1=$?; wait $p2; r2=$?
[ "$r1" -eq 0 ] && [ "$r2" -eq 0 ] && pass "db-concurrent-add" || fail "db-concurrent-add" "$(cat "$TMP/add1" "$TMP/add2")"
n=$("$LATWATT" db --db "$db" list --json | "$PYTHON" -c 'import json,sys; print(len(json.load(sys.stdin)))')
[ "$n" = 2 ] && pass "db-both-runs-landed" || fail "db-both-runs-landed" "$n runs"
"$LATWATT" db --db "$db" add "$TMP/a" 2>&1 | grep -q "already stored as db:" && pass "db-add-twice-once" ||
	fail "db-add-twice-once"
ida=$(sed -n 's/.*stored as db:\([0-9]*\)/\1/p' "$TMP/add1")
idb=$(sed -n 's/.*stored as db:\([0-9]*\)/\1/p' "$TMP/add2")
"$LATWATT" db --db "$db" baseline set release "db:$ida" >/dev/null 2>&1 &&
	[ "$("$LATWATT" db --db "$db" baseline get release 2>/dev/null)" = "db:$ida" ] &&
	pass "db-baseline-set-get" || fail "db-baseline-set-get"
"$LATWATT" db --db "$db" list >"$TMP/list" 2>&1 && grep -q "pm-qos 0" "$TMP/list" &&
	grep -q "\[baseline release\]" "$TMP/list" && pass "db-list" || fail "db-list" "$(cat "$TMP/list")"

# -- compare against the stored baseline after the directory is gone: same numbers
mv "$TMP/a" "$TMP/a.gone"
"$LATWATT" compare --db "$db" --against-baseline release "$TMP/b" --block 50ms --json \
	>"$TMP/st.json" 2>"$TMP/err"; rc=$?
[ "$rc" -le 1 ] && pass "compare-against-baseline" || fail "compare-against-baseline" "exit $rc: $(cat "$TMP/err")"
"$PYTHON" - "$TMP/s1.json" "$TMP/st.json" <<'PY' && pass "store-equals-directory" || fail "store-equals-directory"
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert b["runs"][0]["source"] == "db" and b["runs"][0]["label"] == "baseline:release"
# over all CPUs the same; per CPU the store has none (and says why)
assert [m for m in a["comparisons"][0]["metrics"] if "cpu" not in m] == b["comparisons"][0]["metrics"]
assert "results store" in b["comparisons"][0]["per_cpu"][0]["note"], b["comparisons"][0]["per_cpu"]
PY
"$LATWATT" compare --db "$db" "db:$ida" "db:$idb" --block 50ms -q --fail-on 'p99>+100000%' &&
	pass "compare-db-refs" || fail "compare-db-refs"
"$LATWATT" db --db "$db" rm "$ida" >"$TMP/out" 2>&1; rc=$?
[ "$rc" -eq 2 ] && grep -q "is baseline 'release'" "$TMP/out" && pass "db-rm-baseline-refused" ||
	fail "db-rm-baseline-refused" "exit $rc: $(cat "$TMP/out")"
mv "$TMP/a.gone" "$TMP/a"

# -- a stored baseline is a set of runs that grows; compared as one group
"$LATWATT" db --db "$db" baseline add grow "$TMP/a" >/dev/null 2>&1 &&
	"$LATWATT" db --db "$db" baseline add grow "$TMP/b" >"$TMP/out" 2>&1 &&
	grep -q "baseline grow: 2 runs" "$TMP/out" && pass "db-baseline-set-grows" ||
	fail "db-baseline-set-grows" "$(cat "$TMP/out")"
"$LATWATT" compare --db "$db" --against-baseline grow "$TMP/a" --block 50ms --json >"$TMP/g.json" \
	2>"$TMP/err"; rc=$?
[ "$rc" -eq 0 ] && "$PYTHON" - "$TMP/g.json" <<'PY' && pass "compare-baseline-set" || fail "compare-baseline-set" "exit $rc: $(cat "$TMP/err")"
import json, sys
d = json.load(open(sys.argv[1]))
g = d["groups"]
assert g[0]["name"] == "baseline:grow" and g[0]["count"] == 2 and g[1]["count"] == 1, g
assert d["comparisons"][0]["runs"] == [2, 1] and d["comparisons"][0]["verdicts"] is False
PY
"$LATWATT" db --db "$db" list >"$TMP/list" 2>&1 && grep -q "grow" "$TMP/list" &&
	pass "db-list-baseline-set" || fail "db-list-baseline-set" "$(cat "$TMP/list")"

# -- an imported cyclictest run (histogram only) compares, without a worst case
"$LATWATT" import cyclictest "$TOP/tests/data/cyclictest/rt-tests-2.40.json" -o "$TMP/imp" >/dev/null 2>&1
# (its p99 lies in the histogram's overflow: unknown, so the rule is on p90)
"$LATWATT" compare "$TMP/imp" "$TMP/a" --fail-on 'p90>+100000%' --json >"$TMP/imp.json" 2>"$TMP/err"; rc=$?
"$LATWATT" compare "$TMP/imp" "$TMP/a" >"$TMP/imp.txt" 2>&1
grep -q "^  missed          unknown  " "$TMP/imp.txt" && pass "compare-imported-missed-unknown" ||
	fail "compare-imported-missed-unknown" "$(grep missed "$TMP/imp.txt")"
[ "$rc" -eq 0 ] && "$PYTHON" - "$TMP/imp.json" <<'PY' && pass "compare-imported-histogram" || fail "compare-imported-histogram" "exit $rc: $(cat "$TMP/err")"
import json, sys
d = json.load(open(sys.argv[1]))
c = d["runs"][0]["probes"]["cyclic"]
assert c["exact"] is False and c["resolution_ns"] == 1000
assert c["worst_case"]["estimated"] is False and "histogram" in c["worst_case"]["reason"]
# cyclictest counts no missed periods: unknown, not 0
assert c["missed_periods"] is None and d["runs"][1]["probes"]["cyclic"]["missed_periods"] is not None
m = [m for m in d["comparisons"][0]["metrics"] if m["name"] == "cyclic.missed"][0]
assert m["baseline"] is None and m["baseline_total"] is None and m["verdict"] == "n/a", m
assert m["note"].startswith("unknown"), m
p99 = [m for m in d["comparisons"][0]["metrics"] if m["name"] == "cyclic.p99"][0]
assert p99["value"] is None and "overflow" in p99["note"], p99
# no samples that carry the CPU: nothing per CPU, and it says why
pc = d["comparisons"][0]["per_cpu"][0]
assert pc["cpus"] == [] and "histogram" in pc["note"], pc
assert not [m for m in d["comparisons"][0]["metrics"] if "cpu" in m]
PY
grep -q "^  per CPU: cyclic not judged: no samples to tell the CPUs apart" "$TMP/imp.txt" &&
	pass "compare-imported-no-per-cpu" || fail "compare-imported-no-per-cpu" "$(grep "per CPU" "$TMP/imp.txt")"

# -- bad input: one line, exit 2
expect_error() {	# NAME PATTERN CMD...
	local name=$1 pat=$2; shift 2
	"$@" >"$TMP/out" 2>&1; local rc=$?
	if [ "$rc" -eq 2 ] && grep -q -- "$pat" "$TMP/out" && [ "$(wc -l <"$TMP/out")" -le 2 ]; then
		pass "$name"
	else
		fail "$name" "exit $rc: $(cat "$TMP/out")"
	fi
}
expect_error one-run "one run: nothing to compare" "$LATWATT" compare "$TMP/a"
expect_error no-such-run "cannot open run directory" "$LATWATT" compare "$TMP/a" "$TMP/nope"
expect_error no-such-db-run "no run db:99" "$LATWATT" compare --db "$db" "$TMP/a" db:99
expect_error no-such-baseline "no baseline 'nope'" "$LATWATT" compare --db "$db" --against-baseline nope "$TMP/a"
expect_error bad-block "not a multiple of 10ms" "$LATWATT" compare --block 15ms "$TMP/a" "$TMP/b"
expect_error bad-evt "unknown model 'frechet'" "$LATWATT" compare --evt frechet "$TMP/a" "$TMP/b"
expect_error bad-alpha "--alpha" "$LATWATT" compare --alpha 2 "$TMP/a" "$TMP/b"
printf 'not a database at all, just text that is long enough\n' >"$TMP/junk.db"
expect_error junk-db "junk.db" "$LATWATT" db --db "$TMP/junk.db" list
expect_error db-bad-command "unknown command 'frob'" "$LATWATT" db --db "$db" frob
expect_error db-add-not-a-run "not a run directory" "$LATWATT" db --db "$db" add "$TMP"

for c in compare db; do
	"$LATWATT" "$c" --help | grep -q "^usage: latwatt $c" && pass "help-$c" || fail "help-$c"
done
finish
