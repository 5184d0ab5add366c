#!/usr/bin/env bash
# latwatt lab submit|wait|fetch against a LAVA server's REST API played by a
# small Python server (tests/integration/lava_fake.py): the token goes in a
# header and never on a command line, jobs are placed round the devices by
# their own tags, a job LAVA calls Incomplete is named with its error and
# gives no run, the others' console uploads come back as runs with the lab
# record that compare and export read, and an upload holding a symlink is
# refused.  No root, no QEMU: scripts/lava-lab-check runs the real lab.
. "$(dirname "$0")/lib.sh"
need_cmd "$PYTHON"
need_cmd curl
need_cmd tar
mk_tmp
D=$TOP/tests/data/reports

# the uploads: run-a and run-b as a job's console sends them (latwatt-run/)
for r in run-a run-b; do
	mkdir -p "$TMP/up-$r/latwatt-run"
	cp "$D/$r/manifest.json" "$D/$r/analysis.json" "$TMP/up-$r/latwatt-run/"
	cp -r "$D/$r/samples" "$TMP/up-$r/latwatt-run/" 2>/dev/null || true
	tar -C "$TMP/up-$r" -czf "$TMP/$r.tar.gz" latwatt-run
done
mkdir -p "$TMP/up-evil/latwatt-run"
ln -s /etc/passwd "$TMP/up-evil/latwatt-run/manifest.json"
tar -C "$TMP/up-evil" -czf "$TMP/evil.tar.gz" latwatt-run

echo "tok3n.abc-1" >"$TMP/token"
chmod 600 "$TMP/token"
"$PYTHON" "$TOP/tests/integration/lava_fake.py" "$TMP" >"$TMP/server.log" 2>&1 &
srv=$!
trap 'kill $srv 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq 1 50); do [ -s "$TMP/port" ] && break; sleep 0.1; done
[ -s "$TMP/port" ] || { fail server "the fake LAVA server did not start: $(cat "$TMP/server.log")"; finish; }
LAVA_URL=http://127.0.0.1:$(cat "$TMP/port")/
export LAVA_URL
unset LAVA_TOKEN LAVA_TOKEN_FILE LAVA_LAB

for k in a b; do
	printf 'device_type: qemu\njob_name: kernel %s\nactions:\n- boot: {}\n' "$k" >"$TMP/job-$k.yaml"
done

# no token: refused before anything is sent
"$LATWATT" lab submit -o "$TMP/jobs.json" A="$TMP/job-a.yaml" >/dev/null 2>"$TMP/err"
[ $? = 2 ] && grep -q "no LAVA API token" "$TMP/err" && pass no-token || fail no-token "$(cat "$TMP/err")"

check submit "$LATWATT" lab submit -r 2 --token-file "$TMP/token" --lab farm \
	-o "$TMP/jobs.json" 6.1-rt="$TMP/job-a.yaml" 6.12-rt="$TMP/job-b.yaml"

rc=0
LAVA_TOKEN_FILE=$TMP/token "$LATWATT" lab wait --interval 50ms "$TMP/jobs.json" \
	>"$TMP/wait.txt" 2>"$TMP/wait.err" || rc=$?
[ $rc = 1 ] && pass wait-exit-1 || fail wait-exit-1 "status $rc: $(tail -n2 "$TMP/wait.err")"
grep -q "job 3 (6.1-rt repeat 2) on dev-b: incomplete.*Infrastructure error: boot timed out: no result" \
	"$TMP/wait.err" && pass wait-names-infrastructure || fail wait-names-infrastructure "$(cat "$TMP/wait.err")"
grep -q "4 jobs, 3 complete, 1 without a result; at most 2 ran at once" "$TMP/wait.txt" &&
	pass wait-summary || fail wait-summary "$(cat "$TMP/wait.txt")"

rc=0
LAVA_TOKEN=$(cat "$TMP/token") "$LATWATT" lab fetch -o "$TMP/runs" "$TMP/jobs.json" \
	>"$TMP/fetch.txt" 2>"$TMP/fetch.err" || rc=$?
[ $rc = 1 ] && pass fetch-exit-1 || fail fetch-exit-1 "status $rc: $(cat "$TMP/fetch.err")"
grep -q "3 of 4 jobs fetched" "$TMP/fetch.txt" && pass fetch-three || fail fetch-three "$(cat "$TMP/fetch.txt")"
[ ! -e "$TMP/runs/6.1-rt/run-02" ] && pass incomplete-no-run || fail incomplete-no-run "a run for job 3"

# --results: each complete job's test cases as LAVA recorded them, with the
# measurements and units; job 4's broken budget named and a failure
rc=0
LAVA_TOKEN_FILE=$TMP/token "$LATWATT" lab wait -q --results --interval 50ms "$TMP/jobs.json" \
	>"$TMP/res.txt" 2>"$TMP/res.err" || rc=$?
[ $rc = 1 ] && pass results-exit-1 || fail results-exit-1 "status $rc: $(cat "$TMP/res.err")"
grep -q "job 2 (6.12-rt repeat 1): 2_metrics/cyclic.p99 pass 35.25 us" "$TMP/res.txt" &&
	grep -q "job 4 (6.12-rt repeat 2): 1_budgets/budget.cyclic.p99 fail 120.5 us" "$TMP/res.txt" &&
	grep -q "; 1 test cases failed" "$TMP/res.txt" && ! grep -q "job 3 " "$TMP/res.txt" &&
	pass results-printed || fail results-printed "$(cat "$TMP/res.txt")"
rc=0
LAVA_TOKEN_FILE=$TMP/token "$LATWATT" lab fetch --results -o "$TMP/runs" "$TMP/jobs.json" \
	>"$TMP/res2.txt" 2>&1 || rc=$?
[ $rc = 1 ] && [ "$(grep -c "1_budgets/budget.cyclic.p99" "$TMP/res2.txt")" = 3 ] &&
	pass fetch-results || fail fetch-results "status $rc: $(cat "$TMP/res2.txt")"

py records "$TMP" <<'PY'
import json, sys
t = sys.argv[1]
ok = True
def res(n, good, why=""):
    global ok
    print(("PASS: " if good else "FAIL: ") + n + ("" if good else ": " + why))
    ok &= bool(good)
want = {("6.1-rt", "run-01"): (1, "dev-a"), ("6.12-rt", "run-01"): (2, "dev-b"),
        ("6.12-rt", "run-02"): (4, "dev-a")}
for (k, r), (job, dev) in want.items():
    lab = json.load(open(f"{t}/runs/{k}/{r}/manifest.json")).get("lab", {})
    res(f"lab-record-{k}-{r}", lab.get("job_id") == job and lab.get("device") == dev and
        lab.get("lab") == "farm" and lab.get("kernel") == k, repr(lab))
srv = json.load(open(f"{t}/requests.json"))
res("token-in-header", srv["requests"] > 0 and srv["unauthorized"] == 0, repr(srv))
placed = [d.split("tags:\n- ")[-1].strip() if "tags:\n- " in d else None for d in srv["definitions"]]
res("placed-round-devices", placed == ["dev-a", "dev-b", "dev-b", "dev-a"], repr(placed))
sys.exit(0 if ok else 1)
PY

# the token never on a command line: curl reads it on its stdin
if grep -rq "tok3n" "$TMP/server.log" "$TMP"/*.err 2>/dev/null; then
	fail token-not-printed "the token appears in an output"
else
	pass token-not-printed
fi

# fetch --db: the runs fetched stored in the results store with their lab
# record and a label naming lab, job and kernel; fetching again stores
# nothing twice; compare reads them back as db:ID
rc=0
LAVA_TOKEN_FILE=$TMP/token "$LATWATT" lab fetch --db "$TMP/results.db" -o "$TMP/runs-db" \
	"$TMP/jobs.json" >"$TMP/db1.txt" 2>"$TMP/db1.err" || rc=$?
LAVA_TOKEN_FILE=$TMP/token "$LATWATT" lab fetch --db "$TMP/results.db" -o "$TMP/runs-db" \
	"$TMP/jobs.json" >"$TMP/db2.txt" 2>&1
if [ $rc = 1 ] && [ "$(grep -c ': stored as db:' "$TMP/db1.txt")" = 3 ] &&
	[ "$(grep -c 'already stored as db:' "$TMP/db2.txt")" = 3 ]; then
	pass fetch-db-stored
else
	fail fetch-db-stored "status $rc: $(cat "$TMP/db1.txt" "$TMP/db1.err" "$TMP/db2.txt")"
fi
"$LATWATT" db --db "$TMP/results.db" list --json >"$TMP/dblist.json" 2>&1
py fetch-db-list "$TMP/dblist.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
labels = sorted(r.get("label") or "" for r in rows)
ok = labels == ["farm job 1: 6.1-rt repeat 1", "farm job 2: 6.12-rt repeat 1",
                "farm job 4: 6.12-rt repeat 2"]
print(("PASS: " if ok else "FAIL: ") + "fetch-db-list" + ("" if ok else ": " + repr(labels)))
sys.exit(0 if ok else 1)
PY
id4=$(grep "job 4 " "$TMP/db1.txt" | sed -n 's/.*stored as \(db:[0-9]*\)$/\1/p')
id1=$(grep "job 1 " "$TMP/db1.txt" | sed -n 's/.*stored as \(db:[0-9]*\)$/\1/p')
crc=0
"$LATWATT" compare --db "$TMP/results.db" "$id1" "$id4" >/dev/null 2>"$TMP/err" || crc=$?
[ -n "$id1" ] && [ $crc -le 1 ] && pass fetch-db-compare || fail fetch-db-compare "status $crc ($id1 $id4): $(cat "$TMP/err")"

crc=0
"$LATWATT" compare "$TMP/runs/6.1-rt" "$TMP/runs/6.12-rt" >/dev/null 2>&1 || crc=$?
[ $crc -le 1 ] && pass compare-reads || fail compare-reads "status $crc"

# compare --runner lava: the jobs file's kernels fetched into JOBS.runs/ as
# groups; job 3 (Incomplete) named and not counted; a second look reuses them
for pass_no in 1 2; do
	rc=0
	"$LATWATT" compare --runner lava --token-file "$TMP/token" --json "$TMP/jobs.json" \
		>"$TMP/cmp$pass_no.json" 2>"$TMP/cmp$pass_no.err" || rc=$?
	[ $rc -le 1 ] && pass compare-lava-$pass_no || fail compare-lava-$pass_no "status $rc: $(cat "$TMP/cmp$pass_no.err")"
done
grep -q "job 3 (6.1-rt repeat 2) on dev-b: incomplete.*boot timed out: no result" "$TMP/cmp1.err" &&
	pass compare-lava-names-incomplete || fail compare-lava-names-incomplete "$(cat "$TMP/cmp1.err")"
grep -q "is there already" "$TMP/cmp2.err" && pass compare-lava-cached || fail compare-lava-cached "$(cat "$TMP/cmp2.err")"
py compare-lava-groups "$TMP/cmp1.json" <<'PY'
import json, sys
g = {x["name"]: x["count"] for x in json.load(open(sys.argv[1]))["groups"]}
ok = g == {"6.1-rt": 1, "6.12-rt": 2}
print(("PASS: " if ok else "FAIL: ") + "compare-lava-groups" + ("" if ok else ": " + repr(g)))
sys.exit(0 if ok else 1)
PY
rc=0
"$LATWATT" compare --runner lava --lab-cache "$TMP/cache" "$TMP/jobs.json" >/dev/null 2>"$TMP/err" || rc=$?
[ $rc = 2 ] && grep -q "no LAVA API token" "$TMP/err" && pass compare-lava-no-token ||
	fail compare-lava-no-token "status $rc: $(cat "$TMP/err")"
if "$LATWATT" export --kcidb "$TMP/k.json" "$TMP/runs/6.12-rt" 2>"$TMP/err" &&
	grep -q '"latwatt:farm-job4-' "$TMP/k.json"; then
	pass kcidb-job-ids
else
	fail kcidb-job-ids "$(cat "$TMP/err")"
fi

# an upload holding a symlink: refused, nothing left
check submit-evil "$LATWATT" lab submit --token-file "$TMP/token" -o "$TMP/evil.json" evil="$TMP/job-a.yaml"
"$LATWATT" lab wait -q --interval 50ms --token-file "$TMP/token" "$TMP/evil.json" >/dev/null 2>&1
rc=0
"$LATWATT" lab fetch --token-file "$TMP/token" -o "$TMP/runs" "$TMP/evil.json" >/dev/null 2>"$TMP/err" || rc=$?
if [ $rc = 2 ] && grep -q "refused" "$TMP/err" && [ ! -e "$TMP/runs/evil/run-01" ] &&
	[ -z "$(ls "$TMP/runs/evil")" ]; then
	pass symlink-refused
else
	fail symlink-refused "status $rc: $(cat "$TMP/err"); $(ls -la "$TMP/runs/evil" 2>&1)"
fi
finish
