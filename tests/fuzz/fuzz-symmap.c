// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz the kernel's address maps: System.map and nm output (and ELF
 * symbols), a binary made of one, and a copy of /proc/modules.
 */
#include "fuzz.h"
#include "cachepin/binary.h"
#include "cachepin/modules.h"
#include "cachepin/symmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = fuzz_file(data, size, path, sizeof(path));
	uint64_t a;

	if (fd < 0)
		return 0;
	{
		struct cachepin_symmap *sm = cachepin_symmap__open(path);

		if (sm)
			cachepin_symmap__lookup(sm, "main", &a);
		cachepin_symmap__free(sm);
	}
	cachepin_binary__free(cachepin_binary__open_symmap(path));
	{
		struct cachepin_loaded *l;
		size_t n;

		if (!cachepin_loaded__read(path, &l, &n)) {
			cachepin_loaded__find(l, n, l[0].base);
			cachepin_loaded__free(l, n);
		}
	}
	close(fd);
	return 0;
}
