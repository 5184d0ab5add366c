#!/usr/bin/env bash
# latwatt run --repeat: N complete run directories in one parent, compared as
# one group; a stop signal during the repeats ends them, keeps what finished,
# marks the interrupted run incomplete and releases PM QoS; the scenario key
# of the same name.
. "$(dirname "$0")/lib.sh"
need_root
mk_tmp

qos() { "$PYTHON" -c 'import struct;print(struct.unpack("i",open("/dev/cpu_dma_latency","rb").read(4))[0])'; }

"$LATWATT" run --repeat 3 --settle 200ms -d 1s -o "$TMP/rep" -q >"$TMP/out" 2>&1; rc=$?
[ "$rc" -eq 0 ] && "$PYTHON" - "$TMP/rep" <<'PY' && pass "repeat-layout" || fail "repeat-layout" "exit $rc: $(cat "$TMP/out")"
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
[ "$rc" -eq 0 ] && "$PYTHON" - "$TMP/c.json" <<'PY' && pass "repeats-compare-as-group" || fail "repeats-compare-as-group" "exit $rc: $(cat "$TMP/err")"
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
"$PYTHON" - "$TMP/int" <<'PY' && pass "repeat-sigint-keeps-runs" || fail "repeat-sigint-keeps-runs"
import json, os, sys
p = sys.argv[1]
r = json.load(open(p + "/repeat.json"))
assert r["status"] == "incomplete" and r["complete"] == 1 and r["runs"] == ["run-01", "run-02"], r
assert r["states"] == [{"run": "run-01", "status": "complete"},
                       {"run": "run-02", "status": "incomplete", "reason": "interrupted by SIGINT"}], r
assert r["stopped"] == {"reason": "interrupted by SIGINT", "during": "run-02", "after": "run-01"}, r
assert json.load(open(p + "/run-01/manifest.json"))["status"] == "complete"
assert json.load(open(p + "/run-02/manifest.json"))["status"] == "incomplete"
assert not os.path.exists(p + "/run-03")
PY
"$LATWATT" analyze "$TMP/int/run-02" >"$TMP/an" 2>&1
[ $? -eq 2 ] && grep -q '^verdict: INCOMPLETE: ' "$TMP/an" && grep -q '^  all ' "$TMP/an" &&
	pass "repeat-sigint-analyzable" || fail "repeat-sigint-analyzable" "$(head -3 "$TMP/an")"
holders=$(for p in /proc/[0-9]*; do ls -l "$p/fd" 2>/dev/null | grep -q cpu_dma_latency &&
	cat "$p/comm" 2>/dev/null; done | sort -u | tr '\n' ' ')
if [ "$after" -eq "$before" ] || ! grep -q latwatt <<<"$holders"; then
	pass "repeat-sigint-pm-qos-released"
else
	fail "repeat-sigint-pm-qos-released" "before $before, after $after, held by $holders"
fi

# -- compared as a group, the interrupted run is left out by name: the run
#    is the unit of evidence, and a run cut short is not a repeat
"$LATWATT" compare "$TMP/int" "$TMP/rep" --block 50ms --json >"$TMP/c2.json" 2>"$TMP/err"; rc=$?
# (exit 0 or 1: the verdict of one run against three of a busy machine is
# not the point; the fresh chroot's make check had a 1)
[ "$rc" -le 1 ] && grep -q "int/run-02: left out of the group: incomplete: interrupted by SIGINT" "$TMP/err" &&
	python3 - "$TMP/c2.json" <<'PY' && pass "repeat-sigint-compare-leaves-it-out" ||
import json, sys
d = json.load(open(sys.argv[1]))
assert [g["count"] for g in d["groups"]] == [1, 3], d["groups"]
PY
	fail "repeat-sigint-compare-leaves-it-out" "exit $rc: $(cat "$TMP/err")"

# -- SIGINT and SIGTERM at each stage: during the first run, during a later
#    run, between runs (the settle pause after run-01 finished).  repeat.json
#    lists every run directory there with its state, counts the complete
#    ones and says where the repeats stopped (it said "runs": ["run-01"],
#    "complete": 0 for a stop between runs, run-01 complete).
stage() {	# SIG STAGE: during-first | during-second | between
	local sig=$1 st=$2 d="$TMP/st-$1-$2"
	"$LATWATT" run --repeat 3 --settle 3s -d 2s -c 0 -o "$d" -q >"$TMP/out" 2>&1 &
	local pid=$! want
	case $st in
	during-first)	for _ in $(seq 100); do [ -f "$d/run-01/manifest.json" ] && break; sleep 0.1; done
			sleep 0.5 ;;
	between)	for _ in $(seq 100); do grep -qs '"complete": 1' "$d/repeat.json" && break; sleep 0.1; done
			sleep 0.5 ;;
	during-second)	for _ in $(seq 150); do [ -f "$d/run-02/manifest.json" ] && break; sleep 0.1; done
			sleep 0.5 ;;
	esac
	kill -"$sig" "$pid"
	wait "$pid"; local rc=$?
	want=$((128 + $(kill -l "$sig")))
	[ "$rc" -eq "$want" ] && python3 - "$d" "$sig" "$st" <<'PY' && pass "repeat-$sig-$st" ||
import json, os, sys
p, sig, st = sys.argv[1:]
r = json.load(open(p + "/repeat.json"))
on_disk = sorted(n for n in os.listdir(p) if n.startswith("run-"))
assert r["runs"] == on_disk, (r, on_disk)
states = {s["run"]: s["status"] for s in r["states"]}
for n in on_disk:
    assert states[n] == json.load(open(os.path.join(p, n, "manifest.json")))["status"], (r, n)
assert r["complete"] == sum(1 for s in states.values() if s == "complete"), r
assert r["status"] == "incomplete", r
why = "interrupted by SIG" + sig
if st == "during-first":
    assert on_disk == ["run-01"] and states["run-01"] == "incomplete", r
    assert r["stopped"] == {"reason": why, "during": "run-01"}, r
elif st == "between":
    assert on_disk == ["run-01"] and r["complete"] == 1, r
    assert r["stopped"] == {"reason": why, "after": "run-01"}, r
else:
    assert on_disk == ["run-01", "run-02"] and r["complete"] == 1, r
    assert r["stopped"] == {"reason": why, "during": "run-02", "after": "run-01"}, r
PY
	fail "repeat-$sig-$st" "exit $rc (want $want): $(cat "$TMP/out"; cat "$d/repeat.json")"
}
for sig in INT TERM; do
	for st in during-first between during-second; do stage "$sig" "$st"; done
done

expect_bad() {	# NAME PATTERN ARGS...
	local n=$1 pat=$2; shift 2
	"$LATWATT" run "$@" >"$TMP/out" 2>&1; local rc=$?
	[ "$rc" -eq 2 ] && grep -q -- "$pat" "$TMP/out" && pass "$n" || fail "$n" "exit $rc: $(cat "$TMP/out")"
}
expect_bad repeat-zero "--repeat" --repeat 0 -o "$TMP/z"
expect_bad repeat-bad-settle "--settle" --repeat 2 --settle soon -o "$TMP/z"
finish
