#!/usr/bin/env bash
# A run whose files hold less than its manifest says was written (a copy cut
# short, a full disk) is truncated: analyze says so on a line of its own and
# in analysis.json (run.status), analyzes what is there and exits 2.  It
# said "complete" and exited 0 for samples cut at a record boundary, and
# refused the run outright for a partial record.  No root needed: the run
# is the fixture tests/data/trace-run.
. "$(dirname "$0")/lib.sh"
mk_tmp

cut_run() {	# NAME BYTES: a copy of the fixture with its samples cut to BYTES
	cp -r "$TOP/tests/data/trace-run" "$TMP/$1"
	truncate -s "$2" "$TMP/$1/samples"
}

# 403 records of 24 bytes after a 64-byte header; cut after 300
cut_run boundary $((64 + 24 * 300))
"$LATWATT" analyze "$TMP/boundary" >"$TMP/b.out" 2>"$TMP/b.err"
rc=$?
[ $rc -eq 2 ] && pass "record boundary: exit 2" || fail "record boundary: exit 2" "exit $rc"
grep -q "truncated: samples holds 300 of the 403 records the run wrote; what is there is analyzed" \
	"$TMP/b.err" && pass "record boundary: said on stderr" ||
	fail "record boundary: said on stderr" "$(cat "$TMP/b.err")"
head -1 "$TMP/b.out" | grep -q "the run is truncated: samples holds 300 of the 403 records" &&
	grep -q "^run .*: truncated, samples holds 300 of the 403" "$TMP/b.out" &&
	pass "record boundary: the verdict and the run line say it" ||
	fail "record boundary: the verdict and the run line say it" "$(head -3 "$TMP/b.out")"
/usr/bin/python3 - "$TMP/boundary/analysis.json" <<'PY' && pass "record boundary: analysis.json" ||
import json, sys
d = json.load(open(sys.argv[1]))
r = d["run"]
assert r["status"] == "truncated", r
assert r["manifest_status"] == "complete", r
t = r["truncated"]
assert t == [{"file": "samples", "unit": "records", "found": 300, "expected": 403,
              "partial_bytes": 0}], t
assert d["probes"]["cyclic"]["all"]["count"] == 300, d["probes"]["cyclic"]["all"]
PY
	fail "record boundary: analysis.json"

# a run that is not whole passes nothing: a budget that held on what is
# there is "not judged" in analyze's checks and in every view drawn from them
"$LATWATT" analyze --json --budget "cyclic.max<1s" "$TMP/boundary" >"$TMP/bj.json" 2>/dev/null
"$LATWATT" report --junit "$TMP/b.xml" "$TMP/boundary" >/dev/null 2>&1
/usr/bin/python3 - "$TMP/bj.json" "$TMP/b.xml" <<'PY' && pass "record boundary: a held budget is not judged" ||
import json, sys
d = json.load(open(sys.argv[1]))
c = [c for c in d["checks"] if c["rule"].startswith("cyclic.max")]
assert len(c) == 1 and c[0]["result"] == "skip", c
assert c[0]["message"].startswith("not judged: the run is truncated; held on what it measured"), c
assert d["verdict"]["not_judged"] >= 1, d["verdict"]
x = open(sys.argv[2]).read()
assert "not judged: the run is truncated" in x and "<skipped" in x, x[:2000]
PY
	fail "record boundary: a held budget is not judged"

# a partial record: analyzed as far as it goes, not refused
cut_run partial $((64 + 24 * 300 + 10))
"$LATWATT" analyze "$TMP/partial" >"$TMP/p.out" 2>"$TMP/p.err"
rc=$?
[ $rc -eq 2 ] && pass "partial record: exit 2" || fail "partial record: exit 2" "exit $rc"
grep -q "samples holds 300 of the 403 records the run wrote and part of one more" "$TMP/p.err" &&
	[ -s "$TMP/partial/analysis.json" ] && grep -q "^probe cyclic" "$TMP/p.out" &&
	pass "partial record: analyzed" || fail "partial record: analyzed" "$(cat "$TMP/p.err")"

# the whole fixture: complete, not an error (its threshold check decides 0 or 1)
cp -r "$TOP/tests/data/trace-run" "$TMP/whole"
"$LATWATT" analyze "$TMP/whole" >"$TMP/w.out" 2>&1
rc=$?
[ $rc -le 1 ] && [ "$(json "$TMP/whole/analysis.json" '["run"]["status"]')" = complete ] &&
	! grep -q truncated "$TMP/w.out" &&
	pass "whole run: complete" || fail "whole run: complete" "exit $rc"
finish
