#!/bin/sh
# latwatt-lava.sh — run latwatt on the device under test and report to LAVA.
#
# The run steps of boards/lava/latwatt.yaml call this; it is plain POSIX sh
# (busybox ash is the shell on small boards).  Inside a LAVA test shell the
# results go through LAVA's helpers (lava-test-set, lava-test-case,
# lava-test-reference); anywhere else the same lines are printed, so the
# script also runs by hand on a board or a workstation.
#
# Test sets and cases:
#   latwatt   run                       latwatt run exited 0 (fail: see the log)
#             analyze                   latwatt analyze read the run
#             run-dir                   the run directory was uploaded (--upload)
#   budgets   budget.PROBE.STAT ...     every budget: the board's and the
#                                       thresholds given here, pass|fail|skip
#                                       with the measurement and its units
#   metrics   PROBE.p99, PROBE.max ...  the run's key figures, with units
#   compare   compare.PROBE.STAT.run    with --against: each verdict of the
#                                       comparison with the baseline, fail
#                                       when worse (latwatt report --compare)
#
# Exit status: 0 every budget met, 1 a budget broken or the run failed,
# 2 bad usage or no latwatt.  Inside LAVA always 0: LAVA runs the steps
# with 'sh -e', so a non-zero status would end the test run before LAVA
# hears that it ended; the verdict is in the test cases (an error is the
# failing case 'latwatt').

prog=latwatt-lava
# parameters are split on spaces (SCENARIO, BUDGETS, RUN_ARGS), never globbed
set -f

usage() {
	cat <<EOF
usage: $prog [OPTIONS]

Run latwatt on this machine and report the run's budgets and key figures as
LAVA test cases (through lava-test-case when it is on PATH, else printed).

  -d, --duration TIME   latwatt run -d (default 60s)
  -s, --scenario NAME   a scenario (latwatt run --scenario: a name of
                        'latwatt scenarios', or a file; default: none);
                        the options here override the file's
  -w, --workloads LIST  workloads beside the probes: latwatt run -w specs,
                        separated by spaces (default: none)
  -b, --board NAME      board file the run is for and whose budgets are
                        checked (default local)
  -i, --interval US     cyclic probe period (default 1000)
      --p99 US          a budget on every probe's p99, in microseconds
      --max US          a budget on every probe's maximum, in microseconds
      --budget SPEC     another budget, as latwatt report --budget
                        (repeatable; several in one word, space-separated)
  -o, --run-dir DIR     run directory: must not exist, or be an empty
                        directory of this user (default: a new directory
                        made by mktemp under \$TMPDIR or /tmp); never removed
      --run-args ARGS   more latwatt run arguments (split on spaces)
      --from RUN        report an existing run directory; do not run
      --against BASE    also compare the run with BASE (a run directory or a
                        directory of repeats on this machine) and report the
                        verdicts as the test set 'compare'
      --upload WHERE    send the run directory off the device as a tar.gz:
                        an http(s) URL (PUT with curl, else with nc for
                        http; a URL ending in / gets the file name added),
                        'console' (base64 between marker lines on stdout,
                        for scripts/lava-extract-run; without trace.dat),
                        or 'none' (default)
      --latwatt BIN     latwatt binary (default: latwatt on PATH, else the
                        repository's ./latwatt, built by 'make' when missing)
  -h, --help            this text
EOF
}

# LAVA's helpers are on PATH inside a LAVA test shell.
if command -v lava-test-case >/dev/null 2>&1; then
	in_lava=1
else
	in_lava=0
fi

say() { echo "$prog: $*"; }
die() {
	echo "$prog: error: $*" >&2
	[ $in_lava = 0 ] || { lava-test-case latwatt --result fail; exit 0; }
	exit 2
}
# finish STATUS
finish() {
	[ $in_lava = 0 ] || exit 0
	exit "$1"
}

duration=60s scenario='' workloads='' board=local interval=1000 p99='' max='' budgets=''
run_dir='' run_args='' from='' upload=none latwatt='' against=''

need() { [ $# -ge 2 ] || die "option $1 needs a value (try --help)"; }
while [ $# -gt 0 ]; do
	case $1 in
	-d|--duration) need "$@"; duration=$2; shift ;;
	-s|--scenario) need "$@"; scenario=$2; shift ;;
	-w|--workloads) need "$@"; workloads=$2; shift ;;
	-b|--board) need "$@"; board=$2; shift ;;
	-i|--interval) need "$@"; interval=$2; shift ;;
	--p99) need "$@"; p99=$2; shift ;;
	--max) need "$@"; max=$2; shift ;;
	--budget) need "$@"; budgets="$budgets $2"; shift ;;
	-o|--run-dir) need "$@"; run_dir=$2; shift ;;
	--run-args) need "$@"; run_args=$2; shift ;;
	--from) need "$@"; from=$2; shift ;;
	--against) need "$@"; against=$2; shift ;;
	--upload) need "$@"; upload=$2; shift ;;
	--latwatt) need "$@"; latwatt=$2; shift ;;
	-h|--help) usage; exit 0 ;;
	*) die "unknown option '$1' (try --help)" ;;
	esac
	shift
done

# Parameters left empty in a job mean "not set"; numbers are checked here so
# that a typo in a job is one clear line, not a confusing latwatt error.
is_number() {
	case $1 in ''|*[!0-9.]*|*.*.*|.) return 1 ;; esac
	return 0
}
[ -z "$p99" ] || is_number "$p99" || die "--p99: '$p99' is not a number of microseconds"
[ -z "$max" ] || is_number "$max" || die "--max: '$max' is not a number of microseconds"
if [ -n "$against" ]; then
	[ -d "$against" ] || die "--against: '$against' is not a run directory"
	case $against in /*) ;; *) against=$(pwd)/$against ;; esac
fi
case $upload in
none|console|http://*|https://*) ;;
*) die "--upload: '$upload' is not none, console or an http(s) URL" ;;
esac

# ---------------------------------------------------------------- helpers

# LAVA's helpers when they are on PATH; the same lines printed otherwise.
test_set() {	# start NAME | stop
	if [ $in_lava = 1 ]; then lava-test-set "$@"; else echo "lava-test-set $*"; fi
}

test_case() {	# NAME --result R [--measurement V --units U]
	if [ $in_lava = 1 ]; then lava-test-case "$@"; else echo "lava-test-case $*"; fi
}

test_reference() {	# NAME --result R --reference URL
	if [ $in_lava = 1 ] && command -v lava-test-reference >/dev/null 2>&1; then
		lava-test-reference "$@"
	else
		echo "lava-test-reference $*"
	fi
}

find_latwatt() {
	if [ -n "$latwatt" ]; then
		[ -x "$latwatt" ] || die "--latwatt $latwatt is not an executable"
		return 0
	fi
	if command -v latwatt >/dev/null 2>&1; then
		latwatt=$(command -v latwatt)
	elif [ -x ./latwatt ]; then
		latwatt=./latwatt
	elif [ -f Makefile ] && [ -d cmd ]; then
		# The test definition was cloned from the repository: build it.
		say "no latwatt on PATH: building it from $(pwd)"
		make -j"$(nproc 2>/dev/null || echo 2)" >&2 || die "cannot build latwatt (scripts/install-deps first?)"
		latwatt=./latwatt
	else
		die "no latwatt: not on PATH, no ./latwatt, and $(pwd) is not its source tree"
	fi
}

# http_put FILE URL: PUT FILE to an http:// URL with nc, where there is no
# curl (busybox: its wget posts text only, cutting a file at its first NUL
# byte).  Succeeds on a 2xx answer.
http_put() {
	case $2 in
	http://*) ;;
	*) say "no curl for $2 (busybox nc speaks plain http only)"; return 1 ;;
	esac
	command -v nc >/dev/null 2>&1 || { say "neither curl nor nc to upload with"; return 1; }
	hp_rest=${2#http://}
	hp_host=${hp_rest%%/*}
	case $hp_rest in */*) hp_path=/${hp_rest#*/} ;; *) hp_path=/ ;; esac
	hp_port=80
	case $hp_host in *:*) hp_port=${hp_host##*:}; hp_host=${hp_host%:*} ;; esac
	hp_answer=$({
		printf 'PUT %s HTTP/1.0\r\nHost: %s\r\nContent-Type: application/gzip\r\nContent-Length: %s\r\n\r\n' \
			"$hp_path" "$hp_host" "$(wc -c <"$1" | tr -d ' ')"
		cat "$1"
	} | nc "$hp_host" "$hp_port" | head -n1)
	case $hp_answer in
	"HTTP/"*" 2"[0-9][0-9]*) return 0 ;;
	*) say "the server answered: ${hp_answer:-nothing}"; return 1 ;;
	esac
}

# upload_run DIR: the run directory as NAME.tar.gz, off the device.  Over
# the console without trace.dat: megabytes for a few seconds, too slow for
# a serial line and a job log (analysis.json has what the trace explained).
upload_run() {
	dir=$1 name=$(basename "$1")
	# a directory of our own for the tarball: a fixed name in /tmp could be
	# a symlink planted by anyone, and tar would write through it
	if ! updir=$(mktemp -d "${TMPDIR:-/tmp}/latwatt-upload.XXXXXX"); then
		say "cannot create a temporary directory for the upload"
		test_case run-dir --result fail
		return 1
	fi
	tarball=$updir/$name.tar.gz
	files=$name
	if [ "$upload" = console ] && [ -f "$dir/trace.dat" ]; then
		# latwatt's own file names: no spaces
		files=$(cd "$dir" && ls | sed -e '/^trace\.dat$/d' -e "s|^|$name/|")
		say "trace.dat stays on the device ($dir): too large for the console"
	fi
	# shellcheck disable=SC2086  # one word per file
	if ! tar -C "$(dirname "$dir")" -czf "$tarball" $files; then
		test_case run-dir --result fail
		rm -f "$tarball"
		rmdir "$updir"
		return 1
	fi
	case $upload in
	console)
		# base64 lines between two markers; the size lets the reader
		# check that nothing was lost on the way.
		echo "latwatt-upload-begin $name.tar.gz $(wc -c <"$tarball" | tr -d ' ')"
		if [ $in_lava = 1 ]; then
			# LAVA's test shell keeps what it read since the last
			# match of one of its patterns, and slows to a crawl
			# after some hundred kilobytes without one: a signal
			# it ignores every 200 lines lets it move on.
			base64 "$tarball" | awk '{ print } NR % 200 == 0 { print "<LAVA_SIGNAL_LATWATT_UPLOAD " NR ">" }'
		else
			base64 "$tarball"
		fi
		echo "latwatt-upload-end $name.tar.gz"
		test_case run-dir --result pass
		;;
	*)
		url=$upload
		case $url in */) url=$url$name.tar.gz ;; esac
		if command -v curl >/dev/null 2>&1; then
			curl -fsS -T "$tarball" "$url" >/dev/null
		else
			http_put "$tarball" "$url"
		fi
		if [ $? = 0 ]; then
			say "uploaded $tarball to $url"
			test_reference run-dir --result pass --reference "$url"
		else
			say "cannot upload $tarball to $url"
			test_case run-dir --result fail
		fi
		;;
	esac
	rm -f "$tarball"
	rmdir "$updir"
}

# ------------------------------------------------------------------- run

find_latwatt
status=0
# Run from the repository's clone: its scenario files too.
if [ -d workloads/scenarios ]; then
	LATWATT_SCENARIO_PATH=$(pwd)/workloads/scenarios${LATWATT_SCENARIO_PATH:+:$LATWATT_SCENARIO_PATH}
	export LATWATT_SCENARIO_PATH
fi

test_set start latwatt
if [ -n "$from" ]; then
	[ -d "$from" ] || die "--from $from is not a run directory"
	run_dir=$from
else
	if [ "$(id -u)" = 0 ] && [ ! -e /sys/kernel/tracing/trace_marker ]; then
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	fi
	"$latwatt" sysinfo --board "$board" || true
	# Never removed: a directory given here may hold anything.  latwatt run
	# takes only a new or empty directory of ours.
	if [ -z "$run_dir" ]; then
		run_dir=$(mktemp -d "${TMPDIR:-/tmp}/latwatt-run.XXXXXX") ||
			die "cannot create a run directory under ${TMPDIR:-/tmp}"
	elif [ -L "$run_dir" ] || { [ -e "$run_dir" ] && [ -n "$(ls -A "$run_dir" 2>/dev/null)" ]; }; then
		die "--run-dir $run_dir exists and is not an empty directory: remove it or choose another"
	fi
	set -- run -d "$duration" -i "$interval" --board "$board" -q -o "$run_dir"
	[ -z "$scenario" ] || set -- "$@" --scenario "$scenario"
	for w in $workloads; do
		set -- "$@" -w "$w"
	done
	# shellcheck disable=SC2086  # split on purpose
	set -- "$@" $run_args
	say "$latwatt $*"
	if "$latwatt" "$@"; then
		test_case run --result pass
	else
		test_case run --result fail
		status=1
	fi
fi
if [ ! -f "$run_dir/manifest.json" ]; then
	say "no run directory at $run_dir: nothing to report"
	test_case analyze --result fail
	test_set stop
	finish 1
fi
# analyze exits 1 when a board budget is broken: that is for the budgets
# set below; here only an error (2) fails.
# (an existing run is read, not written to)
no_write=
[ -z "$from" ] || no_write=-n
"$latwatt" analyze $no_write --board "$board" "$run_dir"
case $? in
0|1) test_case analyze --result pass ;;
*) test_case analyze --result fail; status=1 ;;
esac
[ "$upload" = none ] || upload_run "$run_dir"
test_set stop

# The budgets: the board's, then the ones given here.
set -- report "$run_dir" --lava --board "$board"
[ -z "$p99" ] || set -- "$@" --budget "p99<=${p99}us"
[ -z "$max" ] || set -- "$@" --budget "max<=${max}us"
for b in $budgets; do
	set -- "$@" --budget "$b"
done
test_set start budgets
"$latwatt" "$@"
rc=$?
test_set stop
case $rc in
0) ;;
1) status=1 ;;
*) say "latwatt report failed (status $rc)"; status=2 ;;
esac

test_set start metrics
"$latwatt" report "$run_dir" --lava-metrics --board "$board"
# 1 is a broken budget, already reported
[ $? -le 1 ] || { say "latwatt report --lava-metrics failed"; status=2; }
test_set stop

# The comparison's verdicts, the run named "run" in the case names (not its
# temporary directory's name): pass, fail when worse, skip when undecided.
if [ -n "$against" ]; then
	test_set start compare
	if cmpdir=$(mktemp -d "${TMPDIR:-/tmp}/latwatt-compare.XXXXXX"); then
		case $run_dir in /*) abs=$run_dir ;; *) abs=$(pwd)/$run_dir ;; esac
		ln -s "$abs" "$cmpdir/run"
		(cd "$cmpdir" && "$latwatt" report --compare "$against" run --lava)
		rc=$?
		rm -f "$cmpdir/run"
		rmdir "$cmpdir"
	else
		rc=2
	fi
	test_set stop
	case $rc in
	0) ;;
	1) status=1 ;;
	*) say "latwatt report --compare failed (status $rc)"; status=2 ;;
	esac
fi
finish $status
