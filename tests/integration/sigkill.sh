#!/bin/bash
# SIGKILL at random moments during short runs that change everything a run
# changes (RT throttling off for the noise probe, PM QoS held, a trace
# instance with .trace-cpuN files, an external load whose child escapes with
# setsid), then 'latwatt cleanup' or the next 'latwatt run': the kernel's
# tracing, RT throttling and PM QoS state and the process table are as they
# were before, and the killed run is analyzable as incomplete.
#   SIGKILL_RUNS=N (default 8) runs; each is killed 0.3 to 2.5 s after it starts.
. "$(dirname "$0")/lib.sh"
need_tracefs
need_cmd "$PYTHON"
mk_tmp
RUNS=${SIGKILL_RUNS:-8}
RT=/proc/sys/kernel/sched_rt_runtime_us
[ -w "$RT" ] || skip_all "$RT is not writable here"
ncpu=$(nproc)
[ "$ncpu" -ge 2 ] || skip_all "needs 2 CPUs (a noise CPU and a cyclic one)"
noise_cpu=$((ncpu - 1))

pmqos() { "$PYTHON" -c 'import struct; print(struct.unpack("i", open("/dev/cpu_dma_latency","rb").read(4))[0])'; }
instances() { ls "$TRACEFS/instances" 2>/dev/null | grep '^latwatt-' | sort; }
cgroups() { find /sys/fs/cgroup -maxdepth 6 -type d -name 'latwatt-loads-*' 2>/dev/null | sort; }
# processes of ours: the load's marker sleeps, and latwatt runs
leftovers() { pgrep -f 'sleep 9876[56]'; pgrep -f -- "-o $TMP/"; }
qos_holders() {	# latwatt processes holding /dev/cpu_dma_latency open
	for p in $(pgrep -x latwatt); do
		ls -l "/proc/$p/fd" 2>/dev/null | grep -q cpu_dma_latency && echo "$p"
	done
}

rt_before=$(cat "$RT")
qos_before=$(pmqos)
inst_before=$(instances)
cg_before=$(cgroups)
# journals of runs before this test (other runs killed while writing theirs
# leave run-PID.json.tmp.* behind): only what this test's runs leave counts
journals() { ls /run/latwatt 2>/dev/null | grep '^run-' | sort; }
journal_before=$(journals)
[ -z "$(leftovers)" ] || skip_all "latwatt or the test's marker processes are already running"
# A load's child that leaves with setsid is caught only by the loads' cgroup
# (cgroup v2); without one (a chroot with no cgroup mount) it is not planted.
cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
if [ -n "$cg2" ] && [ -e "$cg2/cgroup.controllers" ]; then
	load="sh -c 'setsid sleep 98765 & exec sleep 98766'"
else
	load="sh -c 'exec sleep 98766'"
	skip "setsid-child-contained" "no cgroup v2 mounted here: a load's setsid child cannot be contained"
fi

state_ok() {	# state_ok NAME RUNDIR
	local why=""
	[ "$(cat "$RT")" = "$rt_before" ] || why="$why sched_rt_runtime_us=$(cat "$RT") (was $rt_before);"
	[ "$(pmqos)" = "$qos_before" ] || why="$why PM QoS $(pmqos) (was $qos_before);"
	[ -z "$(qos_holders)" ] || why="$why PM QoS held by $(qos_holders);"
	[ "$(instances)" = "$inst_before" ] || why="$why trace instances: $(instances | tr '\n' ' ');"
	[ "$(cgroups)" = "$cg_before" ] || why="$why cgroups: $(cgroups | tr '\n' ' ');"
	[ -z "$(leftovers)" ] || why="$why processes left: $(leftovers | tr '\n' ' ');"
	ls -A "$2" 2>/dev/null | grep -q '^\.trace-cpu' && why="$why .trace-cpuN left in $2;"
	local left
	left=$(comm -13 <(echo "$journal_before") <(journals) | grep .)
	[ -n "$left" ] && why="$why journal left: $(echo $left);"
	if [ -z "$why" ]; then pass "$1"; else fail "$1" "$why"; return 1; fi
}

# the run changes what it should (else the test proves nothing)
start_run() {	# start_run DIR: a run in the background, $! its pid
	"$LATWATT" run -d 60s -q -c 0-"$noise_cpu" --probes cyclic,noise --noise-cpus "$noise_cpu" \
		--pm-qos 0 --trace-buffer 256k --no-kallsyms \
		-l "$load" -o "$1" >"$1.log" 2>&1 &
}
start_run "$TMP/probe"
pid=$!
changed=""
for _ in $(seq 1 60); do
	sleep 0.1
	[ "$(cat "$RT")" = -1 ] && [ -n "$(pgrep -f 'sleep 9876[56]')" ] && [ -n "$(ls -A "$TMP/probe" | grep trace-cpu)" ] &&
		[ "$(pmqos)" = 0 ] && { changed=yes; break; }
done
kill -KILL "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
if [ -n "$changed" ]; then
	pass "a run changes RT throttling, PM QoS, tracing and starts the load"
else
	fail "a run changes RT throttling, PM QoS, tracing and starts the load" \
		"rt=$(cat "$RT") qos=$(pmqos) $(cat "$TMP/probe.log")"
fi
# killed, not running (and never complete): before cleanup by its writer's
# pid being gone, after it by its manifest
"$LATWATT" analyze -n --json "$TMP/probe" >"$TMP/an0.json" 2>"$TMP/an0.err"
[ "$(json "$TMP/an0.json" '["run"]["status"]')" = killed ] &&
	[ "$(json "$TMP/probe/manifest.json" '["status"]')" = running ] &&
	pass "a killed run reads killed before cleanup" ||
	fail "a killed run reads killed before cleanup" "$(head -c 300 "$TMP/an0.json"; cat "$TMP/an0.err")"
: >"$TMP/probe/manifest.json.tmp.0123456789ab"	# as a write cut short leaves it
"$LATWATT" cleanup "$TMP/probe" >"$TMP/cleanup.out" 2>&1 || fail "cleanup-status" "$(cat "$TMP/cleanup.out")"
state_ok "cleanup after SIGKILL restores everything" "$TMP/probe"
[ "$(json "$TMP/probe/manifest.json" '["status"]')" = killed ] &&
	json "$TMP/probe/manifest.json" '["status_reason"]' | grep -q "marked by cleanup at" &&
	grep -q "marked $(realpath "$TMP/probe") killed" "$TMP/cleanup.out" &&
	pass "cleanup marks the killed run's manifest killed" ||
	fail "cleanup marks the killed run's manifest killed" "$(json "$TMP/probe/manifest.json" '["status"]'): $(cat "$TMP/cleanup.out")"
[ ! -e "$TMP/probe/manifest.json.tmp.0123456789ab" ] && [ -f "$TMP/probe/manifest.json" ] &&
	pass "cleanup removes temporary files, keeps the run" || fail "cleanup removes temporary files, keeps the run"
grep -q "restored $RT to '$rt_before'" "$TMP/cleanup.out" && pass "cleanup says what it restored" ||
	fail "cleanup says what it restored" "$(cat "$TMP/cleanup.out")"

# the killed run is read as incomplete, with every whole record, also when
# it was cut in the middle of one
# (a header of 64 bytes is on disk from the start; records follow it)
if [ "$(stat -c %s "$TMP/probe/samples" 2>/dev/null || echo 0)" -gt 64 ]; then
	truncate -s -5 "$TMP/probe/samples"
	"$LATWATT" analyze -n "$TMP/probe" >"$TMP/an.out" 2>&1; rc=$?
	# analyzed (every whole record), and never PASS: INCOMPLETE, exit 2
	if [ $rc -eq 2 ] && grep -q "left out" "$TMP/an.out" && grep -q '^verdict: INCOMPLETE: ' "$TMP/an.out" &&
	   grep -q '^  all ' "$TMP/an.out"; then
		pass "a killed run with a partial last record is analyzed"
	else
		fail "a killed run with a partial last record is analyzed" "status $rc: $(tail -n3 "$TMP/an.out")"
	fi
else
	skip "a killed run with a partial last record is analyzed" "no samples written before the kill"
fi

# random moments; every other kill is cleaned up by the next run instead
failed_runs=0
for i in $(seq 1 "$RUNS"); do
	start_run "$TMP/k$i"
	pid=$!
	delay=$("$PYTHON" -c 'import random; print(round(random.uniform(0.3, 2.5), 2))')
	sleep "$delay"
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	if [ $((i % 2)) = 1 ] && [ "$i" != "$RUNS" ]; then
		continue	# the next run's start replays the journal
	fi
	"$LATWATT" cleanup "$TMP/k$i" >"$TMP/cleanup.out" 2>&1 || fail "cleanup-$i" "$(cat "$TMP/cleanup.out")"
	prev=$((i - 1))
	[ "$prev" -ge 1 ] && [ -e "$TMP/k$prev" ] && "$LATWATT" cleanup "$TMP/k$prev" >/dev/null 2>&1
	state_ok "state restored after SIGKILL at ${delay}s (run $i)" "$TMP/k$i" ||
		failed_runs=$((failed_runs + 1))
done
[ "$failed_runs" = 0 ] && pass "$RUNS runs killed at random moments: nothing left" ||
	fail "$RUNS runs killed at random moments: nothing left" "$failed_runs checks failed"
# every one of them marked killed, by cleanup or by the next run's start
still=""
for i in $(seq 1 "$RUNS"); do
	[ -f "$TMP/k$i/manifest.json" ] || continue
	st=$(json "$TMP/k$i/manifest.json" '["status"]')
	[ "$st" = killed ] || still="$still k$i:$st"
done
[ -z "$still" ] && pass "every run killed at random is marked killed" ||
	fail "every run killed at random is marked killed" "$still"

# and a normal run leaves nothing either: not the load's setsid'd child
"$LATWATT" run -d 1s -q -c 0 --trace off -l "$load" \
	-o "$TMP/normal" >"$TMP/normal.log" 2>&1 || fail "normal-run" "$(cat "$TMP/normal.log")"
state_ok "a normal run leaves no process of its loads" "$TMP/normal"

# trace.dat holds kernel addresses: not readable by others
"$LATWATT" run -d 300ms -q -c 0 --trace-buffer 256k -o "$TMP/perm" >/dev/null 2>&1
if [ -f "$TMP/perm/trace.dat" ]; then
	m=$(stat -c %a "$TMP/perm/trace.dat")
	[ "$m" = 600 ] && pass "trace.dat is 0600" || fail "trace.dat is 0600" "mode $m"
else
	skip "trace.dat is 0600" "the run wrote no trace.dat"
fi
# A live run's files are its own: a journal left by a run that died in the
# same directory (planted: a dead pid, the live run's directory) does not
# make a replay remove them, and the run's per-CPU files removed by hand
# while it records do not cost it the trace (finish reads them through the
# descriptors it holds).
STATE=/run/latwatt
"$LATWATT" run -d 4s -q -c 0 -o "$TMP/live" >"$TMP/live.log" 2>&1 &
lwp=$!
for _ in $(seq 100); do ls "$TMP/live"/.trace-cpu* >/dev/null 2>&1 && break; sleep 0.05; done
if ls "$TMP/live"/.trace-cpu* >/dev/null 2>&1 && [ -d "$STATE" ]; then
	dead=4194000	# above any pid_max default: never a live process
	printf '{"schema":"latwatt-journal","version":1,"pid":%d,"starttime":1,"rundir":"%s","knobs":[],"instances":[],"cgroups":[]}' \
		"$dead" "$(realpath "$TMP/live")" >"$STATE/run-$dead.json"
	"$LATWATT" cleanup >"$TMP/live-cleanup.out" 2>&1
	grep -q "left $(realpath "$TMP/live") alone: a live run writes into it" "$TMP/live-cleanup.out" &&
		ls "$TMP/live"/.trace-cpu* >/dev/null 2>&1 &&
		pass "a dead run's journal does not remove a live run's files" ||
		fail "a dead run's journal does not remove a live run's files" "$(cat "$TMP/live-cleanup.out")"
	grep -q "pid [0-9]* (latwatt): .*left $(realpath "$TMP/live") alone" "$STATE/replay.log" &&
		pass "a replay logs what it did in $STATE/replay.log" ||
		fail "a replay logs what it did in $STATE/replay.log" "$(tail -3 "$STATE/replay.log" 2>&1)"
	rm -f "$STATE/run-$dead.json"
	rm -f "$TMP/live"/.trace-cpu*
	wait $lwp && [ -s "$TMP/live/trace.dat" ] &&
		"$PYTHON" -c 'import json,os,sys; t=json.load(open(sys.argv[1]))["trace"]
b = sum(c["bytes"] for c in t["cpus"])
print("events %d, %d bytes recorded, trace.dat %d bytes" % (t["events_recorded"], b, os.path.getsize(sys.argv[2])))
sys.exit(0 if t["events_recorded"] > 0 and os.path.getsize(sys.argv[2]) >= b > 0 else 1)' \
			"$TMP/live/manifest.json" "$TMP/live/trace.dat" &&
		pass "per-CPU files removed during the run: trace.dat still whole" ||
		fail "per-CPU files removed during the run: trace.dat still whole" "$(tail -3 "$TMP/live.log")"
else
	wait $lwp
	skip "a dead run's journal does not remove a live run's files" "no per-CPU trace file or no $STATE"
fi

# a journal write cut short by a SIGKILL (run-PID.json.tmp.*): what it was
# about to record was not changed yet; once its run is gone it is removed
# (it was kept for ever, and every later state check failed on it); one of a
# live process stays
if [ -d "$STATE" ]; then
	dead=4194001
	printf '{"schema":"latwatt-journal","version":1,"pid":%d,"starttime":1' "$dead" \
		>"$STATE/run-$dead.json.tmp.0123456789ab"
	printf '{"schema":"latwatt-journal","version":1,"pid":%d' $$ >"$STATE/run-$$.json.tmp.0123456789ab"
	"$LATWATT" cleanup >"$TMP/cut.out" 2>&1
	[ ! -e "$STATE/run-$dead.json.tmp.0123456789ab" ] && [ -e "$STATE/run-$$.json.tmp.0123456789ab" ] &&
		grep -q "removed $STATE/run-$dead.json.tmp.0123456789ab" "$TMP/cut.out" &&
		pass "a journal write cut short by SIGKILL is removed once its run is gone" ||
		fail "a journal write cut short by SIGKILL is removed once its run is gone" "$(cat "$TMP/cut.out")"
	rm -f "$STATE/run-$dead.json.tmp.0123456789ab" "$STATE/run-$$.json.tmp.0123456789ab"
fi

# a killed run's directory replaced by a symlink (to a directory holding a
# running manifest and a per-CPU trace file): cleanup never follows it, says
# it leaves it, and still removes the journal: it had kept it, and every
# later run printed the same error (a fresh chroot's first run did)
if [ -d "$STATE" ]; then
	dead=4194002
	mkdir -p "$TMP/victim"
	printf '{"status":"running"}\n' >"$TMP/victim/manifest.json"
	: >"$TMP/victim/.trace-cpu0"
	ln -sfn "$TMP/victim" "$TMP/swapped"
	printf '{"schema":"latwatt-journal","version":1,"pid":%d,"starttime":1,"rundir":"%s","knobs":[],"instances":[]}\n' \
		"$dead" "$TMP/swapped" >"$STATE/run-$dead.json"
	"$LATWATT" cleanup >"$TMP/sw.out" 2>&1
	rc=$?
	"$LATWATT" cleanup >"$TMP/sw2.out" 2>&1
	[ $rc -eq 0 ] && [ ! -e "$STATE/run-$dead.json" ] && [ -e "$TMP/victim/.trace-cpu0" ] &&
		grep -q running "$TMP/victim/manifest.json" &&
		grep -q "left $TMP/swapped as it is" "$TMP/sw.out" && ! grep -q "$dead" "$TMP/sw2.out" &&
		pass "a run directory replaced by a symlink is left, its journal removed" ||
		fail "a run directory replaced by a symlink is left, its journal removed" "exit $rc: $(cat "$TMP/sw.out" "$TMP/sw2.out")"
	rm -f "$STATE/run-$dead.json"
fi

# finally whatever is left is put back, even if a check failed
"$LATWATT" cleanup >/dev/null 2>&1
[ "$(cat "$RT")" = "$rt_before" ] || echo "$rt_before" >"$RT"
finish
