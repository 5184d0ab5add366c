# latwatt — realtime latency and power characterization for embedded Linux kernels
#
#   make                    build ./latwatt (objects under $(O)/obj)
#   make O=build            out-of-tree build
#   make V=1                show the commands
#   make SANITIZE=1         AddressSanitizer + UndefinedBehaviorSanitizer build
#   make WERROR=1           warnings are errors (CI)
#   make ARCH=arm64         cross build in build-arm64 (also ARCH=armhf), from a
#                           sysroot of Debian's packages (scripts/cross.mk)
#   make STATIC=1           static binary (for initramfs and boards)
#   make check              unit and integration tests (tests/run)

include scripts/cross.mk

CROSS_COMPILE ?=
CC            := $(CROSS_COMPILE)gcc
AR            := $(CROSS_COMPILE)ar
PKG_CONFIG    ?= pkg-config
O             ?= .
V             ?= 0
SANITIZE      ?= 0
WERROR        ?= 0
STATIC        ?= 0
PREFIX        ?= /usr/local

ifeq ($(V),1)
Q :=
msg = @true
else
Q := @
msg = @printf '  %-7s %s\n' $(1) $(2);
endif

# Required libraries: pkg-config name and the Debian package that provides it.
REQ_PKGS := libtracefs:libtracefs-dev libtraceevent:libtraceevent-dev \
            libtracecmd:libtracecmd-dev jansson:libjansson-dev \
            yaml-0.1:libyaml-dev sqlite3:libsqlite3-dev gsl:libgsl-dev
# Optional libraries: compiled in when present.
OPT_PKGS := lttng-ust:liblttng-ust-dev libiio:libiio-dev

ifeq ($(filter clean help,$(MAKECMDGOALS)),)
$(foreach p,$(REQ_PKGS),$(if $(shell $(PKG_CONFIG) --exists $(word 1,$(subst :, ,$(p))) && echo y),,\
  $(error missing library $(word 1,$(subst :, ,$(p))): install $(word 2,$(subst :, ,$(p))) (scripts/install-deps))))
endif

PKGS := $(foreach p,$(REQ_PKGS),$(word 1,$(subst :, ,$(p))))
HAVE := $(foreach p,$(OPT_PKGS),$(if $(shell $(PKG_CONFIG) --exists $(word 1,$(subst :, ,$(p))) && echo y),$(word 1,$(subst :, ,$(p)))))
# lttng-ust goes into liblatwatt-ust.so alone, loaded by `run` when wanted (lib/ust.c)
PKGS += $(filter-out lttng-ust,$(HAVE))
DEFS :=
UST_SO :=
ifneq ($(filter lttng-ust,$(HAVE)),)
DEFS += -DLW_HAVE_LTTNG=1
ifneq ($(STATIC),1)
UST_SO := $(O)/liblatwatt-ust.so
endif
endif
ifeq ($(STATIC),1)
DEFS += -DLW_STATIC=1
endif
ifneq ($(filter libiio,$(HAVE)),)
DEFS += -DLW_HAVE_IIO=1
endif
ifneq ($(wildcard $(LW_SYSROOT)/usr/include/sensors/sensors.h),)
DEFS += -DLW_HAVE_SENSORS=1
SENSORS_LIBS := -lsensors
endif
# Where `latwatt run --scenario NAME` finds installed scenario files.
DEFS += -DLW_SCENARIO_DIR='"$(PREFIX)/share/latwatt/scenarios"'

PKG_STATIC := $(if $(filter 1,$(STATIC)),--static)
# pkg-config runs once per make, not once per compile (immediate := below).
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS))
PKG_LIBS   := $(shell $(PKG_CONFIG) $(PKG_STATIC) --libs $(PKGS))
CFLAGS   ?= -O2 -g
CFLAGS   := $(CFLAGS) -std=gnu11 -Wall -Wextra -Wshadow -Wno-unused-parameter -Wformat=2 \
            -D_GNU_SOURCE -pthread -I. $(DEFS) $(PKG_CFLAGS)
LDLIBS   := $(LDLIBS) $(PKG_LIBS) $(SENSORS_LIBS) -lm -lpthread -ldl
ifeq ($(WERROR),1)
CFLAGS   += -Werror
endif
ifeq ($(SANITIZE),1)
CFLAGS   += -fsanitize=address,undefined -fno-omit-frame-pointer
LDFLAGS  += -fsanitize=address,undefined
endif
ifeq ($(STATIC),1)
LDFLAGS  += -static
endif

# The library holds the code every command shares; cmd/ (the commands and
# their option parsers) is linked into the binary beside it, and into the
# unit tests that test a command's parser.  lib/ust_provider.c is built
# alone into liblatwatt-ust.so.
LIB_SRCS := $(sort $(filter-out lib/ust_provider.c,$(wildcard lib/*.c probes/*.c workloads/*.c analysis/*.c reports/*.c boards/*.c)))
LIB_SRCS += $(sort $(wildcard power/*.c))
CMD_SRCS := $(sort $(filter-out cmd/latwatt.c,$(wildcard cmd/*.c)))
LIB_OBJS := $(patsubst %.c,$(O)/obj/%.o,$(LIB_SRCS))
CMD_OBJS := $(patsubst %.c,$(O)/obj/%.o,$(CMD_SRCS))
MAIN_OBJ := $(O)/obj/cmd/latwatt.o
LIBLW    := $(O)/obj/liblatwatt.a
LIBCMD   := $(O)/obj/libcmd.a
BIN      := $(O)/latwatt

# Objects are rebuilt when the flags change (make, then make SANITIZE=1 in
# the same O= must not reuse objects): the flags are kept in $(O)/obj/FLAGS
# and every object depends on that file, which changes only when they do.
FLAGS_FILE := $(O)/obj/FLAGS
FLAGS_NOW  := $(CC) $(CFLAGS) | $(LDFLAGS) | $(LDLIBS)
$(shell mkdir -p $(O)/obj; [ "$$(cat $(FLAGS_FILE) 2>/dev/null)" = '$(subst ','\'',$(FLAGS_NOW))' ] || \
	printf '%s\n' '$(subst ','\'',$(FLAGS_NOW))' >$(FLAGS_FILE))

TEST_SRCS := $(sort $(wildcard tests/unit/test_*.c))
TEST_BINS := $(patsubst tests/unit/%.c,$(O)/tests/%,$(TEST_SRCS))

all: $(BIN) $(UST_SO)

$(O)/obj/%.o: %.c $(FLAGS_FILE)
	@mkdir -p $(dir $@)
	$(call msg,CC,$<)
	$(Q)$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(LIBLW): $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(LIBCMD): $(CMD_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(O)/liblatwatt-ust.so: lib/ust_provider.c lib/ust_tp.h lib/ust_ops.h $(FLAGS_FILE)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -fPIC -shared $(LDFLAGS) -o $@ $< \
		$(shell $(PKG_CONFIG) --libs lttng-ust) -ldl

$(BIN): $(MAIN_OBJ) $(LIBCMD) $(LIBLW)
	$(call msg,LD,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $(MAIN_OBJ) $(LIBCMD) $(LIBLW) $(LDLIBS)

CMOCKA_CFLAGS := $(shell $(PKG_CONFIG) --cflags cmocka 2>/dev/null)
CMOCKA_LIBS   := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null)
$(O)/tests/%: tests/unit/%.c $(LIBCMD) $(LIBLW) $(FLAGS_FILE)
	@mkdir -p $(dir $@)
	$(call msg,CC,$<)
	$(Q)$(CC) $(CFLAGS) $(CMOCKA_CFLAGS) $(LDFLAGS) -o $@ $< $(LIBCMD) $(LIBLW) \
		$(CMOCKA_LIBS) $(LDLIBS)

tests: $(TEST_BINS)

check: $(BIN) $(UST_SO) $(TEST_BINS)
	$(Q)LATWATT=$(abspath $(BIN)) TEST_BIN_DIR=$(abspath $(O)/tests) tests/run

install: $(BIN) $(UST_SO)
	install -D -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/latwatt
	$(if $(UST_SO),install -D -m 0644 $(UST_SO) $(DESTDIR)$(PREFIX)/lib/latwatt/liblatwatt-ust.so)
	install -D -m 0644 doc/latwatt.1 $(DESTDIR)$(PREFIX)/share/man/man1/latwatt.1
	install -d $(DESTDIR)$(PREFIX)/share/latwatt/scenarios
	install -m 0644 workloads/scenarios/*.yaml $(DESTDIR)$(PREFIX)/share/latwatt/scenarios
	install -d $(DESTDIR)$(PREFIX)/share/latwatt/boards
	install -m 0644 boards/*.yaml $(DESTDIR)$(PREFIX)/share/latwatt/boards

clean:
	rm -rf $(O)/obj $(O)/tests $(BIN) $(O)/liblatwatt-ust.so

help:
	@sed -n '2,12p' Makefile | sed 's/^# \{0,1\}//'

.PHONY: all tests check install clean help
# ARCH builds: the binary with its libraries and loader, for 'latwatt target'
# and the aarch64 QEMU board (scripts/cross.mk).
LW_BUNDLE := $(O)/latwatt-$(LW_MACHINE).tar.gz
$(LW_BUNDLE): $(BIN) $(UST_SO) scripts/sysroot
	$(call msg,BUNDLE,$@)
	$(Q)scripts/sysroot bundle $(LW_BUNDLE_FROM) $(BIN) $@
bundle: $(LW_BUNDLE)
# where 'latwatt target' looks for installed bundles
$(O)/obj/cmd/target.o: CFLAGS += -DLW_TARGET_LIBDIR='"$(PREFIX)/lib/latwatt"'
ifneq ($(ARCH),)
all: $(LW_BUNDLE)
endif
# install-bundle: the bundle where an installed 'latwatt target' finds it
install-bundle: $(LW_BUNDLE)
	install -D -m 0644 $(LW_BUNDLE) $(DESTDIR)$(PREFIX)/lib/latwatt/$(notdir $(LW_BUNDLE))
.PHONY: bundle install-bundle

include boards/qemu.mk
include boards/lava.mk
include fuzz/fuzz.mk
-include $(LIB_OBJS:.o=.d) $(CMD_OBJS:.o=.d) $(MAIN_OBJ:.o=.d)
