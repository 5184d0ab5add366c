#!/usr/bin/env bash
# Boards and power against the real binary: board listing and validation
# errors, a run sampling a copy of a sysfs tree whose sensor fails mid-run,
# bad power options, the energy model from a trace, meter import, and the
# analyze verdict's exit status.
. "$(dirname "$0")/lib.sh"
mk_tmp
FIX=$TOP/tests/data/sysfs/board1

# ---- boards -------------------------------------------------------------
out=$("$LATWATT" boards 2>&1)
for b in local qemu-x86_64 rpi4 beaglebone-black imx8mp-evk; do
	grep -q "^$b " <<<"$out" && pass "boards lists $b" || fail "boards lists $b" "$out"
done
"$LATWATT" boards check rpi4 beaglebone-black imx8mp-evk qemu-x86_64 local >/dev/null 2>&1 &&
	pass "shipped boards are valid" || fail "shipped boards are valid"
"$LATWATT" boards check "$TOP/tests/data/boards/bad/bad-number.yaml" >"$TMP/err" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "bad-number.yaml:8:15: idle_states\[1\].power_mw: 'lots' is not a number" "$TMP/err" &&
	pass "bad board: exit 2, file:line:col and key" || fail "bad board: exit 2, file:line:col and key" "rc=$rc $(cat "$TMP/err")"
"$LATWATT" boards show no-such-board >"$TMP/err" 2>&1
[ $? -eq 2 ] && grep -q "board 'no-such-board' not found" "$TMP/err" &&
	pass "unknown board: exit 2" || fail "unknown board: exit 2" "$(cat "$TMP/err")"
"$LATWATT" boards show imx8mp-evk --json >"$TMP/b.json" &&
	[ "$(json "$TMP/b.json" '["idle_states"][1]["exit_latency_us"]')" = 1500.0 ] &&
	pass "boards show --json" || fail "boards show --json" "$(head -c 300 "$TMP/b.json")"

# ---- bad options: exit 2 with a one-line error ---------------------------
bad() {
	local name=$1 want=$2; shift 2
	"$LATWATT" "$@" >"$TMP/err" 2>&1
	local rc=$?
	# the error first (the run driver may add its "run incomplete" note)
	if [ $rc -eq 2 ] && grep -m 1 'error: ' "$TMP/err" | grep -q -- "error: .*$want"; then
		pass "$name"
	else
		fail "$name" "rc=$rc: $(cat "$TMP/err")"
	fi
}
bad "run --power bogus" "--power: unknown power source 'bogus'" run -o "$TMP/x" --no-rt --power bogus
bad "run --power-rate 0" "--power-rate: 0 is out of range" run -o "$TMP/x" --no-rt --power-rate 0
bad "run --board unknown" "board 'nope' not found" run -o "$TMP/x" --no-rt --board nope
bad "run --power hwmon with none there" "--power hwmon: no such power source found" \
	run -o "$TMP/x1" --no-rt -d 1 -q --power hwmon --sysfs-root "$TMP/empty"
[ ! -e "$TMP/x1" ] && pass "run --power hwmon with none there creates nothing" ||
	fail "run --power hwmon with none there creates nothing" "$TMP/x1 exists"
"$LATWATT" run -o "$TMP/x2" --no-rt -d 200ms -q --trace off >/dev/null 2>&1 ||
	fail "a short run to import into"
bad "power import without alignment" "give --offset S" power import "$TMP/x2" /dev/null

# ---- a run sampling a copy of a sysfs tree; a sensor fails mid-run -------
cp -a "$FIX" "$TMP/sysfs"
bat=$TMP/sysfs/sys/class/power_supply/BAT0/power_now
# once the sampler runs (RUN/power exists), the battery's file goes away for a while
( for _ in $(seq 100); do [ -e "$TMP/r1/power" ] && break; sleep 0.05; done
  sleep 0.3; mv "$bat" "$bat.gone"; sleep 0.6; mv "$bat.gone" "$bat" ) &
mover=$!
"$LATWATT" run -o "$TMP/r1" --no-rt -d 2 -q -c 0 --sysfs-root "$TMP/sysfs" \
	--power hwmon,iio,rapl,battery --power-rate 50 >"$TMP/run.out" 2>&1
rc=$?
wait $mover
[ $rc -eq 0 ] && pass "run with a failing sensor completes" || fail "run with a failing sensor completes" "rc=$rc $(cat "$TMP/run.out")"
[ "$(json "$TMP/r1/manifest.json" '["status"]')" = complete ] && pass "manifest complete" ||
	fail "manifest complete" "$(json "$TMP/r1/manifest.json" '["status"]')"
grep -q $'^gap\t[0-9]*\t[0-9]*\tcannot read .*power_now: No such file or directory' "$TMP/r1/power" &&
	pass "the gap is recorded with its reason" || fail "the gap is recorded with its reason" "$(grep -c ^gap "$TMP/r1/power") gaps"
n=$(grep -c $'^rail' "$TMP/r1/power")
[ "$n" -eq 10 ] && pass "10 rails sampled" || fail "10 rails sampled" "$n"
rails=$(python3 - "$TMP/r1/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
r = {x["name"]: x for x in m["power"]["rails"]}
b = r["battery/BAT0"]; i = r["ina219/power1"]
ok = b["gaps"] == 1 and b["failed_reads"] >= 5 and b["samples"] >= 10 and i["gaps"] == 0 and i["samples"] >= 30
print("ok" if ok else "bad %s %s" % (b, i))
PY
)
[ "$rails" = ok ] && pass "manifest counts samples, gaps and failed reads" || fail "manifest counts samples, gaps and failed reads" "$rails"
"$LATWATT" power show "$TMP/r1" --json >"$TMP/show.json" 2>"$TMP/err" &&
	python3 - "$TMP/show.json" <<'PY' && pass "power show: measured rails, energy" || fail "power show: measured rails, energy" "$(head -c 400 "$TMP/show.json") $(cat "$TMP/err")"
import json, sys
s = json.load(open(sys.argv[1]))
r = {x["name"]: x for x in s["rails"]}
assert s["kind"] == "measured"
assert abs(r["ina219/power1"]["average_w"] - 2.5) < 1e-6
assert abs(r["ina226/power2"]["average_w"] - 3.0) < 1e-6
assert r["battery/BAT0"]["gaps"] == 1
assert r["rapl/package-0"]["energy_j"] == 0.0   # a static copy: the counter does not move
assert s["idle"]["sysfs"]["cpus"][0]["states"][1]["name"] == "cpu-pd-wait"
PY

# ---- meter import and the analyze verdict ---------------------------------
"$LATWATT" run -o "$TMP/r2" --no-rt -d 1 -q -c 0 --power off >/dev/null 2>&1 &&
	[ ! -e "$TMP/r2/power" ] && [ -e "$TMP/r2/idle.json" ] &&
	pass "--power off: idle accounting only" || fail "--power off: idle accounting only"
printf 'time_s,sync,P (W)\n0.0,0,1.0\n0.5,1,4.0\n1.0,1,4.0\n1.5,1,4.0\n' >"$TMP/meter.csv"
"$LATWATT" power import "$TMP/r2" "$TMP/meter.csv" --marker sync >/dev/null 2>&1 &&
	grep -q $'^rail\t0\tmeter/P_(W)\tmeter\tmeasured\ttotal' "$TMP/r2/power" &&
	pass "power import --marker" || fail "power import --marker" "$(head -5 "$TMP/r2/power" 2>&1)"
cat >"$TMP/tight.yaml" <<'Y'
format: 1
name: tight
budgets:
  latency_us: {max: 0.001}
  average_power_mw: 100000
Y
cat >"$TMP/loose.yaml" <<'Y'
format: 1
name: loose
budgets:
  latency_us: {p99: 10000000}
  average_power_w: 5
Y
"$LATWATT" analyze "$TMP/r2" --board "$TMP/loose.yaml" -n >"$TMP/a.txt" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q '^PASS: 2 of 2 checks met' "$TMP/a.txt" && grep -q 'ok *power<=5000mW *4000 *mW *board loose' "$TMP/a.txt" &&
	pass "analyze: budgets met, exit 0" || fail "analyze: budgets met, exit 0" "rc=$rc $(tail -5 "$TMP/a.txt")"
"$LATWATT" analyze "$TMP/r2" --board "$TMP/tight.yaml" -n >"$TMP/a.txt" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q '^FAIL: 1 of 2 checks broken' "$TMP/a.txt" && grep -q 'BROKEN cyclic.max<=0.001us' "$TMP/a.txt" &&
	pass "analyze: a budget broken, exit 1" || fail "analyze: a budget broken, exit 1" "rc=$rc $(tail -5 "$TMP/a.txt")"
"$LATWATT" analyze "$TMP/r2" --board "$TMP/missing.yaml" -n >"$TMP/a.txt" 2>&1
[ $? -eq 2 ] && pass "analyze: bad board, exit 2" || fail "analyze: bad board, exit 2" "$(tail -2 "$TMP/a.txt")"
"$LATWATT" analyze "$TMP/r2" --board "$TMP/tight.yaml" --json -n >"$TMP/a.json" 2>/dev/null
[ "$(json "$TMP/a.json" '["verdict"]["broken"]')" = 1 ] && [ "$(json "$TMP/a.json" '["verdict"]["result"]')" = FAIL ] &&
	pass "analysis.json has the budgets" ||
	fail "analysis.json has the budgets" "$(head -c 200 "$TMP/a.json")"

# ---- the energy model from a recorded trace -------------------------------
if [ -f "$TOP/tests/data/trace-run/trace.dat" ]; then
	cp -a "$TOP/tests/data/trace-run" "$TMP/tr"
	rm -f "$TMP/tr/power" "$TMP/tr/idle.json"
	"$LATWATT" power estimate "$TMP/tr" --board local >"$TMP/est.txt" 2>&1 &&
		grep -q $'^rail\t0\tmodel/total\tmodel\testimated\tenergy,total' "$TMP/tr/power" &&
		pass "power estimate from trace.dat" || fail "power estimate from trace.dat" "$(cat "$TMP/est.txt")"
	"$LATWATT" power estimate "$TMP/tr" --board local >"$TMP/err" 2>&1
	[ $? -eq 2 ] && grep -q 'exists' "$TMP/err" && pass "estimate refuses to replace" || fail "estimate refuses to replace" "$(cat "$TMP/err")"
	[ "$(json "$TMP/tr/idle.json" '["trace"]["source"]')" = "power:cpu_idle trace events" ] &&
		pass "traced idle accounting" || fail "traced idle accounting"
else
	skip "power estimate from trace.dat" "no recorded trace fixture (tests/data/trace-run) in this tree"
fi
finish
