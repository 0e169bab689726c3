// SPDX-License-Identifier: GPL-2.0-or-later
/* Fuzz the ELF reader (libelf under binary.c and elf.c): sections, symbols, build-id. */
#include "fuzz.h"
#include "cachepin/binary.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = fuzz_file(data, size, path, sizeof(path));

	if (fd < 0)
		return 0;
	cachepin_binary__free(cachepin_binary__open(path));
	close(fd);
	return 0;
}
