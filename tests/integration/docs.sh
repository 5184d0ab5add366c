#!/usr/bin/env bash
# The man page and --help stay in step with the code: every command and every
# long option a command's --help lists is in doc/latwatt.1, and the page renders.
. "$(dirname "$0")/lib.sh"
page=$TOP/doc/latwatt.1
if command -v man >/dev/null; then
	man -l "$page" >/dev/null 2>&1 && pass "man-page-renders" || fail "man-page-renders"
else
	skip "man-page-renders" "man is not installed"
fi
text=$(sed 's/\\-/-/g' "$page")
cmds=$("$LATWATT" --help | sed -n 's/^  \([a-z-]*\) .*/\1/p')
[ -n "$cmds" ] || fail "help-lists-commands" "latwatt --help lists none"
for c in $cmds; do
	grep -q "^\.B $c\$\|^\.B $c \|^\.SH LATWATT $(echo "$c" | tr a-z- A-Z\ )" <<<"$text" &&
		pass "man-has-command-$c" || fail "man-has-command-$c" "doc/latwatt.1 does not describe '$c'"
	"$LATWATT" "$c" --help >"${TMPDIR:-/tmp}/lw-help.$$" 2>&1 || true
	for o in $(grep -o -- '--[a-z][a-z0-9-]*' "${TMPDIR:-/tmp}/lw-help.$$" | sort -u); do
		[ "$o" = --help ] && continue
		grep -q -- "$o" <<<"$text" && pass "man-has-$c$o" ||
			fail "man-has-$c$o" "doc/latwatt.1 does not mention $o of '$c'"
	done
done
rm -f "${TMPDIR:-/tmp}/lw-help.$$"
finish
