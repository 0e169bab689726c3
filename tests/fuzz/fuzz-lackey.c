// SPDX-License-Identifier: GPL-2.0-or-later
/* Fuzz cachepin simulate's trace input: lackey traces and QEMU logs through the online simulators. */
#include "fuzz.h"
#include "cachepin/simulate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cachepin_cache c[2];
	/* the worst sets too: every line that missed is kept and sorted */
	struct cachepin_simulate_opts o = { .caches = c, .nr_caches = 2, .cpu = -1, .worst_sets = 3 };
	struct cachepin_simulation s;
	char path[64];
	int fd = fuzz_file(data, size, path, sizeof(path));

	if (fd < 0)
		return 0;
	if (!cachepin_cache__parse(&c[0], "1K:2:32") && !cachepin_cache__parse(&c[1], "4K:4:64") &&
	    !cachepin_simulate__run(path, &o, &s))
		cachepin_simulate__release(&s);
	close(fd);
	return 0;
}
