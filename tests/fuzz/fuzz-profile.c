// SPDX-License-Identifier: GPL-2.0-or-later
/* Fuzz the cachepin profile reader, cachepin-profile(5). */
#include "fuzz.h"
#include "cachepin/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = fuzz_file(data, size, path, sizeof(path));

	if (fd < 0)
		return 0;
	cachepin_profile__free(cachepin_profile__read(path));
	close(fd);
	return 0;
}
