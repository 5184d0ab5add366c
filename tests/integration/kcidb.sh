#!/usr/bin/env bash
# latwatt export --kcidb: a run, a directory of repeats, runs compared and a
# comparison JSON as KCIDB I/O JSON, valid against the schema KCIDB
# publishes (doc/kcidb-io.schema.v5.3.json, kcidb-io's own, source named in
# it); its IDs hang together, its figures are the analysis' in KCIDB units,
# the schema is not a rubber stamp, and bad input exits 2 naming the thing.
# Reads fixtures only: no root, no tracefs.
. "$(dirname "$0")/lib.sh"
need_cmd "$PYTHON"
"$PYTHON" -c 'import jsonschema' 2>/dev/null || skip_all "needs python3-jsonschema (scripts/install-deps)"
mk_tmp
SCHEMA=$TOP/doc/kcidb-io.schema.v5.3.json
D=$TOP/tests/data/reports

validate() {	# NAME FILE: pass when the schema accepts FILE
	if "$PYTHON" - "$SCHEMA" "$2" >"$TMP/v.out" 2>&1 <<'PY'; then
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft7Validator.check_schema(schema)
errs = sorted(jsonschema.Draft7Validator(schema).iter_errors(json.load(open(sys.argv[2]))),
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

# clone SRC DST SHIFT_S [RELEASE]: a copy of a run that started SHIFT_S
# seconds later (another run to KCIDB), on kernel RELEASE when given
clone() {
	cp -r "$1" "$2"
	"$PYTHON" - "$2" "$3" "${4:-}" <<'PY'
import json, sys
d, shift, rel = sys.argv[1], int(sys.argv[2]), sys.argv[3]
for f, run in (("manifest.json", lambda j: j), ("analysis.json", lambda j: j["run"])):
    j = json.load(open(f"{d}/{f}"))
    r = run(j)
    r["start"]["realtime_ns"] += shift * 10**9
    if rel:
        if f == "manifest.json":
            r["system"]["kernel"]["release"] = rel
        else:
            r["kernel_release"] = rel
    json.dump(j, open(f"{d}/{f}", "w"))
PY
}

# one run
check run-exit-0 "$LATWATT" export --kcidb "$TMP/run.json" "$D/run-a"
validate run-valid "$TMP/run.json"

# a directory of repeats: each run its tests, the one kernel once
mkdir "$TMP/rep"
cp -r "$D/run-a" "$TMP/rep/run-01"
cp -r "$D/run-b" "$TMP/rep/run-02"
check repeats-exit-0 "$LATWATT" export --kcidb "$TMP/rep.json" "$TMP/rep"
validate repeats-valid "$TMP/rep.json"

# two groups of three repeats on two kernels, compared
mkdir "$TMP/A" "$TMP/B"
for i in 1 2 3; do
	clone "$D/run-a" "$TMP/A/run-0$i" $((i * 10))
	clone "$D/run-b" "$TMP/B/run-0$i" $((i * 10 + 100)) 6.1.0-99-rt-amd64
done
check compare-exit-0 "$LATWATT" export --kcidb "$TMP/cmp.json" --origin lab_a "$TMP/A" "$TMP/B"
validate compare-valid "$TMP/cmp.json"

# the output of latwatt compare -o
cp -r "$D/run-a" "$D/run-b" "$D/comparison.json" "$TMP/"
check comparison-json-exit-0 "$LATWATT" export --kcidb "$TMP/cj.json" "$TMP/comparison.json"
validate comparison-json-valid "$TMP/cj.json"

py structure "$TMP" "$D" <<'PY'
import json, sys
tmp, data = sys.argv[1], sys.argv[2]
ok = True
def res(name, good, why=""):
    global ok
    print(("PASS: " if good else "FAIL: ") + name + ("" if good else ": " + why))
    ok &= bool(good)

def load(n):
    return json.load(open(f"{tmp}/{n}.json"))

for n in ("run", "rep", "cmp", "cj"):
    d = load(n)
    ids = [t["id"] for t in d["tests"]]
    res(f"{n}-test-ids-unique", len(ids) == len(set(ids)),
        str([i for i in ids if ids.count(i) > 1][:3]))
    builds = {b["id"]: b for b in d["builds"]}
    checkouts = {c["id"] for c in d["checkouts"]}
    res(f"{n}-builds-of-checkouts", all(b["checkout_id"] in checkouts for b in builds.values()))
    res(f"{n}-tests-of-builds", all(t["build_id"] in builds for t in d["tests"]))
    res(f"{n}-one-build-per-id", len(builds) == len(d["builds"]))

# one run: its verdict, its threshold check, its figures in seconds
d = load("run")
a = json.load(open(f"{data}/run-a/analysis.json"))
tests = {t["path"]: t for t in d["tests"]}
v = tests.get("latwatt.verdict", {})
res("run-verdict", v.get("status") == {"PASS": "PASS", "FAIL": "FAIL", "NO VERDICT": "SKIP",
                                     "INCOMPLETE": "ERROR"}[a["verdict"]["result"]],
    f'{v.get("status")} against {a["verdict"]["result"]}')
p99 = tests.get("latwatt.metrics.cyclic.p99", {}).get("number", {})
want = a["probes"]["cyclic"]["all"]["p99_ns"] * 1e-9
res("run-p99-seconds", p99.get("unit") == "s" and abs(p99.get("value", 0) - want) < 1e-12,
    f"{p99} against {want} s")
res("run-p99.9-path", "latwatt.metrics.cyclic.p99_9" in tests, str(sorted(tests)))
res("run-done-status", all(t["status"] == "DONE" for p, t in tests.items()
                           if p.startswith("latwatt.metrics.")))

# repeats: two runs, one kernel
d = load("rep")
res("repeats-two-verdicts", sum(t["path"] == "latwatt.verdict" for t in d["tests"]) == 2)
res("repeats-one-build", len(d["builds"]) == 1 and len(d["checkouts"]) == 1)

# comparison: six runs on two kernels; the rules on the compared group's build
d = load("cmp")
res("compare-origin", all(x["origin"] == "lab_a" and x["id"].startswith("lab_a:")
                          for k in ("checkouts", "builds", "tests") for x in d[k]))
res("compare-six-verdicts", sum(t["path"] == "latwatt.verdict" for t in d["tests"]) == 6)
res("compare-two-kernels", sorted(c["git_commit_name"] for c in d["checkouts"]) ==
    ["6.1.0-99-rt-amd64", "6.18.44-fc-v1098"])
rules = [t for t in d["tests"] if t["path"].startswith("latwatt.compare.")]
rt = [b["id"] for b in d["builds"] if "6.1.0-99" in b["id"]]
res("compare-rules", len(rules) > 0 and all(t["build_id"] in rt for t in rules),
    f"{len(rules)} rules on {set(t['build_id'] for t in rules)}")
res("compare-rules-judged", any(t["status"] in ("PASS", "FAIL") for t in rules),
    str(sorted(set(t["status"] for t in rules))))
sys.exit(0 if ok else 1)
PY

# not a rubber stamp: a status KCIDB does not know and a bad ID fail
"$PYTHON" - "$TMP/run.json" "$TMP/bad.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["tests"][0]["status"] = "WORSE"
d["builds"][0]["id"] = "no-origin"
json.dump(d, open(sys.argv[2], "w"))
PY
if "$PYTHON" - "$SCHEMA" "$TMP/bad.json" >/dev/null 2>&1 <<'PY'; then
import json, sys, jsonschema
jsonschema.Draft7Validator(json.load(open(sys.argv[1]))).validate(json.load(open(sys.argv[2])))
PY
	fail schema-refuses-broken "a broken document validated"
else
	pass schema-refuses-broken
fi

# bad input: exit 2, the thing named
expect2() {	# NAME WORDS CMD...: exit status 2 and WORDS in the error
	local n=$1 words=$2 rc; shift 2
	"$@" >"$TMP/out" 2>"$TMP/err"; rc=$?
	if [ $rc -eq 2 ] && grep -q -- "$words" "$TMP/err"; then
		pass "$n"
	else
		fail "$n" "status $rc: $(head -c 300 "$TMP/err")"
	fi
}
expect2 bad-origin "origin 'Lab-A'" "$LATWATT" export --kcidb - --origin Lab-A "$D/run-a"
expect2 no-format "give --kcidb" "$LATWATT" export "$D/run-a"
expect2 no-run "$TMP/none" "$LATWATT" export --kcidb - "$TMP/none"
mkdir "$TMP/trunc"
head -c 100 "$D/run-a/manifest.json" >"$TMP/trunc/manifest.json"
expect2 truncated-manifest "$TMP/trunc/manifest.json" "$LATWATT" export --kcidb - "$TMP/trunc"
[ ! -e "$TMP/none.json" ] && pass no-file-on-error || fail no-file-on-error "a file was left"
finish
