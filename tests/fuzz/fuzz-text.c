// SPDX-License-Identifier: GPL-2.0-or-later
/* Fuzz the text readers: perf script, perf report/top, hot lists, folded stacks. */
#include "fuzz.h"
#include "cachepin/textin.h"

static int on_sample(void *ctx, const struct cachepin_sample *s)
{
	(void)ctx;
	(void)s;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], *event = NULL;
	int fd = fuzz_file(data, size, path, sizeof(path));

	if (fd < 0)
		return 0;
	cachepin_text__read(path, CACHEPIN_TEXT_AUTO, on_sample, NULL, &event);
	free(event);
	close(fd);
	return 0;
}
