#!/usr/bin/env bash
# boards/lava/latwatt-lava.sh, the LAVA wrapper, on a fixture run: the
# lava-test-set / lava-test-case / lava-test-reference calls it makes (fake
# helpers on PATH record their arguments), the same lines printed outside
# LAVA, under every POSIX shell found (busybox ash is the one on boards),
# errors, and the run directory sent over the console or over HTTP.
. "$(dirname "$0")/lib.sh"
mk_tmp
need_cmd "$PYTHON"

wrapper=$TOP/boards/lava/latwatt-lava.sh
fixture=$TOP/tests/data/reports/run-a

# Fake LAVA helpers: each appends its name and arguments, one line a call.
mkdir -p "$TMP/lava-bin"
for h in lava-test-case lava-test-set lava-test-reference; do
	cat >"$TMP/lava-bin/$h" <<EOF
#!/bin/sh
echo "$h \$*" >>"$TMP/calls"
EOF
	chmod +x "$TMP/lava-bin/$h"
done

# run-a: p99 235.932 us, max 3113.562 us, no power, no workload.  The
# board's budgets (qemu-x86_64: p99 <= 20000, max <= 100000) are met, the
# --p99 100 threshold is broken, --max 10000 is met, 'dropped<1' is met.
cat >"$TMP/expected" <<'EOF'
lava-test-set start latwatt
lava-test-case analyze --result pass
lava-test-set stop
lava-test-set start budgets
lava-test-case verdict --result fail --measurement 2 --units count
lava-test-case threshold.cyclic --result fail --measurement 54 --units count
lava-test-case budget.cyclic.p99 --result pass --measurement 235.932 --units us
lava-test-case budget.cyclic.max --result pass --measurement 3113.56 --units us
lava-test-case budget.deadline_misses --result skip
lava-test-case budget.cyclic.p99-2 --result fail --measurement 235.932 --units us
lava-test-case budget.cyclic.max-2 --result pass --measurement 3113.56 --units us
lava-test-case budget.cyclic.dropped --result pass --measurement 0 --units count
lava-test-set stop
lava-test-set start metrics
lava-test-case cyclic.mean --result pass --measurement 44.5045 --units us
lava-test-case cyclic.p50 --result pass --measurement 32.748 --units us
lava-test-case cyclic.p99 --result pass --measurement 235.932 --units us
lava-test-case cyclic.p99.9 --result pass --measurement 2443.28 --units us
lava-test-case cyclic.max --result pass --measurement 3113.56 --units us
lava-test-case cyclic.samples --result pass --measurement 2979 --units count
lava-test-case cyclic.missed --result pass --measurement 16 --units count
lava-test-case cyclic.dropped --result pass --measurement 0 --units count
lava-test-case cyclic.over --result pass --measurement 54 --units count
lava-test-set stop
EOF
args=(--from "$fixture" --board qemu-x86_64 --p99 100 --max 10000 --budget 'dropped<1' --latwatt "$LATWATT")

shells=()
for s in "busybox sh" dash sh bash; do
	command -v "${s%% *}" >/dev/null 2>&1 || continue
	[ "$s" != "busybox sh" ] || busybox sh -c : 2>/dev/null || continue
	shells+=("$s")
done

for s in "${shells[@]}"; do
	tag=${s// /-}
	# inside LAVA: the helpers are called, the exit status is 0 (LAVA runs
	# the steps with sh -e), the budget verdict is in the cases
	rm -f "$TMP/calls"
	rc=0
	PATH="$TMP/lava-bin:$PATH" $s "$wrapper" "${args[@]}" >"$TMP/out-$tag" 2>&1 || rc=$?
	if [ $rc = 0 ] && diff -u "$TMP/expected" "$TMP/calls" >"$TMP/diff-$tag"; then
		pass "lava helpers called with every budget and metric ($s)"
	else
		fail "lava helpers called with every budget and metric ($s)" "status $rc; $(head -c 1500 "$TMP/diff-$tag")"
	fi
	# outside LAVA: the same lines on stdout, exit 1 for the broken budget
	rc=0
	$s "$wrapper" "${args[@]}" >"$TMP/plain-$tag" 2>&1 || rc=$?
	if [ $rc = 1 ] && diff -u "$TMP/expected" <(grep '^lava-test-' "$TMP/plain-$tag") >"$TMP/diff-$tag"; then
		pass "plain output outside LAVA, status 1 for the broken budget ($s)"
	else
		fail "plain output outside LAVA, status 1 for the broken budget ($s)" "status $rc; $(head -c 1500 "$TMP/diff-$tag")"
	fi
done
[ ${#shells[@]} -gt 0 ] || fail "no shell found" "tried busybox sh, dash, sh, bash"

# Every budget met: status 0, no failing case.
# every budget met: the fixture without its run's --threshold (54 samples
# above its 100 us break it: a check like the budgets, in the verdict)
cp -r "$fixture" "$TMP/met-run"
rm -f "$TMP/met-run/analysis.json"
"$PYTHON" - "$TMP/met-run/manifest.json" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
a = m.get("argv", [])
m["argv"] = [x for i, x in enumerate(a) if x != "--threshold" and (i == 0 or a[i - 1] != "--threshold")]
def drop(o):
    if isinstance(o, dict):
        o.pop("threshold_ns", None)
        for v in o.values():
            drop(v)
    elif isinstance(o, list):
        for v in o:
            drop(v)
drop(m)
json.dump(m, open(sys.argv[1], "w"), indent=2)
EOF
rc=0
sh "$wrapper" --from "$TMP/met-run" --board qemu-x86_64 --p99 1000 --latwatt "$LATWATT" >"$TMP/met" 2>&1 || rc=$?
if [ $rc = 0 ] && ! grep -q -- '--result fail' "$TMP/met" &&
	grep -q '^lava-test-case budget.cyclic.p99-2 --result pass --measurement 235.932 --units us$' "$TMP/met"; then
	pass "every budget met: status 0"
else
	fail "every budget met: status 0" "status $rc: $(grep -- '--result fail' "$TMP/met" | head -n3)"
fi

# The fixture is read, not written (no analysis.json rewritten).
if git -C "$TOP" diff --quiet -- tests/data/reports/run-a 2>/dev/null || ! git -C "$TOP" rev-parse 2>/dev/null; then
	pass "--from leaves the run directory as it was"
else
	fail "--from leaves the run directory as it was" "$(git -C "$TOP" diff --stat -- tests/data/reports/run-a)"
fi

# A real run on this machine: the scenario and the workloads reach
# latwatt run (root and tracefs needed, 1 s).
if [ "$(id -u)" = 0 ] && { [ -e /sys/kernel/tracing/trace_marker ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; }; then
	rc=0
	(cd "$TOP" && sh "$wrapper" -d 1s --scenario idle --workloads "stress:kind=cpu,intensity=0.05,cpus=0" \
		--run-dir "$TMP/real" --latwatt "$LATWATT") >"$TMP/real.log" 2>&1 || rc=$?
	got=$("$PYTHON" -c 'import json, sys
m = json.load(open(sys.argv[1]))
print(m.get("scenario", {}).get("name"), sorted(m.get("workloads", {})), m.get("status"))' "$TMP/real/manifest.json" 2>&1)
	if [ $rc -le 1 ] && grep -qx "lava-test-case run --result pass" "$TMP/real.log" &&
		[ "$got" = "idle ['stress'] complete" ]; then
		pass "a real run: scenario and workloads passed to latwatt run"
	else
		fail "a real run: scenario and workloads passed to latwatt run" "status $rc, manifest: $got; $(grep -m2 'error' "$TMP/real.log")"
	fi
else
	skip "a real run" "needs root and tracefs"
fi

# Bad parameters: one line naming the option; status 2 by hand, a failing
# 'latwatt' case and status 0 inside LAVA.
rc=0
sh "$wrapper" --from "$fixture" --p99 fast --latwatt "$LATWATT" >"$TMP/bad" 2>&1 || rc=$?
if [ $rc = 2 ] && grep -q "^latwatt-lava: error: --p99: 'fast' is not a number" "$TMP/bad"; then
	pass "bad --p99: status 2 and the option named"
else
	fail "bad --p99: status 2 and the option named" "status $rc: $(head -n2 "$TMP/bad")"
fi
rm -f "$TMP/calls"
rc=0
PATH="$TMP/lava-bin:$PATH" sh "$wrapper" --from "$TMP/no-such-run" --latwatt "$LATWATT" >"$TMP/bad" 2>&1 || rc=$?
if [ $rc = 0 ] && grep -qx "lava-test-case latwatt --result fail" "$TMP/calls"; then
	pass "error inside LAVA: a failing case, status 0"
else
	fail "error inside LAVA: a failing case, status 0" "status $rc: $(cat "$TMP/calls" 2>/dev/null | head -n3)"
fi
rc=0
sh "$wrapper" --upload ftp://x --latwatt "$LATWATT" >"$TMP/bad" 2>&1 || rc=$?
if [ $rc = 2 ] && grep -q "upload: 'ftp://x'" "$TMP/bad"; then
	pass "bad --upload refused"
else
	fail "bad --upload refused" "status $rc: $(head -n2 "$TMP/bad")"
fi

# --upload console: the run comes back through scripts/lava-extract-run,
# from a plain console log and from a LAVA job log (one JSON line each).
cp -r "$fixture" "$TMP/run-c"
rc=0
sh "$wrapper" --from "$TMP/run-c" --upload console --latwatt "$LATWATT" >"$TMP/console.log" 2>&1 || rc=$?
"$PYTHON" - "$TMP/console.log" >"$TMP/lava.log" <<'EOF'
import json, sys
for line in open(sys.argv[1]):
    print(json.dumps({"dt": "2026-01-01T00:00:00", "lvl": "target", "msg": line.rstrip("\n")}))
EOF
for log in console.log lava.log; do
	rm -rf "$TMP/back"
	if grep -qx "lava-test-case run-dir --result pass" "$TMP/console.log" &&
		"$TOP/scripts/lava-extract-run" "$TMP/$log" "$TMP/back" >/dev/null 2>"$TMP/extract.err" &&
		cmp -s "$TMP/run-c/samples" "$TMP/back/run-c/samples" &&
		cmp -s "$TMP/run-c/manifest.json" "$TMP/back/run-c/manifest.json"; then
		pass "--upload console: the run directory comes back from a $log"
	else
		fail "--upload console: the run directory comes back from a $log" "$(cat "$TMP/extract.err")"
	fi
done
# The tarball goes into a directory of the wrapper's own (mktemp), never
# through a name planted in $TMPDIR; nothing is left there.
mkdir -p "$TMP/tmpdir"
printf 'precious\n' >"$TMP/victim"
ln -s "$TMP/victim" "$TMP/tmpdir/run-c.tar.gz"
TMPDIR=$TMP/tmpdir sh "$wrapper" --from "$TMP/run-c" --upload console --latwatt "$LATWATT" \
	>"$TMP/planted.log" 2>&1
if [ "$(cat "$TMP/victim")" = precious ] && grep -qx "lava-test-case run-dir --result pass" "$TMP/planted.log" &&
	[ "$(ls -A "$TMP/tmpdir")" = run-c.tar.gz ]; then
	pass "upload tarball not written through a planted symlink"
else
	fail "upload tarball not written through a planted symlink" "$(ls -A "$TMP/tmpdir" | tr '\n' ' ')"
fi
# A --run-dir that holds something is refused before anything runs, and
# never removed.
mkdir -p "$TMP/not-ours"
printf 'keep\n' >"$TMP/not-ours/file"
rc=0
sh "$wrapper" --run-dir "$TMP/not-ours" --latwatt "$LATWATT" >"$TMP/rd.log" 2>&1 || rc=$?
if [ $rc = 2 ] && [ -f "$TMP/not-ours/file" ] && grep -q "exists and is not an empty directory" "$TMP/rd.log"; then
	pass "--run-dir with files refused, not removed"
else
	fail "--run-dir with files refused, not removed" "status $rc: $(tail -n2 "$TMP/rd.log")"
fi
ln -s "$TMP/not-ours" "$TMP/link-run"
rc=0
sh "$wrapper" --run-dir "$TMP/link-run" --latwatt "$LATWATT" >"$TMP/rd.log" 2>&1 || rc=$?
[ $rc = 2 ] && [ -f "$TMP/not-ours/file" ] && pass "--run-dir symlink refused" ||
	fail "--run-dir symlink refused" "status $rc"
# Inside LAVA: trace.dat stays on the device, and LAVA's test shell gets a
# signal it ignores every 200 lines (it slows to a crawl without); the
# extraction skips them.
mkdir -p "$TMP/lava-run" && cp -r "$fixture" "$TMP/lava-run/run-t"
head -c 300000 /dev/urandom >"$TMP/lava-run/run-t/trace.dat"
rm -f "$TMP/calls"
PATH="$TMP/lava-bin:$PATH" sh "$wrapper" --from "$TMP/lava-run/run-t" --upload console \
	--latwatt "$LATWATT" >"$TMP/console-lava.log" 2>&1
rm -rf "$TMP/back"
if grep -q '^<LAVA_SIGNAL_LATWATT_UPLOAD 200>$' "$TMP/console-lava.log" &&
	"$TOP/scripts/lava-extract-run" "$TMP/console-lava.log" "$TMP/back" >/dev/null 2>"$TMP/extract.err" &&
	cmp -s "$fixture/samples" "$TMP/back/run-t/samples" && [ ! -e "$TMP/back/run-t/trace.dat" ] &&
	[ -f "$TMP/lava-run/run-t/trace.dat" ] && grep -qx "lava-test-case run-dir --result pass" "$TMP/calls"; then
	pass "--upload console in LAVA: paced, without trace.dat, comes back"
else
	fail "--upload console in LAVA: paced, without trace.dat, comes back" "$(cat "$TMP/extract.err"; ls "$TMP/back/run-t" 2>&1 | tr '\n' ' ')"
fi

# a line lost on the way is noticed
awk 'BEGIN { n = 0 } /^latwatt-upload-begin/ { inb = 1 } inb && /^[A-Za-z0-9+\/=]+$/ && ++n == 3 { next } { print }' \
	"$TMP/console.log" >"$TMP/lossy.log"
rc=0
"$TOP/scripts/lava-extract-run" "$TMP/lossy.log" "$TMP/lossy" >/dev/null 2>"$TMP/extract.err" || rc=$?
if [ $rc = 1 ] && grep -q "came back with\|not valid base64" "$TMP/extract.err"; then
	pass "a console line lost: the extraction says so"
else
	fail "a console line lost: the extraction says so" "status $rc: $(cat "$TMP/extract.err")"
fi

# --upload URL: PUT to a server on the loopback address, then
# lava-test-reference names where it went.
cat >"$TMP/server.py" <<'EOF'
import http.server, sys, threading
dest = sys.argv[1]
class H(http.server.BaseHTTPRequestHandler):
    def _save(self):
        n = int(self.headers.get("Content-Length", 0))
        with open(dest, "wb") as f:
            f.write(self.rfile.read(n))
        self.send_response(201)
        self.end_headers()
    do_PUT = _save
    def log_message(self, *a):
        pass
srv = http.server.HTTPServer(("127.0.0.1", 0), H)
print(srv.server_address[1], flush=True)
threading.Timer(30, srv.shutdown).start()   # never outlives the test
srv.serve_forever()
EOF
# upload_to NAME PATH: the wrapper with PATH, uploading to a new server
upload_to() {
	local srv port rc=0
	rm -f "$TMP/calls" "$TMP/uploaded.tar.gz" "$TMP/port"
	"$PYTHON" "$TMP/server.py" "$TMP/uploaded.tar.gz" >"$TMP/port" &
	srv=$!
	for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do [ -s "$TMP/port" ] && break; sleep 0.2; done
	port=$(cat "$TMP/port")
	PATH="$2" sh "$wrapper" --from "$TMP/run-c" --upload "http://127.0.0.1:$port/runs/" \
		--latwatt "$LATWATT" >"$TMP/http.log" 2>&1 || rc=$?
	kill "$srv" 2>/dev/null; wait "$srv" 2>/dev/null
	if [ $rc = 0 ] && grep -qx "lava-test-reference run-dir --result pass --reference http://127.0.0.1:$port/runs/run-c.tar.gz" "$TMP/calls" &&
		tar -tzf "$TMP/uploaded.tar.gz" | grep -qx "run-c/manifest.json"; then
		pass "--upload URL: uploaded ($1), and lava-test-reference names it"
	else
		fail "--upload URL: uploaded ($1), and lava-test-reference names it" "status $rc: $(grep -i 'upload\|error' "$TMP/http.log" | head -n3)"
	fi
}
if command -v curl >/dev/null 2>&1; then
	upload_to "curl" "$TMP/lava-bin:$PATH"
else
	skip "--upload URL with curl" "curl not installed"
fi

# A small board: nothing but busybox's applets on PATH (no curl, no bash),
# so the upload goes through busybox nc.
if busybox sh -c : 2>/dev/null && ! ldd "$(command -v busybox)" >/dev/null 2>&1; then
	mkdir -p "$TMP/bb"
	busybox --install -s "$TMP/bb"
	rm -f "$TMP/calls"
	rc=0
	PATH="$TMP/lava-bin:$TMP/bb" busybox sh "$wrapper" "${args[@]}" >"$TMP/out-bb" 2>&1 || rc=$?
	if [ $rc = 0 ] && diff -u "$TMP/expected" "$TMP/calls" >"$TMP/diff-bb"; then
		pass "busybox alone on PATH: every budget and metric"
	else
		fail "busybox alone on PATH: every budget and metric" "status $rc; $(head -c 1500 "$TMP/diff-bb") $(head -n3 "$TMP/out-bb")"
	fi
	upload_to "busybox nc" "$TMP/lava-bin:$TMP/bb"
else
	skip "busybox alone on PATH" "no static busybox (busybox-static)"
fi

# --against: the comparison's verdicts as the set 'compare', the run named
# "run" in the cases (one run a side: no verdict, skipped), nothing left in
# TMPDIR; the baseline given relative to the working directory
for s in "${shells[@]}"; do
	tag=${s// /-}
	rm -f "$TMP/calls"
	rm -rf "$TMP/tmpdir"
	mkdir "$TMP/tmpdir"
	rc=0
	(cd "$TOP/tests/data" && TMPDIR=$TMP/tmpdir PATH="$TMP/lava-bin:$PATH" $s "$wrapper" \
		--from "$TOP/tests/data/reports/run-b" --board qemu-x86_64 --latwatt "$LATWATT" \
		--against reports/run-a) >"$TMP/cmp-$tag" 2>&1 || rc=$?
	if [ $rc = 0 ] && sed -n '/^lava-test-set start compare/,/^lava-test-set stop/p' "$TMP/calls" |
		grep -qx "lava-test-case compare.cyclic.p99.run --result skip" &&
		[ -z "$(ls -A "$TMP/tmpdir")" ]; then
		pass "--against: the verdicts as the set compare ($s)"
	else
		fail "--against: the verdicts as the set compare ($s)" "status $rc; $(tail -n 12 "$TMP/calls" 2>&1); $(tail -n3 "$TMP/cmp-$tag"); $(ls -A "$TMP/tmpdir")"
	fi
done
rc=0
$SHELL "$wrapper" --from "$fixture" --latwatt "$LATWATT" --against "$TMP/nothing" >"$TMP/bad" 2>&1 || rc=$?
[ $rc = 2 ] && grep -q "against: .* is not a run directory" "$TMP/bad" && pass "--against: a missing baseline" ||
	fail "--against: a missing baseline" "status $rc: $(cat "$TMP/bad")"

finish
