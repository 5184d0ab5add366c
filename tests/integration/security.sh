#!/bin/bash
# latwatt as root on foreign data: each demonstration of a root tool turned
# against its host, replayed; each must now fail to do harm.
#   symlinks planted in run directories, report outputs and the results
#   database; run directories of another user or writable by others;
#   gnuplot command injection through rail names, meter headers and run
#   labels; libtraceevent plugins from $HOME and the environment.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd python3
mk_tmp; [ -n "${KEEP:-}" ] && trap - EXIT && echo "TMP=$TMP"
chmod 700 "$TMP"
DATA=$TOP/tests/data/trace-run
[ -f "$DATA/trace.dat" ] || skip_all "no $DATA"

fresh_run() {	# fresh_run DIR: a copy of the recorded test run, owned by us
	rm -rf "$1"
	mkdir -p "$1" && cp "$DATA/manifest.json" "$DATA/samples" "$DATA/trace.dat" "$1/" && chmod 755 "$1"
}
victim() {	# a root-owned file an attacker would like overwritten
	printf 'precious\n' >"$TMP/victim"
}
intact() { [ "$(cat "$TMP/victim")" = precious ]; }

# ---- symlinks planted in a run directory -----------------------------------
fresh_run "$TMP/r"
victim
ln -s "$TMP/victim" "$TMP/r/analysis.json"
"$LATWATT" analyze "$TMP/r" >/dev/null 2>&1
if intact && [ -f "$TMP/r/analysis.json" ] && [ ! -L "$TMP/r/analysis.json" ]; then
	pass "analyze-replaces-planted-symlink"
else
	fail "analyze-replaces-planted-symlink" "victim: $(head -c 60 "$TMP/victim")"
fi
# the old fixed temporary names, planted: never written through
fresh_run "$TMP/r"
victim
for n in analysis.json.tmp manifest.json.tmp x.html.tmp; do ln -s "$TMP/victim" "$TMP/r/$n"; done
"$LATWATT" analyze "$TMP/r" >/dev/null 2>&1
"$LATWATT" report "$TMP/r" -o "$TMP/r/x.html" >/dev/null 2>&1
intact && pass "fixed-tmp-names-not-followed" || fail "fixed-tmp-names-not-followed" "victim overwritten"
ls "$TMP/r" | grep -q '\.tmp\.' && fail "no-tmp-left" "$(ls "$TMP/r")" || pass "no-tmp-left"

# report -o through a planted symlink
victim
ln -sf "$TMP/victim" "$TMP/out.html"
"$LATWATT" report "$TMP/r" -o "$TMP/out.html" >/dev/null 2>&1
# 0 or 1: the run's verdict; the report is written either way
if [ $? -le 1 ] && intact && [ ! -L "$TMP/out.html" ] && grep -q '<html' "$TMP/out.html"; then
	pass "report-output-replaces-symlink"
else
	fail "report-output-replaces-symlink" "victim: $(head -c 60 "$TMP/victim")"
fi

# power import through a planted RUN/power: refused, exit 2
fresh_run "$TMP/r"
victim
ln -s "$TMP/victim" "$TMP/r/power"
printf 'time,watts\n0,1.5\n0.1,1.6\n' >"$TMP/meter.csv"
"$LATWATT" power import "$TMP/r" "$TMP/meter.csv" --offset 0 >"$TMP/out" 2>&1; rc=$?
if [ $rc -eq 2 ] && intact && grep -q "symlink\|not a regular file" "$TMP/out"; then
	pass "power-import-refuses-symlink"
else
	fail "power-import-refuses-symlink" "rc=$rc victim=$(head -c 60 "$TMP/victim") $(cat "$TMP/out")"
fi
# a RUN/power that cannot be read: not appended to, exit 2 (it was exit 0)
rm -f "$TMP/r/power"
printf 'junk\n' >"$TMP/r/power"
"$LATWATT" power import "$TMP/r" "$TMP/meter.csv" --offset 0 >"$TMP/out" 2>&1; rc=$?
[ $rc -eq 2 ] && [ "$(cat "$TMP/r/power")" = junk ] && pass "power-import-bad-file-exit-2" ||
	fail "power-import-bad-file-exit-2" "rc=$rc"

# ---- directories that are not ours alone -------------------------------------
fresh_run "$TMP/r"
chown 65534:65534 "$TMP/r"
"$LATWATT" analyze "$TMP/r" >"$TMP/out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "belongs to uid 65534" "$TMP/out" && [ ! -e "$TMP/r/analysis.json" ] &&
	pass "analyze-refuses-foreign-run-dir" || fail "analyze-refuses-foreign-run-dir" "rc=$rc $(cat "$TMP/out")"
"$LATWATT" tracedump --count "$TMP/r" >/dev/null 2>&1 && pass "foreign-run-dir-still-readable" ||
	fail "foreign-run-dir-still-readable"
chown 0:0 "$TMP/r"
chmod 775 "$TMP/r"
"$LATWATT" analyze "$TMP/r" >"$TMP/out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "writable by its group" "$TMP/out" && pass "analyze-refuses-group-writable" ||
	fail "analyze-refuses-group-writable" "rc=$rc $(cat "$TMP/out")"
chmod 755 "$TMP/r"
# an existing empty directory of another user is not taken as a run directory
mkdir "$TMP/empty"
chown 65534:65534 "$TMP/empty"
"$LATWATT" run -d 100ms --trace off -o "$TMP/empty" -q >"$TMP/out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "belongs to uid 65534" "$TMP/out" && [ -z "$(ls -A "$TMP/empty")" ] &&
	pass "run-refuses-foreign-empty-dir" || fail "run-refuses-foreign-empty-dir" "rc=$rc $(cat "$TMP/out")"

# ---- the results database ------------------------------------------------------
mkdir -p "$TMP/home/.local/share" "$TMP/elsewhere"
ln -s "$TMP/elsewhere" "$TMP/home/.local/share/latwatt"
HOME=$TMP/home XDG_DATA_HOME= "$LATWATT" db list >"$TMP/out" 2>&1; rc=$?
[ $rc -eq 2 ] && [ -z "$(ls -A "$TMP/elsewhere")" ] && grep -q "is a symlink" "$TMP/out" &&
	pass "db-default-dir-symlink-refused" || fail "db-default-dir-symlink-refused" "rc=$rc $(cat "$TMP/out")"
rm "$TMP/home/.local/share/latwatt"
mkdir "$TMP/home/.local/share/latwatt"
victim
ln -s "$TMP/victim" "$TMP/home/.local/share/latwatt/results.db"
HOME=$TMP/home XDG_DATA_HOME= "$LATWATT" db add "$TMP/r" >"$TMP/out" 2>&1; rc=$?
[ $rc -eq 2 ] && intact && pass "db-file-symlink-refused" || fail "db-file-symlink-refused" "rc=$rc"
rm "$TMP/home/.local/share/latwatt/results.db"
HOME=$TMP/home XDG_DATA_HOME= "$LATWATT" db add "$TMP/r" >/dev/null 2>&1 &&
	[ -f "$TMP/home/.local/share/latwatt/results.db" ] && pass "db-default-path-works" ||
	fail "db-default-path-works"
chown 65534 "$TMP/home"
HOME=$TMP/home XDG_DATA_HOME= "$LATWATT" db list >"$TMP/out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "belongs to uid 65534" "$TMP/out" && pass "db-foreign-home-refused" ||
	fail "db-foreign-home-refused" "rc=$rc $(cat "$TMP/out")"
chown 0 "$TMP/home"

# ---- gnuplot ---------------------------------------------------------------------
if command -v gnuplot >/dev/null 2>&1; then
	# a rail name (meter CSV header), and a run label (its path), carrying
	# backquotes and system(): gnuplot must see them as text
	P=$TMP/pwned
	lbl="$TMP/run\`touch pwned.label\`\"system('touch pwned.label2')\""	# gnuplot runs in $TMP
	fresh_run "$lbl"
	printf "time,\`touch $P.rail\` system(\"touch $P.sys\") '\`touch $P.sq\`' (W)\n" >"$TMP/meter.csv"
	for i in 0 1 2 3 4 5 6 7 8 9; do printf '0.%d,1.%d\n' $i $i; done >>"$TMP/meter.csv"
	"$LATWATT" power import "$lbl" "$TMP/meter.csv" --offset 0 >"$TMP/out" 2>&1 ||
		fail "gnuplot-injection-setup" "power import: $(cat "$TMP/out")"
	grep -q 'touch' "$lbl/power" || fail "gnuplot-injection-setup" "the rail name did not reach RUN/power"
	"$LATWATT" analyze "$lbl" >/dev/null 2>&1
	cd "$TMP"
	"$LATWATT" report "$lbl" -o "$TMP/inj.html" >"$TMP/out" 2>&1
	[ $? -le 1 ] || fail "gnuplot-injection-report" "$(cat "$TMP/out")"
	fresh_run "$TMP/plain"
	"$LATWATT" analyze "$TMP/plain" >/dev/null 2>&1
	"$LATWATT" report --compare "$TMP/plain" "$lbl" -o "$TMP/inj2.html" >"$TMP/out" 2>&1 ||
		fail "gnuplot-injection-compare-report" "$(cat "$TMP/out")"
	cd "$TOP"
	if ls "$P".* "$TMP"/pwned.* >/dev/null 2>&1; then
		fail "gnuplot-injection" "created: $(ls "$P".* "$TMP"/pwned.* 2>/dev/null)"
	elif grep -q 'touch' "$TMP/inj.html" && grep -q '<svg' "$TMP/inj.html"; then
		pass "gnuplot-injection"	# drawn, the payload shown as text
	else
		fail "gnuplot-injection" "the rail name is not in the plotted report"
	fi
else
	skip "gnuplot-injection" "needs gnuplot"
fi

# ---- libtraceevent / libtracecmd plugins from the environment ---------------------
if command -v cc >/dev/null 2>&1; then
	mark=$TMP/plugin-ran
	cat >"$TMP/plugin.c" <<EOF
#include <stdio.h>
__attribute__((constructor)) static void planted(void)
{ FILE *f = fopen("$mark", "a"); if (f) { fputs("ran\n", f); fclose(f); } }
int tep_plugin_loader(void *tep) { return 0; }
int tep_plugin_unloader(void *tep) { return 0; }
EOF
	if cc -shared -fPIC -o "$TMP/plugin_planted.so" "$TMP/plugin.c" 2>"$TMP/out"; then
		for d in home/.local/lib/traceevent/plugins home/.local/lib/trace-cmd/plugins \
			 home/.trace-cmd/plugins env-te env-tc; do
			mkdir -p "$TMP/$d" && cp "$TMP/plugin_planted.so" "$TMP/$d/"
		done
		fresh_run "$TMP/r"
		chown 0 "$TMP/home"
		export HOME=$TMP/home TRACEEVENT_PLUGIN_DIR=$TMP/env-te TRACECMD_PLUGIN_DIR=$TMP/env-tc
		"$LATWATT" tracedump "$TMP/r" >/dev/null 2>&1 || fail "plugins-tracedump-runs"
		"$LATWATT" tracedump "$TMP/r/trace.dat" >/dev/null 2>&1
		"$LATWATT" analyze "$TMP/r" >/dev/null 2>&1
		[ $? -le 1 ] || fail "plugins-analyze-runs"
		"$LATWATT" power estimate "$TMP/r" --board qemu-x86_64 >/dev/null 2>&1
		"$LATWATT" power show "$TMP/r" --board qemu-x86_64 >/dev/null 2>&1
		[ -e "$mark" ] && fail "plugins-never-loaded" "a planted plugin ran" ||
			pass "plugins-never-loaded"
		# the planted plugin is live: a program that loads plugins runs it
		if command -v trace-cmd >/dev/null 2>&1; then
			trace-cmd report -i "$TMP/r/trace.dat" >/dev/null 2>&1
			[ -e "$mark" ] && pass "plugin-planted-is-live" ||
				fail "plugin-planted-is-live" "trace-cmd did not run it: the test proves nothing"
		fi
		unset TRACEEVENT_PLUGIN_DIR TRACECMD_PLUGIN_DIR
	else
		skip "plugins-never-loaded" "cannot build a plugin: $(head -1 "$TMP/out")"
	fi
else
	skip "plugins-never-loaded" "needs a C compiler"
fi

# ---- trace.dat holds kernel addresses -------------------------------------------
# (a run's trace.dat mode is checked by tests/integration/sigkill.sh's runs)

# ---- board files are not taken from ./boards -------------------------------------
mkdir -p "$TMP/cwd/boards"
sed 's/^name:.*/name: planted/' "$TOP/boards/qemu-x86_64.yaml" >"$TMP/cwd/boards/planted.yaml"
(cd "$TMP/cwd" && "$LATWATT" boards show planted >"$TMP/out" 2>&1); rc=$?
[ $rc -ne 0 ] && grep -q "board 'planted' not found" "$TMP/out" && pass "no-boards-from-cwd" ||
	fail "no-boards-from-cwd" "$(cat "$TMP/out")"
(cd "$TMP/cwd" && "$LATWATT" boards show ./boards/planted.yaml >/dev/null 2>&1) &&
	pass "explicit-board-path-in-cwd" || fail "explicit-board-path-in-cwd"
finish
