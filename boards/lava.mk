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

#   make lava-lab-check  bring a LAVA lab up on this machine (scripts/lava-lab:
#                        lava-server, a worker, 2 QEMU devices), submit 6.1-rt
#                        and 6.12-rt (else 6.1) x 2 repeats with 'latwatt lab', wait,
#                        fetch, compare, export --kcidb, stop the lab; skipped
#                        (exit 0, "skipped: REASON" printed) where the lab
#                        cannot run; bounded by LAVA_LAB_TIMEOUT (default 20m):
#                        past it, a failure naming the step that was running
#       LAVA_LAB_ARGS=...    scripts/lava-lab-check options (-o DIR, -d 10s,
#                            --keep-lab)
LAVA_LAB_TIMEOUT ?= 20m
LAVA_LAB_ARGS ?=

lava-lab-check: latwatt qemu-latwatt
	$(Q)rc=0; step=$$(mktemp); \
	LAVA_LAB_STEP_FILE=$$step timeout -k 30 $(LAVA_LAB_TIMEOUT) scripts/lava-lab-check $(LAVA_LAB_ARGS) || rc=$$?; \
	if [ $$rc = 124 ] || [ $$rc = 137 ]; then \
		echo "lava-lab-check: FAILED: not done within $(LAVA_LAB_TIMEOUT) (LAVA_LAB_TIMEOUT); it was: $$(cat $$step)" >&2; \
		rc=1; \
	fi; \
	rm -f $$step; \
	if [ $$rc = 77 ]; then rc=0; fi; \
	exit $$rc

.PHONY: lava-lab-check
