# Shared helpers of the integration tests; source it.
#   need_root / need_tracefs / need_cmd CMD   skip the whole script (exit 77) with a reason
#   pass NAME / fail NAME WHY / skip NAME WHY   one result line each
#   check NAME CMD...                            pass if CMD succeeds; a crash in it fails
#   py NAME ARGS... <<'PY'                       a Python checker on stdin printing its own
#                                                PASS/FAIL lines: a crash or exit status
#                                                other than 0 fails NAME
#   mk_tmp                                       sets TMP, a directory removed at exit
#   cpuidle_tree DIR                             a sysfs copy with haltpoll's cpuidle counters
# Python is Debian's (/usr/bin/python3, $PYTHON), never one first on PATH.
# tests/run fails a script whose output holds a Python traceback or a bash
# error even when the script carried on past it.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
LATWATT=${LATWATT:-$TOP/latwatt}
TRACEFS=${TRACEFS:-/sys/kernel/tracing}
PYTHON=${PYTHON:-/usr/bin/python3}
_status=0

pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1: ${2:-}"; _status=1; }
skip() { echo "SKIP: $1: $2"; }
skip_all() { echo "SKIP: $(basename "$0" .sh): $1"; exit 77; }
check() {
	local n=$1 rc err; shift
	err=$(mktemp /tmp/latwatt-check.XXXXXX)
	"$@" 2>"$err"; rc=$?
	cat "$err" >&2
	if grep -q 'Traceback (most recent call last)' "$err" || [ $rc -ge 126 ]; then
		fail "$n" "the check crashed (status $rc): $*"
	elif [ $rc -eq 0 ]; then
		pass "$n"
	else
		fail "$n" "command failed: $*"
	fi
	rm -f "$err"
}
py() {
	local n=$1 rc; shift
	"$PYTHON" - "$@"; rc=$?
	[ $rc -eq 0 ] || fail "$n" "the checker exited with status $rc"
	return $rc
}
need_root() { [ "$(id -u)" -eq 0 ] || skip_all "needs root (run the tests as root)"; }
need_cmd() { command -v "$1" >/dev/null 2>&1 || skip_all "needs $1 (scripts/install-deps)"; }
# busybox-static: the QEMU board's initramfs needs a static busybox
need_static_busybox() {
	local b
	if ! b=$(command -v busybox) || ldd "$b" >/dev/null 2>&1; then
		skip_all "needs a static busybox (busybox-static)"
	fi
}
# fetch_rt_kernel: scripts/qemu-board fetch $kernel ($board, into $TMP);
# 6.12-rt is in bookworm-security alone: where apt has only bookworm (a
# minimal debootstrap) and QEMU_TEST_KERNEL does not name one, the
# PREEMPT_RT kernel of bookworm itself (6.1-rt), $kernel set to it; else
# skips with the reason
fetch_rt_kernel() {
	if ! "$board" fetch "$kernel" >"$TMP/fetch.log" 2>&1; then
		if [ -z "${QEMU_TEST_KERNEL:-}" ] && "$board" fetch 6.1-rt >>"$TMP/fetch.log" 2>&1; then
			echo "  kernel $kernel not available: $(grep error: "$TMP/fetch.log" | tail -n1); 6.1-rt instead"
			kernel=6.1-rt
		else
			skip_all "kernel $kernel not available: $(grep error: "$TMP/fetch.log" | tail -n1)"
		fi
	fi
}
# wait_run_journal PID: until a latwatt run other than PID (its child) has
# made its restore journal, i.e. is past the replay every run does first (a
# run that starts after PID is gone would undo PID's journal itself, before
# 'latwatt cleanup' can); at most 10 s
wait_run_journal() {
	local _
	for _ in $(seq 100); do
		ls /run/latwatt/run-*.json 2>/dev/null | grep -qv "/run-$1\.json" && return 0
		sleep 0.1
	done
	return 1
}
need_tracefs() {
	need_root
	if [ ! -e "$TRACEFS/trace_marker" ]; then
		mount -t tracefs nodev "$TRACEFS" 2>/dev/null || skip_all "tracefs not available at $TRACEFS"
	fi
}
mk_tmp() {
	TMP=$(mktemp -d /tmp/latwatt-it.XXXXXX)
	trap 'rm -rf "$TMP"' EXIT
}
# json FILE EXPR: a jq-like read through Debian's python3 — e.g. json m.json '["status"]'
# (a read that fails prints a FAIL line: the caller's comparison may not notice)
json() {
	"$PYTHON" -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval('d'+sys.argv[2]))" \
		"$1" "$2" && return 0
	echo "FAIL: json $1 $2: cannot read it" >&2
	return 1
}
# cpuidle_tree DIR: under DIR a sysfs tree (for --sysfs-root) of this
# machine's online CPUs with haltpoll's idle states (POLL and "haltpoll
# idle") and their counters, as a machine with that cpuidle driver has it;
# the counters stay still (every CPU counts as active)
cpuidle_tree() {
	local d c s n
	n=$(getconf _NPROCESSORS_ONLN)
	mkdir -p "$1/sys/devices/system/cpu/cpuidle"
	echo "0-$((n - 1))" >"$1/sys/devices/system/cpu/online"
	echo haltpoll >"$1/sys/devices/system/cpu/cpuidle/current_driver"
	echo haltpoll >"$1/sys/devices/system/cpu/cpuidle/current_governor_ro"
	for c in $(seq 0 $((n - 1))); do
		for s in 0 1; do
			d=$1/sys/devices/system/cpu/cpu$c/cpuidle/state$s
			mkdir -p "$d"
			if [ $s = 0 ]; then
				echo POLL >"$d/name"; echo "CPUIDLE CORE POLL IDLE" >"$d/desc"
				echo 0 >"$d/latency"; echo 0 >"$d/residency"
			else
				echo "haltpoll idle" >"$d/name"; echo "default architecture idle" >"$d/desc"
				echo 1 >"$d/latency"; echo 1 >"$d/residency"
			fi
			echo $((1000000 * (s + 1))) >"$d/time"; echo 1000 >"$d/usage"; echo 0 >"$d/disable"
		done
	done
}
finish() { exit $_status; }
