#!/usr/bin/env bash
# latwatt run --until-decided: one run lengthened until its budgets are
# decided (cmd/rununtil.h).  Looks every 2 s on one CPU, 20 s at the longest:
#   - 'cyclic.max<1us' is broken by the first stretch's samples: FAIL at the
#     first look, exit 1, the run complete and ended after 2 s, not 20;
#   - 'cyclic.p50<1us' (every wake-up takes more than 1 us): FAIL, the
#     share of samples at or over 1 us bounded above 50 %, from the third
#     look;
#   - 'cyclic.p99<1s': PASS, the share over 1 s bounded under 1 %;
#   - 'cyclic.max<1s' over 6 s: 6 block maxima cannot bound a maximum (30
#     are needed): undecided at -d, exit 0, never FAIL;
#   - a budget the looks cannot judge ('over<1' with --threshold 1us: every
#     sample is over it) is judged on the whole run when it ends: FAIL;
#   - SIGTERM: not decided, exit 143, what was measured kept;
#   - no latency budget, or options of another design: refused, exit 2.
. "$(dirname "$0")/lib.sh"
need_root
mk_tmp

ncpu=$(getconf _NPROCESSORS_ONLN)
cpu=$((ncpu - 1))
run() { "$LATWATT" run -q -c "$cpu" --until-decided --look-every 2s "$@"; }
seconds() { sed -n 's/^decided after \([0-9]*\) s: .*/\1/p' "$1"; }

# -- a maximum broken by what was measured: the first look
run -d 20s --budget 'cyclic.max<1us' -o "$TMP/max" >"$TMP/max.out" 2>"$TMP/max.err"
rc=$?
if [ $rc -eq 1 ] && grep -q '^decided after 2 s: FAIL: cyclic max .* in stretch 1 (cyclic.max<1us)$' \
	"$TMP/max.out" && [ "$(wc -l <"$TMP/max.out")" -eq 1 ]; then
	pass "max-broken-first-look"
else
	fail "max-broken-first-look" "exit $rc: $(cat "$TMP/max.out" "$TMP/max.err")"
fi
/usr/bin/python3 - "$TMP/max/manifest.json" "$TMP/max/samples" <<'PY' && pass "max-manifest" || fail "max-manifest"
import json, os, struct, sys
m = json.load(open(sys.argv[1]))
st = m["status"] if isinstance(m.get("status"), str) else m["status"]["state"]
assert st == "complete", m.get("status")
s = m["sequential"]
assert s["decision"] == "FAIL" and s["stretches"] == 1 and s["exit_status"] == 1, s
assert len(s["looks"]) == 1 and s["looks"][0]["decision"] == "FAIL", s["looks"]
# the run ended at the decision: its samples span about 2 s, not 20
data = open(sys.argv[2], "rb").read()[64:]
t = [struct.unpack_from("<Q", data, i)[0] for i in range(0, len(data) - 23, 24)]
span = (max(t) - min(t)) / 1e9
assert 1.5 < span < 4, span
# the worst the look saw is the largest sample of the first stretch
b = s["looks"][0]["budgets"][0]
assert b["kind"] == "max" and b["broken"] and b["limit"] == 1, b
PY

# -- a percentile every wake-up breaks: FAIL on the stretches, with confidence
run -d 20s --budget 'cyclic.p50<1us' -o "$TMP/p50" >"$TMP/p50.out" 2>"$TMP/p50.err"
rc=$?
n=$(seconds "$TMP/p50.out")
if [ $rc -eq 1 ] && grep -q "^decided after [0-9]* s: FAIL: cyclic p50: 100 % of samples at or over 1 us, lower bound .* > 50 % (stretches' shares over the limit)" \
	"$TMP/p50.out" && [ "${n:-0}" -ge 6 ] && [ "$n" -le 20 ]; then
	pass "p50-broken-fails"
else
	fail "p50-broken-fails" "exit $rc: $(cat "$TMP/p50.out" "$TMP/p50.err")"
fi

# -- a percentile far under its limit: PASS, and the run ends then
run -d 20s --budget 'cyclic.p99<1s' -o "$TMP/p99" >"$TMP/p99.out" 2>"$TMP/p99.err"
rc=$?
n=$(seconds "$TMP/p99.out")
if [ $rc -eq 0 ] && grep -q "^decided after [0-9]* s: PASS: cyclic p99: .* of samples at or over 1000000 us, upper bound .* < 1 % (stretches' shares over the limit)" \
	"$TMP/p99.out" && [ "${n:-0}" -ge 6 ] && [ "$n" -lt 20 ] &&
	grep -q '"decision": "PASS"' "$TMP/p99/manifest.json"; then
	pass "p99-met-passes"
else
	fail "p99-met-passes" "exit $rc: $(cat "$TMP/p99.out" "$TMP/p99.err")"
fi

# -- too few block maxima to bound a maximum: undecided at -d, never FAIL
run -d 6s --budget 'cyclic.max<1s' -o "$TMP/und" >"$TMP/und.out" 2>"$TMP/und.err"
rc=$?
if [ $rc -eq 0 ] && grep -q '^undecided after 6 s (the longest, -d): ' "$TMP/und.out"; then
	pass "max-undecided-at-the-end"
else
	fail "max-undecided-at-the-end" "exit $rc: $(cat "$TMP/und.out" "$TMP/und.err")"
fi

# -- a budget judged on the whole run: every sample is over the threshold
run -d 6s --threshold 1 --budget 'cyclic.p99<1s' --budget 'cyclic.over<1' -o "$TMP/over" \
	>"$TMP/over.out" 2>"$TMP/over.err"
rc=$?
if [ $rc -eq 1 ] && grep -q '^decided after [0-9]* s: FAIL: budget.cyclic.over: .*judged on the whole run' \
	"$TMP/over.out"; then
	pass "whole-run-budget-fails"
else
	fail "whole-run-budget-fails" "exit $rc: $(cat "$TMP/over.out" "$TMP/over.err")"
fi

# -- interrupted: not decided, what was measured kept
"$LATWATT" run -q -c "$cpu" --until-decided --look-every 2s -d 20s --budget 'cyclic.max<1s' \
	-o "$TMP/int" >"$TMP/int.out" 2>"$TMP/int.err" &
pid=$!
sleep 5
kill -TERM $pid
wait $pid
rc=$?
if [ $rc -eq 143 ] && grep -q '^not decided: interrupted after [0-9]* look' "$TMP/int.out" &&
	grep -q '"decision": "interrupted"' "$TMP/int/manifest.json" && [ -s "$TMP/int/samples" ]; then
	pass "interrupted-not-decided"
else
	fail "interrupted-not-decided" "exit $rc: $(cat "$TMP/int.out" "$TMP/int.err"; ls "$TMP/int")"
fi

# -- refused before anything is measured
"$LATWATT" run -o "$TMP/none" -d 10s --look-every 2s --until-decided --budget 'xruns<1' >"$TMP/none.out" 2>&1
[ $? -eq 2 ] && grep -q 'needs a latency budget' "$TMP/none.out" && [ ! -e "$TMP/none" ] &&
	pass "no-latency-budget-refused" || fail "no-latency-budget-refused" "$(cat "$TMP/none.out")"
ok=1
for args in "--repeat 2:one of them" "--min-runs 2:is for --repeat auto" \
	"--look-every 1500ms:whole seconds" "--look-every 4s:fewer than 3 looks" \
	"--monitor 1s:keeps histograms"; do
	# shellcheck disable=SC2086
	"$LATWATT" run -o "$TMP/bad" -d 10s --look-every 2s --until-decided --budget 'p99<1s' \
		${args%%:*} >"$TMP/bad.out" 2>&1
	rc=$?
	if [ $rc -ne 2 ] || [ -e "$TMP/bad" ] || ! grep -q "${args#*:}" "$TMP/bad.out"; then
		ok=0
		echo "  $args: exit $rc: $(cat "$TMP/bad.out")"
	fi
done
"$LATWATT" run -o "$TMP/bad" -d 10s --look-every 2s >"$TMP/bad.out" 2>&1
[ $? -eq 2 ] && grep -q 'look-every is for --until-decided' "$TMP/bad.out" || ok=0
[ $ok -eq 1 ] && pass "other-designs-refused" || fail "other-designs-refused"
finish
