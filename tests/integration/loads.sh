#!/usr/bin/env bash
# External loads (--load) against the real stress-ng, hackbench and rt-app:
# started, placed, logged, recorded, and none of their processes left behind
# after SIGINT, SIGTERM, a failing load, a load killed from outside, or
# latwatt itself killed with SIGKILL.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd stress-ng
need_cmd hackbench
mk_tmp

# Every descendant of PID, as "pid:starttime" (so a reused pid is not taken
# for a survivor).
descendants() {
	"$PYTHON" - "$1" <<'PY'
import os, sys
kids = {}
for p in os.listdir('/proc'):
    if not p.isdigit():
        continue
    try:
        st = open(f'/proc/{p}/stat').read()
    except OSError:
        continue
    f = st[st.rindex(')') + 2:].split()
    kids.setdefault(int(f[1]), []).append((int(p), f[19]))
out, todo = [], [int(sys.argv[1])]
while todo:
    for pid, start in kids.get(todo.pop(), []):
        out.append(f'{pid}:{start}')
        todo.append(pid)
print(' '.join(out))
PY
}
# How many of "pid:starttime" still run.
survivors() {
	local n=0 x pid start
	for x in $1; do
		pid=${x%%:*} start=${x#*:}
		st=$(cat /proc/$pid/stat 2>/dev/null) || continue
		st=${st##*) }
		# the same process (start time), and not a zombie waiting to be reaped
		[ "$(cut -d' ' -f20 <<<"$st")" = "$start" ] && [ "${st:0:1}" != Z ] && n=$((n + 1))
	done
	echo $n
}
# Wait (up to 10 s) until PID has descendants named after each of the words.
wait_for_loads() {
	local pid=$1 i w ok; shift
	for i in $(seq 100); do
		ok=1
		for w in "$@"; do pgrep -P "$pid" -x "$w" >/dev/null || ok=0; done
		[ $ok = 1 ] && return 0
		sleep 0.1
	done
	return 1
}

SNG='stress-ng --cpu 1 --vm 1 --vm-bytes 16M'
HB='hackbench -g 1 -f 4 -l 100000000'

# -- SIGINT and SIGTERM mid-run: nothing of the loads survives, commands recorded
for sig in INT TERM; do
	run=$TMP/sig$sig
	"$LATWATT" run -d 60s -q -o "$run" -l "$SNG" -l "cpus=0 $HB" >"$TMP/out$sig" 2>&1 &
	lw=$!
	if ! wait_for_loads $lw stress-ng hackbench; then
		fail "sig$sig-loads-started" "no stress-ng/hackbench under latwatt after 10s"
		kill -KILL $lw; wait $lw; continue
	fi
	sleep 1
	procs=$(descendants $lw)
	n=$(wc -w <<<"$procs")
	[ "$n" -ge 4 ] && pass "sig$sig-loads-running ($n processes)" ||
		fail "sig$sig-loads-running" "only $n processes"
	kill -$sig $lw
	wait $lw
	rc=$?
	want=$((128 + $(kill -l $sig)))
	[ $rc = $want ] && pass "sig$sig-exit-$want" || fail "sig$sig-exit-$want" "exit $rc: $(cat "$TMP/out$sig")"
	left=$(survivors "$procs")
	[ "$left" = 0 ] && pass "sig$sig-no-orphans" || fail "sig$sig-no-orphans" "$left processes survive"
	"$PYTHON" - "$run" "$SNG" "$HB" "$sig" <<'PY' && pass "sig$sig-manifest-records-loads" || fail "sig$sig-manifest-records-loads"
import json, os, sys
run, sng, hb, sig = sys.argv[1:]
m = json.load(open(run + "/manifest.json"))
assert m["status"] == "incomplete" and m["status_reason"] == "interrupted by SIG" + sig, m["status_reason"]
l = {x["name"]: x for x in m["loads"]}
assert set(l) == {"stress-ng", "hackbench"}, l.keys()
assert l["stress-ng"]["command"] == sng, l["stress-ng"]["command"]
assert l["stress-ng"]["argv"] == sng.split()
assert l["hackbench"]["command"] == hb and l["hackbench"]["spec"] == "cpus=0 " + hb
assert l["hackbench"]["cpus"] == "0" and l["hackbench"]["package"] == "rt-tests"
assert l["stress-ng"]["path"].endswith("/stress-ng") and l["stress-ng"]["package"] == "stress-ng"
for x in l.values():
    r = x["runs"]
    assert x["starts"] == 1 and len(r) == 1, r
    assert r[0]["stopped_by_latwatt"] is True and "end_ns" in r[0], r
    assert ("exit_status" in r[0]) != ("signal" in r[0]), r
    log = os.path.join(run, x["log"])
    assert os.path.getsize(log) > 0, log
    assert open(log).readline().startswith("# latwatt: start 1 at "), log
PY
done

# -- placement: cpus= is the affinity of the load and of what it starts
if [ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ]; then
	"$LATWATT" run -d 30s -q -o "$TMP/place" -l "cpus=1 stress-ng --cpu 2" >"$TMP/out" 2>&1 &
	lw=$!
	if wait_for_loads $lw stress-ng; then
		sleep 1
		bad=0 n=0
		for x in $(descendants $lw); do
			a=$(sed -n 's/^Cpus_allowed_list:\t//p' /proc/${x%%:*}/status 2>/dev/null) || continue
			[ -n "$a" ] || continue
			n=$((n + 1)); [ "$a" = 1 ] || bad=$((bad + 1))
		done
		[ $n -ge 3 ] && [ $bad = 0 ] && pass "placement-cpus-1 ($n processes)" ||
			fail "placement-cpus-1" "$bad of $n processes not on cpu 1"
	else
		fail "placement-cpus-1" "stress-ng did not start"
	fi
	kill -INT $lw; wait $lw
else
	skip "placement-cpus-1" "needs 2 CPUs"
fi

# -- a load that ends by itself: restart=yes starts it again, every run recorded
if "$LATWATT" run -d 2s -q -o "$TMP/restart" -l "restart=yes hackbench -g 1 -f 2 -l 50" \
	-l "name=short stress-ng --cpu 1 --timeout 1s" >"$TMP/out" 2>&1; then
	pass "restart-run-complete"
else
	fail "restart-run-complete" "$(cat "$TMP/out")"
fi
grep -q "warning: load short ended before the run did" "$TMP/out" &&
	pass "early-end-warned" || fail "early-end-warned" "$(cat "$TMP/out")"
"$PYTHON" - "$TMP/restart" <<'PY' && pass "restart-recorded" || fail "restart-recorded"
import json, sys
m = json.load(open(sys.argv[1] + "/manifest.json"))
assert m["status"] == "complete", m["status"]
l = {x["name"]: x for x in m["loads"]}
hb = l["hackbench"]
assert hb["restart"] is True and hb["starts"] >= 3 and len(hb["runs"]) == hb["starts"], hb["starts"]
assert all(r["exit_status"] == 0 for r in hb["runs"][:-1]), hb["runs"]
assert all(not r["stopped_by_latwatt"] for r in hb["runs"][:-1])
s = l["short"]["runs"]
assert len(s) == 1 and s[0]["exit_status"] == 0 and s[0]["stopped_by_latwatt"] is False, s
PY

# -- a load that fails stops the run with an error naming it and its log
"$LATWATT" run -d 20s -q -o "$TMP/failing" -l "stress-ng --no-such-option" >"$TMP/out" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "run incomplete: error: load stress-ng exited with status [1-9].* (see loads/stress-ng.log)" "$TMP/out" &&
	pass "failing-load-stops-run" || fail "failing-load-stops-run" "exit $rc: $(cat "$TMP/out")"

# -- a load's leader killed from outside: its orphans are reaped, the run stops
"$LATWATT" run -d 30s -q -o "$TMP/killed" -l "stress-ng --cpu 2" >"$TMP/out" 2>&1 &
lw=$!
if wait_for_loads $lw stress-ng; then
	sleep 1
	procs=$(descendants $lw)
	kill -KILL "$(pgrep -P $lw -x stress-ng | head -1)"
	wait $lw
	rc=$?
	[ $rc = 2 ] && grep -q "load stress-ng was killed by SIGKILL" "$TMP/out" &&
		pass "killed-leader-stops-run" || fail "killed-leader-stops-run" "exit $rc: $(cat "$TMP/out")"
	left=$(survivors "$procs")
	[ "$left" = 0 ] && pass "killed-leader-no-orphans" || fail "killed-leader-no-orphans" "$left survive"
else
	fail "killed-leader-stops-run" "stress-ng did not start"; kill -KILL $lw; wait $lw
fi

# -- latwatt itself killed with SIGKILL: the loads get SIGTERM (parent death signal)
"$LATWATT" run -d 30s -q -o "$TMP/sigkill" -l "$SNG" -l "$HB" >"$TMP/out" 2>&1 &
lw=$!
if wait_for_loads $lw stress-ng hackbench; then
	sleep 1
	procs=$(descendants $lw)
	kill -KILL $lw; wait $lw 2>/dev/null
	for i in $(seq 50); do [ "$(survivors "$procs")" = 0 ] && break; sleep 0.1; done
	left=$(survivors "$procs")
	[ "$left" = 0 ] && pass "latwatt-sigkill-no-orphans" || fail "latwatt-sigkill-no-orphans" "$left survive"
else
	fail "latwatt-sigkill-no-orphans" "loads did not start"; kill -KILL $lw; wait $lw
fi

# -- a missing program is refused before the run directory is made, naming the package
"$LATWATT" run -d 1s -q -o "$TMP/missing" -l "/nonexistent/hackbench -g 1" >"$TMP/out" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "install the Debian package rt-tests" "$TMP/out" && [ ! -e "$TMP/missing" ] &&
	pass "missing-program-names-package" || fail "missing-program-names-package" "exit $rc: $(cat "$TMP/out")"
"$LATWATT" run -d 1s -q -o "$TMP/bad" -l "cpu=1 stress-ng" >"$TMP/out" 2>&1
[ $? = 2 ] && grep -q "unknown setting 'cpu'" "$TMP/out" && pass "bad-setting" || fail "bad-setting" "$(cat "$TMP/out")"
"$LATWATT" run -d 1s -q -o "$TMP/starve" -l "policy=fifo prio=99 stress-ng --cpu 1" >"$TMP/out" 2>&1
[ $? = 2 ] && grep -q "would starve the probes" "$TMP/out" && [ ! -e "$TMP/starve" ] &&
	pass "starving-load-refused" || fail "starving-load-refused" "$(cat "$TMP/out")"

# -- rt-app: run on a copy of its file kept in the run, its logs there too
if command -v rt-app >/dev/null; then
	if "$LATWATT" run -d 2s -q -o "$TMP/rtapp" -l "rt-app $TOP/tests/data/scenarios/rt-app-light.json" \
		>"$TMP/out" 2>&1; then
		pass "rt-app-run-complete"
	else
		fail "rt-app-run-complete" "$(cat "$TMP/out")"
	fi
	"$PYTHON" - "$TMP/rtapp" "$TOP/tests/data/scenarios/rt-app-light.json" <<'PY' && pass "rt-app-config-kept" || fail "rt-app-config-kept"
import json, sys, os
run, src = sys.argv[1:]
m = json.load(open(run + "/manifest.json"))
l = m["loads"][0]
assert l["name"] == "rt-app" and l["config"] == "loads/rt-app.json", l
assert open(os.path.join(run, l["config"])).read() == open(src).read()
assert l["argv"] == ["rt-app", os.path.join(run, "loads/rt-app.json")], l["argv"]
assert l["runs"][0]["stopped_by_latwatt"] is True, l["runs"]
assert any(f.startswith("rt-app-light") for f in os.listdir(run + "/loads")), os.listdir(run + "/loads")
PY
else
	skip "rt-app" "rt-app is not installed (Debian package rt-app)"
fi
finish
