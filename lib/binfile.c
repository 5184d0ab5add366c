// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/binfile.h"
#include "lib/error.h"
#include "lib/input.h"

FILE *lw_binfile_open(const char *path, const char *magic, const char *what, void *hdr,
		      size_t len, uint64_t cap, uint64_t *body)
{
	struct stat st;
	int fd = lw_in_open(path, LW_IN_NOFOLLOW, cap, &st);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "rb");

	if (!f) {
		if (fd >= 0) {
			error_errno("cannot open %s", path);
			close(fd);
		}
		return NULL;
	}
	if (fread(hdr, len, 1, f) != 1) {
		error("%s: truncated header (%lld bytes, need %zu)", path, (long long)st.st_size, len);
		goto fail;
	}
	if (memcmp(hdr, magic, 8)) {
		error("%s: not a latwatt %s file (bad magic)", path, what);
		goto fail;
	}
	*body = (uint64_t)st.st_size - len;
	return f;
fail:
	fclose(f);
	return NULL;
}
