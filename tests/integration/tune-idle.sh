#!/usr/bin/env bash
# latwatt tune, planted truth (b): idle states.  The QEMU board's CPUs have
# no cpuidle driver; the module latwatt_idle (tests/kmod, built against
# Debian's headers for the board's PREEMPT_RT kernel) gives them one with
# three states: POLL, LW-HALT (HLT, exit 1 us) and LW-DEEP (HLT, then a
# real spin of $exit_us us at each wake-up, its declared exit latency).
# The probe wakes every 5 ms (the test's scenario), long enough for the
# menu governor to pick LW-DEEP at each sleep.  With a budget the deep
# state's exit breaks (cyclic.p50<1500us: with it nearly every wake-up is
# over, without it a few percent, TCG's own), tune --knobs idle, run in the
# guest on the isolated CPU 1, must:
#   - find the system as found FAIL (the menu governor picks LW-DEEP), or
#     undecided with most of its samples over the limit (a run with few
#     wake-ups from LW-DEEP among its few: seen once in 4 searches);
#   - disable only what is needed: LW-DEEP on CPU 1, never LW-HALT, and
#     recommend it (PASS);
#   - report the power cost from the board's energy model (the test's board
#     gives LW-DEEP 100 mW, LW-HALT 500 mW): the recommendation costs power
#     against as found, labelled estimated;
#   - put every state back (state2/disable 0 after tune);
# and the recommendation's apply.sh, run in the guest, then judged as tune
# judges (run --repeat auto) meets the budget.
#
# The guest, its board and scenario are tests/kmod/idle-guest.sh's: under
# single-threaded TCG (multi-threaded, a guest whose CPUs go through
# cpuidle_enter_state() dies of an int3 oops when a tracepoint's static key
# is patched: the emulator shows one vCPU the other's half-patched code).
#
# Skips (77) without qemu-system-x86_64, busybox-static, make, the kernel
# or its headers (cached or from apt), or gcc-12.  One boot, 80 to 120 s.
# Measures: run it under flock /tmp/latwatt-kernel.lock.
. "$(dirname "$0")/lib.sh"

board="$TOP/scripts/qemu-board"
kernel=${QEMU_TEST_KERNEL:-6.12-rt}
exit_us=2500
residency_us=300
budget='cyclic.p50<1500us'

need_cmd qemu-system-x86_64
need_cmd cpio
need_cmd make
need_cmd "$PYTHON"
[ -x "$LATWATT" ] || skip_all "no latwatt binary at $LATWATT (make)"
need_static_busybox
mk_tmp
[ -n "${KEEP:-}" ] && trap - EXIT && echo "keeping $TMP"
fetch_rt_kernel
. "$TOP/tests/kmod/idle-guest.sh"
idle_guest_prepare "$TMP" "$kernel" "$exit_us" "$residency_us"
case $? in
0) ;;
3) skip_all "the module cannot be built for $kernel: $(grep error: "$TMP/module.log" | tail -n1)" ;;
*) fail "the module builds against $kernel's headers, the board is written" "$(tail -n 5 "$TMP/module.log")"
   finish ;;
esac
check "latwatt_idle builds without warnings" [ -z "$(grep -i 'warning:' "$TMP/kmod/build.log")" ]

start=$(date +%s)
rc=0
"$board" -b "$TMP/qemu-x86_64-idle.yaml" boot "$kernel" -o "$TMP/g" --latwatt "$LATWATT" \
	--overlay "$TMP/overlay" --timeout 300 -c "
	cpu=/sys/devices/system/cpu/cpu1/cpuidle
	insmod /lib/modules/latwatt/latwatt_idle.ko exit_us=$exit_us residency_us=$residency_us
	echo \$? >\$LW_OUT/insmod.rc
	cat /sys/devices/system/cpu/cpuidle/current_driver >\$LW_OUT/driver
	for s in \$cpu/state*; do echo \"\$(cat \$s/name) \$(cat \$s/latency) \$(cat \$s/residency)\"; done >\$LW_OUT/states
	latwatt tune --board qemu-x86_64-idle --scenario /root/idle-5ms.yaml -d 1s -c 1 --max-runs 6 --knobs idle \
		--budget '$budget' -o \$LW_OUT/t >\$LW_OUT/tune.out 2>&1
	echo \$? >\$LW_OUT/tune.rc
	cat \$cpu/state1/disable \$cpu/state2/disable >\$LW_OUT/after
	if [ -f \$LW_OUT/t/apply.sh ]; then
		sh \$LW_OUT/t/apply.sh >\$LW_OUT/apply.out 2>&1
		cat \$cpu/state1/disable \$cpu/state2/disable >\$LW_OUT/applied
		latwatt run --board qemu-x86_64-idle --scenario /root/idle-5ms.yaml --repeat auto --min-runs 2 --max-runs 6 -d 1s -c 1 \
			--budget '$budget' -o \$LW_OUT/confirm >\$LW_OUT/confirm.out 2>&1
		echo \$? >\$LW_OUT/confirm.rc
		echo 0 >\$cpu/state2/disable
	fi
" >"$TMP/board.log" 2>&1 || rc=$?
echo "  boot, load, tune and a confirming run: $(( $(date +%s) - start ))s wall"
g=$TMP/g
if [ $rc -ne 0 ] || [ ! -f "$g/tune.rc" ]; then
	fail "the guest's tune came back" "qemu-board status $rc: $(tail -n 3 "$TMP/board.log")"
	tail -n 20 "$g/console.log" 2>/dev/null | sed 's/^/  console: /'
	finish
fi
check "the module loads in the guest" [ "$(cat "$g/insmod.rc")" = 0 ]
check "its driver is the guest's cpuidle driver" [ "$(cat "$g/driver")" = latwatt_idle ]
check "CPU 1 has its three states" [ "$(awk '{print $1}' "$g/states" | tr '\n' ' ')" = "POLL LW-HALT LW-DEEP " ]
grep -E '^(candidate [0-9]+:|  (PASS|FAIL|undecided|continue) after|  power |recommended: |no configuration)' \
	"$g/tune.out" | sed 's/^/# /'

py "tune found the deep state and disabled it alone" "$g/t/tune.json" "$(cat "$g/tune.rc")" "$exit_us" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rc, exit_us = sys.argv[2], sys.argv[3]
c = d["candidates"]
# as found: FAIL; or, when one run of its few had few wake-ups from LW-DEEP
# (bench/tune-idle-qemu saw it once in 4 searches: 79 % over, upper bound
# 173 % after 4 runs), undecided with most of its samples over the limit
assert c[0]["name"] == "as found", c[0]
if c[0]["decision"] != "FAIL":
    share = float(c[0]["reason"].split(": ")[1].split(" %")[0])
    assert c[0]["decision"] == "undecided" and share > 50, ("as found", c[0])
    print("  as found undecided (%s), most of its samples over the limit" % c[0]["reason"])
r = d["recommended"]
# LW-DEEP alone off left undecided by the host's noise (near the limit
# under TCG): tune cannot tell and says so, or goes on to LW-HALT; the
# claim is skipped with the figures, never passed.  Decided FAIL, it fails.
one = [x for x in c if x["knobs"].get("idle", {}).get("level") == 1]
if one and one[0]["decision"] not in ("PASS", "FAIL"):
    print("SKIP: tune found the deep state and disabled it alone: LW-DEEP alone off "
          "left undecided by the host's noise: %s" % one[0]["reason"])
    sys.exit(0)
assert rc == "0" and r is not None, ("exit", rc, "recommended", r)
k = c[r]["knobs"]["idle"]
assert c[r]["decision"] == "PASS", c[r]
# only what is needed: the deepest state, on the measured CPU
assert k["level"] == 1, k
assert k["what"].startswith("idle state LW-DEEP (exit %s us) disabled on CPU 1" % exit_us), k
# nothing deeper in the search than needed: no candidate with LW-HALT off
# was judged before the recommendation
assert all(x["knobs"].get("idle", {}).get("level", 0) <= 1 for x in c[:r + 1]), c
print("PASS: tune found the deep state and disabled it alone")
PY
py "the power cost from the model" "$g/t/tune.json" "$g/tune.out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
out = open(sys.argv[2]).read()
c = d["candidates"]
if d["recommended"] is None:
    print("SKIP: the power cost from the model: no recommendation (above)")
    sys.exit(0)
r = c[d["recommended"]]
# LW-HALT at 500 mW in place of LW-DEEP at 100 mW: the recommendation
# costs power, from the model, and says so
assert r["power_w"] > c[0]["power_w"], (r["power_w"], c[0]["power_w"])
assert "estimated" in r["power_kind"], r["power_kind"]
line = [l for l in out.splitlines() if l.startswith("recommended: ")]
assert line and " W against as found" in line[0] and "; power " in line[0], line
cost = float(line[0].split(" W against as found")[0].rsplit(" ", 1)[1])
assert abs(cost - (r["power_w"] - c[0]["power_w"])) < 0.0015 and cost > 0, (cost, line)
print("PASS: the power cost from the model (%+.3f W)" % cost)
PY
check "every state back after tune (LW-HALT, LW-DEEP enabled)" [ "$(tr '\n' ' ' <"$g/after")" = "0 0 " ]
if [ -f "$g/applied" ]; then
	check "apply.sh disables LW-DEEP alone" [ "$(tr '\n' ' ' <"$g/applied")" = "0 1 " ]
	if [ "$(cat "$g/confirm.rc")" = 0 ] && grep -q ': PASS: cyclic p50' "$g/confirm.out"; then
		pass "a confirming run meets the budget"
	elif grep -q '^undecided after' "$g/confirm.out"; then
		skip "a confirming run meets the budget" "left undecided by the host's noise: $(grep '^undecided after' "$g/confirm.out")"
	else
		fail "a confirming run meets the budget" "exit $(cat "$g/confirm.rc"): $(tail -n 5 "$g/confirm.out")"
	fi
elif [ "$(cat "$g/tune.rc")" = 2 ]; then
	skip "a confirming run meets the budget" "no recommendation to apply: tune could not tell (above)"
else
	fail "apply.sh" "no apply.sh: $(tail -n 5 "$g/tune.out")"
fi
finish
