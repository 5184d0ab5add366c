#!/usr/bin/env bash
# latwatt bisect --lava-job against a LAVA server's REST API played by
# tests/integration/lava_fake.py (DIR/versions.json: each version's runs,
# made by the server, or "fail": its jobs end Incomplete, an infrastructure
# error).  A regression is planted from v6 on (every latency doubled) and
# v4's jobs fail: bisect must name v6, say v4 was skipped and why (never
# good or bad), spread each version's repeats over the two devices, keep the
# token off command lines and out of its files, and resume without
# submitting again.  With the failing version just before the regression
# it must say that the first bad is one of the two, not name one.  No root,
# no QEMU, no measurement: a few seconds.
. "$(dirname "$0")/lib.sh"
need_cmd "$PYTHON"
need_cmd curl
need_cmd tar
mk_tmp

versions=v1,v2,v3,v4,v5,v6,v7,v8
echo "tok3n.bisect-7" >"$TMP/token"
chmod 600 "$TMP/token"
# the job: '{version}' in its text is the version bisect tries
printf 'device_type: qemu\njob_name: bisect {version}\nactions:\n- boot: {}\n' >"$TMP/job.yaml"
unset LAVA_TOKEN LAVA_TOKEN_FILE LAVA_LAB

srv=
trap 'kill $srv 2>/dev/null; [ -n "${KEEP:-}" ] && echo "kept $TMP" || rm -rf "$TMP"' EXIT
# start_lab DIR FAILING-VERSION: a fake lab in DIR, the regression from v6
start_lab() {
	mkdir -p "$1"
	cp "$TMP/token" "$1/token"
	cp "$TOP/tests/data/reports/run-a/manifest.json" "$1/manifest.json"
	"$PYTHON" - "$1/versions.json" "$2" <<'PY'
import json, sys
v = {"v%d" % i: (1.0 if i < 6 else 2.0) for i in range(1, 9)}
v[sys.argv[2]] = "fail"
json.dump(v, open(sys.argv[1], "w"))
PY
	[ -n "$srv" ] && kill "$srv" 2>/dev/null
	"$PYTHON" "$TOP/tests/integration/lava_fake.py" "$1" >"$1/server.log" 2>&1 &
	srv=$!
	for _ in $(seq 1 50); do [ -s "$1/port" ] && break; sleep 0.1; done
	[ -s "$1/port" ] || { fail server "the fake LAVA server did not start: $(cat "$1/server.log")"; finish; }
	LAVA_URL=http://127.0.0.1:$(cat "$1/port")/
	export LAVA_URL
}

start_lab "$TMP/lab1" v4
t0=$(date +%s)
rc=0
"$LATWATT" bisect -o "$TMP/b" --good v1 --bad v8 --versions "$versions" --repeat 3 \
	--lava-job "$TMP/job.yaml" --token-file "$TMP/token" --lab-interval 50ms \
	>"$TMP/out" 2>"$TMP/err" || rc=$?
[ $rc = 0 ] && grep -q "^first bad version: v6 (last good: v5)" "$TMP/out" &&
	pass "bisect-lava-finds ($(($(date +%s) - t0)) s)" ||
	fail bisect-lava-finds "status $rc: $(tail -5 "$TMP/err") $(tail -5 "$TMP/out")"
grep -q "v4 .*skipped (no result): its jobs failed, neither good nor bad" "$TMP/out" &&
	pass skipped-named || fail skipped-named "$(cat "$TMP/out")"
grep -q "^skip v4: no result (3 of 3 jobs gave no run: job [0-9]* on dev-.: incomplete.*boot failed: kernel panic): neither good nor bad" \
	"$TMP/b/bisect.log" && [ -s "$TMP/b/runs/003-v4/skipped" ] && [ ! -e "$TMP/b/runs/003-v4/run-01" ] &&
	pass skipped-why-logged || fail skipped-why-logged "$(cat "$TMP/b/bisect.log")"
grep -q "job [0-9]* (003-v4 repeat 1) on dev-.: incomplete: .*boot failed" "$TMP/err" &&
	pass job-failure-reported || fail job-failure-reported "$(grep v4 "$TMP/err")"

py bisect-lava-records "$TMP" <<'PY'
import glob, json, os, sys
t = sys.argv[1]
ok = True
def res(n, good, why=""):
    global ok
    print(("PASS: " if good else "FAIL: ") + n + ("" if good else ": " + why))
    ok &= bool(good)
r = json.load(open(f"{t}/b/result.json"))
res("result-json", r["status"] == "found" and r["first_bad"] == "v6" and r["skipped"] == ["v4"],
    repr({k: r[k] for k in ("status", "first_bad", "skipped")}))
# every version tried has its 3 runs from the lab, on both devices
for d in sorted(glob.glob(f"{t}/b/runs/*-v*")):
    if d.endswith("-v4"):
        continue
    devs = set()
    for m in glob.glob(f"{d}/run-*/manifest.json"):
        devs.add(json.load(open(m))["lab"]["device"])
    n = len(glob.glob(f"{d}/run-*"))
    res("repeats-spread-" + os.path.basename(d), n >= 3 and devs == {"dev-a", "dev-b"},
        "%d runs on %s" % (n, sorted(devs)))
srv = json.load(open(f"{t}/lab1/requests.json"))
res("token-in-header", srv["requests"] > 0 and srv["unauthorized"] == 0, repr(srv))
params = open(f"{t}/b/bisect.json").read()
res("token-not-kept", "tok3n" not in params and json.loads(params)["runner"] == "lava", params)
sys.exit(0 if ok else 1)
PY
if grep -rq "tok3n" "$TMP/out" "$TMP/err" "$TMP/b" "$TMP/lab1/server.log" 2>/dev/null; then
	fail token-not-printed "the token appears in an output"
else
	pass token-not-printed
fi

# resumed: every run is there, nothing submitted again
subs=$("$PYTHON" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["definitions"]))' "$TMP/lab1/requests.json")
rc=0
LAVA_TOKEN_FILE=$TMP/token "$LATWATT" bisect -o "$TMP/b" >"$TMP/out2" 2>"$TMP/err2" || rc=$?
subs2=$("$PYTHON" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["definitions"]))' "$TMP/lab1/requests.json")
[ $rc = 0 ] && grep -q "^first bad version: v6" "$TMP/out2" && [ "$subs" = "$subs2" ] &&
	pass "resume-no-resubmit ($subs jobs)" || fail resume-no-resubmit "status $rc, jobs $subs then $subs2: $(tail -3 "$TMP/err2")"

# the version before the regression fails: the first bad is v5 or v6, said
# so; one rendered job file per version ('{version}' in the file's name)
start_lab "$TMP/lab2" v5
mkdir -p "$TMP/jobs"
for i in 1 2 3 4 5 6 7 8; do
	printf 'device_type: qemu\njob_name: bisect v%s\nactions:\n- boot: {}\n' $i >"$TMP/jobs/v$i.yaml"
done
rc=0
LAVA_TOKEN_FILE=$TMP/token "$LATWATT" bisect -o "$TMP/b2" --good v1 --bad v8 --versions "$versions" --repeat 3 \
	--lava-job "$TMP/jobs/{version}.yaml" --lab-interval 50ms --json \
	>"$TMP/out3" 2>"$TMP/err3" < /dev/null || rc=$?
py only-skipped "$TMP/out3" "$rc" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ok = (sys.argv[2] == "1" and r["status"] == "only skipped left" and r["last_good"] == "v4" and
      r["first_bad_among"] == ["v5", "v6"] and r["skipped"] == ["v5"])
print(("PASS: " if ok else "FAIL: ") + "only-skipped-left" + ("" if ok else ": status %s %r" % (sys.argv[2], r)))
sys.exit(0 if ok else 1)
PY

# no token anywhere: refused before anything is sent
rc=0
"$LATWATT" bisect -o "$TMP/b3" --good v1 --bad v8 --versions "$versions" \
	--lava-job "$TMP/job.yaml" --lab-interval 50ms >/dev/null 2>"$TMP/err4" || rc=$?
[ $rc = 2 ] && grep -q "no LAVA API token" "$TMP/err4" && pass no-token || fail no-token "status $rc: $(cat "$TMP/err4")"
rc=0
"$LATWATT" bisect -o "$TMP/b4" --good v1 --bad v8 --versions "$versions" --run-cmd true \
	--token-file "$TMP/token" >/dev/null 2>"$TMP/err5" || rc=$?
[ $rc = 2 ] && grep -q "are for --lava-job" "$TMP/err5" && pass lab-options-need-lava-job ||
	fail lab-options-need-lava-job "status $rc: $(cat "$TMP/err5")"
"$LATWATT" bisect --help | grep -q -- "--lava-job FILE" && pass help || fail help
finish
