/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every fuzz target shares: the input as a file (the parsers read
 * paths), the library's messages silenced, one entry point that
 * libFuzzer (clang -fsanitize=fuzzer) or replay.c (any compiler: each
 * file given runs once) calls.
 */
#ifndef CACHEPIN_FUZZ_H
#define CACHEPIN_FUZZ_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "cachepin/cachepin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fuzz_quiet(enum cachepin_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

/*
 * DATA as a file: a memfd, its path in PATH ("/proc/self/fd/N").
 * Returns the descriptor to close, or -1.
 */
static inline int fuzz_file(const uint8_t *data, size_t size, char *path, size_t cap)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC);
	size_t off = 0;

	cachepin_set_print(fuzz_quiet);
	if (fd < 0)
		return -1;
	while (off < size) {
		ssize_t n = write(fd, data + off, size - off);

		if (n <= 0) {
			close(fd);
			return -1;
		}
		off += (size_t)n;
	}
	snprintf(path, cap, "/proc/self/fd/%d", fd);
	return fd;
}

#endif
