#!/bin/bash
# latwatt target's command line and the errors before anything is copied:
# bad usage and unreachable boards exit 2 with a message naming the cause,
# and no run directory is left behind.  Needs no board (ssh to a closed
# local port).
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/integration/lib.sh"
[ -x "$LATWATT" ] || skip_all "no latwatt binary at $LATWATT (make)"
mk_tmp

expect() {	# NAME STATUS MESSAGE-PART ARGS...
	local name=$1 want=$2 msg=$3 rc=0
	shift 3
	"$LATWATT" target "$@" >"$TMP/out" 2>&1 || rc=$?
	if [ $rc = "$want" ] && grep -q -- "$msg" "$TMP/out"; then pass "$name"
	else fail "$name" "status $rc, want $want and '$msg': $(tail -n 1 "$TMP/out")"; fi
}

expect "--help" 0 "usage: latwatt target" --help
expect "no -o" 2 "give -o RUN" --ssh h
expect "no board" 2 "no board to reach" -o "$TMP/r"
expect "a board file without target:" 2 "no board to reach" -b rpi4 -o "$TMP/r"
expect "host that looks like an option" 2 "is not a \[USER@\]HOST" --ssh -oProxyCommand=x -o "$TMP/r"
expect "port out of range" 2 "not a number from 1 to 65535" --ssh h -p 70000 -o "$TMP/r"
expect "ssh option not Key=value" 2 "Key=value" --ssh h -O -F/etc/x -o "$TMP/r"
expect "-o among the run's arguments" 2 "for 'latwatt target' itself" --ssh h -o "$TMP/r" -- -d 1s -o x
expect "relative remote dir" 2 "not an absolute path" --ssh h -d tmp -o "$TMP/r"
mkdir "$TMP/exists"
expect "existing output" 2 "exists" --ssh h -o "$TMP/exists"
if command -v ssh >/dev/null; then
	port=$("$PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	expect "unreachable board" 2 "cannot reach root@127.0.0.1" --ssh root@127.0.0.1 -p "$port" -t 3 -o "$TMP/r"
else
	skip "unreachable board" "needs ssh (openssh-client)"
fi
check "no run directory left" test ! -e "$TMP/r"
finish
