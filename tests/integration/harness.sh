#!/usr/bin/env bash
# The harness itself: tests/run and lib.sh on a copy of the tree holding
# scripts whose checkers crash while the script carries on.  Each must be
# counted as failed; a clean one as passed.  No root, no kernel state.
. "$(dirname "$0")/lib.sh"
mk_tmp

t=$TMP/tree
mkdir -p "$t/tests/integration" "$t/bin"
cp "$TOP/tests/run" "$t/tests/run"
cp "$TOP/tests/integration/lib.sh" "$t/tests/integration/lib.sh"
script() { { echo '. "$(dirname "$0")/lib.sh"'; cat; echo finish; } >"$t/tests/integration/$1.sh"; }

# a Python block that dies after printing a PASS line; its status ignored
script traceback <<'EOF'
"$PYTHON" - <<'PY' || true
print('PASS: a first check')
{}['all']
PY
pass "after the block"
EOF
# a shell error in the middle
script shellerror <<'EOF'
pass "before"
no-such-command-latwatt-test
pass "after"
EOF
# py: a checker that exits non-zero without a FAIL line
script pyexit <<'EOF'
py "a checker" <<'PY'
import sys
print('PASS: it printed this')
sys.exit(3)
PY
EOF
# check: a crashed command negated still passes on its status
script checkcrash <<'EOF'
check "negated crash" bash -c '! "$PYTHON" -c "import json; json.loads(\"{\")"'
EOF
# json: a key that is not there
script jsonmissing <<'EOF'
mk_tmp
echo '{"status": "complete"}' >"$TMP/m.json"
[ "$(json "$TMP/m.json" '["stat"]')" != running ] && pass "not running"
EOF
# a job the script kills itself: bash's notice is no crash
script killedjob <<'EOF'
sleep 30 &
pid=$!
kill -KILL $pid
wait $pid
pass "killed its own job"
EOF
# a job that dies of SIGSEGV is one
script segvjob <<'EOF'
bash -c 'kill -SEGV $$' &
wait $!
pass "after the job"
EOF
script clean <<'EOF'
check "true" true
py "fine" <<'PY'
print('PASS: fine')
PY
EOF

(cd "$t" && LATWATT=/bin/true TEST_BIN_DIR="$t/bin" PYTHON="$PYTHON" bash tests/run) >"$TMP/out" 2>&1
rc=$?
check "the harness exits non-zero" [ $rc -ne 0 ]
for s in traceback shellerror pyexit checkcrash jsonmissing segvjob; do
	check "$s counted as failed" grep -q "^FAIL $s " "$TMP/out"
done
check "a clean script passes" grep -q '^ok   clean ' "$TMP/out"
check "a script that kills its own job passes" grep -q '^ok   killedjob ' "$TMP/out"
check "the crash is named" grep -q "a checker crashed: Traceback" "$TMP/out"
# what the inner run printed, its crashes defused (this script's output is read too)
[ $_status -eq 0 ] || sed 's/^/    /; s/Traceback (most recent call last)/Traceback (...)/' "$TMP/out"
finish
