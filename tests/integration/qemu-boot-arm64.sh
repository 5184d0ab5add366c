#!/bin/bash
# The aarch64 QEMU board, end to end: Debian's arm64 6.1 PREEMPT_RT kernel on
# qemu-system-aarch64 -M virt -cpu max (TCG) with Debian's arm64 dropbear;
# 'latwatt target' copies the cross-built bundle (make ARCH=arm64) there, runs
# 'latwatt run -d 5s' (cyclic and timerlat probes, kernel trace) and brings
# the run home, where analyze and compare read it like any other.
#
# Skips (77) without qemu-system-aarch64 (qemu-system-arm), the cross
# compiler, ssh, dropbear or the kernel.  TCG emulates every arm64
# instruction: about 4 minutes on two shared cores once the kernel is cached.
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/integration/lib.sh"
. "$TOP/tests/integration/guest_ssh.bash"

need_cmd qemu-system-aarch64
[ -x "$LATWATT" ] || skip_all "no latwatt binary at $LATWATT (make)"
mk_tmp
trap 'guest_stop; rm -rf "$TMP"' EXIT

# the arm64 build: made here if missing (make ARCH=arm64, the sysroot cached)
bundle=$TOP/build-arm64/latwatt-aarch64.tar.gz
SYSROOT_DIR=$TOP/build-sysroot/arm64
if [ ! -s "$bundle" ] || [ ! -f "$SYSROOT_DIR/.complete" ]; then
	command -v aarch64-linux-gnu-gcc >/dev/null || skip_all "needs aarch64-linux-gnu-gcc (scripts/deps-cross.txt) for the arm64 build"
	make -C "$TOP" -j2 ARCH=arm64 >"$TMP/make.log" 2>&1 ||
		{ fail "make ARCH=arm64" "$(tail -n 3 "$TMP/make.log")"; finish; }
fi
pass "arm64 bundle $(basename "$bundle")"
guest_ssh_setup arm64
t0=$(date +%s)
guest_start "$TOP/boards/qemu-aarch64.yaml" "${QEMU_TEST_KERNEL:-6.1-rt}" 600

rc=0
start=$(date +%s)
"$LATWATT" target "${SSH_OPTS[@]}" -b qemu-aarch64 -L "$bundle" -o "$TMP/run" -- -d 5s \
	>"$TMP/target.log" 2>&1 || rc=$?
secs=$(( $(date +%s) - start ))
tr '\r' '\n' <"$TMP/target.log" | grep -v '^\s*$' | tail -n 8 | sed 's/^/  /'
echo "  boot to ssh: ${BOOT_S}s; latwatt target with a 5 s run: ${secs}s wall"
if [ $rc = 0 ] || [ $rc = 1 ]; then pass "latwatt target on the arm64 guest"
else fail "latwatt target on the arm64 guest" "status $rc"; fi
m=$TMP/run/manifest.json
if [ ! -f "$m" ]; then
	fail "run directory came home" "no $m"
	finish
fi
pass "run directory came home"
[ "$(json "$m" '["status"]')" = complete ] && pass "run complete" || fail "run complete" "$(json "$m" '["status"]')"
[ "$(json "$m" '["system"]["kernel"]["machine"]')" = aarch64 ] && pass "guest machine aarch64" ||
	fail "guest machine aarch64" "$(json "$m" '["system"]["kernel"]["machine"]')"
[ "$(json "$m" '["target"]["machine"]')" = aarch64 ] && pass "target picked the aarch64 bundle" || fail "target picked the aarch64 bundle" ""
[ "$(json "$m" '["system"]["preempt"]["rt"]')" = True ] && pass "guest kernel PREEMPT_RT" ||
	fail "guest kernel PREEMPT_RT" "$(json "$m" '["system"]["kernel"]["version"]')"
[ "$(json "$m" '["board"]')" = qemu-aarch64 ] && pass "manifest board qemu-aarch64" || fail "manifest board qemu-aarch64" "$(json "$m" '["board"]')"
cyc=$(json "$m" '["probes"]["cyclic"]["threads"]' | python3 -c 'import ast,sys; print(sum(t["samples"] for t in ast.literal_eval(sys.stdin.read())))' 2>/dev/null || echo 0)
[ "${cyc:-0}" -gt 0 ] && pass "cyclic samples ($cyc)" || fail "cyclic samples" "none"
tl=$(json "$m" '["probes"]["timerlat"]["per_cpu"]' | python3 -c 'import ast,sys; print(sum(c["thread_samples"] for c in ast.literal_eval(sys.stdin.read())))' 2>/dev/null || echo 0)
[ "${tl:-0}" -gt 0 ] && pass "timerlat samples from the arm64 RT kernel's tracer ($tl)" || fail "timerlat samples" "none"
check "kernel trace came home" test -s "$TMP/run/trace.dat"
rc=0
"$LATWATT" analyze "$TMP/run" >"$TMP/analyze.txt" 2>&1 || rc=$?
if [ $rc = 0 ] || { [ $rc = 1 ] && grep -q '^FAIL: ' "$TMP/analyze.txt"; }; then
	pass "latwatt analyze reads the arm64 run"
else fail "latwatt analyze reads the arm64 run" "$(tail -n 2 "$TMP/analyze.txt")"; fi
cp -a "$TMP/run" "$TMP/run-copy"
rc=0
"$LATWATT" compare "$TMP/run" "$TMP/run-copy" >"$TMP/compare.txt" 2>&1 || rc=$?
[ $rc = 0 ] && pass "latwatt compare reads the arm64 run (itself: no regression)" ||
	fail "latwatt compare reads the arm64 run" "status $rc: $(tail -n 2 "$TMP/compare.txt")"
guest_stop
echo "  total: $(( $(date +%s) - t0 ))s"
finish
