# Shared helpers of the integration tests; source it.
#   need_root / need_tracefs / need_cmd CMD   skip the whole script (exit 77) with a reason
#   pass NAME / fail NAME WHY / skip NAME WHY   one result line each
#   check NAME CMD...                            pass if CMD succeeds
#   mk_tmp                                       sets TMP, a directory removed at exit
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
LATWATT=${LATWATT:-$TOP/latwatt}
TRACEFS=${TRACEFS:-/sys/kernel/tracing}
_status=0

pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1: ${2:-}"; _status=1; }
skip() { echo "SKIP: $1: $2"; }
skip_all() { echo "SKIP: $(basename "$0" .sh): $1"; exit 77; }
check() { local n=$1; shift; if "$@"; then pass "$n"; else fail "$n" "command failed: $*"; fi; }
need_root() { [ "$(id -u)" -eq 0 ] || skip_all "needs root (run the tests as root)"; }
need_cmd() { command -v "$1" >/dev/null 2>&1 || skip_all "needs $1 (scripts/install-deps)"; }
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
# json FILE EXPR: a jq-like read through python3 (always on Debian) — e.g. json m.json '["status"]'
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval('d'+sys.argv[2]))" "$1" "$2"; }
finish() { exit $_status; }
