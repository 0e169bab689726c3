// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz what-if edits, cachepin-whatif(1): the edit file reader, and each
 * input's edits applied to a relink of a real program when run.sh names
 * one (CACHEPIN_FUZZ_ELF, CACHEPIN_FUZZ_MAP: an -ffunction-sections link
 * and its map); without them, the reader alone.
 */
#include "fuzz.h"
#include "cachepin/binary.h"
#include "cachepin/layout.h"
#include "cachepin/whatif.h"

static struct cachepin_binary *bin;
static int tried;

static void load_binary(void)
{
	const char *elf = getenv("CACHEPIN_FUZZ_ELF"), *map = getenv("CACHEPIN_FUZZ_MAP");

	tried = 1;
	if (!elf || !map || !(bin = cachepin_binary__open(elf)))
		return;
	if (cachepin_binary__load_map(bin, map)) {
		cachepin_binary__free(bin);
		bin = NULL;
	}
}

static void apply(const struct cachepin_edit *e, size_t n)
{
	struct cachepin_relink r;
	struct cachepin_layout l;
	uint32_t culprit;

	if (cachepin_relink__init(&r, bin))
		return;
	if (!cachepin_relink__lay(&r, &culprit) && !cachepin_edit__apply(&r, e, n) &&
	    !cachepin_relink__layout(&r, &l))
		cachepin_layout__release(&l);
	cachepin_relink__release(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cachepin_edit *e = NULL;
	size_t n = 0, cap = 0, i;
	char path[64];
	int fd = fuzz_file(data, size, path, sizeof(path));

	if (fd < 0)
		return 0;
	if (!tried)
		load_binary();
	if (!cachepin_edit__read(path, &e, &n, &cap) && bin)
		apply(e, n);
	for (i = 0; i < n; i++)
		cachepin_edit__release(&e[i]);
	free(e);
	close(fd);
	return 0;
}
