#!/bin/bash
# latwatt target, end to end: the x86_64 QEMU guest (Debian's 6.1 PREEMPT_RT
# kernel) runs Debian's dropbear, reached through QEMU's user-mode network
# (127.0.0.1:PORT forwarded to the guest's port 22) with keys made for this
# test and a checked host key.  latwatt target copies the bundle there, runs,
# brings the run home and cleans up; words with quotes, spaces and $(...)
# stay words on the remote shell; Ctrl-C (SIGINT) stops the remote run,
# which restores the guest's tracing state and comes home incomplete.
#
# Skips (77) without qemu-system-x86_64, ssh, dropbear, busybox-static or
# the kernel.  About 2 minutes on two shared cores (TCG).
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/integration/lib.sh"
. "$TOP/tests/integration/guest_ssh.bash"

need_cmd qemu-system-x86_64
[ -x "$LATWATT" ] || skip_all "no latwatt binary at $LATWATT (make)"
mk_tmp
trap 'guest_stop; rm -rf "$TMP"' EXIT
guest_ssh_setup amd64
"$TOP/scripts/sysroot" bundle native / "$LATWATT" "$TMP/latwatt-x86_64.tar.gz" ||
	skip_all "cannot bundle $LATWATT with its libraries"
# the limit only stops a hung guest (guest_stop ends it): room for a loaded host
guest_start "$TOP/boards/qemu-x86_64.yaml" "${QEMU_TEST_KERNEL:-6.1-rt}" 900

# -- a run, brought home
start=$(date +%s)
rc=0
"$LATWATT" target "${SSH_OPTS[@]}" -b qemu-x86_64 -L "$TMP/latwatt-x86_64.tar.gz" \
	-o "$TMP/run" -- -d 5s >"$TMP/t1.log" 2>&1 || rc=$?
secs=$(( $(date +%s) - start ))
sed 's/^/  /' "$TMP/t1.log" | tail -n 15
echo "  latwatt target, 5 s run: ${secs}s wall"
# 1: the qemu board's budgets can break on a slow host; that is a verdict
if [ $rc = 0 ] || [ $rc = 1 ]; then pass "latwatt target exits with the run's status"
else fail "latwatt target exits with the run's status" "status $rc"; fi
m=$TMP/run/manifest.json
if [ -f "$m" ]; then
	pass "run directory came home"
	[ "$(json "$m" '["status"]')" = complete ] && pass "run complete" || fail "run complete" "$(json "$m" '["status"]')"
	[ "$(json "$m" '["system"]["hostname"]')" = latwatt-guest ] && pass "measured in the guest" ||
		fail "measured in the guest" "hostname $(json "$m" '["system"]["hostname"]')"
	[ "$(json "$m" '["board"]')" = qemu-x86_64 ] && pass "board file went along" || fail "board file went along" "$(json "$m" '["board"]')"
	[ "$(json "$m" '["target"]["machine"]')" = x86_64 ] && pass "manifest target.machine" || fail "manifest target.machine" ""
	[ "$(json "$m" '["target"]["ssh"]')" = root@127.0.0.1 ] && pass "manifest target.ssh" || fail "manifest target.ssh" ""
	[ "$(json "$m" '["target"]["collected_by"]')" = "$(hostname)" ] && pass "manifest target.collected_by" || fail "manifest target.collected_by" ""
	check "samples came home" test -s "$TMP/run/samples"
	check "trace came home" test -s "$TMP/run/trace.dat"
	rc=0
	"$LATWATT" analyze "$TMP/run" >"$TMP/analyze.txt" 2>&1 || rc=$?
	if [ $rc = 0 ] || { [ $rc = 1 ] && grep -q '^verdict: FAIL' "$TMP/analyze.txt"; }; then
		pass "latwatt analyze reads it"
	else fail "latwatt analyze reads it" "$(tail -n 2 "$TMP/analyze.txt")"; fi
else
	fail "run directory came home" "no $m"
fi
left=$(gssh 'ls -d /tmp/latwatt-target.* 2>/dev/null | wc -l')
[ "$left" = 0 ] && pass "nothing left on the board" || fail "nothing left on the board" "$left directories"
inst=$(gssh 'ls /sys/kernel/tracing/instances | wc -l')
[ "$inst" = 0 ] && pass "no trace instance left on the board" || fail "no trace instance left on the board" "$inst"

# -- words stay words: a remote directory with a quote and a space, and an
# argument that a shell would run
gssh "mkdir -p \"/tmp/a b'c\""
rc=0
"$LATWATT" target "${SSH_OPTS[@]}" -L "$TMP/latwatt-x86_64.tar.gz" -d "/tmp/a b'c" \
	-o "$TMP/run2" -- -d 1s '$(touch /tmp/pwned)' ';touch /tmp/pwned2' >"$TMP/t2.log" 2>&1 || rc=$?
[ $rc = 2 ] && pass "a bad run argument is the run's error" || fail "a bad run argument is the run's error" "status $rc"
grep -q 'touch /tmp/pwned' "$TMP/t2.log" && pass "the argument reached latwatt run as a word" ||
	fail "the argument reached latwatt run as a word" "$(tail -n 3 "$TMP/t2.log")"
check "no remote command injection" gssh 'test ! -e /tmp/pwned && test ! -e /tmp/pwned2'
left=$(gssh "ls -A \"/tmp/a b'c\" | wc -l")
[ "$left" = 0 ] && pass "removed from a quoted remote dir" || fail "removed from a quoted remote dir" "$left left"

# -- a dynamic binary without its libraries is refused, after looking
rc=0
"$LATWATT" target "${SSH_OPTS[@]}" -L /bin/ls -o "$TMP/run5" >"$TMP/t5.log" 2>&1 || rc=$?
{ [ $rc = 2 ] && grep -q "neither a bundle" "$TMP/t5.log"; } && pass "a dynamic binary alone is refused" ||
	fail "a dynamic binary alone is refused" "status $rc: $(tail -n 1 "$TMP/t5.log")"
left=$(gssh 'ls -d /tmp/latwatt-target.* 2>/dev/null | wc -l')
[ "$left" = 0 ] && pass "nothing left after a refusal" || fail "nothing left after a refusal" "$left"

# -- the connection from the board file's target: section alone
mkdir -p "$TMP/boards"
{ cat "$TOP/boards/qemu-x86_64.yaml"
  printf 'target:\n  ssh: root@127.0.0.1\n  port: %s\n  identity: %s\n  dir: /tmp\n' "$PORT" "$TMP/id"
  printf '  options: ["UserKnownHostsFile=%s", StrictHostKeyChecking=yes]\n' "$TMP/known_hosts"
} >"$TMP/boards/qemu-x86_64.yaml"
rc=0
"$LATWATT" target -b "$TMP/boards/qemu-x86_64.yaml" -L "$TMP/latwatt-x86_64.tar.gz" \
	-o "$TMP/run4" -- -d 1s >"$TMP/t4.log" 2>&1 || rc=$?
if { [ $rc = 0 ] || [ $rc = 1 ]; } && [ "$(json "$TMP/run4/manifest.json" '["target"]["port"]' 2>/dev/null)" = "$PORT" ]; then
	pass "target: section of the board file reaches the board"
else
	fail "target: section of the board file reaches the board" "status $rc: $(tail -n 2 "$TMP/t4.log")"
fi

# -- interrupted: SIGINT stops the remote run in order
"$LATWATT" target "${SSH_OPTS[@]}" -L "$TMP/latwatt-x86_64.tar.gz" -o "$TMP/run3" -- -d 120s \
	>"$TMP/t3.log" 2>&1 &
tpid=$!
running=0
for _ in $(seq 1 60); do
	if gssh 'for p in /tmp/latwatt-target.*/pid; do [ -s "$p" ] && kill -0 "$(cat "$p")" && exit 0; done; exit 1' 2>/dev/null &&
		gssh 'ls /sys/kernel/tracing/instances | grep -q latwatt' 2>/dev/null; then
		running=1; break
	fi
	sleep 1
done
[ $running = 1 ] && pass "remote run started" || fail "remote run started" "$(tail -n 3 "$TMP/t3.log")"
sleep 3
kill -INT "$tpid"
rc=0
wait "$tpid" || rc=$?
sed 's/^/  /' "$TMP/t3.log" | tail -n 6
[ $rc = 130 ] && pass "interrupted target exits 130" || fail "interrupted target exits 130" "status $rc"
if [ -f "$TMP/run3/manifest.json" ]; then
	st=$(json "$TMP/run3/manifest.json" '["status"]')
	[ "$st" = incomplete ] && pass "interrupted run came home incomplete" || fail "interrupted run came home incomplete" "status $st"
	[ "$(json "$TMP/run3/manifest.json" '["target"]["interrupted"]')" = True ] &&
		pass "manifest target.interrupted" || fail "manifest target.interrupted" ""
else
	fail "interrupted run came home incomplete" "no manifest"
fi
check "remote latwatt stopped" gssh '! pidof latwatt >/dev/null && ! ps | grep -v grep | grep -q bin/latwatt'
inst=$(gssh 'ls /sys/kernel/tracing/instances | wc -l')
[ "$inst" = 0 ] && pass "remote trace instances removed" || fail "remote trace instances removed" "$inst left"
left=$(gssh 'ls -d /tmp/latwatt-target.* 2>/dev/null | wc -l')
[ "$left" = 0 ] && pass "nothing left after the interrupt" || fail "nothing left after the interrupt" "$left"

guest_stop
finish
