// SPDX-License-Identifier: GPL-2.0-or-later
/* Fuzz the perf.data reader: file and pipe mode, both byte orders, zstd. */
#include "fuzz.h"
#include "cachepin/perf.h"

static int on_sample(void *ctx, const struct cachepin_sample *s)
{
	(void)ctx;
	(void)s;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = fuzz_file(data, size, path, sizeof(path));
	struct cachepin_perf *p;

	if (fd < 0)
		return 0;
	p = cachepin_perf__open(path);
	if (p) {
		cachepin_perf__for_each_sample(p, on_sample, NULL);
		cachepin_perf__meta(p);
		cachepin_perf__free(p);
	}
	close(fd);
	return 0;
}
