#!/bin/bash
# The cross builds (make ARCH=arm64, make ARCH=armhf; .ci/run makes them):
# the binaries are for the board's architecture, their bundles hold every
# library they need and the loader, and they run under qemu-user: --help,
# and the real board parser on the aarch64 and BeagleBone board files,
# started through the bundle's own loader as 'latwatt target' does.
#
# Skips (77) where no ARCH build is there (make ARCH=arm64) or without
# qemu-user-static.
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/integration/lib.sh"

need_cmd readelf
found=0
mk_tmp
for spec in "arm64 aarch64 AArch64 qemu-aarch64-static qemu-aarch64" \
	    "armhf armv7l ARM qemu-arm-static beaglebone-black"; do
	read -r arch machine elf qemu board <<<"$spec"
	bin=$TOP/build-$arch/latwatt
	bundle=$TOP/build-$arch/latwatt-$machine.tar.gz
	if [ ! -x "$bin" ] || [ ! -s "$bundle" ]; then
		skip "cross-$arch" "no $arch build (make ARCH=$arch)"
		continue
	fi
	found=1
	m=$(LC_ALL=C readelf -h "$bin" | sed -n 's/^ *Machine: *//p')
	case $m in *"$elf"*) pass "$arch binary is $m" ;; *) fail "$arch binary is for $elf" "readelf says $m" ;; esac
	d=$TMP/$arch
	mkdir -p "$d"
	tar -xzf "$bundle" -C "$d"
	ld=$(cat "$d/loader")
	missing=
	for so in $(LC_ALL=C readelf -d "$d/bin/latwatt" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
		[ -e "$d/lib/$so" ] || missing="$missing $so"
	done
	[ -z "$missing" ] && pass "$arch bundle holds every needed library" || fail "$arch bundle holds every needed library" "missing:$missing"
	check "$arch bundle holds the loader $ld" test -e "$d/lib/$(basename "$ld")"
	if ! command -v "$qemu" >/dev/null; then
		skip "$arch-runs" "needs $qemu (qemu-user-static, scripts/deps-cross.txt)"
		continue
	fi
	run() { "$qemu" "$d/lib/$(basename "$ld")" --library-path "$d/lib" "$d/bin/latwatt" "$@"; }
	if run --help >"$TMP/help" 2>&1 && grep -q '^  target ' "$TMP/help"; then
		pass "$arch latwatt --help runs under $qemu"
	else
		fail "$arch latwatt --help runs under $qemu" "$(head -n 3 "$TMP/help")"
	fi
	rc=0
	run boards check "$TOP/boards/$board.yaml" >"$TMP/check" 2>&1 || rc=$?
	# check compares the file with this machine (x86_64): 0 or 1, never a parse error
	if [ $rc -le 1 ] && ! grep -q "error:" "$TMP/check"; then
		pass "$arch latwatt reads boards/$board.yaml"
	else
		fail "$arch latwatt reads boards/$board.yaml" "status $rc: $(head -n 2 "$TMP/check")"
	fi
	rc=0
	run boards check "$TOP/tests/data/boards/bad/$(ls "$TOP/tests/data/boards/bad" | head -n1)" >"$TMP/bad" 2>&1 || rc=$?
	[ $rc = 2 ] && pass "$arch latwatt rejects a bad board file (exit 2)" || fail "$arch latwatt rejects a bad board file" "status $rc"
done
[ $found = 1 ] || skip_all "no cross build: make ARCH=arm64 (and ARCH=armhf)"
finish
