#!/usr/bin/env bash
# latwatt run / analyze against the real binary and kernel: sample counts,
# interruption, PM QoS release, bad input.
. "$(dirname "$0")/lib.sh"
need_root
mk_tmp

# -- a 3-second run on every online CPU: samples + missed periods = duration/interval (2 %)
if "$LATWATT" run -d 3s -i 1000 -o "$TMP/r" -q >"$TMP/out" 2>&1; then
	pass "run-3s-exit-0"
else
	fail "run-3s-exit-0" "$(cat "$TMP/out")"
fi
ncpu=$(getconf _NPROCESSORS_ONLN)
"$PYTHON" - "$TMP/r" "$ncpu" <<'PY' && pass "run-3s-counts-within-2pc" || fail "run-3s-counts-within-2pc"
import json, struct, sys, collections
run, ncpu = sys.argv[1], int(sys.argv[2])
m = json.load(open(run + "/manifest.json"))
assert m["status"] == "complete", m["status"]
data = open(run + "/samples", "rb").read()
assert data[:8] == b"LWSAMPLE"
cnt = collections.Counter(); missed = collections.Counter()
for off in range(64, len(data), 24):
    exp, lat, mis, cpu, probe, flags = struct.unpack_from("<QQIHBB", data, off)
    assert probe == 1
    cnt[cpu] += 1; missed[cpu] += mis
assert len(cnt) == ncpu, cnt
for cpu in cnt:
    total = cnt[cpu] + missed[cpu]
    ok = abs(total - 3000) <= 60
    print("cpu", cpu, "samples", cnt[cpu], "missed", missed[cpu], "ok" if ok else "OFF")
    assert ok
for t in m["probes"]["cyclic"]["threads"]:
    assert t["samples"] == cnt[t["cpu"]], t
assert m["samples"]["written"] == sum(cnt.values())
assert m["samples"]["dropped"] == 0
PY

if "$LATWATT" analyze "$TMP/r" >"$TMP/an" 2>&1 && [ -s "$TMP/r/analysis.json" ] &&
   grep -q '^  all ' "$TMP/an"; then
	pass "analyze-writes-analysis-json"
else
	fail "analyze-writes-analysis-json" "$(cat "$TMP/an")"
fi
"$PYTHON" - "$TMP/r/analysis.json" <<'PY' && pass "analysis-json-consistent" || fail "analysis-json-consistent"
import json, sys
a = json.load(open(sys.argv[1]))
assert a["schema"] == "latwatt-analysis" and a["version"] == 2
c = a["probes"]["cyclic"]
assert c["all"]["count"] == sum(x["count"] for x in c["cpus"])
for x in c["cpus"] + [c["all"]]:
    assert x["min_ns"] <= x["p50_ns"] <= x["p90_ns"] <= x["p99_ns"] <= x["p99.9_ns"] <= x["p99.99_ns"] <= x["max_ns"]
    assert x["exact"] is True
    assert x["histogram"]["total"] == x["count"]
PY
"$LATWATT" analyze --histogram "$TMP/r" >"$TMP/h" 2>&1
if grep -q '^# Histogram' "$TMP/h" && grep -q '^# Max Latencies:' "$TMP/h" &&
   grep -Eq '^[0-9]{6} [0-9]{6}' "$TMP/h"; then
	pass "analyze-histogram-cyclictest-format"
else
	fail "analyze-histogram-cyclictest-format" "$(head -5 "$TMP/h")"
fi

# -- SIGINT / SIGTERM mid-run: exit 128+N, incomplete but analyzable, PM QoS released
qos_before=$("$PYTHON" -c 'import struct;print(struct.unpack("i",open("/dev/cpu_dma_latency","rb").read(4))[0])')
for sig in INT TERM; do
	"$LATWATT" run -d 60s --pm-qos 0 -o "$TMP/int-$sig" -q >"$TMP/out" 2>&1 &
	pid=$!
	sleep 2
	held=$("$PYTHON" -c 'import struct;print(struct.unpack("i",open("/dev/cpu_dma_latency","rb").read(4))[0])')
	kill -s "$sig" "$pid"
	wait "$pid"; rc=$?
	want=$((128 + $(kill -l "$sig")))
	[ "$rc" -eq "$want" ] && pass "sig$sig-exit-$want" || fail "sig$sig-exit-$want" "exit $rc: $(cat "$TMP/out")"
	[ "$held" -eq 0 ] && pass "sig$sig-pm-qos-held-during-run" || fail "sig$sig-pm-qos-held-during-run" "value $held"
	after=$("$PYTHON" -c 'import struct;print(struct.unpack("i",open("/dev/cpu_dma_latency","rb").read(4))[0])')
	# another program (cyclictest, say) may hold its own request meanwhile:
	# then what matters is that no latwatt process holds one
	holders=$(for p in /proc/[0-9]*; do ls -l "$p/fd" 2>/dev/null | grep -q cpu_dma_latency &&
		echo "$(cat "$p/comm" 2>/dev/null)"; done | sort -u | tr '\n' ' ')
	if [ "$after" -eq "$qos_before" ] || { [ -n "$holders" ] && ! grep -q latwatt <<<"$holders"; }; then
		pass "sig$sig-pm-qos-released"
	else
		fail "sig$sig-pm-qos-released" "before $qos_before, after $after, held by: ${holders:-nobody}"
	fi
	st=$(json "$TMP/int-$sig/manifest.json" '["status"]')
	why=$(json "$TMP/int-$sig/manifest.json" '["status_reason"]')
	[ "$st" = incomplete ] && [ "$why" = "interrupted by SIG$sig" ] && pass "sig$sig-marked-incomplete" ||
		fail "sig$sig-marked-incomplete" "$st / $why"
	[ "$(json "$TMP/int-$sig/manifest.json" '["pm_qos"]["mode"]')" = held ] &&
		pass "sig$sig-manifest-records-pm-qos" || fail "sig$sig-manifest-records-pm-qos"
	# analyzed, and never PASS: INCOMPLETE first, exit 2
	"$LATWATT" analyze "$TMP/int-$sig" >"$TMP/an" 2>&1; rc=$?
	if [ $rc -eq 2 ] && grep -q '^  all ' "$TMP/an" &&
	   grep -q "^verdict: INCOMPLETE: the run is incomplete: interrupted by SIG$sig" "$TMP/an"; then
		pass "sig$sig-run-analyzable"
	else
		fail "sig$sig-run-analyzable" "$(cat "$TMP/an")"
	fi
done

# -- --no-rt is recorded; without privileges the error says what to do
"$LATWATT" run -d 1s --no-rt -o "$TMP/nort" -q >/dev/null 2>&1 &&
	[ "$(json "$TMP/nort/manifest.json" '["probes"]["cyclic"]["policy"]')" = SCHED_OTHER ] &&
	pass "no-rt-recorded" || fail "no-rt-recorded"
if command -v setpriv >/dev/null; then
	chmod 755 "$TMP"
	# the user's own folder: one writable by others is refused as a place
	# to make run directories in (tests/integration/security-rundir.sh)
	mkdir -m 755 "$TMP/user"
	chown 65534:65534 "$TMP/user"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$LATWATT" run -d 1s -o "$TMP/user/r" \
		>"$TMP/out" 2>&1; rc=$?
	[ "$rc" -eq 2 ] && grep -q "run as root.*--no-rt" "$TMP/out" && [ ! -e "$TMP/user/r" ] &&
		pass "unprivileged-clear-error" ||
		fail "unprivileged-clear-error" "exit $rc: $(cat "$TMP/out")"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$LATWATT" run -d 1s --no-rt -o "$TMP/user/r2" \
		>"$TMP/out" 2>&1 && pass "unprivileged-no-rt-runs" || fail "unprivileged-no-rt-runs" "$(cat "$TMP/out")"
else
	skip "unprivileged" "setpriv missing"
fi

# -- bad input: one-line error, exit 2, nothing overwritten
expect_error() {	# NAME PATTERN CMD...
	local name=$1 pat=$2; shift 2
	"$@" >"$TMP/out" 2>&1; local rc=$?
	if [ "$rc" -eq 2 ] && grep -q -- "$pat" "$TMP/out" && [ "$(wc -l <"$TMP/out")" -le 2 ]; then
		pass "$name"
	else
		fail "$name" "exit $rc: $(cat "$TMP/out")"
	fi
}
expect_error bad-option "unknown option '--frobnicate'" "$LATWATT" run --frobnicate -o "$TMP/x"
expect_error bad-duration "'5parsecs' is not a duration\|unknown unit" "$LATWATT" run -d 5parsecs -o "$TMP/x"
expect_error bad-cpu "CPU 4096 is" "$LATWATT" run -c 4096 -o "$TMP/x"
expect_error offline-cpu "is not online" "$LATWATT" run -c "$ncpu" -o "$TMP/x"
expect_error bad-command "'frob' is not a latwatt command" "$LATWATT" frob
mkdir -p "$TMP/emptysys"
expect_error missing-power-source "no such power source" "$LATWATT" run -d 1s --power hwmon \
	--sysfs-root "$TMP/emptysys" -o "$TMP/nopower"
[ ! -e "$TMP/nopower" ] && pass "missing-power-source-creates-nothing" ||
	fail "missing-power-source-creates-nothing"
cp "$TMP/r/manifest.json" "$TMP/manifest.keep"
expect_error existing-run "exists and is not empty" "$LATWATT" run -d 1s -o "$TMP/r"
cmp -s "$TMP/r/manifest.json" "$TMP/manifest.keep" && pass "existing-run-untouched" || fail "existing-run-untouched"
cp -r "$TMP/r" "$TMP/trunc"
truncate -s -7 "$TMP/trunc/samples"
# cut inside a record: exit 2, said on a line of its own, and what is there
# analyzed (tests/integration/truncated.sh has the rest)
"$LATWATT" analyze "$TMP/trunc" >"$TMP/out" 2>&1; rc=$?
[ "$rc" -eq 2 ] && grep -q "truncated: samples holds .* and part of one more; what is there is analyzed" "$TMP/out" &&
	grep -q '^  all ' "$TMP/out" && pass "truncated-samples" || fail "truncated-samples" "exit $rc: $(head -3 "$TMP/out")"
expect_error not-a-run "not a run directory" "$LATWATT" analyze "$TMP"
printf '{"thread": {"0": {"histogram": {"1": 2}, "cycles": "x"}}}' >"$TMP/bad.json"
expect_error bad-cyclictest-json "thread 0: needs" "$LATWATT" import cyclictest "$TMP/bad.json" -o "$TMP/imp"
[ ! -e "$TMP/imp" ] && pass "bad-import-creates-nothing" || fail "bad-import-creates-nothing"

# -- --help everywhere
for c in run analyze sysinfo import; do
	"$LATWATT" "$c" --help | grep -q "^usage: latwatt $c" && pass "help-$c" || fail "help-$c"
done
finish
