// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz the GNU ld map reader against a fixed binary: the fuzzer's own
 * executable, so that sections and symbols exist to be matched.
 */
#include "fuzz.h"
#include "cachepin/binary.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = fuzz_file(data, size, path, sizeof(path));
	struct cachepin_binary *b;

	if (fd < 0)
		return 0;
	/* a fresh binary each time: a map replaces its units */
	b = cachepin_binary__open("/proc/self/exe");
	if (b)
		cachepin_binary__load_map(b, path);
	cachepin_binary__free(b);
	close(fd);
	return 0;
}
