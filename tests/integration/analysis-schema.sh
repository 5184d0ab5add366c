#!/usr/bin/env bash
# analysis.json against its JSON Schema (doc/analysis.schema.json) for runs
# of each kind the fixtures and this machine give: the report fixtures, the
# recorded trace run, an imported cyclictest run, a short real run with
# workloads; and the schema is not a rubber stamp (a broken document fails).
. "$(dirname "$0")/lib.sh"
need_cmd "$PYTHON"
"$PYTHON" -c 'import jsonschema' 2>/dev/null || skip_all "needs python3-jsonschema (scripts/install-deps)"
mk_tmp
SCHEMA=$TOP/doc/analysis.schema.json

validate() {	# NAME FILE: pass when FILE holds a document the schema accepts
	if "$PYTHON" - "$SCHEMA" "$2" >"$TMP/v.out" 2>&1 <<'PY'; then
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
errs = sorted(jsonschema.Draft202012Validator(schema).iter_errors(json.load(open(sys.argv[2]))),
              key=lambda e: e.json_path)
for e in errs[:10]:
    print(e.json_path, e.message[:200])
sys.exit(1 if errs else 0)
PY
		pass "$1"
	else
		fail "$1" "$(cat "$TMP/v.out")"
	fi
}

for r in run-a run-b; do
	cp -r "$TOP/tests/data/reports/$r" "$TMP/$r"
	rm -f "$TMP/$r/analysis.json"
	"$LATWATT" analyze "$TMP/$r" >/dev/null 2>&1
	validate "fixture-$r" "$TMP/$r/analysis.json"
done
cp -r "$TOP/tests/data/trace-run" "$TMP/tr"
"$LATWATT" analyze "$TMP/tr" >/dev/null 2>&1
validate "trace-run" "$TMP/tr/analysis.json"
"$LATWATT" import cyclictest "$TOP/tests/data/cyclictest/rt-tests-2.40.json" -o "$TMP/imp" >/dev/null 2>&1 &&
	"$LATWATT" analyze "$TMP/imp" >/dev/null 2>&1
validate "imported-cyclictest" "$TMP/imp/analysis.json"

# the schema refuses what it should: a verdict that is not one of the four,
# a latency that is not a number, a missing section
"$PYTHON" - "$TMP/tr/analysis.json" "$TMP" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
b = json.loads(json.dumps(a)); b["verdict"]["result"] = "OK"
json.dump(b, open(sys.argv[2] + "/bad1.json", "w"))
b = json.loads(json.dumps(a)); b["probes"]["cyclic"]["all"]["p99_ns"] = "fast"
json.dump(b, open(sys.argv[2] + "/bad2.json", "w"))
b = json.loads(json.dumps(a)); del b["checks"]
json.dump(b, open(sys.argv[2] + "/bad3.json", "w"))
PY
for i in 1 2 3; do
	( validate "bad$i" "$TMP/bad$i.json" ) >"$TMP/bad.out"	# its FAIL is the pass here
	grep -q '^FAIL' "$TMP/bad.out" && pass "schema-refuses-bad$i" ||
		fail "schema-refuses-bad$i" "a broken document validated"
done

# a real run with workloads (root and tracefs)
if [ "$(id -u)" -eq 0 ] && { [ -e "$TRACEFS/trace_marker" ] ||
   mount -t tracefs nodev "$TRACEFS" 2>/dev/null; }; then
	"$LATWATT" run -d 2s -q -w audio -w video:fps=30,width=320,height=240 -o "$TMP/real" >/dev/null 2>&1 &&
		"$LATWATT" analyze "$TMP/real" >/dev/null 2>&1
	validate "real-run-with-workloads" "$TMP/real/analysis.json"
else
	skip "real-run-with-workloads" "needs root and tracefs"
fi
finish
