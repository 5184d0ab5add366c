#!/bin/bash
# Run directories and output files that cannot be redirected, and runs that
# cannot overlap.  latwatt runs as root beside an unprivileged user (nobody)
# who owns a folder on the way to where latwatt writes, or plants symlinks:
#   - a symlink in the folder chain at the start of a run, and the run
#     directory swapped for a symlink while the run goes on (by nobody in a
#     folder of theirs, and by root itself: the run keeps writing through the
#     descriptor it opened);
#   - -o under folders of nobody's or writable by others; analyze, report,
#     power import, db, bisect and target outputs through such folders;
#   - two runs at once (RT throttling restored under a live noise run, two
#     runs into one directory), a planted RUN/monitor symlink, and the run
#     lock after SIGKILL.
# Nothing may land in the root-owned folder the attacks point at.  Six checks
# held before (keep them so): run-dir-symlink-at-start, run-under-sticky-
# root-folder, analyze-no-write-still-reads, throttling-restored-after-the-
# live-run and the two after SIGKILL; every other one failed.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd setpriv
getent passwd 65534 >/dev/null || skip_all "needs the unprivileged user nobody (uid 65534)"
mk_tmp; [ -n "${KEEP:-}" ] && trap - EXIT && echo "TMP=$TMP"
chmod 755 "$TMP"	# a root folder nobody can enter but not change
PY=/usr/bin/python3
DATA=$TOP/tests/data/trace-run
[ -f "$DATA/manifest.json" ] || skip_all "no $DATA"
RT=/proc/sys/kernel/sched_rt_runtime_us
rt_before=$(cat "$RT")
RUN=("$LATWATT" run -q -d 2s --trace off)

as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
# the root-owned folder the attacks point at, with files worth keeping
mkvictim() {
	rm -rf "$TMP/root"
	mkdir -m 755 "$TMP/root"
	printf 'precious\n' >"$TMP/root/manifest.json"
	printf 'precious\n' >"$TMP/root/samples"
}
# untouched: the victim folder holds exactly what mkvictim put there
untouched() {
	[ "$(ls -A "$TMP/root" | tr '\n' ' ')" = "manifest.json samples " ] &&
		[ "$(cat "$TMP/root/manifest.json" "$TMP/root/samples")" = "precious
precious" ]
}
mkatt() {	# nobody's folder $TMP/att
	rm -rf "$TMP/att"
	mkdir -m 755 "$TMP/att"
	chown 65534:65534 "$TMP/att"
}
fresh_run() {	# fresh_run DIR: a copy of the recorded test run
	rm -rf "$1"
	mkdir -p "$1" && cp "$DATA/manifest.json" "$DATA/samples" "$1/" && chmod 755 "$1"
}
wait_running() {	# wait_running DIR PID: until DIR/manifest.json says "running" (5 s at most)
	for _ in $(seq 100); do
		grep -q '"running"' "$1/manifest.json" 2>/dev/null && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}
verdict() {	# verdict NAME COND-STATUS DETAIL
	if [ "$2" -eq 0 ]; then pass "$1"; else fail "$1" "$3"; fi
}

# ---- a symlink in the folder chain when the run starts --------------------------
# nobody's folder holds a symlink to the root folder; -o goes through it
mkvictim; mkatt
as_nobody ln -s "$TMP/root" "$TMP/att/link"
"${RUN[@]}" -o "$TMP/att/link/run" >"$TMP/out" 2>&1; rc=$?
untouched && [ ! -e "$TMP/root/run" ] && [ $rc -eq 2 ]
verdict "run-chain-symlink-at-start" $? "rc=$rc, root folder: $(ls -A "$TMP/root"), $(tail -2 "$TMP/out")"
# the run directory itself a symlink (refused before too: keep it so)
mkvictim; mkatt
as_nobody ln -s "$TMP/root" "$TMP/att/run"
"${RUN[@]}" --force -o "$TMP/att/run" >"$TMP/out" 2>&1; rc=$?
untouched && [ $rc -eq 2 ]
verdict "run-dir-symlink-at-start" $? "rc=$rc, root folder: $(ls -A "$TMP/root")"

# ---- the run directory swapped for a symlink while the run goes on -------------
# by nobody, in nobody's folder: as soon as the manifest says "running",
# the directory is renamed away and a symlink to the root folder put there
mkvictim; mkatt
"${RUN[@]}" -o "$TMP/att/run" >"$TMP/out" 2>&1 &
pid=$!
wait_running "$TMP/att/run" $pid
as_nobody mv "$TMP/att/run" "$TMP/att/moved" 2>/dev/null
as_nobody ln -s "$TMP/root" "$TMP/att/run"
wait $pid; rc=$?
untouched && [ $rc -eq 2 ] && grep -q "belongs to uid 65534" "$TMP/out"
verdict "run-dir-swapped-by-folder-owner" $? "rc=$rc, root folder: $(ls -A "$TMP/root"), $(tail -2 "$TMP/out")"
# by root in a folder of root's: the run ends in the directory it opened
mkvictim
rm -rf "$TMP/own"; mkdir -m 755 "$TMP/own"
"${RUN[@]}" -o "$TMP/own/run" >"$TMP/out" 2>&1 &
pid=$!
wait_running "$TMP/own/run" $pid
mv "$TMP/own/run" "$TMP/own/moved"
ln -s "$TMP/root" "$TMP/own/run"
wait $pid; rc=$?
untouched && [ $rc -eq 0 ] && [ "$(json "$TMP/own/moved/manifest.json" '["status"]' 2>/dev/null)" = complete ]
verdict "run-writes-through-its-descriptor" $? \
	"rc=$rc, root folder: $(ls -A "$TMP/root"), moved: $(ls -A "$TMP/own/moved" | tr '\n' ' ')"

# ---- folders that are not safe to write under ------------------------------------
mkatt; chmod 777 "$TMP/att"
"${RUN[@]}" -d 1s -o "$TMP/att/run" >"$TMP/out" 2>&1; rc=$?
[ $rc -eq 2 ] && [ ! -e "$TMP/att/run" ] && grep -q "belongs to uid 65534" "$TMP/out"
verdict "run-under-nobodys-0777-folder" $? "rc=$rc $(tail -2 "$TMP/out")"
rm -rf "$TMP/open"; mkdir -m 777 "$TMP/open"
"${RUN[@]}" -d 1s -o "$TMP/open/run" >"$TMP/out" 2>&1; rc=$?
[ $rc -eq 2 ] && [ ! -e "$TMP/open/run" ] && grep -q "writable by others" "$TMP/out"
verdict "run-under-root-0777-folder" $? "rc=$rc $(tail -2 "$TMP/out")"
# below nobody's folder, however deep, and from a working directory there
mkatt; mkdir -p "$TMP/att/deep"
"${RUN[@]}" -d 1s -o "$TMP/att/deep/run" >"$TMP/out" 2>&1; rc=$?
[ $rc -eq 2 ] && [ ! -e "$TMP/att/deep/run" ] && grep -q "belongs to uid 65534" "$TMP/out"
verdict "run-below-nobodys-folder" $? "rc=$rc $(tail -2 "$TMP/out")"
(cd "$TMP/att/deep" && "${RUN[@]}" -d 1s -o rel >"$TMP/out" 2>&1); rc=$?
[ $rc -eq 2 ] && [ ! -e "$TMP/att/deep/rel" ]
verdict "run-relative-below-nobodys-folder" $? "rc=$rc $(tail -2 "$TMP/out")"
"${RUN[@]}" -d 1s --repeat 2 --settle 0 -o "$TMP/att/deep/rep" >"$TMP/out" 2>&1; rc=$?
[ $rc -eq 2 ] && [ ! -e "$TMP/att/deep/rep" ]
verdict "repeat-below-nobodys-folder" $? "rc=$rc $(tail -2 "$TMP/out")"
# /tmp's way is fine: sticky and root's
rm -rf "$TMP/sticky"; mkdir -m 1777 "$TMP/sticky"
"${RUN[@]}" -d 1s -o "$TMP/sticky/run" >"$TMP/out" 2>&1
verdict "run-under-sticky-root-folder" $? "$(tail -2 "$TMP/out")"

# ---- the outputs of the other commands ---------------------------------------------
# analyze: RUN is nobody's symlink to a root run directory
mkvictim; mkatt
fresh_run "$TMP/rootrun"; printf 'precious\n' >"$TMP/rootrun/analysis.json"
as_nobody ln -s "$TMP/rootrun" "$TMP/att/run"
"$LATWATT" analyze --no-trace "$TMP/att/run" >"$TMP/out" 2>&1; rc=$?
[ "$(cat "$TMP/rootrun/analysis.json")" = precious ] && [ $rc -eq 2 ]
verdict "analyze-through-folder-symlink" $? "rc=$rc, analysis.json: $(head -c 40 "$TMP/rootrun/analysis.json")"
"$LATWATT" analyze --no-trace -n "$TMP/att/run" >"$TMP/out" 2>&1; rc=$?
[ $rc -le 1 ] && grep -q "^run $TMP/att/run" "$TMP/out"	# read (1: a check broken)
verdict "analyze-no-write-still-reads" $? "rc=$rc $(tail -2 "$TMP/out")"
# report: -o, --junit and --markdown through nobody's symlink and below nobody's folder
fresh_run "$TMP/r"
"$LATWATT" analyze --no-trace "$TMP/r" >/dev/null 2>&1
mkvictim; mkatt
as_nobody ln -s "$TMP/root" "$TMP/att/link"
mkdir "$TMP/att/sub"
bad=
for opt in -o --junit --markdown; do
	for out in "$TMP/att/link/out" "$TMP/att/sub/out"; do
		"$LATWATT" report "$TMP/r" $opt "$out" --no-plots >"$TMP/out" 2>&1; rc=$?
		{ [ $rc -eq 2 ] && [ ! -e "$out" ]; } || bad="$bad $opt $out (rc=$rc)"
	done
done
untouched && [ -z "$bad" ]
verdict "report-outputs-below-nobodys-folder" $? "written:$bad; root folder: $(ls -A "$TMP/root")"
# power import: RUN through nobody's symlink
mkvictim; mkatt
fresh_run "$TMP/rootrun"
as_nobody ln -s "$TMP/rootrun" "$TMP/att/run"
printf 'time,watts\n0,1.5\n0.1,1.6\n' >"$TMP/meter.csv"
"$LATWATT" power import "$TMP/att/run" "$TMP/meter.csv" --offset 0 >"$TMP/out" 2>&1; rc=$?
[ $rc -eq 2 ] && [ ! -e "$TMP/rootrun/power" ]
verdict "power-import-through-folder-symlink" $? "rc=$rc $(tail -2 "$TMP/out")"
# db: a results database owned by nobody, and one in a folder others may write
fresh_run "$TMP/r"
rm -rf "$TMP/dbd"; mkdir -m 755 "$TMP/dbd"
"$LATWATT" db --db "$TMP/dbd/results.db" add --no-samples "$TMP/r" >/dev/null 2>&1 ||
	fail "db-setup" "cannot add a run"
chown 65534:65534 "$TMP/dbd/results.db"
sum=$(md5sum <"$TMP/dbd/results.db")
"$LATWATT" db --db "$TMP/dbd/results.db" add --no-samples "$TMP/r" >"$TMP/out" 2>&1; rc=$?
[ $rc -eq 2 ] && [ "$(md5sum <"$TMP/dbd/results.db")" = "$sum" ] && grep -q "belongs to uid 65534" "$TMP/out" &&
	[ ! -e "$TMP/dbd/results.db-wal" ]
verdict "db-owned-by-nobody" $? "rc=$rc $(tail -2 "$TMP/out")"
rm -rf "$TMP/sticky"; mkdir -m 1777 "$TMP/sticky"
"$LATWATT" db --db "$TMP/sticky/results.db" add --no-samples "$TMP/r" >"$TMP/out" 2>&1; rc=$?
[ $rc -eq 2 ] && [ ! -e "$TMP/sticky/results.db" ] && grep -q "writable by others" "$TMP/out"
verdict "db-in-folder-others-write" $? "rc=$rc $(tail -2 "$TMP/out")"
# bisect: its directory through nobody's symlink (the runs themselves fail at once)
mkvictim; mkatt
as_nobody ln -s "$TMP/root" "$TMP/att/link"
"$LATWATT" bisect -o "$TMP/att/link/b" --good v1 --bad v2 --versions v1,v2 --run-cmd /bin/false \
	>"$TMP/out" 2>&1; rc=$?
untouched && [ $rc -eq 2 ]
verdict "bisect-dir-through-folder-symlink" $? "rc=$rc, root folder: $(ls -A "$TMP/root")"
# target: -o below nobody's folder is refused before anything is staged there
# (no board is reached: the refusal comes first)
mkatt
"$LATWATT" target --ssh root@127.0.0.1 -t 1 -o "$TMP/att/run" -- -d 1s >"$TMP/out" 2>&1; rc=$?
[ $rc -eq 2 ] && [ -z "$(ls -A "$TMP/att")" ] && grep -q "belongs to uid 65534" "$TMP/out" &&
	! grep -q "looking at" "$TMP/out"
verdict "target-output-below-nobodys-folder" $? "rc=$rc $(tail -2 "$TMP/out")"

# ---- a planted RUN/monitor symlink is replaced, never written through --------------
printf 'precious\n' >"$TMP/victim"
rm -rf "$TMP/mon"; mkdir -m 755 "$TMP/mon"
ln -s "$TMP/victim" "$TMP/mon/monitor"
"${RUN[@]}" --monitor 1s --force -o "$TMP/mon" >"$TMP/out" 2>&1; rc=$?
[ $rc -eq 0 ] && [ "$(cat "$TMP/victim")" = precious ] && [ -f "$TMP/mon/monitor" ] && [ ! -L "$TMP/mon/monitor" ]
verdict "monitor-symlink-replaced" $? "rc=$rc $(tail -2 "$TMP/out")"

# ---- runs at the same time ----------------------------------------------------------
# two noise runs: the second must not start (the first would restore RT
# throttling under it, and it would put back the "off" it found after the
# first has ended)
ncpu=$(getconf _NPROCESSORS_ONLN)
if [ "$ncpu" -ge 2 ]; then
	"$LATWATT" run -q -d 4s --trace off --probes noise --noise-cpus 1 -o "$TMP/n1" >"$TMP/n1.out" 2>&1 &
	pid=$!
	wait_running "$TMP/n1" $pid
	"$LATWATT" run -q -d 6s --trace off --probes noise --noise-cpus 1 -o "$TMP/n2" >"$TMP/n2.out" 2>&1; rc=$?
	[ $rc -eq 2 ] && [ ! -e "$TMP/n2" ] && grep -q "pid $pid" "$TMP/n2.out" && grep -q "$TMP/n1" "$TMP/n2.out"
	verdict "second-run-refused-naming-the-live-one" $? "rc=$rc $(tail -2 "$TMP/n2.out")"
	# what it would have recorded: throttling off (the first run's value) as
	# the system's own, while the first run put it back under it
	[ ! -e "$TMP/n2/manifest.json" ] ||
		[ "$(json "$TMP/n2/manifest.json" '["probes"]["noise"]["rt_throttling"]["sched_rt_runtime_us"]')" != -1 ]
	verdict "no-run-records-another-runs-throttling" $? \
		"$TMP/n2/manifest.json says sched_rt_runtime_us -1 (was $rt_before)"
	wait $pid; rc=$?
	[ $rc -eq 0 ] && [ "$(cat "$RT")" = "$rt_before" ] &&
		[ "$(json "$TMP/n1/manifest.json" '["status"]')" = complete ]
	verdict "throttling-restored-after-the-live-run" $? "rc=$rc, $RT $(cat "$RT") (was $rt_before)"
	[ "$(cat "$RT")" = "$rt_before" ] || echo "$rt_before" >"$RT"
else
	skip "second-run-refused-naming-the-live-one" "needs 2 CPUs for the noise probe"
fi
# the same -o twice (--force): refused while the first runs
"${RUN[@]}" -d 3s -o "$TMP/same" >"$TMP/s1.out" 2>&1 &
pid=$!
wait_running "$TMP/same" $pid
"${RUN[@]}" -d 1s --force -o "$TMP/same" >"$TMP/s2.out" 2>&1; rc=$?
wait $pid; rc1=$?
[ $rc -eq 2 ] && [ $rc1 -eq 0 ] && grep -q "pid $pid" "$TMP/s2.out" &&
	[ "$(json "$TMP/same/manifest.json" '["duration_ns"]')" = 3000000000 ]
verdict "same-output-refused" $? "rc=$rc rc1=$rc1 $(tail -2 "$TMP/s2.out")"
# unprivileged runs (no machine lock): two into one directory still cannot
rm -rf "$TMP/nob"; mkdir -m 755 "$TMP/nob"; chown 65534:65534 "$TMP/nob"
as_nobody "$LATWATT" run -q -d 3s --no-rt --trace off -o "$TMP/nob/same" >"$TMP/u1.out" 2>&1 &
pid=$!
wait_running "$TMP/nob/same" $pid
as_nobody "$LATWATT" run -q -d 1s --no-rt --trace off --force -o "$TMP/nob/same" >"$TMP/u2.out" 2>&1; rc=$?
wait $pid; rc1=$?
[ $rc -eq 2 ] && [ $rc1 -eq 0 ] && grep -q "live run" "$TMP/u2.out" &&
	[ "$(json "$TMP/nob/same/manifest.json" '["duration_ns"]')" = 3000000000 ]
verdict "same-output-refused-unprivileged" $? "rc=$rc rc1=$rc1 $(tail -2 "$TMP/u2.out")"
# SIGKILL: the lock goes with the process, cleanup still restores
if [ "$ncpu" -ge 2 ]; then
	"$LATWATT" run -q -d 30s --trace off --probes noise --noise-cpus 1 -o "$TMP/k1" >/dev/null 2>&1 &
	pid=$!
	wait_running "$TMP/k1" $pid
	sleep 0.5
	kill -KILL $pid; wait $pid 2>/dev/null
	"$LATWATT" cleanup >"$TMP/cl.out" 2>&1
	[ "$(cat "$RT")" = "$rt_before" ]
	verdict "sigkill-cleanup-restores" $? "$RT $(cat "$RT") (was $rt_before): $(cat "$TMP/cl.out")"
	"${RUN[@]}" -d 1s -o "$TMP/k2" >"$TMP/out" 2>&1
	verdict "run-after-sigkilled-run-starts" $? "$(tail -2 "$TMP/out")"
fi
# whatever happened, RT throttling as it was
[ "$(cat "$RT")" = "$rt_before" ] || { "$LATWATT" cleanup >/dev/null 2>&1; echo "$rt_before" >"$RT"; }
finish
