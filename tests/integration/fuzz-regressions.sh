#!/usr/bin/env bash
# Fuzz regressions: every input that once crashed, hung or blew up latwatt
# (fuzz/regressions/NAME/*, each parser's NAME) and the seed corpus
# (fuzz/corpus/NAME/*) replayed through the libFuzzer harnesses built with
# AddressSanitizer and UBSan (make fuzz-build); a sanitizer report, a crash
# or a leak fails.  Then the same files through the latwatt binary's
# commands: a refusal is exit 2 with an error naming the file, never a
# crash.  Harnesses from FUZZ_BIN_DIR when set, else built into build-fuzz.
. "$(dirname "$0")/lib.sh"
need_cmd clang
mk_tmp

bindir=${FUZZ_BIN_DIR:-}
if [ -z "$bindir" ]; then
	bindir=$TOP/build-fuzz
	if ! make -C "$TOP" --no-print-directory fuzz-build >"$TMP/build.log" 2>&1; then
		if grep -q -e 'unable to find library -lclang_rt' -e 'libclang_rt.fuzzer' "$TMP/build.log"; then
			skip_all "clang has no libFuzzer runtime (install libclang-rt-14-dev)"
		fi
		fail "fuzz-build" "$(grep -m3 -e error "$TMP/build.log" | tr '\n' ' ')"
		
# 3. no false refusals: every event format of the running kernel passes
if [ -r /sys/kernel/tracing/events/sched/sched_switch/format ]; then
	n=$("$PYTHON" "$TOP/fuzz/kernel-formats.py" "$TOP/fuzz/corpus/tracedat/v6-small.dat" \
		"$TMP/all.dat" | cut -d' ' -f1)
	if "$LATWATT" tracedump --count "$TMP/all.dat" >/dev/null 2>"$TMP/err"; then
		pass "trace.dat with the kernel's $n event formats accepted"
	else
		fail "kernel formats" "$(head -c 300 "$TMP/err")"
	fi
else
	skip "kernel formats" "no readable tracefs at /sys/kernel/tracing"
fi
finish
	fi
fi
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export LSAN_OPTIONS=suppressions=$TOP/fuzz/lsan.supp:print_suppressions=0

# 1. the harnesses, under the sanitizers, with libFuzzer's limits
for h in "$bindir"/fuzz_*; do
	[ -x "$h" ] || continue
	t=${h##*/fuzz_}
	files=()
	for f in "$TOP"/fuzz/regressions/"$t"/* "$TOP"/fuzz/corpus/"$t"/*; do
		[ -f "$f" ] && files+=("$f")
	done
	[ ${#files[@]} -gt 0 ] || { skip "harness $t" "no inputs"; continue; }
	if "$h" -rss_limit_mb=2048 -timeout=10 -malloc_limit_mb=512 "${files[@]}" \
		>"$TMP/$t.log" 2>&1; then
		pass "harness $t: ${#files[@]} inputs clean under ASan/UBSan"
	else
		fail "harness $t" "$(grep -m2 -e 'ERROR:' -e 'runtime error' -e 'Running:' "$TMP/$t.log" | tr '\n' ' ')"
	fi
done

# 2. the release binary: exit 2 and the file's name, never a signal
refused() {	# NAME FILE CMD...: CMD exits 2 and names FILE on stderr
	local n=$1 f=$2 rc
	shift 2
	"$@" >/dev/null 2>"$TMP/err"
	rc=$?
	if [ $rc -eq 2 ] && grep -qF "$f" "$TMP/err"; then
		pass "$n: refused, exit 2"
	else
		fail "$n" "exit $rc: $(head -c 300 "$TMP/err")"
	fi
}
handled() {	# NAME FILE CMD...: CMD reads FILE (exit 0) or refuses it (exit 2, naming it)
	local n=$1 f=$2 rc
	shift 2
	"$@" >/dev/null 2>"$TMP/err"
	rc=$?
	if [ $rc -eq 0 ] || { [ $rc -eq 2 ] && grep -qF "$f" "$TMP/err"; }; then
		pass "$n: exit $rc"
	else
		fail "$n" "exit $rc: $(head -c 300 "$TMP/err")"
	fi
}
for f in "$TOP"/fuzz/regressions/tracedat/*; do
	[ -f "$f" ] || continue
	# the hangs and blow-ups found are read now; the malformed ones refused
	case $f in
	*timeout*) handled "tracedump $(basename "$f")" "$f" "$LATWATT" tracedump "$f" ;;
	*) refused "tracedump $(basename "$f")" "$f" "$LATWATT" tracedump "$f" ;;
	esac
	# as power estimate reads it: a run directory holding the file
	rm -rf "$TMP/run"; mkdir "$TMP/run"
	cp "$TOP/fuzz/fixtures/run-a/manifest.json" "$TOP/fuzz/fixtures/run-a/samples" "$TMP/run/"
	cp "$f" "$TMP/run/trace.dat"
	handled "power estimate $(basename "$f")" "$TMP/run/trace.dat" \
		"$LATWATT" power estimate "$TMP/run" --board local
done
for f in "$TOP"/fuzz/regressions/scenario/*; do
	[ -f "$f" ] && refused "scenario $(basename "$f")" "$f" "$LATWATT" scenarios --check "$f"
done
for f in "$TOP"/fuzz/regressions/board/*; do
	[ -f "$f" ] && refused "board $(basename "$f")" "$f" "$LATWATT" boards check "$f"
done
for f in "$TOP"/fuzz/regressions/cyclictest/*; do
	[ -f "$f" ] && refused "import $(basename "$f")" "$f" \
		"$LATWATT" import cyclictest "$f" -o "$TMP/imported" -f
done
for f in "$TOP"/fuzz/regressions/samples/*; do
	[ -f "$f" ] || continue
	rm -rf "$TMP/a" "$TMP/b"; mkdir "$TMP/a" "$TMP/b"
	cp "$TOP"/fuzz/fixtures/run-a/{manifest.json,samples} "$TMP/a/"
	cp "$TOP/fuzz/fixtures/run-a/manifest.json" "$TMP/b/"
	cp "$f" "$TMP/b/samples"
	handled "compare $(basename "$f")" "$TMP/b/samples" "$LATWATT" compare "$TMP/a" "$TMP/b"
done

# 3. no false refusals: every event format of the running kernel passes
if [ -r /sys/kernel/tracing/events/sched/sched_switch/format ]; then
	n=$("$PYTHON" "$TOP/fuzz/kernel-formats.py" "$TOP/fuzz/corpus/tracedat/v6-small.dat" \
		"$TMP/all.dat" | cut -d' ' -f1)
	if "$LATWATT" tracedump --count "$TMP/all.dat" >/dev/null 2>"$TMP/err"; then
		pass "trace.dat with the kernel's $n event formats accepted"
	else
		fail "kernel formats" "$(head -c 300 "$TMP/err")"
	fi
else
	skip "kernel formats" "no readable tracefs at /sys/kernel/tracing"
fi
finish
