# QEMU guests with an ssh server, for the tests of 'latwatt target'.  Sourced
# after lib.sh and mk_tmp.
#
#   guest_ssh_setup ARCH   ARCH amd64 or arm64: keys made for this test (a
#                          client key, the guest's host key, known_hosts),
#                          Debian's dropbear for ARCH with its libraries, in
#                          $TMP/overlay (skips the script without the tools)
#   guest_start BOARD KERNEL TIMEOUT
#                          boot the kernel with the overlay and a forwarded
#                          port ($PORT), wait for ssh (skips when the kernel
#                          is not available, fails when ssh never answers)
#   gssh CMD               run CMD in the guest
#   guest_stop             let the guest power off and wait for it
#   SSH_OPTS               latwatt target's options to reach the guest

guest_ssh_setup() {
	local arch=$1 keyline root b
	need_cmd ssh
	need_cmd ssh-keygen
	need_cmd dropbearkey
	need_cmd cpio
	need_cmd "$PYTHON"
	[ -x /usr/sbin/dropbear ] || skip_all "needs dropbear (dropbear-bin, scripts/deps-target.txt)"
	if ! b=$(command -v busybox) || ldd "$b" >/dev/null 2>&1; then
		skip_all "needs a static busybox (busybox-static)"
	fi
	ov=$TMP/overlay
	mkdir -p "$ov/root/.ssh" "$ov/etc/dropbear" "$ov/usr/sbin" "$ov/lib"
	chmod 700 "$ov/root" "$ov/root/.ssh"
	ssh-keygen -q -t ed25519 -N '' -C latwatt-test -f "$TMP/id" || fail "ssh-keygen" "cannot make a key"
	cp "$TMP/id.pub" "$ov/root/.ssh/authorized_keys"
	chmod 600 "$ov/root/.ssh/authorized_keys"
	dropbearkey -t ed25519 -f "$ov/etc/dropbear/dropbear_ed25519_host_key" >/dev/null 2>&1 ||
		fail "dropbearkey" "cannot make the host key"
	keyline=$(dropbearkey -y -f "$ov/etc/dropbear/dropbear_ed25519_host_key" | grep '^ssh-ed25519' | cut -d' ' -f1-2)
	PORT=$("$PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	echo "[127.0.0.1]:$PORT $keyline" >"$TMP/known_hosts"
	printf '/bin/sh\n/bin/ash\n' >"$ov/etc/shells"

	# dropbear and its libraries, as the guest's architecture has them
	if [ "$arch" = amd64 ]; then
		"$TOP/scripts/sysroot" bundle native / /usr/sbin/dropbear "$TMP/dropbear.tar.gz" ||
			skip_all "cannot bundle /usr/sbin/dropbear"
	else
		local cache=${LATWATT_QEMU_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/latwatt/qemu}/dropbear-$arch
		root=$TMP/dropbear-root
		mkdir -p "$cache" "$root"
		if ! ls "$cache"/dropbear-bin_*.deb >/dev/null 2>&1; then
			(cd "$cache" && "$TOP/scripts/sysroot" apt "$arch" apt-get download \
				dropbear-bin libtomcrypt1 libtommath1 libgmp10 >"$TMP/dl.log" 2>&1) ||
				skip_all "cannot download dropbear-bin for $arch: $(tail -n1 "$TMP/dl.log")"
		fi
		for d in "$cache"/*.deb; do dpkg -x "$d" "$root"; done
		"$TOP/scripts/sysroot" bundle "$arch" "$root:$SYSROOT_DIR" "$root/usr/sbin/dropbear" \
			"$TMP/dropbear.tar.gz" || skip_all "cannot bundle dropbear for $arch"
	fi
	mkdir -p "$TMP/db"
	tar -xzf "$TMP/dropbear.tar.gz" -C "$TMP/db"
	cp "$TMP/db/bin/dropbear" "$ov/usr/sbin/dropbear"
	cp -a "$TMP/db/lib/." "$ov/lib/"
	local ld
	ld=$(cat "$TMP/db/loader")
	mkdir -p "$ov$(dirname "$ld")"
	[ -e "$ov$ld" ] || cp "$TMP/db/lib/$(basename "$ld")" "$ov$ld"

	# shellcheck disable=SC2034  # used by the scripts that source this file
	SSH_OPTS=(--ssh root@127.0.0.1 --port "$PORT" --identity "$TMP/id"
		-O "UserKnownHostsFile=$TMP/known_hosts" -O StrictHostKeyChecking=yes)
}

gssh() {
	ssh -T -o BatchMode=yes -o ConnectTimeout=10 -o LogLevel=ERROR -p "$PORT" -i "$TMP/id" \
		-o IdentitiesOnly=yes -o "UserKnownHostsFile=$TMP/known_hosts" \
		-o StrictHostKeyChecking=yes root@127.0.0.1 "$@"
}

# The guest's job: dropbear in the background, then wait (at most the
# timeout) for /tmp/stop.
guest_start() {
	local board=$1 kernel=$2 limit=$3 t0 i
	if ! "$TOP/scripts/qemu-board" -b "$board" fetch "$kernel" >"$TMP/fetch.log" 2>&1; then
		skip_all "kernel $kernel not available: $(grep error: "$TMP/fetch.log" | tail -n1)"
	fi
	setsid "$TOP/scripts/qemu-board" -b "$board" boot "$kernel" -o "$TMP/guest" --no-latwatt \
		--overlay "$TMP/overlay" --ssh-port "$PORT" --timeout "$limit" -c "
/usr/sbin/dropbear -r /etc/dropbear/dropbear_ed25519_host_key -p 22 -s -P /tmp/dropbear.pid -E \
	</dev/null >\$LW_OUT/dropbear.log 2>&1
i=0
while [ ! -e /tmp/stop ] && [ \$i -lt $limit ]; do sleep 1; i=\$((i + 1)); done
kill \$(cat /tmp/dropbear.pid)
" >"$TMP/qemu-board.log" 2>&1 &
	QPID=$!
	t0=$(date +%s)
	for ((i = 0; i < limit; i++)); do
		if ! kill -0 "$QPID" 2>/dev/null; then
			fail "guest boots with ssh" "qemu-board ended: $(tail -n 3 "$TMP/qemu-board.log")"
			tail -n 20 "$TMP/guest/console.log" 2>/dev/null | sed 's/^/  console: /'
			finish
		fi
		if gssh true 2>/dev/null; then
			BOOT_S=$(( $(date +%s) - t0 ))
			pass "guest boots and answers ssh (${BOOT_S}s)"
			return 0
		fi
		sleep 2
	done
	fail "guest boots with ssh" "no ssh answer within ${limit}s"
	guest_stop
	finish
}

guest_stop() {
	local i
	[ -n "${QPID:-}" ] || return 0
	gssh 'touch /tmp/stop' 2>/dev/null || true
	for ((i = 0; i < 60; i++)); do
		kill -0 "$QPID" 2>/dev/null || break
		sleep 1
	done
	if kill -0 "$QPID" 2>/dev/null; then
		kill -- "-$QPID" 2>/dev/null	# qemu-board and its qemu (setsid)
	fi
	wait "$QPID" 2>/dev/null || true
	QPID=
}
