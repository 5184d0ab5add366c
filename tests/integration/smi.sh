#!/usr/bin/env bash
# SMI counts (MSR_SMI_COUNT) at a run's start and end: the manifest has them
# or the reason they could not be read, which the run printed; analyze says
# "SMIs during the run: N" only when N > 0 (a run directory whose manifest
# says 3 SMIs on one CPU, as an Intel board with an SMI-heavy BIOS would).
. "$(dirname "$0")/lib.sh"
need_root
need_cmd "$PYTHON"
mk_tmp
"$LATWATT" run -d 1s -i 1000 --trace off -o "$TMP/r" >"$TMP/run.out" 2>&1 ||
	fail "run" "$(cat "$TMP/run.out")"
py "smi-in-manifest" "$TMP/r/manifest.json" "$TMP/run.out" <<'PY'
import json, sys
smi = json.load(open(sys.argv[1])).get("smi")
out = open(sys.argv[2]).read()
if smi is None:
    print("FAIL: smi-in-manifest: no smi object")
elif "reason" in smi:
    ok = ("SMIs not counted: " + smi["reason"]) in out
    print("%s: smi-in-manifest (not counted, printed: %s)" % ("PASS" if ok else "FAIL", smi["reason"]))
    print("SKIP: smi-counted: %s" % smi["reason"])
else:
    ok = smi["total"] == sum(c["count"] for c in smi["cpus"]) and smi["cpus"]
    print("%s: smi-counted (%d SMIs on %d CPUs)" % ("PASS" if ok else "FAIL", smi["total"],
                                                   len(smi["cpus"])))
PY
"$LATWATT" analyze "$TMP/r" >"$TMP/a0.txt" 2>&1
if grep -q '"total": 0\|"reason"' "$TMP/r/manifest.json" || ! grep -q '"smi"' "$TMP/r/manifest.json"; then
	grep -q 'SMIs during the run' "$TMP/a0.txt" && fail "no-smi-no-line" "$(grep SMIs "$TMP/a0.txt")" ||
		pass "no-smi-no-line"
fi
"$PYTHON" - "$TMP/r/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["smi"] = {"source": "MSR_SMI_COUNT (0x34) through /dev/cpu/N/msr", "total": 3,
            "cpus": [{"cpu": 0, "start": 10, "end": 13, "count": 3}]}
json.dump(m, open(sys.argv[1], "w"))
PY
"$LATWATT" analyze --json "$TMP/r" >"$TMP/a.json" 2>/dev/null
"$LATWATT" analyze "$TMP/r" >"$TMP/a.txt" 2>&1
grep -q '^SMIs during the run: 3 (cpu0 3)' "$TMP/a.txt" && pass "smi-line" ||
	fail "smi-line" "$(head -20 "$TMP/a.txt")"
[ "$(json "$TMP/a.json" '["smi"]["total"]')" = 3 ] && pass "smi-in-analysis" ||
	fail "smi-in-analysis" "analysis.json smi.total is not 3"
if "$PYTHON" -c 'import jsonschema' 2>/dev/null; then
	py "schema-with-smi" "$TOP/doc/analysis.schema.json" "$TMP/a.json" <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
errs = list(jsonschema.Draft202012Validator(schema).iter_errors(json.load(open(sys.argv[2]))))
for e in errs[:5]:
    print(e.json_path, e.message[:200])
print("%s: schema-with-smi" % ("FAIL" if errs else "PASS"))
PY
else
	skip "schema-with-smi" "needs python3-jsonschema (scripts/install-deps)"
fi
finish
