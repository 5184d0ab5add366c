#!/bin/bash
# latwatt as root on foreign data: each demonstration of a root tool turned
# against its host, replayed; each must now fail to do harm.
#   symlinks planted in run directories, report outputs and the results
#   database; run directories of another user or writable by others;
#   gnuplot command injection through rail names, meter headers and run
#   labels; libtraceevent plugins from $HOME and the environment.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd "$PYTHON"
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

# ---- ssh options from board files ----------------------------------------------
# A board file's target.options went to ssh -o unchecked: ProxyCommand (in
# any case, as Key=value or Key value) ran a command as root before ssh even
# connected.  Now an allow-list, refused with the file and line.
if command -v ssh >/dev/null 2>&1; then
	mkdir -p "$TMP/bd"
	n=0
	for o in "ProxyCommand=sh -c 'id > $TMP/pwned-ssh'" "proxycommand sh -c 'id>$TMP/pwned-ssh;x=1'" \
		 "LocalCommand=id >$TMP/pwned-ssh" "KnownHostsCommand=/bin/sh -c 'id >$TMP/pwned-ssh'" \
		 "Include=$TMP/bd/evil.conf" "Match=exec \"id >$TMP/pwned-ssh\""; do
		n=$((n + 1))
		printf 'ProxyCommand sh -c "id >%s"\n' "$TMP/pwned-ssh" >"$TMP/bd/evil.conf"
		printf 'format: 1\nname: evil%d\ntarget:\n  ssh: root@127.0.0.1\n  options:\n    - Port=9\n    - %s\n' \
			"$n" "'$(printf '%s' "$o" | sed "s/'/''/g")'" >"$TMP/bd/evil$n.yaml"
		rm -f "$TMP/pwned-ssh"
		"$LATWATT" target -b "$TMP/bd/evil$n.yaml" -o "$TMP/tgt$n" -t 2 -- -d 1s >"$TMP/out" 2>&1; rc=$?
		if [ -e "$TMP/pwned-ssh" ]; then
			fail "board-ssh-option-refused-$n" "ran as $(cat "$TMP/pwned-ssh")"
		elif [ $rc -eq 2 ] && grep -q "evil$n.yaml:7:7: target.options\[1\]: ssh option" "$TMP/out"; then
			pass "board-ssh-option-refused-$n"
		else
			fail "board-ssh-option-refused-$n" "rc=$rc $(cat "$TMP/out")"
		fi
	done
	# the same board found by name through LATWATT_BOARDS (a folder of root's)
	rm -f "$TMP/pwned-ssh"
	LATWATT_BOARDS=$TMP/bd "$LATWATT" target -b evil1 -o "$TMP/tgt-env" -t 2 -- -d 1s >"$TMP/out" 2>&1; rc=$?
	[ ! -e "$TMP/pwned-ssh" ] && [ $rc -eq 2 ] && grep -q "evil1.yaml:7:7" "$TMP/out" &&
		pass "board-ssh-option-refused-by-name" ||
		fail "board-ssh-option-refused-by-name" "rc=$rc $(cat "$TMP/out")"
else
	skip "board-ssh-option-refused" "needs ssh (openssh-client)"
fi
# what reaches ssh's argv, seen by a stand-in ssh: the destination after
# "--", a board's own known-hosts file only read (StrictHostKeyChecking=yes
# and no host key written, ahead of every option of the board's)
mkdir -p "$TMP/fakebin" "$TMP/bd2"
printf '#!/bin/sh\nfor a; do printf "%%s\\n" "$a"; done >>"%s"\nexit 255\n' "$TMP/ssh-argv" >"$TMP/fakebin/ssh"
chmod 755 "$TMP/fakebin/ssh"
printf 'format: 1\nname: lab\ntarget:\n  ssh: root@127.0.0.1\n  options: [StrictHostKeyChecking=accept-new, "UserKnownHostsFile=%s"]\n' \
	"$TMP/bd2/known_hosts" >"$TMP/bd2/lab.yaml"
rm -f "$TMP/ssh-argv"
PATH=$TMP/fakebin:$PATH "$LATWATT" target -b "$TMP/bd2/lab.yaml" -o "$TMP/tgt-lab" -t 2 >"$TMP/out" 2>&1
yes=$(grep -n -x 'StrictHostKeyChecking=yes' "$TMP/ssh-argv" 2>/dev/null | head -1 | cut -d: -f1)
new=$(grep -n -x 'StrictHostKeyChecking=accept-new' "$TMP/ssh-argv" 2>/dev/null | head -1 | cut -d: -f1)
if [ -n "$yes" ] && [ -n "$new" ] && [ "$yes" -lt "$new" ] &&
	grep -q -x 'UpdateHostKeys=no' "$TMP/ssh-argv" && grep -q -x 'CheckHostIP=no' "$TMP/ssh-argv" &&
	[ "$(grep -A1 -x -- '--' "$TMP/ssh-argv" | tail -1)" = root@127.0.0.1 ]; then
	pass "board-known-hosts-read-only"
else
	fail "board-known-hosts-read-only" "$(tr '\n' ' ' <"$TMP/ssh-argv" 2>/dev/null) $(cat "$TMP/out")"
fi
for d in "root@-oProxyCommand=id" "a\$(id)@host" "root@host;id"; do
	printf 'format: 1\nname: dest\ntarget:\n  ssh: "%s"\n' "$d" >"$TMP/bd2/dest.yaml"
	rm -f "$TMP/ssh-argv"
	PATH=$TMP/fakebin:$PATH "$LATWATT" target -b "$TMP/bd2/dest.yaml" -o "$TMP/tgt-d" -t 2 >"$TMP/out" 2>&1; rc=$?
	[ $rc -eq 2 ] && [ ! -e "$TMP/ssh-argv" ] && grep -q "dest.yaml:4:8: target.ssh: not a" "$TMP/out" &&
		pass "board-ssh-destination-checked $d" ||
		fail "board-ssh-destination-checked $d" "rc=$rc $(cat "$TMP/out")"
done

# ---- search paths from the environment ---------------------------------------------
# LATWATT_SCENARIO_PATH and LATWATT_BOARDS came before the shipped files with
# no owner check: a nobody-owned av-stress.yaml there ran its load: as root.
mkdir -p "$TMP/att"
sed -e '/^duration:/s/.*/duration: 200ms/' -e '/^trace/d' -e '/^power/d' -e '/^load:/,$d' \
	"$TOP/workloads/scenarios/av-stress.yaml" >"$TMP/att/av-stress.yaml"
printf 'trace: off\nload:\n  - name=x sh -c "id >%s"\n' "$TMP/pwned-load" >>"$TMP/att/av-stress.yaml"
sed 's/^name:.*/name: rpi4/' "$TOP/boards/qemu-x86_64.yaml" >"$TMP/att/rpi4.yaml"
chown -R 65534:65534 "$TMP/att"
LATWATT_SCENARIO_PATH=$TMP/att "$LATWATT" scenarios av-stress >"$TMP/out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "$TMP/att (from LATWATT_SCENARIO_PATH) belongs to uid 65534" "$TMP/out" &&
	pass "env-scenario-dir-of-nobody-refused" ||
	fail "env-scenario-dir-of-nobody-refused" "rc=$rc $(cat "$TMP/out")"
rm -f "$TMP/pwned-load"
LATWATT_SCENARIO_PATH=$TMP/att "$LATWATT" run --scenario av-stress -q -o "$TMP/r-env" >"$TMP/out" 2>&1; rc=$?
[ $rc -eq 2 ] && [ ! -e "$TMP/pwned-load" ] && [ ! -e "$TMP/r-env" ] && grep -q "LATWATT_SCENARIO_PATH" "$TMP/out" &&
	pass "env-scenario-load-not-run" ||
	fail "env-scenario-load-not-run" "rc=$rc pwned=$(cat "$TMP/pwned-load" 2>/dev/null) $(cat "$TMP/out")"
LATWATT_BOARDS=$TMP/att "$LATWATT" boards show rpi4 >"$TMP/out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "$TMP/att (from LATWATT_BOARDS) belongs to uid 65534" "$TMP/out" &&
	pass "env-boards-dir-of-nobody-refused" || fail "env-boards-dir-of-nobody-refused" "rc=$rc $(cat "$TMP/out")"
# the folder ours, the file nobody's; then the folder writable by its group
chown 0:0 "$TMP/att"
LATWATT_BOARDS=$TMP/att "$LATWATT" boards show rpi4 >"$TMP/out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "$TMP/att/rpi4.yaml (from LATWATT_BOARDS) belongs to uid 65534" "$TMP/out" &&
	pass "env-board-file-of-nobody-refused" || fail "env-board-file-of-nobody-refused" "rc=$rc $(cat "$TMP/out")"
LATWATT_SCENARIO_PATH=$TMP/att "$LATWATT" scenarios --check av-stress >"$TMP/out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "av-stress.yaml (from LATWATT_SCENARIO_PATH) belongs to uid 65534" "$TMP/out" &&
	pass "env-scenario-file-of-nobody-refused" ||
	fail "env-scenario-file-of-nobody-refused" "rc=$rc $(cat "$TMP/out")"
chown -R 0:0 "$TMP/att"
chmod 775 "$TMP/att"
LATWATT_BOARDS=$TMP/att "$LATWATT" boards show rpi4 >"$TMP/out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "is writable by its group (mode 0775)" "$TMP/out" &&
	pass "env-boards-group-writable-refused" || fail "env-boards-group-writable-refused" "rc=$rc $(cat "$TMP/out")"
# ours and closed: used (the tests' own LATWATT_BOARDS=tree/boards works so)
chmod 755 "$TMP/att"
LATWATT_BOARDS=$TMP/att "$LATWATT" boards show rpi4 >"$TMP/out" 2>&1 && grep -q "$TMP/att/rpi4.yaml" "$TMP/out" &&
	LATWATT_SCENARIO_PATH=$TMP/att "$LATWATT" scenarios --check av-stress >/dev/null 2>&1 &&
	pass "env-search-path-of-ours-used" || fail "env-search-path-of-ours-used" "$(cat "$TMP/out")"
# PATH: a load's program is never taken from a relative entry (the current
# directory) nor from a folder others can write
mkdir -p "$TMP/pbin"
printf '#!/bin/sh\nid >%s\n' "$TMP/pwned-path" >"$TMP/pbin/stress-ng"
chmod 755 "$TMP/pbin/stress-ng"
rm -f "$TMP/pwned-path"
(cd "$TMP/pbin" && PATH=:/usr/bin:/bin "$LATWATT" run -q -d 200ms --trace off --load "stress-ng --cpu 1" \
	-o "$TMP/r-path" >"$TMP/out" 2>&1); rc=$?
[ ! -e "$TMP/pwned-path" ] && pass "path-cwd-entry-skipped" ||
	fail "path-cwd-entry-skipped" "ran from the current directory: rc=$rc $(cat "$TMP/out")"
chown 65534 "$TMP/pbin"
PATH=$TMP/pbin:/usr/bin:/bin "$LATWATT" run -q -d 200ms --trace off --load "stress-ng --cpu 1" \
	-o "$TMP/r-path2" >"$TMP/out" 2>&1; rc=$?
[ $rc -eq 2 ] && [ ! -e "$TMP/pwned-path" ] && grep -q "$TMP/pbin (from PATH) belongs to uid 65534" "$TMP/out" &&
	pass "path-folder-of-nobody-refused" ||
	fail "path-folder-of-nobody-refused" "rc=$rc pwned=$(cat "$TMP/pwned-path" 2>/dev/null) $(cat "$TMP/out")"

# ---- what readers open: content never echoed, special files refused --------------
# RUN/board.yaml pointing at a root-only file made analyze (a warning), report
# and power show print its first line; a FIFO as RUN/samples, manifest.json or
# trace.dat hung analyze; RUN/power -> /dev/zero grew memory at 400 MB/s.
printf 'root:$y$j9T$SECRETHASH:19000:0:99999:7:::\nSECRETKEY: 1\n' >"$TMP/secret"
chmod 600 "$TMP/secret"
fresh_run "$TMP/rs"
ln -s "$TMP/secret" "$TMP/rs/board.yaml"
for c in "analyze $TMP/rs" "report $TMP/rs -o $TMP/rs.html" "power show $TMP/rs"; do
	timeout 60 "$LATWATT" $c >"$TMP/out" 2>&1; rc=$?
	if grep -q SECRET "$TMP/out" "$TMP/rs.html" 2>/dev/null; then
		fail "no-content-in-errors ${c%% *}" "$(grep -h SECRET "$TMP/out" | head -1)"
	elif grep -q "board.yaml is a symlink: refusing to follow it" "$TMP/out"; then
		pass "no-content-in-errors ${c%% *}"
	elif [ "${c%% *}" = report ] && [ $rc -le 1 ] && [ -s "$TMP/rs.html" ]; then
		# the report reads the analysis analyze wrote, not RUN/board.yaml
		pass "no-content-in-errors ${c%% *}"
	else
		fail "no-content-in-errors ${c%% *}" "rc=$rc $(head -c 300 "$TMP/out")"
	fi
done
# a board file of the run holding unknown keys: named by line, not quoted
rm "$TMP/rs/board.yaml"
printf 'format: 1\nname: local\nSECRETKEY: 1\n' >"$TMP/rs/board.yaml"
"$LATWATT" power show "$TMP/rs" >"$TMP/out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "board.yaml:3:1: (top): unknown key" "$TMP/out" && ! grep -q SECRET "$TMP/out" &&
	pass "board-error-names-line-not-key" || fail "board-error-names-line-not-key" "rc=$rc $(cat "$TMP/out")"
# a JSON error names the place, not the text there (jansson quotes it)
printf '{"schema": SECRETTOKEN}' >"$TMP/rs/analysis.json"
rm "$TMP/rs/board.yaml"
"$LATWATT" report "$TMP/rs" -o "$TMP/rs.html" >"$TMP/out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "analysis.json:1:.*: not valid JSON" "$TMP/out" && ! grep -q SECRET "$TMP/out" &&
	pass "json-error-without-text" || fail "json-error-without-text" "rc=$rc $(cat "$TMP/out")"
# special files in a run directory: refused at once, exit 2
for f in samples manifest.json trace.dat; do
	fresh_run "$TMP/rf"
	rm "$TMP/rf/$f"
	mkfifo "$TMP/rf/$f"
	timeout 10 "$LATWATT" analyze "$TMP/rf" >"$TMP/out" 2>&1; rc=$?
	[ $rc -eq 2 ] && grep -q "$f is a FIFO, not a regular file" "$TMP/out" &&
		pass "fifo-refused $f" || fail "fifo-refused $f" "rc=$rc (124: hung) $(head -c 300 "$TMP/out")"
done
fresh_run "$TMP/rf"
ln -s /dev/zero "$TMP/rf/power"
timeout 3 "$LATWATT" power show "$TMP/rf" >"$TMP/out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "power is a symlink" "$TMP/out" && pass "power-dev-zero-link-refused" ||
	fail "power-dev-zero-link-refused" "rc=$rc (124: hung) $(head -c 300 "$TMP/out")"
rm "$TMP/rf/power"
if mknod "$TMP/rf/power" c 1 5 2>/dev/null; then
	timeout 3 "$LATWATT" power show "$TMP/rf" >"$TMP/out" 2>&1; rc=$?
	[ $rc -eq 2 ] && grep -q "power is a character device, not a regular file" "$TMP/out" &&
		pass "power-device-refused" || fail "power-device-refused" "rc=$rc $(head -c 300 "$TMP/out")"
else
	skip "power-device-refused" "mknod not permitted here"
fi
# the manifest says how many samples were written: a larger file is refused
fresh_run "$TMP/rf"
head -c 2400 /dev/zero >>"$TMP/rf/samples"
"$LATWATT" analyze "$TMP/rf" >"$TMP/out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "samples is .* bytes, more than the" "$TMP/out" && pass "samples-capped-by-manifest" ||
	fail "samples-capped-by-manifest" "rc=$rc $(head -c 300 "$TMP/out")"
# a file the manifest names stays inside the run directory
fresh_run "$TMP/rf"
/usr/bin/python3 - "$TMP/rf/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1])); m["trace"]["file"] = "../../../etc/passwd"
json.dump(m, open(sys.argv[1], "w"))
PY
"$LATWATT" tracedump --count "$TMP/rf" >"$TMP/out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "names a file outside the run directory" "$TMP/out" && pass "manifest-file-inside-run" ||
	fail "manifest-file-inside-run" "rc=$rc $(head -c 300 "$TMP/out")"

# ---- a corrupt trace: analyze fails as tracedump does ---------------------------------
# A trace.dat with a corrupt event in a data page: analyze printed "corrupt
# event", exited 0 and wrote analysis.json with NO_HZ and spike figures from
# what it had read of the other CPU.
fresh_run "$TMP/rc"
"$LATWATT" analyze --board "$TOP/boards/local.yaml" "$TMP/rc" >/dev/null 2>&1
[ $? -le 1 ] || fail "corrupt-trace-setup" "analyze of the clean run failed"	# 1: a verdict
rm -f "$TMP/rc/analysis.json"
/usr/bin/python3 - "$TMP/rc/trace.dat" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
o = 200704          # a data page of cpu 0 in tests/data/trace-run/trace.dat
assert 0 < struct.unpack_from("<Q", b, o + 8)[0] <= 4080, "not a data page"
struct.pack_into("<II", b, o + 16, 0, 0x0fffff00)   # an event longer than its page
open(sys.argv[1], "wb").write(b)
PY
"$LATWATT" tracedump "$TMP/rc" >/dev/null 2>&1; rc_dump=$?
"$LATWATT" analyze --board "$TOP/boards/local.yaml" "$TMP/rc" >"$TMP/out" 2>&1; rc=$?
if [ $rc -eq 2 ] && [ $rc_dump -eq 2 ] && grep -q "corrupt event at byte" "$TMP/out" &&
	[ "$(json "$TMP/rc/analysis.json" '.get("trace_error", "")' | grep -c 'corrupt event')" = 1 ] &&
	[ "$(json "$TMP/rc/analysis.json" '.get("nohz", "none")')" = none ] &&
	[ "$(json "$TMP/rc/analysis.json" '.get("spikes", "none")')" = none ]; then
	pass "corrupt-trace-analyze-exit-2"
else
	fail "corrupt-trace-analyze-exit-2" "analyze rc=$rc tracedump rc=$rc_dump $(head -c 300 "$TMP/out")"
fi

# ---- what reaches world-readable files and the terminal ---------------------------------
# A trace without kallsyms (--no-kallsyms; the recorded test run is one):
# timer functions were named by their kernel text address in the 0644
# analysis.json and report.  Now unknown-fn-N, numbered within the analysis.
fresh_run "$TMP/rk"
"$LATWATT" analyze "$TMP/rk" >"$TMP/out" 2>&1
"$LATWATT" report "$TMP/rk" -o "$TMP/rk.html" >/dev/null 2>&1
if grep -qE '0x[0-9a-f]{12,16}' "$TMP/rk/analysis.json" "$TMP/rk.html" "$TMP/out"; then
	fail "no-kernel-addresses" "$(grep -ohE '[a-z]+:0x[0-9a-f]{12,16}' "$TMP/rk/analysis.json" | head -2)"
elif grep -q 'timer:unknown-fn-1' "$TMP/rk/analysis.json"; then
	pass "no-kernel-addresses"
else
	fail "no-kernel-addresses" "no timer wake-up source in analysis.json: the test proves nothing"
fi
# escape sequences in a manifest (board, kernel release, status reason) and a
# board file's description: '?' on the terminal, never ESC, BEL or C1 bytes
fresh_run "$TMP/re"
/usr/bin/python3 - "$TMP/re/manifest.json" <<'PY'
import json, sys
esc = "\x1b]0;PWNED\x07\x1b[2J\u009b31m"
m = json.load(open(sys.argv[1]))
m["board"] += esc
m["status_reason"] = "why" + esc
if isinstance(m["system"].get("kernel"), dict):
    m["system"]["kernel"]["release"] += esc
json.dump(m, open(sys.argv[1], "w"))
PY
printf 'format: 1\nname: esc\ndescription: "x\\e]0;PWNED\\a\\e[2J"\n' >"$TMP/esc.yaml"
{ "$LATWATT" analyze -n "$TMP/re"; "$LATWATT" report --markdown - "$TMP/re"; "$LATWATT" boards show "$TMP/esc.yaml"
  "$LATWATT" tracedump --count "$TMP/re"; } >"$TMP/out" 2>&1
if LC_ALL=C grep -q "$(printf '[\033\007\233]')" "$TMP/out"; then
	fail "no-escapes-to-terminal" "$(LC_ALL=C grep -a -m1 "$(printf '[\033\007]')" "$TMP/out" | cat -v | head -c 200)"
elif grep -q 'PWNED' "$TMP/out"; then
	pass "no-escapes-to-terminal"
else
	fail "no-escapes-to-terminal" "the manifest's text was not printed: the test proves nothing"
fi
# boards --help said ./boards was searched (it never is)
"$LATWATT" boards --help >"$TMP/out" 2>&1
! grep -q '\$LATWATT_BOARDS, ./boards' "$TMP/out" && grep -q 'Never ./boards' "$TMP/out" &&
	pass "boards-help-true" || fail "boards-help-true" "$(grep -A2 'looked up' "$TMP/out")"
# samples out of time order (a series shuffled): analyze, with or without the
# trace, compare and report refuse them alike (analyze without the trace and
# compare took them; analyze with it refused)
fresh_run "$TMP/ru"
fresh_run "$TMP/ru0"
/usr/bin/python3 - "$TMP/ru/samples" <<'PY'
import random, sys
b = open(sys.argv[1], "rb").read()
recs = [b[64 + i * 24:88 + i * 24] for i in range((len(b) - 64) // 24)]
random.Random(1).shuffle(recs)
open(sys.argv[1], "wb").write(b[:64] + b"".join(recs))
PY
ok=1
for c in "analyze -n $TMP/ru" "analyze -n --no-trace $TMP/ru" "compare $TMP/ru0 $TMP/ru" "report $TMP/ru -o $TMP/ru.html"; do
	"$LATWATT" $c >"$TMP/out" 2>&1; rc=$?
	if [ $rc -ne 2 ] || ! grep -q "samples: record [0-9]* (cyclic, cpu [01]) is out of time order" "$TMP/out"; then
		ok=0; fail "unsorted-samples-refused-alike" "$c: rc=$rc $(head -c 200 "$TMP/out")"
	fi
done
[ $ok = 1 ] && pass "unsorted-samples-refused-alike"

finish
