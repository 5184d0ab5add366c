# LAVA targets (included by the top-level Makefile).
#
#   make lava-check      run boards/lava/latwatt.yaml with LAVA's dispatcher
#                        (lava-run, no server) on the QEMU board against
#                        Debian's 6.1 PREEMPT_RT kernel, and check every test
#                        case (about 35 s once the kernel is cached)
#       LAVA_ARGS=...        scripts/lava-check options (-k 6.12-rt, -o DIR,
#                            -d 10s, --cache DIR)

LAVA_ARGS ?=

lava-check: qemu-latwatt
	$(Q)scripts/lava-check $(LAVA_ARGS)

.PHONY: lava-check
