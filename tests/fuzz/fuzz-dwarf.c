// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz the DWARF reader (libdwarf under dwarf.c): line tables, inlined
 * subroutines, range lists; once a file opens, every other address of
 * the first 16 KiB at the two usual text starts (a shared object's or
 * PIE's 0x1000, a static x86-64 program's 0x401000) looked up.
 */
#include "fuzz.h"
#include "cachepin/srcline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cachepin_srcline *sl;
	char path[64];
	int fd = fuzz_file(data, size, path, sizeof(path));

	if (fd < 0)
		return 0;
	if ((sl = cachepin_srcline__open(path))) {
		static const uint64_t base[] = { 0x1000, 0x401000 };
		const char *file, *inlined;
		unsigned int line, b;
		uint64_t a;

		for (b = 0; b < 2; b++)
			for (a = base[b]; a < base[b] + 0x4000; a += 2)
				cachepin_srcline__lookup(sl, a, &file, &line, &inlined);
		cachepin_srcline__free(sl);
	}
	close(fd);
	return 0;
}
