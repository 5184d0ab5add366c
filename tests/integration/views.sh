#!/usr/bin/env bash
# Every view of a run renders the one result, analysis.json, and nothing
# else: a copy of the run holding only manifest.json and analysis.json gives
# the same HTML, Markdown, JUnit and LAVA output as the whole run directory
# (samples, trace.dat, power), and the verdict is the same in each view and
# in analysis.json.
. "$(dirname "$0")/lib.sh"
mk_tmp

for fx in trace-run reports/run-a; do
	name=${fx##*/}
	mkdir -p "$TMP/full" "$TMP/only"
	cp -r "$TOP/tests/data/$fx" "$TMP/full/$name"
	rm -f "$TMP/full/$name/analysis.json"
	"$LATWATT" analyze "$TMP/full/$name" >"$TMP/$name.txt" 2>/dev/null
	mkdir "$TMP/only/$name"
	cp "$TMP/full/$name/manifest.json" "$TMP/full/$name/analysis.json" "$TMP/only/$name/"
	for d in full only; do
		(cd "$TMP/$d" && "$LATWATT" report "$name" -o "$name.html" --markdown "$name.md" \
			--junit "$name.xml" --lava >"$name.lava" 2>"$name.err")
		# the JUnit timestamp is the time of writing
		sed -i 's/timestamp="[^"]*"//' "$TMP/$d/$name.xml"
	done
	for f in html md xml lava; do
		if cmp -s "$TMP/full/$name.$f" "$TMP/only/$name.$f" && [ -s "$TMP/full/$name.$f" ]; then
			pass "$name-$f-from-analysis-json-alone"
		else
			fail "$name-$f-from-analysis-json-alone" \
			     "$(diff "$TMP/full/$name.$f" "$TMP/only/$name.$f" | head -5; cat "$TMP/only/$name.err")"
		fi
	done
	# the verdict: analysis.json, analyze's first line, the HTML, Markdown, JUnit
	/usr/bin/python3 - "$TMP/full/$name" "$TMP/$name.txt" "$TMP/full/$name" <<'PY' &&
import json, re, sys, xml.etree.ElementTree as ET
run, txt, base = sys.argv[1], sys.argv[2], sys.argv[3]
v = json.load(open(run + "/analysis.json"))["verdict"]["result"]
first = open(txt).readline()
assert first.startswith(v + ": "), (v, first)
html = ET.parse(base + ".html").getroot()
div = html.find(".//*[@id='verdict']")
assert div is not None and "".join(div.itertext()).strip().startswith(v), "".join(div.itertext())[:80]
md = open(base + ".md").readline()
assert re.search(r"— (\*\*)?%s(\*\*)?$" % re.escape(v), md.strip()), md
case = [c for c in ET.parse(base + ".xml").getroot().iter("testcase") if c.get("name") == "verdict"][0]
want = {"PASS": None, "FAIL": "failure", "INCOMPLETE": "failure", "NO VERDICT": "skipped"}[v]
got = [e.tag for e in case if e.tag in ("failure", "skipped")]
assert got == ([want] if want else []), (v, got)
PY
		pass "$name-verdict-same-in-every-view" || fail "$name-verdict-same-in-every-view"
	rm -rf "$TMP/full" "$TMP/only"
done
finish
