// SPDX-License-Identifier: GPL-2.0-or-later
/* Fuzz the QEMU in_asm/exec log reader, blocks and samples. */
#include "fuzz.h"
#include "cachepin/qemu.h"

static int on_block(void *ctx, const struct cachepin_qblock *b)
{
	(void)ctx;
	(void)b;
	return 0;
}

static int on_sample(void *ctx, const struct cachepin_sample *s, const uint32_t *off, size_t n)
{
	(void)ctx;
	(void)s;
	(void)off;
	(void)n;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cachepin_qsample_opts o = { .period = 7 };
	struct cachepin_qtrace *t;
	char path[64];
	int fd = fuzz_file(data, size, path, sizeof(path));

	if (fd < 0)
		return 0;
	if ((t = cachepin_qtrace__open(path))) {
		cachepin_qtrace__for_each_block(t, on_block, NULL);
		cachepin_qtrace__free(t);
	}
	if ((t = cachepin_qtrace__open(path))) {
		cachepin_qtrace__for_each_sample(t, &o, on_sample, NULL);
		cachepin_qtrace__free(t);
	}
	close(fd);
	return 0;
}
