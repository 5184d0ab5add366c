# Cross builds (included at the top of the Makefile, before anything that
# depends on the compiler or pkg-config).
#
#   make ARCH=arm64         aarch64 latwatt in build-arm64/, with
#                           build-arm64/latwatt-aarch64.tar.gz (the binary,
#                           its libraries and loader) for 'latwatt target'
#   make ARCH=armhf         32-bit ARM (armv7, hard float) in build-armhf/
#   make bundle             the same tar for a native build
#   make ARCH=arm64 install-bundle   into PREFIX/lib/latwatt, where an installed
#                           'latwatt target' looks for it
#       SYSROOT=DIR             target sysroot (default build-sysroot/ARCH,
#                               made by scripts/sysroot from Debian's packages)
#
# The compiler is Debian's cross gcc (scripts/deps-cross.txt), pkg-config
# reads only the sysroot's .pc files, and optional libraries are detected in
# the sysroot.  Debian ships no static libtracecmd, so the binary is dynamic
# and travels with its libraries (STATIC=1 links where the sysroot has every
# static library).

.DEFAULT_GOAL := all
ARCH ?=
# ARCH:triplet:uname -m
LW_CROSS_ARCHS := arm64:aarch64-linux-gnu:aarch64 armhf:arm-linux-gnueabihf:armv7l
LW_SYSROOT :=
ifneq ($(ARCH),)
lw_cross := $(subst :, ,$(filter $(ARCH):%,$(LW_CROSS_ARCHS)))
ifeq ($(lw_cross),)
$(error unknown ARCH=$(ARCH): have $(foreach a,$(LW_CROSS_ARCHS),$(word 1,$(subst :, ,$(a)))))
endif
LW_TRIPLET    := $(word 2,$(lw_cross))
LW_MACHINE    := $(word 3,$(lw_cross))
CROSS_COMPILE ?= $(LW_TRIPLET)-
O             ?= build-$(ARCH)
SYSROOT       ?= $(CURDIR)/build-sysroot/$(ARCH)
LW_SYSROOT    := $(abspath $(SYSROOT))
ifeq ($(filter clean help,$(MAKECMDGOALS)),)
ifeq ($(shell command -v $(CROSS_COMPILE)gcc),)
$(error $(CROSS_COMPILE)gcc not found: install the cross compiler (scripts/install-deps, scripts/deps-cross.txt))
endif
ifneq ($(shell scripts/sysroot $(ARCH) $(LW_SYSROOT) >/dev/null && echo y),y)
$(error cannot make the $(ARCH) sysroot $(LW_SYSROOT) (scripts/sysroot $(ARCH)))
endif
endif
PKG_CONFIG := PKG_CONFIG_SYSROOT_DIR=$(LW_SYSROOT) PKG_CONFIG_PATH= \
	PKG_CONFIG_LIBDIR=$(LW_SYSROOT)/usr/lib/$(LW_TRIPLET)/pkgconfig:$(LW_SYSROOT)/usr/share/pkgconfig pkg-config
CFLAGS  ?= -O2 -g
CFLAGS  += --sysroot=$(LW_SYSROOT)
LDFLAGS += --sysroot=$(LW_SYSROOT) \
	-Wl,-rpath-link=$(LW_SYSROOT)/lib/$(LW_TRIPLET) -Wl,-rpath-link=$(LW_SYSROOT)/usr/lib/$(LW_TRIPLET)
LW_BUNDLE_FROM := $(ARCH) $(LW_SYSROOT)
else
LW_MACHINE     := $(shell uname -m)
LW_BUNDLE_FROM := native /
endif
