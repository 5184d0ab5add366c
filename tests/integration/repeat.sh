#!/usr/bin/env bash
# latwatt run --repeat: N complete run directories in one parent, compared as
# one group; a stop signal during the repeats ends them, keeps what finished,
# marks the interrupted run incomplete and releases PM QoS; the scenario key
# of the same name.
. "$(dirname "$0")/lib.sh"
need_root
mk_tmp

qos() { python3 -c 'import struct;print(struct.unpack("i",open("/dev/cpu_dma_latency","rb").read(4))[0])'; }

"$LATWATT" run --repeat 3 --settle 200ms -d 1s -o "$TMP/rep" -q >"$TMP/out" 2>&1; rc=$?
[ "$rc" -eq 0 ] && python3 - "$TMP/rep" <<'PY' && pass "repeat-layout" || fail "repeat-layout" "exit $rc: $(cat "$TMP/out")"
import json, os, sys
p = sys.argv[1]
r = json.load(open(p + "/repeat.json"))
assert r["schema"] == "latwatt-repeat" and r["requested"] == 3 and r["complete"] == 3, r
assert r["runs"] == ["run-01", "run-02", "run-03"] and r["status"] == "complete", r
for i, n in enumerate(r["runs"], 1):
    m = json.load(open(os.path.join(p, n, "manifest.json")))
    assert m["status"] == "complete" and m["repeat"]["index"] == i and m["repeat"]["of"] == 3, m
    assert os.path.getsize(os.path.join(p, n, "samples")) > 0
PY

# -- a directory of repeats is a group; compared with itself: no verdict, exit 0
"$LATWATT" compare "$TMP/rep" "$TMP/rep" --block 50ms --json >"$TMP/c.json" 2>"$TMP/err"; rc=$?
[ "$rc" -eq 0 ] && python3 - "$TMP/c.json" <<'PY' && pass "repeats-compare-as-group" || fail "repeats-compare-as-group" "exit $rc: $(cat "$TMP/err")"
import json, sys
d = json.load(open(sys.argv[1]))
assert [g["count"] for g in d["groups"]] == [3, 3], d["groups"]
c = d["comparisons"][0]
assert c["verdicts"] is True and c["runs"] == [3, 3]
assert not [m for m in c["metrics"] if m["verdict"] in ("better", "worse")]
PY

# -- the scenario key
cat >"$TMP/sc.yaml" <<'YAML'
description: two short runs
duration: 500ms
repeat: 2
settle: 100ms
YAML
"$LATWATT" run --scenario "$TMP/sc.yaml" -o "$TMP/sc" -q >"$TMP/out" 2>&1; rc=$?
[ "$rc" -eq 0 ] && [ -f "$TMP/sc/run-02/manifest.json" ] && [ ! -e "$TMP/sc/run-03" ] &&
	pass "repeat-scenario-key" || fail "repeat-scenario-key" "exit $rc: $(cat "$TMP/out")"

# -- SIGINT during the second run: exit 130, the first complete, the second
#    incomplete and analyzable, no third, PM QoS released
before=$(qos)
"$LATWATT" run --repeat 3 --settle 100ms -d 3s --pm-qos 0 -o "$TMP/int" -q >"$TMP/out" 2>&1 &
pid=$!
for _ in $(seq 100); do [ -f "$TMP/int/run-02/manifest.json" ] && break; sleep 0.1; done
sleep 1
kill -INT "$pid"
wait "$pid"; rc=$?
after=$(qos)
[ "$rc" -eq 130 ] && pass "repeat-sigint-exit-130" || fail "repeat-sigint-exit-130" "exit $rc: $(cat "$TMP/out")"
python3 - "$TMP/int" <<'PY' && pass "repeat-sigint-keeps-runs" || fail "repeat-sigint-keeps-runs"
import json, os, sys
p = sys.argv[1]
r = json.load(open(p + "/repeat.json"))
assert r["status"] == "incomplete" and r["complete"] == 1 and r["runs"] == ["run-01", "run-02"], r
assert json.load(open(p + "/run-01/manifest.json"))["status"] == "complete"
assert json.load(open(p + "/run-02/manifest.json"))["status"] == "incomplete"
assert not os.path.exists(p + "/run-03")
PY
"$LATWATT" analyze "$TMP/int/run-02" >"$TMP/an" 2>&1
[ $? -eq 2 ] && grep -q '^INCOMPLETE: ' "$TMP/an" && grep -q '^  all ' "$TMP/an" &&
	pass "repeat-sigint-analyzable" || fail "repeat-sigint-analyzable" "$(head -3 "$TMP/an")"
holders=$(for p in /proc/[0-9]*; do ls -l "$p/fd" 2>/dev/null | grep -q cpu_dma_latency &&
	cat "$p/comm" 2>/dev/null; done | sort -u | tr '\n' ' ')
if [ "$after" -eq "$before" ] || ! grep -q latwatt <<<"$holders"; then
	pass "repeat-sigint-pm-qos-released"
else
	fail "repeat-sigint-pm-qos-released" "before $before, after $after, held by $holders"
fi

expect_bad() {	# NAME PATTERN ARGS...
	local n=$1 pat=$2; shift 2
	"$LATWATT" run "$@" >"$TMP/out" 2>&1; local rc=$?
	[ "$rc" -eq 2 ] && grep -q -- "$pat" "$TMP/out" && pass "$n" || fail "$n" "exit $rc: $(cat "$TMP/out")"
}
expect_bad repeat-zero "--repeat" --repeat 0 -o "$TMP/z"
expect_bad repeat-bad-settle "--settle" --repeat 2 --settle soon -o "$TMP/z"
finish
