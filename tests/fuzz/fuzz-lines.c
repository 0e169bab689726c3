// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz the line readers on long lines: libFuzzer's inputs stay short, so
 * the input is a recipe.  Its first two bytes give a length in 16 KiB
 * steps, up to 2 MiB (twice the longest line a reader takes); the rest
 * is repeated to that length, and the result goes to every reader of
 * lines: the alignment file, the profile, System.map, what-if edits,
 * perf script and the other texts.
 */
#include <string.h>
#include "fuzz.h"
#include "cachepin/align.h"
#include "cachepin/binary.h"
#include "cachepin/profile.h"
#include "cachepin/textin.h"
#include "cachepin/whatif.h"

static int on_sample(void *ctx, const struct cachepin_sample *s)
{
	(void)ctx;
	(void)s;
	return 0;
}

static void read_all(const char *path)
{
	struct cachepin_edit *e = NULL;
	size_t n = 0, cap = 0, i;
	char *event = NULL;

	cachepin_align__free(cachepin_align__read(path));
	cachepin_profile__free(cachepin_profile__read(path));
	cachepin_binary__free(cachepin_binary__open_symmap(path));
	cachepin_edit__read(path, &e, &n, &cap);
	for (i = 0; i < n; i++)
		cachepin_edit__release(&e[i]);
	free(e);
	cachepin_text__read(path, CACHEPIN_TEXT_AUTO, on_sample, NULL, &event);
	free(event);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t len, off, k;
	char path[64];
	uint8_t *buf;
	int fd;

	if (size < 3)
		return 0;
	len = ((size_t)data[0] | (size_t)(data[1] & 0x7f) << 8) % 129 * 16384 + size - 2;
	if (!(buf = malloc(len)))
		return 0;
	for (off = 0; off < len; off += k) {
		k = len - off < size - 2 ? len - off : size - 2;
		memcpy(buf + off, data + 2, k);
	}
	fd = fuzz_file(buf, len, path, sizeof(path));
	free(buf);
	if (fd < 0)
		return 0;
	read_all(path);
	close(fd);
	return 0;
}
