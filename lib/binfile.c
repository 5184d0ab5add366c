// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>
#include <sys/stat.h>

#include "lib/binfile.h"
#include "lib/error.h"

FILE *lw_binfile_open(const char *path, const char *magic, const char *what, void *hdr,
		      size_t len, uint64_t *body)
{
	FILE *f = fopen(path, "rbe");
	struct stat st;

	if (!f) {
		error_errno("cannot open %s", path);
		return NULL;
	}
	if (fstat(fileno(f), &st) < 0) {
		error_errno("cannot stat %s", path);
		goto fail;
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
