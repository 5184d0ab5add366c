#!/usr/bin/env bash
# latwatt report against the fixture runs in tests/data/reports (real short
# runs, committed): HTML well-formed with one plot per expected figure and
# the numbers of analysis.json, JUnit valid against tests/data/junit-10.xsd
# with failures matching the budgets broken, LAVA lines, Markdown, tables
# without gnuplot, bad input; rendered in headless Chromium, screenshots
# kept under tests/artifacts/.
. "$(dirname "$0")/lib.sh"
mk_tmp
# everything below writes under $TMP and $TOP: refuse to run without them
[ -n "${TMP:-}" ] && [ -d "$TMP" ] && [ -d "$TOP/tests/data/reports" ] ||
	{ echo "FAIL: reports: no temporary directory or no tests/data/reports"; exit 1; }
D=$TOP/tests/data/reports
A=$D/run-a
B=$D/run-b
ART=$TOP/tests/artifacts
have() { command -v "$1" >/dev/null 2>&1; }

# -- a run report with budgets, one met and one broken
"$LATWATT" report "$A" -o "$TMP/a.html" --junit "$TMP/a.xml" --markdown "$TMP/a.md" \
	--budget 'p99<100us' --budget 'max<=1s' --budget 'cyclic.dropped<1' --budget 'xruns<1' \
	>"$TMP/out" 2>&1; rc=$?
[ "$rc" -eq 1 ] && pass "run-report-exit-1-on-broken-budget" ||
	fail "run-report-exit-1-on-broken-budget" "exit $rc: $(cat "$TMP/out")"
# run-a was made with --threshold 100us and has samples above it: that check
# breaks whatever --budget says; analyzed with a threshold it meets, every
# check holds
cp -r "$A" "$TMP/met"
"$LATWATT" analyze "$TMP/met" --threshold 10s >/dev/null 2>&1
"$LATWATT" report "$TMP/met" -o "$TMP/ok.html" --budget 'max<=1s' >"$TMP/out" 2>&1 &&
	pass "run-report-exit-0-when-met" || fail "run-report-exit-0-when-met" "$(cat "$TMP/out")"
"$LATWATT" report "$A" -o "$TMP/thr.html" --budget 'max<=1s' >"$TMP/out" 2>&1; rc=$?
[ "$rc" -eq 1 ] && pass "run-report-exit-1-over-the-run-threshold" ||
	fail "run-report-exit-1-over-the-run-threshold" "exit $rc: $(cat "$TMP/out")"

if have xmllint; then
	xmllint --noout "$TMP/a.html" 2>"$TMP/xl" && pass "html-well-formed-xml" ||
		fail "html-well-formed-xml" "$(head -5 "$TMP/xl")"
	xmllint --noout --schema "$TOP/tests/data/junit-10.xsd" "$TMP/a.xml" 2>"$TMP/xl" &&
		pass "junit-valid-against-xsd" || fail "junit-valid-against-xsd" "$(cat "$TMP/xl")"
	# the schema is not a rubber stamp: a testcase without a name fails it
	sed 's/<testcase name="[^"]*"/<testcase/' "$TMP/a.xml" >"$TMP/bad.xml"
	xmllint --noout --schema "$TOP/tests/data/junit-10.xsd" "$TMP/bad.xml" 2>/dev/null &&
		fail "junit-xsd-rejects-bad" "a testcase without a name validated" ||
		pass "junit-xsd-rejects-bad"
else
	skip "xmllint" "xmllint is not installed (libxml2-utils)"
fi

# plots, sections and numbers, read with a real XML parser
python3 - "$TMP/a.html" "$A/analysis.json" <<'PY' && pass "html-plots-sections-numbers" || fail "html-plots-sections-numbers"
import json, sys, xml.etree.ElementTree as ET
NS = {"h": "http://www.w3.org/1999/xhtml", "s": "http://www.w3.org/2000/svg"}
doc = ET.parse(sys.argv[1]).getroot()
an = json.load(open(sys.argv[2]))
plots = sorted(s.get("data-plot") for s in doc.iter("{http://www.w3.org/2000/svg}svg") if s.get("class") == "plot")
assert plots == ["cdf-cyclic", "hist-cyclic", "time-cyclic"], plots
for s in doc.iter("{http://www.w3.org/2000/svg}svg"):
    if s.get("class") == "plot":
        assert len(list(s.iter("{http://www.w3.org/2000/svg}path"))) > 5, "empty plot"
ids = [e.get("id") for e in doc.iter() if e.get("id")]
assert len(ids) == len(set(ids)), "duplicate ids"
state = {s.get("data-section"): s.get("data-state") for s in doc.iter("{%s}section" % NS["h"])}
assert state["latency"] == "recorded", state
for sec in ("spikes", "idle", "power", "tradeoff", "workloads"):
    assert state[sec] == "not-recorded", (sec, state)
    text = "".join(doc.find(".//h:section[@id='%s']" % sec, NS).itertext())
    assert "not recorded in this run" in text, sec
# every statistic cell equals analysis.json
cells = 0
for td in doc.iter("{%s}td" % NS["h"]):
    if td.get("data-probe") and td.get("data-value") is not None:
        p = an["probes"][td.get("data-probe")]
        row = p["all"] if td.get("data-cpu") == "all" else [c for c in p["cpus"] if str(c["cpu"]) == td.get("data-cpu")][0]
        assert float(td.get("data-value")) == float(row[td.get("data-key")]), (td.attrib, row[td.get("data-key")])
        cells += 1
ncpu = len(an["probes"]["cyclic"]["cpus"]) + 1
assert cells == ncpu * 12, cells   # count, 8 statistics, over, missed, dropped
# header
text = "".join(doc.itertext())
m = json.load(open(sys.argv[2].replace("analysis.json", "manifest.json")))
for want in (m["system"]["kernel"]["release"], m["system"]["kernel"]["version"],
             m["system"]["preempt"]["model"], m["system"]["cmdline"][:40]):
    assert want in text, want
v = doc.find(".//*[@id='verdict']")
assert v.get("data-verdict") == "fail", v.attrib
PY

# JUnit failures are exactly the budgets broken, with measured value and limit
python3 - "$TMP/a.xml" "$A/analysis.json" <<'PY' && pass "junit-failures-match-budgets" || fail "junit-failures-match-budgets"
import json, sys, xml.etree.ElementTree as ET
x = ET.parse(sys.argv[1]).getroot()
a = json.load(open(sys.argv[2]))["probes"]["cyclic"]["all"]
want = {"budget.cyclic.p99": a["p99_ns"] / 1e3 >= 100, "budget.cyclic.max": a["max_ns"] / 1e3 > 1e6,
        "budget.cyclic.dropped": a["dropped"] >= 1}
cases = {c.get("name"): c for c in x.iter("testcase")}
# the verdict and the run's threshold (100 us, broken) come first
assert set(cases) == set(want) | {"budget.xruns", "verdict", "threshold.cyclic"}, cases.keys()
assert cases["verdict"].find("failure") is not None
assert cases["threshold.cyclic"].find("failure") is not None
for name, broken in want.items():
    f = cases[name].find("failure")
    assert (f is not None) == broken, name
    if f is not None:
        assert "measured=%.10g us" % (a["p99_ns"] / 1e3) in f.text, f.text
        assert "limit=100 us" in f.text, f.text
assert cases["budget.xruns"].find("skipped") is not None
assert x.get("failures") == str(sum(want.values()) + 2) and x.get("tests") == "6"
PY

lines=$(wc -l <"$TMP/a.md")
if [ "$lines" -le 30 ] && grep -q '^### latwatt: .* — \*\*FAIL\*\*' "$TMP/a.md" &&
   grep -q '| `budget.cyclic.p99` | \*\*FAIL\*\* |' "$TMP/a.md"; then
	pass "markdown-short-with-verdict"
else
	fail "markdown-short-with-verdict" "$lines lines: $(cat "$TMP/a.md")"
fi

# -- the board's budgets (boards/qemu-x86_64.yaml: p99 and max latency, no deadline misses)
"$LATWATT" report "$A" --board qemu-x86_64 --budget 'p99<100us' --junit "$TMP/b.xml" >"$TMP/out" 2>&1; rc=$?
python3 - "$TMP/b.xml" "$A/analysis.json" "$TOP/boards/qemu-x86_64.yaml" <<'PY' && [ "$rc" -eq 1 ] && pass "board-budgets" || fail "board-budgets" "exit $rc: $(cat "$TMP/out")"
import json, sys, yaml, xml.etree.ElementTree as ET
x = ET.parse(sys.argv[1]).getroot()
a = json.load(open(sys.argv[2]))["probes"]["cyclic"]["all"]
b = yaml.safe_load(open(sys.argv[3]))["budgets"]
res = {c.get("name"): ("fail" if c.find("failure") is not None else "skip" if c.find("skipped") is not None else "pass")
       for c in x.iter("testcase")}
want = {"budget.cyclic.%s" % k: ("pass" if a[k + "_ns"] / 1e3 <= v else "fail") for k, v in b["latency_us"].items()}
want["budget.deadline_misses"] = "skip"       # no workloads in this run
want["budget.cyclic.p99-2"] = "fail" if a["p99_ns"] >= 100000 else "pass"
want["threshold.cyclic"] = "fail"             # the run's --threshold 100us
want["verdict"] = "fail"
assert res == want, (res, want)
PY
"$LATWATT" report "$A" --board no-such-board --lava >"$TMP/out" 2>&1; rc=$?
[ "$rc" -eq 2 ] && grep -q "board 'no-such-board' not found" "$TMP/out" && pass "unknown-board" ||
	fail "unknown-board" "exit $rc: $(cat "$TMP/out")"

# -- LAVA: lines on stdout, or the helper when it is on PATH
"$LATWATT" report "$A" --lava --budget 'p99<100us' --budget 'xruns<1' >"$TMP/lava" 2>&1
if grep -Eq '^lava-test-case budget\.cyclic\.p99 --result fail --measurement [0-9.]+ --units us$' "$TMP/lava" &&
   grep -q '^lava-test-case budget.xruns --result skip$' "$TMP/lava" &&
   grep -q '^lava-test-case verdict --result fail ' "$TMP/lava" &&
   grep -q '^lava-test-case threshold.cyclic --result fail ' "$TMP/lava" && [ "$(wc -l <"$TMP/lava")" -eq 4 ]; then
	pass "lava-lines"
else
	fail "lava-lines" "$(cat "$TMP/lava")"
fi
mkdir "$TMP/bin"
printf '#!/bin/sh\necho "$*" >>"%s/helper.log"\n' "$TMP" >"$TMP/bin/lava-test-case"
chmod +x "$TMP/bin/lava-test-case"
PATH="$TMP/bin:$PATH" "$LATWATT" report "$A" --lava --budget 'max<=1s' >"$TMP/lava" 2>&1
if [ ! -s "$TMP/lava" ] && grep -Eq '^budget\.cyclic\.max --result pass --measurement [0-9.]+ --units us$' "$TMP/helper.log"; then
	pass "lava-helper-called"
else
	fail "lava-helper-called" "stdout: $(cat "$TMP/lava"); helper: $(cat "$TMP/helper.log" 2>&1)"
fi
if have python3 && python3 -c 'import yaml' 2>/dev/null; then
	python3 - "$TOP/boards/lava/latwatt.yaml" <<'PY' && pass "lava-test-definition" || fail "lava-test-definition"
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
assert d["metadata"]["format"] == "Lava-Test Test Definition 1.0"
for k in ("name", "description"):
    assert d["metadata"][k]
assert isinstance(d["params"], dict)
steps = d["run"]["steps"]
assert all(isinstance(s, str) for s in steps)
text = "\n".join(steps)
# the steps call the wrapper, which runs latwatt and reports (its output is
# tested by tests/integration/lava-wrapper.sh)
assert "boards/lava/latwatt-lava.sh" in text
import os
text += open(os.path.join(os.path.dirname(sys.argv[1]), "latwatt-lava.sh")).read()
for want in ("run -d", "report", "--lava"):
    assert want in text, want
PY
else
	skip "lava-test-definition" "python3-yaml is not installed"
fi

# -- without gnuplot: tables, a note, no plots, same exit status
PATH=/nonexistent "$LATWATT" report "$A" -o "$TMP/np.html" --budget 'p99<100us' >"$TMP/out" 2>&1; rc=$?
if [ "$rc" -eq 1 ] && grep -q "gnuplot is not on PATH" "$TMP/out" && python3 - "$TMP/np.html" <<'PY'
import sys, xml.etree.ElementTree as ET
doc = ET.parse(sys.argv[1]).getroot()
assert not list(doc.iter("{http://www.w3.org/2000/svg}svg"))
assert doc.find(".//*[@id='noplots']") is not None
notes = [e.get("data-plot") for e in doc.iter() if e.get("class") == "noplot" and e.get("data-plot")]
assert sorted(notes) == ["cdf-cyclic", "hist-cyclic", "time-cyclic"], notes
assert any(t.get("data-key") == "p99_ns" for t in doc.iter("{http://www.w3.org/1999/xhtml}td"))
PY
then
	pass "no-gnuplot-tables-only"
else
	fail "no-gnuplot-tables-only" "exit $rc: $(cat "$TMP/out")"
fi

# -- every section lights up when analysis.json has its keys
cp -r "$A" "$TMP/full"
python3 "$TOP/tests/data/reports/extend-analysis.py" "$TMP/full"
"$LATWATT" report "$TMP/full" -o "$TMP/full.html" --budget 'xruns<1' --budget 'power<1.5W' \
	--junit "$TMP/full.xml" >"$TMP/out" 2>&1
python3 - "$TMP/full.html" "$TMP/full.xml" <<'PY' && pass "sections-render-when-recorded" || fail "sections-render-when-recorded" "$(cat "$TMP/out")"
import sys, xml.etree.ElementTree as ET
doc = ET.parse(sys.argv[1]).getroot()
state = {s.get("data-section"): s.get("data-state") for s in doc.iter("{http://www.w3.org/1999/xhtml}section")}
assert all(v == "recorded" for v in state.values()), state
plots = sorted(s.get("data-plot") for s in doc.iter("{http://www.w3.org/2000/svg}svg") if s.get("class") == "plot")
assert plots == sorted(["hist-cyclic", "time-cyclic", "cdf-cyclic", "causes", "spike-1", "spike-2", "idle-latency",
                        "residency", "power", "tradeoff", "workloads"]), plots
assert doc.find(".//*[@id='recommended']").get("data-value") == "20"
text = "".join(doc.itertext())
for want in ("(measured)", "estimated", "virtio0-input", "NET_RX", "2 xruns", "1 dropped frames", "kworker/1:1 & <co>",
             "no spike on its CPU in that period", "period 187, stream 0, CPU 1, 300.0 us late",
             "52 explained from the trace, 2 not", "unattributable: trace events lost in the window",
             "irq:virtio0-input 480.0us", "cyclic: 54 samples above 150.0 us (the run's --threshold)",
             "idle-late:state1: 400.0 us in 3 spikes", "(none declared)", "unexplained: 120.0 us in 2 spikes",
             "steal time the machine reported during the run: 3.0 ms"):
    assert want in text or want in ET.tostring(doc, encoding="unicode"), want
x = ET.parse(sys.argv[2]).getroot()
res = {c.get("name"): c for c in x.iter("testcase")}
assert res["budget.xruns"].find("failure") is not None
assert res["budget.power"].find("failure") is not None   # power.total.average_w 1.5005 W
PY

# -- comparison of the two fixture runs
"$LATWATT" report --compare "$A" "$B" -o "$TMP/c.html" --junit "$TMP/c.xml" --markdown "$TMP/c.md" \
	>"$TMP/out" 2>&1; rc=$?
if [ "$rc" -le 1 ] && python3 - "$TMP/c.html" "$A/analysis.json" "$B/analysis.json" <<'PY'
import json, sys, xml.etree.ElementTree as ET
doc = ET.parse(sys.argv[1]).getroot()
runs = [json.load(open(p)) for p in sys.argv[2:]]
plots = sorted(s.get("data-plot") for s in doc.iter("{http://www.w3.org/2000/svg}svg") if s.get("class") == "plot")
assert plots == ["cmp-cdf-cyclic", "cmp-hist-cyclic"], plots
n = 0
for td in doc.iter("{http://www.w3.org/1999/xhtml}td"):
    if td.get("data-stat") is None:
        continue
    run = int(td.get("data-run")); stat = td.get("data-stat")
    want = runs[run]["probes"][td.get("data-probe")]["all"][stat + "_ns"]
    assert int(td.get("data-value")) == want, (td.attrib, want)
    lo = int(td.get("data-ci-low")); hi = td.get("data-ci-high")
    assert lo <= want and (hi is None or want <= int(hi)), td.attrib
    v = td.get("data-verdict")
    if run == 0:
        assert v == "baseline"
    elif stat == "max":
        assert v in ("higher", "lower", "equal")
    else:
        # one run a side: the comparison engine gives no verdict
        assert v == "inconclusive", td.attrib
    n += 1
assert n == 12, n
PY
then
	pass "compare-html-percentiles-cis-verdicts"
else
	fail "compare-html-percentiles-cis-verdicts" "exit $rc: $(cat "$TMP/out")"
fi
if have xmllint; then
	xmllint --noout "$TMP/c.html" && xmllint --noout --schema "$TOP/tests/data/junit-10.xsd" "$TMP/c.xml" 2>"$TMP/xl" &&
		pass "compare-html-and-junit-valid" || fail "compare-html-and-junit-valid" "$(cat "$TMP/xl")"
fi
grep -q '^### latwatt comparison against run-a' "$TMP/c.md" && [ "$(wc -l <"$TMP/c.md")" -le 30 ] &&
	pass "compare-markdown" || fail "compare-markdown" "$(cat "$TMP/c.md")"

# a regression beyond the tolerance fails: repeats of each run (copies: the
# plumbing, not the statistics, is tested here), the baseline swapped,
# tolerance 0; the verdicts are the comparison engine's
for g in a b; do
	for i in 01 02 03; do
		mkdir -p "$TMP/rep-$g"
		cp -r "$D/run-$g" "$TMP/rep-$g/run-$i"
	done
done
"$LATWATT" report --compare "$TMP/rep-b" "$TMP/rep-a" --tolerance 0 --junit "$TMP/r.xml" >"$TMP/out" 2>&1; rc=$?
python3 - "$TMP/r.xml" "$rc" <<'PY' && pass "compare-regression-fails" || fail "compare-regression-fails" "$(cat "$TMP/out")"
import sys, xml.etree.ElementTree as ET
x = ET.parse(sys.argv[1]).getroot()
fails = [c.get("name") for c in x.iter("testcase") if c.find("failure") is not None]
# run-a's p50 is above run-b's in these fixtures
assert any(f.startswith("compare.cyclic.p50.") for f in fails), fails
assert sys.argv[2] == "1"
PY
# one run a side: no verdict, so no failure however large the change
"$LATWATT" report --compare "$B" "$A" --tolerance 0 --junit "$TMP/r1.xml" >"$TMP/out" 2>&1; rc=$?
[ "$rc" -eq 0 ] && ! grep -q "<failure" "$TMP/r1.xml" && pass "compare-one-run-a-side-no-failure" ||
	fail "compare-one-run-a-side-no-failure" "exit $rc: $(cat "$TMP/out")"

# -- from a comparison JSON: its rules are the test cases
"$LATWATT" report --compare "$D/comparison.json" -o "$TMP/cj.html" --junit "$TMP/cj.xml" >"$TMP/out" 2>&1; rc=$?
python3 - "$TMP/cj.xml" "$TMP/cj.html" <<'PY' && [ "$rc" -eq 1 ] && pass "compare-from-json" || fail "compare-from-json" "exit $rc: $(cat "$TMP/out")"
import sys, xml.etree.ElementTree as ET
x = ET.parse(sys.argv[1]).getroot()
res = {c.get("name"): ("fail" if c.find("failure") is not None else "skip" if c.find("skipped") is not None else "pass")
       for c in x.iter("testcase")}
assert res == {"compare.cyclic.p99.run-b": "pass", "compare.cyclic.max.run-b": "fail",
               "compare.cyclic.p99.99.run-b": "skip"}, res
doc = ET.parse(sys.argv[2]).getroot()
td = doc.find(".//*[@data-run='1'][@data-stat='p99']")
assert td.get("data-verdict") == "inconclusive" and td.get("data-ci-high") is None, td.attrib
PY

# -- bad input: one line naming the problem, exit 2, no partial output
expect_error() {	# NAME PATTERN CMD...
	local name=$1 pat=$2; shift 2
	"$@" >"$TMP/out" 2>&1; local rc=$?
	if [ "$rc" -eq 2 ] && grep -q -- "$pat" "$TMP/out" && [ "$(wc -l <"$TMP/out")" -le 1 ]; then
		pass "$name"
	else
		fail "$name" "exit $rc: $(cat "$TMP/out")"
	fi
}
expect_error no-output "nothing to write" "$LATWATT" report "$A"
expect_error no-run "not a run directory" "$LATWATT" report "$TMP" -o "$TMP/x.html"
expect_error bad-budget "unknown statistic 'p97'" "$LATWATT" report "$A" --budget 'p97<1ms' -o "$TMP/x.html"
expect_error bad-tolerance "--tolerance" "$LATWATT" report --compare "$A" "$B" --tolerance lots --junit -
expect_error compare-one-run "not a comparison JSON" "$LATWATT" report --compare "$A" -o "$TMP/x.html"
expect_error bad-option "unknown option '--frob'" "$LATWATT" report "$A" --frob
cp -r "$A" "$TMP/trunc"
head -c 300 "$A/analysis.json" >"$TMP/trunc/analysis.json"
expect_error truncated-analysis "analysis.json:[0-9]*:[0-9]*:" "$LATWATT" report "$TMP/trunc" -o "$TMP/x.html"
printf '{"schema":"latwatt-comparison","version":1,"runs":[{"path":"run-a"}]}' >"$TMP/one.json"
expect_error comparison-one-run "at least two runs" "$LATWATT" report --compare "$TMP/one.json" -o "$TMP/x.html"
expect_error unwritable "cannot open directory /nonexistent/dir" "$LATWATT" report "$A" -o /nonexistent/dir/x.html
[ ! -e "$TMP/x.html" ] && [ ! -e "$TMP/x.html.tmp" ] && pass "bad-input-writes-nothing" ||
	fail "bad-input-writes-nothing" "$(ls "$TMP")"
rm -rf "$TMP/nosamples"; cp -r "$A" "$TMP/nosamples"; rm "$TMP/nosamples/analysis.json"
"$LATWATT" report "$TMP/nosamples" -o "$TMP/ns.html" >"$TMP/out" 2>&1
# exit 1: the run's threshold is broken (the verdict), the report written
[ $? -eq 1 ] && grep -q 'computed for this report' "$TMP/ns.html" && grep -c '<svg class="plot"' "$TMP/ns.html" | grep -qx 3 &&
	pass "report-computes-missing-analysis" || fail "report-computes-missing-analysis" "$(cat "$TMP/out")"

# -- a real run, straight into a report (root: the probe runs SCHED_FIFO); a
# run never analyzed gets the same analysis, and so the same plots, as one
# that was (analyze exits 1 when a budget is broken: still analyzed)
live_report() {
	local n rc=0
	"$LATWATT" run -d 1s -q -o "$TMP/live" >"$TMP/out" 2>&1 || return 1
	"$LATWATT" report "$TMP/live" -o "$TMP/live.html" --budget 'max<10s' >>"$TMP/out" 2>&1 || return 1
	cp -r "$TMP/live" "$TMP/live-a" || return 1
	"$LATWATT" analyze "$TMP/live-a" >/dev/null 2>>"$TMP/out" || rc=$?
	[ $rc -le 1 ] || return 1
	"$LATWATT" report "$TMP/live-a" -o "$TMP/live-a.html" >>"$TMP/out" 2>&1 || return 1
	n=$(grep -c '<svg class="plot"' "$TMP/live.html")
	echo "plots: $n unanalyzed, $(grep -c '<svg class="plot"' "$TMP/live-a.html") analyzed" >>"$TMP/out"
	[ "$n" -ge 3 ] && [ "$n" = "$(grep -c '<svg class="plot"' "$TMP/live-a.html")" ]
}
if [ "$(id -u)" -eq 0 ]; then
	if live_report; then
		pass "live-run-report"
	else
		fail "live-run-report" "$(cat "$TMP/out")"
	fi
else
	skip "live-run-report" "latwatt run needs root"
fi

# -- headless Chromium: the plots are in the rendered DOM with a size
chromium_bin=
for c in chromium chromium-browser; do have "$c" && { chromium_bin=$c; break; }; done
if [ -z "$chromium_bin" ]; then
	skip "chromium-render" "chromium is not installed (scripts/deps-reports.txt)"
	finish
fi
mkdir -p "$ART" "$TMP/web"
cp "$TMP/a.html" "$TMP/web/report.html"
cp "$TMP/c.html" "$TMP/web/compare.html"
cp "$TMP/full.html" "$TMP/web/full.html"
chrome() {	# ARGS...: run headless with a throwaway profile
	local prof; prof=$(mktemp -d "$TMP/prof.XXXXXX")
	timeout 120 "$chromium_bin" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$prof" "$@" 2>/dev/null
}
for page in report compare full; do
	# a probe page loads the report in a frame and measures every plot
	sed "s/@PAGE@/$page.html/" >"$TMP/web/probe-$page.html" <<'EOF'
<!DOCTYPE html>
<html><head><meta charset="utf-8"/><title>probe</title></head>
<body><pre id="out">pending</pre>
<iframe id="f" src="@PAGE@" width="1280" height="2000"></iframe>
<script>
document.getElementById('f').addEventListener('load', function () {
  var out = [];
  try {
    var svgs = this.contentDocument.querySelectorAll('svg.plot');
    out.push('plots ' + svgs.length);
    svgs.forEach(function (s) {
      var r = s.getBoundingClientRect();
      out.push('plot ' + s.getAttribute('data-plot') + ' ' + Math.round(r.width) + ' ' +
               Math.round(r.height) + ' ' + s.querySelectorAll('path').length);
    });
  } catch (e) { out.push('error ' + e); }
  document.getElementById('out').textContent = out.join('\n');
});
</script></body></html>
EOF
	chrome --allow-file-access-from-files --virtual-time-budget=10000 --dump-dom \
		"file://$TMP/web/probe-$page.html" >"$TMP/dom-$page"
	want=$(grep -o '<svg class="plot" data-plot="[^"]*"' "$TMP/web/$page.html" | wc -l)
	python3 - "$TMP/dom-$page" "$want" <<'PY' && pass "chromium-renders-plots-$page" || fail "chromium-renders-plots-$page" "$(grep -A20 '<pre' "$TMP/dom-$page" | head -20)"
import re, sys
dom = open(sys.argv[1]).read()
m = re.search(r'<pre id="out">(.*?)</pre>', dom, re.S)
lines = m.group(1).split("\n")
assert lines[0] == "plots %s" % sys.argv[2], lines
assert int(sys.argv[2]) >= 2
for l in lines[1:]:
    _, name, w, h, paths = l.split()
    assert int(w) > 300 and int(h) > 150 and int(paths) > 5, l
PY
	chrome --screenshot="$ART/$page.png" --window-size=1280,2400 "file://$TMP/web/$page.html" >/dev/null
	size=$(stat -c %s "$ART/$page.png" 2>/dev/null || echo 0)
	[ "$size" -gt 50000 ] && pass "chromium-screenshot-$page" ||
		fail "chromium-screenshot-$page" "tests/artifacts/$page.png is $size bytes"
done
finish
