# shellcheck shell=bash
# The QEMU board with latwatt_idle's planted idle states, for
# tests/integration/tune-idle.sh and bench/tune-idle-qemu (sourced).
#
# idle_guest_prepare DIR KERNEL EXIT_US RESIDENCY_US
#   builds latwatt_idle against KERNEL's headers (scripts/qemu-board module)
#   into DIR/kmod, and writes
#     DIR/qemu-x86_64-idle.yaml  the QEMU board under single-threaded TCG
#                                (multi-threaded, a guest whose CPUs go through
#                                cpuidle_enter_state() dies of an int3 oops
#                                when a tracepoint's static key is patched:
#                                3 boots of 3 with 6.12-rt, none of 4 single),
#                                its energy model given the planted states
#                                (POLL 1000 mW, LW-HALT 500, LW-DEEP 100), no
#                                budgets of its own
#     DIR/overlay/               the module (/lib/modules/latwatt) and the
#                                scenario /root/idle-5ms.yaml (the probes
#                                alone, every 5 ms: long enough a sleep for
#                                the menu governor to pick LW-DEEP)
#   Needs $TOP and $PYTHON.  Returns 3 when the module cannot be built for
#   a reason of the machine (no headers or compiler: DIR/module.log), 1 on
#   another failure.
#
# In the guest: insmod /lib/modules/latwatt/latwatt_idle.ko exit_us=EXIT_US
# residency_us=RESIDENCY_US, then latwatt ... --board qemu-x86_64-idle
# --scenario /root/idle-5ms.yaml.
idle_guest_prepare() {
	local dir=$1 kernel=$2 exit_us=$3 residency_us=$4 why
	if ! "$TOP/scripts/qemu-board" module "$kernel" -o "$dir/kmod" >"$dir/module.log" 2>&1; then
		why=$(grep error: "$dir/module.log" | tail -n1)
		case $why in
		*"apt-get download"*|*"unknown to apt-cache"*|*"not installed"*) return 3 ;;
		esac
		return 1
	fi
	mkdir -p "$dir/overlay/lib/modules/latwatt" "$dir/overlay/root" || return 1
	cp "$dir/kmod/latwatt_idle.ko" "$dir/overlay/lib/modules/latwatt/" || return 1
	cat >"$dir/overlay/root/idle-5ms.yaml" <<'YAML' || return 1
description: the probes alone, every 5 ms, for the planted idle states
duration: 1s
interval: 5ms
trace-buffer: 4M
power: auto
YAML
	"$PYTHON" "$TOP/tests/integration/board-variant.py" --single-thread \
		--idle-states "$exit_us" "$residency_us" \
		"$TOP/boards/qemu-x86_64.yaml" "$dir/qemu-x86_64-idle.yaml"
}
