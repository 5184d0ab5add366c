# Fuzzing (included by the top-level Makefile): one libFuzzer harness per
# parser in fuzz/fuzz_NAME.c, linked against a clang ASan/UBSan build of the
# library in $(FUZZ_O).  See fuzz/README.md.
#
#   make fuzz-build          build the harnesses (fuzz/bin/fuzz_NAME)
#   make fuzz                build, then run each harness for FUZZ_SECONDS
#                            on its corpus (fuzz/corpus/NAME, new inputs in
#                            $(FUZZ_O)/work/NAME); crashes go to fuzz/crashes/
#       FUZZ_SECONDS=N       per harness (default 60)
#       FUZZ_TARGETS="a b"   only these harnesses
#   make fuzz-regress        replay fuzz/regressions/NAME/* through the
#                            harnesses (also run by make check, through
#                            tests/integration/fuzz-regressions.sh)

FUZZ_CC      ?= clang
FUZZ_O       ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_ALL     := $(patsubst fuzz/fuzz_%.c,%,$(sort $(wildcard fuzz/fuzz_*.c)))
FUZZ_TARGETS ?= $(FUZZ_ALL)
FUZZ_BINS    := $(patsubst %,$(FUZZ_O)/fuzz_%,$(FUZZ_ALL))
FUZZ_FLAGS   := -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link
# libFuzzer's limits: a crash, a hang (10 s), or an allocation past 512 MB
# (or 2 GB resident) are all findings.
FUZZ_RUN_OPTS ?= -rss_limit_mb=2048 -timeout=10 -malloc_limit_mb=512 -max_len=262144
FUZZ_ENV     := ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
                UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
                LSAN_OPTIONS=suppressions=$(abspath fuzz/lsan.supp)

# The library, built by this Makefile with clang and the sanitizers.
fuzz-lib:
	$(Q)CFLAGS='$(FUZZ_FLAGS)' $(MAKE) --no-print-directory CC=$(FUZZ_CC) O=$(FUZZ_O) \
		SANITIZE=1 WERROR=0 $(FUZZ_O)/obj/liblatwatt.a $(FUZZ_O)/obj/libcmd.a

$(FUZZ_O)/fuzz_%: fuzz/fuzz_%.c fuzz/fuzz.h $(FUZZ_O)/obj/liblatwatt.a $(FUZZ_O)/obj/libcmd.a
	$(call msg,FUZZ,$@)
	$(Q)$(FUZZ_CC) $(subst fuzzer-no-link,fuzzer,$(FUZZ_FLAGS)) \
		-fsanitize=address,undefined -std=gnu11 -D_GNU_SOURCE -I. -DFUZZ_SRC='"$(abspath .)"' \
		$(PKG_CFLAGS) $(DEFS) -o $@ $< \
		$(FUZZ_O)/obj/libcmd.a $(FUZZ_O)/obj/liblatwatt.a $(LDLIBS)

fuzz-build:
	@command -v $(FUZZ_CC) >/dev/null || { echo "fuzz: $(FUZZ_CC) not found: install clang and libclang-rt-14-dev (scripts/deps-fuzz.txt)"; exit 2; }
	$(Q)$(MAKE) --no-print-directory fuzz-lib
	$(Q)$(MAKE) --no-print-directory fuzz-bins

fuzz-bins: $(FUZZ_BINS)

fuzz: fuzz-build
	$(Q)mkdir -p fuzz/crashes; \
	for t in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_O)/work/$$t fuzz/corpus/$$t; \
		echo "  FUZZ    $$t ($(FUZZ_SECONDS) s)"; \
		$(FUZZ_ENV) nice -n 19 $(FUZZ_O)/fuzz_$$t $(FUZZ_RUN_OPTS) \
			-max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
			-artifact_prefix=fuzz/crashes/$$t- \
			$(FUZZ_O)/work/$$t fuzz/corpus/$$t >$(FUZZ_O)/work/$$t.log 2>&1; \
		rc=$$?; \
		grep -h -e '^stat::number_of_executed_units' -e '^#[0-9]*.*DONE' $(FUZZ_O)/work/$$t.log | \
			sed "s/^/          /"; \
		if [ $$rc -ne 0 ]; then \
			echo "fuzz: $$t failed (exit $$rc): see $(FUZZ_O)/work/$$t.log and fuzz/crashes/"; \
			grep -m3 -e 'ERROR:' -e 'runtime error' $(FUZZ_O)/work/$$t.log; exit 1; \
		fi; \
	done

fuzz-regress: fuzz-build
	$(Q)FUZZ_BIN_DIR=$(abspath $(FUZZ_O)) tests/integration/fuzz-regressions.sh

.PHONY: fuzz fuzz-build fuzz-lib fuzz-bins fuzz-regress
