#!/usr/bin/env bash
# latwatt bisect on a planted regression: six "versions" of this machine,
# where from v4 on a SCHED_FIFO thread of higher priority than the probe
# spins 3 ms every 10 ms on the measured CPU: three samples in ten late, by
# up to 3 ms, so p99 moves to about 3 ms. A busy host moves it far less,
# even on a non-preemptible kernel (p99 about 0.6 ms under a parallel build
# at load 9, where a 1 ms spin could not be told from the load).
# Each run is a real 'latwatt run' through --run-cmd.  bisect must name v4,
# say how many runs it took, keep its log and runs, resume after SIGINT
# without redoing runs, and refuse to bisect when good and bad are alike.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd "$PYTHON"
mk_tmp
[ -n "${KEEP:-}" ] && trap - EXIT && echo "keeping $TMP"
ncpu=$(getconf _NPROCESSORS_ONLN)
cpu=$((ncpu - 1))

cat >"$TMP/hog.py" <<'PY'
import ctypes, os, sys, time
cpu, ready = int(sys.argv[1]), sys.argv[2]
libc = ctypes.CDLL(None)
libc.prctl(15, b"lw-planted", 0, 0, 0)
# gone with its run command, however that ends (a bisect interrupted in a
# planted version's run kills it): a planted task left spinning would make
# the next runs of every version slow alike
ppid = os.getppid()
libc.prctl(1, 9, 0, 0, 0)		# PR_SET_PDEATHSIG, SIGKILL
if os.getppid() != ppid:
    sys.exit(0)
os.sched_setaffinity(0, {cpu})
os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(98))
open(ready, "w").close()
# until killed (at most a minute): the whole run is measured beside it
end = time.monotonic_ns() + 60 * 10**9
nxt = time.monotonic_ns()
while nxt < end:
    left = (nxt - time.monotonic_ns()) / 1e9
    if left > 0:
        time.sleep(left)
    t0 = time.monotonic_ns()
    while time.monotonic_ns() - t0 < 3_000_000:
        pass
    nxt += 10_000_000
PY
# the run command: VERSION OUT [PLANTED-FROM]. The planted task is running
# before the run starts and until it ends (on a busy host a run's start-up
# can take longer than its measurement), so every sample is measured beside it.
cat >"$TMP/plant-run" <<EOF
#!/bin/bash
v=\${1#v}
hog=
trap '[ -n "\$hog" ] && kill \$hog 2>/dev/null' EXIT
if [ "\$v" -ge "\${3:-4}" ]; then
	rm -f "$TMP/hog.ready"
	"$PYTHON" "$TMP/hog.py" $cpu "$TMP/hog.ready" & hog=\$!
	for _ in \$(seq 300); do [ -e "$TMP/hog.ready" ] && break; sleep 0.05; done
	[ -e "$TMP/hog.ready" ] || { echo "plant-run: the planted task did not start" >&2; kill \$hog; exit 1; }
fi
"$LATWATT" run -q -d 2s -c $cpu -i 500 -p 95 --trace off -o "\$2"
rc=\$?
rm -f "$TMP/hog.ready"
exit \$rc
EOF
chmod +x "$TMP/plant-run"
versions=v1,v2,v3,v4,v5,v6

start=$(date +%s)
"$LATWATT" bisect -o "$TMP/b" --good v1 --bad v6 --versions "$versions" \
	--metric 'cyclic.p99:worse' --repeat 3 --max-repeat 6 \
	--run-cmd "$TMP/plant-run {version} {out}" >"$TMP/out" 2>"$TMP/err"
rc=$?
secs=$(( $(date +%s) - start ))
[ $rc -eq 0 ] && pass "bisect-finds (${secs}s)" || {
	fail "bisect-finds" "exit $rc: $(tail -5 "$TMP/err") $(tail -5 "$TMP/out")"
	# what each run measured, to tell a weak plant from a noisy machine
	for r in "$TMP"/b/runs/*/run-??; do
		echo "    $(basename "$(dirname "$r")")/$(basename "$r"): cyclic p99 $("$LATWATT" analyze -n --json "$r" 2>/dev/null |
			"$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["probes"]["cyclic"]["all"]["p99_ns"])' 2>&1)"
	done
	uptime
}
"$PYTHON" - "$TMP/b/result.json" <<'PY' && pass "names-planted-v4" || fail "names-planted-v4" "$(cat "$TMP/out")"
import json, sys
r = json.load(open(sys.argv[1]))
print("first bad", r["first_bad"], "last good", r["last_good"], "runs", r["runs_total"],
      "steps", [(s["version"], s["class"], s["runs"]) for s in r["steps"]])
assert r["schema"] == "latwatt-bisect" and r["status"] == "found", r["status"]
assert r["first_bad"] == "v4" and r["last_good"] == "v3", r
assert r["runs_total"] >= 12 and r["runs_made"] == r["runs_total"]
assert r["evidence"] == "comparison.json"
PY
grep -q "^first bad version: v4 (last good: v3)" "$TMP/out" && pass "text-names-v4" ||
	fail "text-names-v4" "$(tail -3 "$TMP/out")"
"$PYTHON" - "$TMP/b/comparison.json" <<'PY' && pass "evidence-is-a-comparison" || fail "evidence-is-a-comparison"
import json, sys
c = json.load(open(sys.argv[1]))
assert c["schema"] == "latwatt-comparison", c.get("schema")
assert any(x.get("result") == "fail" for x in c["rules"]), c["rules"]
PY
grep -q "^run v4 " "$TMP/b/bisect.log" && grep -q "^judge v6 against v1: worse" "$TMP/b/bisect.log" &&
	grep -q "^result found: v4" "$TMP/b/bisect.log" && pass "log-kept" || fail "log-kept" "$(cat "$TMP/b/bisect.log")"

# -- interrupted, then resumed: the runs it has are not made again
"$LATWATT" bisect -o "$TMP/r" --good v1 --bad v6 --versions "$versions" \
	--metric 'cyclic.p99:worse' --repeat 3 --max-repeat 6 \
	--run-cmd "$TMP/plant-run {version} {out}" >"$TMP/out1" 2>"$TMP/err1" &
pid=$!
# stop it during its fifth run
for _ in $(seq 200); do
	[ "$(ls -d "$TMP"/r/runs/*/run-* 2>/dev/null | grep -vc '\.log$')" -ge 5 ] && break
	sleep 0.1
done
kill -INT $pid; wait $pid; rc=$?
[ $rc -eq 130 ] && pass "interrupted-exit-130" || fail "interrupted-exit-130" "exit $rc: $(tail -3 "$TMP/err1")"
before=$(ls -d "$TMP"/r/runs/*/run-?? 2>/dev/null | wc -l)
"$LATWATT" bisect -o "$TMP/r" >"$TMP/out2" 2>"$TMP/err2"; rc=$?
"$PYTHON" - "$TMP/r/result.json" "$before" <<'PY' && [ $rc -eq 0 ] && pass "resumed" || fail "resumed" "exit $rc: $(tail -3 "$TMP/err2")"
import json, sys
r = json.load(open(sys.argv[1])); before = int(sys.argv[2])
print("resumed: %d runs there before, %d made after, %d in all" % (before, r["runs_made"], r["runs_total"]))
assert r["first_bad"] == "v4", r["first_bad"]
assert r["runs_made"] < r["runs_total"]
PY

# -- good and bad alike (nothing planted before v9): no difference, exit 1
# (at --alpha 0.01: a false "worse" between alike versions at most 1 in 100)
sed -i 's/\${3:-4}/9/' "$TMP/plant-run"
"$LATWATT" bisect -o "$TMP/same" --good v1 --bad v6 --versions "$versions" \
	--metric 'cyclic.p99:worse' --repeat 3 --max-repeat 3 --alpha 0.01 \
	--run-cmd "$TMP/plant-run {version} {out}" >"$TMP/out3" 2>"$TMP/err3"; rc=$?
[ $rc -eq 1 ] && grep -q "nothing to bisect" "$TMP/out3" &&
	[ "$(json "$TMP/same/result.json" '["status"]')" = "no difference" ] && pass "no-difference-declines" ||
	fail "no-difference-declines" "exit $rc: $(tail -3 "$TMP/out3") $(tail -3 "$TMP/err3")"

# -- bad input
"$LATWATT" bisect -o "$TMP/x" --good v9 --bad v6 --versions "$versions" --run-cmd true >/dev/null 2>"$TMP/e"
[ $? -eq 2 ] && grep -q "not among the versions" "$TMP/e" && pass "unknown-good" || fail "unknown-good" "$(cat "$TMP/e")"
"$LATWATT" bisect -o "$TMP/x" --good v5 --bad v2 --versions "$versions" --run-cmd true >/dev/null 2>"$TMP/e"
[ $? -eq 2 ] && grep -q "must come before" "$TMP/e" && pass "good-after-bad" || fail "good-after-bad" "$(cat "$TMP/e")"
"$LATWATT" bisect -o "$TMP/b" --good v2 --bad v6 --versions "$versions" --run-cmd true >/dev/null 2>"$TMP/e"
[ $? -eq 2 ] && grep -q "other parameters" "$TMP/e" && pass "other-bisect-refused" || fail "other-bisect-refused" "$(cat "$TMP/e")"
"$LATWATT" bisect --help | grep -q "^usage: latwatt bisect" && pass "help" || fail "help"
finish
