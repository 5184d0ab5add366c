#!/usr/bin/env bash
# Workloads (-w audio/video/stress) against the real binary and kernel: record
# counts against duration x rate, xruns under overload, every stressor, no
# thread or child surviving a run, SIGINT or SIGTERM, bad specs.
. "$(dirname "$0")/lib.sh"
need_root
mk_tmp

# Python reader of RUN/*.records and RUN/samples (formats of workloads/records.h, lib/samples.h).
cat >"$TMP/rec.py" <<'PY'
import json, struct, collections
def records(path):
    d = open(path, "rb").read()
    assert d[:8] == b"LWRECORD", path
    ver, size = struct.unpack_from("<II", d, 8)
    kind = d[24:40].rstrip(b"\0").decode()
    num, den, streams = struct.unpack_from("<QQI", d, 72)
    assert ver == 2 and (len(d) - 128) % size == 0, (ver, size, len(d))
    out = []
    for off in range(128, len(d), size):
        if kind == "audio":
            b, p, irq, wake, proc, slack, stream, cpu, flags = struct.unpack_from("<QQQQQqHHI", d, off)
            out.append(dict(t=b, i=p, stream=stream, slack=slack, flags=flags, wake=wake))
        else:
            v, f, cap, dma, wake, proc, lat, slack, slot, cpu, flags = struct.unpack_from("<QQQQQQQqHHI", d, off)
            out.append(dict(t=v, i=f, stream=0, slack=slack, flags=flags, lat=lat))
    return kind, num / den, streams, out
def samples(path):
    d = open(path, "rb").read()
    c = collections.Counter()
    for off in range(64, len(d), 24):
        c[d[off + 22]] += 1
    return c
PY

# -- a 5-second run with audio, video and stress: records = duration x rate (1 %)
if "$LATWATT" run -d 5s -q -o "$TMP/r" -w audio:streams=2 -w video \
	-w stress:kind=cpu,intensity=0.3 >"$TMP/out" 2>&1; then
	pass "run-5s-audio-video-stress-exit-0"
else
	fail "run-5s-audio-video-stress-exit-0" "$(cat "$TMP/out")"
fi
PYTHONPATH=$TMP "$PYTHON" - "$TMP/r" <<'PY' && pass "records-match-duration-x-rate" || fail "records-match-duration-x-rate"
import json, sys, collections
from rec import records, samples
run = sys.argv[1]
m = json.load(open(run + "/manifest.json"))
assert m["status"] == "complete", m["status"]
dur = m["duration_ns"]
w = m["workloads"]
for name, rate in (("audio", 48000 / 128), ("video", 60.0)):
    kind, interval, streams, recs = records(run + "/" + name + ".records")
    assert kind == name
    per = collections.Counter(r["stream"] for r in recs)
    assert len(per) == (2 if name == "audio" else 1), per
    span = (w[name]["stopped_ns"] - w[name]["started_ns"]) / 1e9
    want = dur / 1e9 * rate
    for s, n in sorted(per.items()):
        print(f"{name} stream {s}: {n} records, duration x rate {want:.1f} "
              f"({100 * (n - want) / want:+.2f} %), active {span:.3f}s x rate {span * rate:.1f}, "
              f"started {1e3 * (w[name]['started_ns'] - m['start']['monotonic_ns']) / 1e9:.1f}ms in")
        # Workloads start after the probes: on a loaded machine that takes tens
        # of ms, recorded in started_ns.  The count must match the active span
        # within 1 %, and the run's duration within 1 % once that delay is out.
        late = (w[name]["started_ns"] - m["start"]["monotonic_ns"]) / 1e9
        assert abs(n - span * rate) <= max(2, 0.01 * span * rate), "off active span x rate"
        assert abs(n - (dur / 1e9 - late) * rate) <= 0.01 * want, "off duration x rate by more than 1 %"
        assert late < 1.0, "started %.3fs after the run" % late
    # every boundary once, in order, per stream
    for s in per:
        idx = [r["i"] for r in recs if r["stream"] == s]
        assert idx == list(range(len(idx))), "period indices not contiguous"
    misses = sum(1 for r in recs if r["flags"] & 1)
    key = "xruns" if name == "audio" else "dropped"
    assert w[name][key] == misses, (w[name][key], misses)
    assert w[name]["records"]["written"] == len(recs) and w[name]["records"]["dropped"] == 0
    print(f"{name}: {key} {misses}, worst slack {w[name]['worst_slack_ns'] / 1e3:.1f}us")
# wake-ups / capture-to-display latencies are samples too (probes 5 and 6)
c = samples(run + "/samples")
_, _, _, a = records(run + "/audio.records")
_, _, _, v = records(run + "/video.records")
assert c[5] == sum(1 for r in a if not r["flags"] & 2), (c[5], len(a))
assert c[6] == sum(1 for r in v if not r["flags"] & 2), (c[6], len(v))
cal = w["audio"]["streams"][0]["calibration"]
assert cal["ns_per_voice"] > 0 and cal["voices"] >= 1, cal
assert w["stress"]["ops"] > 0
PY

if "$LATWATT" analyze "$TMP/r" >"$TMP/an" 2>&1 && grep -q '^  audio: .* periods' "$TMP/an" &&
   grep -q '^  video: .* frames' "$TMP/an" && grep -q '^probe audio' "$TMP/an"; then
	pass "analyze-prints-workload-summaries"
else
	fail "analyze-prints-workload-summaries" "$(cat "$TMP/an")"
fi
"$PYTHON" - "$TMP/r" <<'PY' && pass "analysis-json-has-workloads" || fail "analysis-json-has-workloads"
import json, sys
a = json.load(open(sys.argv[1] + "/analysis.json"))
m = json.load(open(sys.argv[1] + "/manifest.json"))
w = a["workloads"]
assert w["audio"]["periods"] == m["workloads"]["audio"]["periods"]
assert w["audio"]["xruns"] == m["workloads"]["audio"]["xruns"]
assert w["video"]["dropped"] == m["workloads"]["video"]["dropped"]
d = w["audio"]["wakeup_ns"]
assert d["min"] <= d["p50"] <= d["p99"] <= d["max"]
assert len(w["audio"]["calibration"]) == 2
assert w["stress"]["stressor"] == "cpu"
PY

# -- overload: load 1.5 (above 1) must xrun, and every xrun is counted and marked
if "$LATWATT" run -d 2s -q -o "$TMP/x" -w audio:load=1.5,cpu=0 >"$TMP/out" 2>&1; then
	pass "overload-run-exit-0"
else
	fail "overload-run-exit-0" "$(cat "$TMP/out")"
fi
PYTHONPATH=$TMP "$PYTHON" - "$TMP/x" <<'PY' && pass "load-1.5-xruns-counted" || fail "load-1.5-xruns-counted"
import json, sys
from rec import records
m = json.load(open(sys.argv[1] + "/manifest.json"))
a = m["workloads"]["audio"]
_, _, _, recs = records(sys.argv[1] + "/audio.records")
misses = sum(1 for r in recs if r["flags"] & 1)
print(f"{len(recs)} periods, {misses} xruns ({a['skipped']} skipped), markers {a['markers']}")
assert misses > 0.5 * len(recs), "load 1.5 should miss most periods"
assert a["xruns"] == misses and a["markers"] == misses
assert all(r["slack"] < 0 for r in recs if r["flags"] & 1)
assert all(r["slack"] >= 0 for r in recs if not r["flags"] & 1)
PY

# -- every stressor, briefly, with the run directory left clean
"$LATWATT" run -d 2s -q -o "$TMP/s" -w stress:kind=cpu,intensity=0.2 -w stress:kind=memory,intensity=0.2,size=8M \
	-w stress:kind=cache,intensity=0.2 -w stress:kind=io,intensity=0.2 \
	-w stress:kind=messaging,intensity=0.2 -w stress:kind=timer,intensity=0.2 \
	-w stress:kind=network,intensity=0.2,rate=20M >"$TMP/out" 2>&1
rc=$?
"$PYTHON" - "$TMP/s" <<'PY' && [ $rc -eq 0 ] && pass "every-stressor-runs" || fail "every-stressor-runs" "rc $rc $(cat "$TMP/out")"
import json, sys, os
m = json.load(open(sys.argv[1] + "/manifest.json"))
kinds = {v["stressor"]: v for v in m["workloads"].values()}
assert sorted(kinds) == sorted(["cpu", "memory", "cache", "io", "messaging", "timer", "network"]), kinds.keys()
for k, v in kinds.items():
    print(f"{k}: {v['ops_per_s']:.4g} {v['unit']}/s")
    assert v["ops"] > 0, f"{k}: no work done: {json.dumps(v)}"
net = kinds["network"]
assert net["ops_per_s"] <= 21e6 * len(net["workers"]), "network exceeded its rate"
left = [f for f in os.listdir(sys.argv[1]) if f.endswith(".tmp")]
assert not left, left
PY

# -- interrupted runs: SIGINT and SIGTERM end every thread; no child, no leftover
for sig in INT TERM; do
	"$LATWATT" run -d 60s -q -o "$TMP/i$sig" -w audio:streams=2 -w video:fps=30,width=640,height=480 \
		-w stress:kind=messaging,intensity=0.3 -w stress:kind=network,intensity=0.3,rate=10M \
		-w stress:kind=io,intensity=0.3 >"$TMP/out$sig" 2>&1 &
	pid=$!
	sleep 2
	threads=$(ls /proc/$pid/task 2>/dev/null | wc -l)
	names=$(cat /proc/$pid/task/*/comm 2>/dev/null | sort -u | tr '\n' ' ')
	start=$(date +%s%N)
	kill -$sig $pid
	wait $pid
	rc=$?
	ms=$(( ($(date +%s%N) - start) / 1000000 ))
	want=$(( 128 + $(kill -l $sig) ))
	if [ "$rc" -eq "$want" ] && [ ! -e /proc/$pid ] && [ -z "$(ps -o pid= --ppid $pid)" ]; then
		pass "sig$sig-ends-run-$threads-threads-in-${ms}ms"
	else
		fail "sig$sig-ends-run" "rc $rc (want $want), /proc/$pid $( [ -e /proc/$pid ] && echo exists)"
	fi
	case $names in
	*lw-audio*lw-video*) pass "sig$sig-workload-threads-were-running" ;;
	*) fail "sig$sig-workload-threads-were-running" "threads: $names" ;;
	esac
	"$PYTHON" - "$TMP/i$sig" "$sig" <<'PY' && pass "sig$sig-run-incomplete-and-readable" || fail "sig$sig-run-incomplete-and-readable"
import json, sys, os
run, sig = sys.argv[1], sys.argv[2]
m = json.load(open(run + "/manifest.json"))
assert m["status"] == "incomplete" and ("SIG" + sig) in m["status_reason"], (m["status"], m.get("status_reason"))
assert m["workloads"]["audio"]["periods"] > 0 and m["workloads"]["video"]["frames"] > 0
assert not [f for f in os.listdir(run) if f.endswith(".tmp")]
PY
	"$LATWATT" analyze -n "$TMP/i$sig" >"$TMP/an" 2>&1
	[ $? -eq 2 ] && grep -q '^verdict: INCOMPLETE: ' "$TMP/an" && grep -q '^  audio ' "$TMP/an" &&
		pass "sig$sig-run-analyzable" || fail "sig$sig-run-analyzable" "$(head -4 "$TMP/an")"
done

# -- a start that fails half-way (out of file descriptors after some messaging
#    workers and the audio workload started): error, and every thread ends
start=$(date +%s%N)
prlimit --nofile=96 "$LATWATT" run -d 30s -q -o "$TMP/e" -w audio \
	-w stress:kind=messaging,workers=16,intensity=0.2 >"$TMP/oute" 2>&1
rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
if [ $rc -eq 2 ] && grep -q "cannot create a socket pair: Too many open files" "$TMP/oute" &&
   [ $ms -lt 10000 ] && [ "$(json "$TMP/e/manifest.json" '["status"]')" = incomplete ]; then
	pass "failed-start-stops-everything-in-${ms}ms"
else
	fail "failed-start-stops-everything" "rc $rc in ${ms}ms: $(cat "$TMP/oute")"
fi

# -- bad specs: one line naming the option, exit 2, no run directory
out=$("$LATWATT" run -d 1s -o "$TMP/bad" -w audio:load=9 2>&1); rc=$?
if [ $rc -eq 2 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] && [ ! -e "$TMP/bad" ] &&
   grep -q "^latwatt: error: --workload: workload audio: load: 9 is out of range" <<<"$out"; then
	pass "bad-spec-exit-2-one-line"
else
	fail "bad-spec-exit-2-one-line" "rc $rc: $out"
fi
out=$("$LATWATT" run -d 1s -o "$TMP/bad" -w disco 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q "unknown workload 'disco'" <<<"$out" && pass "unknown-workload-exit-2" ||
	fail "unknown-workload-exit-2" "rc $rc: $out"

# -- latwatt workloads
out=$("$LATWATT" workloads 2>&1)
if grep -q '^audio ' <<<"$out" && grep -q '^video ' <<<"$out" && grep -q '^stress ' <<<"$out" &&
   grep -q '^  load .* 0.3 ' <<<"$out"; then
	pass "workloads-lists-parameters"
else
	fail "workloads-lists-parameters" "$out"
fi
"$LATWATT" workloads nosuch >/dev/null 2>&1; [ $? -eq 2 ] && pass "workloads-unknown-exit-2" ||
	fail "workloads-unknown-exit-2"
finish
