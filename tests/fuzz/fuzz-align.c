// SPDX-License-Identifier: GPL-2.0-or-later
/* Fuzz the alignment file reader, cachepin-plan(5). */
#include "fuzz.h"
#include "cachepin/align.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = fuzz_file(data, size, path, sizeof(path));

	if (fd < 0)
		return 0;
	cachepin_align__free(cachepin_align__read(path));
	close(fd);
	return 0;
}
