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
#       QEMU_OUT=DIR         results (default qemu-out/matrix-DATE)
#       QEMU_RUN_ARGS=...    latwatt run arguments (default -d 10s)
#       QEMU_ARGS=...        scripts/qemu-board options (--kernels 6.1-rt,6.12-rt,
#                            --cmdline, --timeout, --cache DIR ...)

QEMU_BOARD    := scripts/qemu-board
QEMU_RUN_ARGS ?= -d 10s
QEMU_ARGS     ?=
QEMU_BOOTS    ?= 3
ifndef QEMU_OUT
QEMU_OUT := qemu-out/matrix-$(shell date +%Y%m%d-%H%M%S)
endif

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

qemu-fetch:
	$(Q)$(QEMU_BOARD) $(QEMU_ARGS) fetch

qemu-matrix: qemu-latwatt
	$(Q)$(QEMU_BOARD) matrix -o $(QEMU_OUT) --boots $(QEMU_BOOTS) $(QEMU_ARGS) -- $(QEMU_RUN_ARGS)

.PHONY: qemu-latwatt qemu-fetch qemu-matrix
