# QEMU reference board targets (included by the top-level Makefile).
#
#   make qemu-latwatt    the binary for the guest: static (STATIC=1
#                        O=build-static) when it links, else dynamic in
#                        build-qemu (shipped with its libraries)
#   make qemu-fetch      download and unpack the board's kernel matrix
#   make qemu-matrix     run latwatt on every kernel of the matrix, each booted
#                        QEMU_BOOTS times in interleaved order (A B C A B C),
#                        and compare the kernels as groups of repeats
#       QEMU_BOOTS=N         boots of each kernel (default 3)
#       BOARD=qemu-aarch64   the arm64 virt board (default qemu-x86_64); its
#                            latwatt is the 'make ARCH=arm64' bundle
#       QEMU_OUT=DIR         results (default qemu-out/matrix-DATE)
#       QEMU_RUN_ARGS=...    latwatt run arguments (default -d 10s)
#       QEMU_ARGS=...        scripts/qemu-board options (--kernels 6.1-rt,6.12-rt,
#                            --cmdline, --timeout, --cache DIR ...)

QEMU_BOARD    := scripts/qemu-board
BOARD         ?= qemu-x86_64
QEMU_BOARD_FILE := boards/$(BOARD).yaml
QEMU_RUN_ARGS ?= -d 10s
QEMU_ARGS     ?=
QEMU_BOOTS    ?= 3
ifndef QEMU_OUT
QEMU_OUT := qemu-out/matrix-$(shell date +%Y%m%d-%H%M%S)
endif

ifeq ($(BOARD),qemu-aarch64)
qemu-latwatt:
	$(Q)$(MAKE) --no-print-directory ARCH=arm64
else
qemu-latwatt:
	$(Q)mkdir -p build-static; \
	if $(MAKE) --no-print-directory STATIC=1 O=build-static >build-static/make.log 2>&1; then \
		echo "  STATIC  build-static/latwatt"; \
	else \
		rm -f build-static/latwatt; \
		echo "  static link failed ($$(grep -m1 -e 'cannot find' -e 'error' build-static/make.log)):"; \
		echo "  the guest gets the dynamic build-qemu/latwatt and its libraries"; \
		$(MAKE) --no-print-directory O=build-qemu; \
	fi
endif

qemu-fetch:
	$(Q)$(QEMU_BOARD) -b $(QEMU_BOARD_FILE) $(QEMU_ARGS) fetch

qemu-matrix: qemu-latwatt
	$(Q)$(QEMU_BOARD) -b $(QEMU_BOARD_FILE) matrix -o $(QEMU_OUT) --boots $(QEMU_BOOTS) $(QEMU_ARGS) -- $(QEMU_RUN_ARGS)

.PHONY: qemu-latwatt qemu-fetch qemu-matrix
