#!/usr/bin/env bash
# latwatt tune with the boot-time knobs (--boot-cmd; --kernel is the same
# through scripts/qemu-board, bench/README.md "tune-boot-qemu"): each run
# goes through a boot command given the candidate's kernel command line.
# Here the command is a stand-in for a board that boots: it records the
# command line it was given and makes the run on this machine with
# 'latwatt run', and it plants the truth: unless the command line holds
# nohz_full=, a timer storm (tests/integration/plant-timerstorm.c, as in
# tune-storm.sh) runs on the measured CPU during the run.  Budget
# cyclic.p90<50us (the storm: about 40 % of the samples over 50 us).
#   - tune --board (the QEMU board's file without its budgets) --boot-cmd:
#     the board's CPUs (CPU 1 measured, its realtime CPU), the base command
#     line its kernel.cmdline without the boot-time knobs' words ("": its
#     words are all theirs); the run-time knobs not searched;
#     as found FAIL, isolcpus not better (dropped), nohz_full PASS and
#     recommended; every run booted with its candidate's command line;
#     tune.json and tune.html hold each candidate's; cmdline.txt 'nohz_full=1'; apply.sh
#     sets nothing on this machine (a comment); the first boot with
#     nohz_full= fails (status 3, as scripts/qemu-board's for a kernel
#     panic): booted again, its log kept;
#   - bad uses refused before anything runs (exit 2): --kernel with a board
#     that is not a QEMU board, --kernel with --boot-cmd, --sysfs-root.
# About 20 s, under the machine-wide lock.
. "$(dirname "$0")/lib.sh"
need_root
need_tracefs
need_cmd cc
mk_tmp

ncpu=$(getconf _NPROCESSORS_ONLN)
[ "$ncpu" -ge 2 ] || skip_all "one CPU: the board's CPU 1 is not here"
cc -O2 -o "$TMP/plant" "$TOP/tests/integration/plant-timerstorm.c" ||
	skip_all "cannot build the plant with cc"

# the board: the QEMU board's CPUs and kernel.cmdline, without its budgets
# (a maximum needs 30 s of runs to extrapolate): the test's budget alone
"$PYTHON" "$TOP/tests/integration/board-variant.py" \
	"$TOP/boards/qemu-x86_64.yaml" "$TMP/qemu-x86_64-boot.yaml" ||
	skip_all "cannot write the test's board"

# the boot command: CMDLINE OUT -- RUN-ARGS
cat >"$TMP/boot" <<EOF
#!/bin/sh
cmdline=\$1 out=\$2
shift 3
echo "\$cmdline" >"\$out.cmdline"
# the first boot with nohz_full= fails, as a guest that panicked
case " \$cmdline " in
*" nohz_full="*) [ -e "$TMP/failed-once" ] || { : >"$TMP/failed-once"; echo "panic" >&2; exit 3; } ;;
esac
case " \$cmdline " in
*" nohz_full="*) storm= ;;
*) "$TMP/plant" 1 97 75 96 0 >"\$out.plant" 2>&1 & storm=\$! ;;
esac
"$LATWATT" run -o "\$out" "\$@"
rc=\$?
[ -n "\$storm" ] && kill \$storm
exit \$rc
EOF
chmod +x "$TMP/boot"

"$LATWATT" tune --board "$TMP/qemu-x86_64-boot.yaml" --boot-cmd "$TMP/boot {cmdline} {out}" -d 1s --max-runs 4 \
	--knobs isolcpus,nohz_full,rt_throttle --budget 'cyclic.p90<50us' -o "$TMP/t" \
	>"$TMP/t.out" 2>"$TMP/t.err"
rc=$?
grep -E '^(each run boots|candidate [0-9]+:|  (PASS|FAIL|undecided|continue) after|  (kept|dropped)|recommended: |  rt_throttle)' \
	"$TMP/t.out" | sed 's/^/# /'
if [ $rc -eq 0 ] && grep -q '^recommended: nohz_full, meets every budget' "$TMP/t.out"; then
	pass "nohz_full found and recommended"
elif [ $rc -eq 2 ] && grep -q '^no configuration was shown' "$TMP/t.out"; then
	skip "nohz_full found and recommended" "left undecided by this machine's noise: $(grep '^no configuration' "$TMP/t.out")"
else
	fail "nohz_full found and recommended" "exit $rc: $(cat "$TMP/t.out" "$TMP/t.err")"
fi
check "a failed boot is booted again, its log kept" sh -c "
	grep -q '^  $TMP/t/cand-03/run-01: the boot failed: the kernel panicked or its init failed (status 3; .*): booted again (1 of 2)\$' '$TMP/t.out' &&
	grep -q '^panic\$' '$TMP/t/cand-03/run-01.failed-1.log' && [ -f '$TMP/t/cand-03/run-01/manifest.json' ]"
check "the run-time knobs are not searched when booting" \
	grep -q '^  rt_throttle *not here: set at run time on this machine, not in the kernel each run boots' "$TMP/t.out"
check "the board's CPUs: CPU 1 measured" grep -q '^tune: CPU 1 measured' "$TMP/t.out"
py "each run booted with its candidate's command line" "$TMP/t" <<'PY'
import glob, json, os, sys
d = json.load(open(os.path.join(sys.argv[1], "tune.json")))
want = {"as found": "", "isolcpus": "isolcpus=1", "nohz_full": "nohz_full=1"}
seen = 0
for c in d["candidates"]:
    assert c["cmdline"] == want[c["name"]], (c["name"], c["cmdline"])
    runs = sorted(glob.glob(os.path.join(sys.argv[1], c["dir"], "run-*.cmdline")))
    assert runs and len(runs) == c["runs"], (c["name"], runs, c["runs"])
    for r in runs:
        assert open(r).read().strip() == want[c["name"]], (r, open(r).read())
        seen += 1
    if c["name"] == "as found":
        assert c["decision"] == "FAIL", c
    if c["name"] == "isolcpus":
        assert c["decision"] != "PASS", c
print("PASS: each run booted with its candidate's command line (%d runs)" % seen)
PY
check "tune.html gives each candidate's command line" \
	grep -q '<td class="l">nohz_full<br><code>nohz_full=1</code></td>' "$TMP/t/tune.html"
if [ -f "$TMP/t/cmdline.txt" ]; then
	check "cmdline.txt holds the boot-time knob" [ "$(cat "$TMP/t/cmdline.txt")" = "nohz_full=1" ]
	check "apply.sh sets nothing on this machine" \
		sh -c "! grep -v -e '^#' -e '^set -e\$' '$TMP/t/apply.sh' | grep -q . && grep -q '^# at boot: nohz_full=1 on the kernel command line' '$TMP/t/apply.sh'"
fi

# -- refused before anything runs
"$LATWATT" tune --board local --kernel 6.12-rt --budget 'cyclic.p99<1ms' -o "$TMP/r1" >"$TMP/r1.out" 2>&1
check "--kernel needs a QEMU board" sh -c "[ $? -eq 2 ] && grep -q 'not a QEMU board' '$TMP/r1.out' && [ ! -e '$TMP/r1' ]"
"$LATWATT" tune --board qemu-x86_64 --kernel 6.12-rt --boot-cmd x --budget 'cyclic.p99<1ms' -o "$TMP/r2" >"$TMP/r2.out" 2>&1
check "--kernel or --boot-cmd, not both" sh -c "[ $? -eq 2 ] && grep -q 'give one' '$TMP/r2.out'"
"$LATWATT" tune --board qemu-x86_64 --boot-cmd x --sysfs-root / --budget 'cyclic.p99<1ms' -o "$TMP/r3" >"$TMP/r3.out" 2>&1
check "--sysfs-root is not for booting" sh -c "[ $? -eq 2 ] && grep -q 'nothing is set here' '$TMP/r3.out'"
finish
