// SPDX-License-Identifier: GPL-2.0-or-later
/* Logging callback and small shared helpers of the library. */
#include <stdio.h>
#include <unistd.h>
#include "internal.h"

static int default_print(enum cachepin_print_level level, const char *fmt, va_list ap)
{
	if (level != CACHEPIN_WARN)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static cachepin_print_fn_t print_fn = default_print;

cachepin_print_fn_t cachepin_set_print(cachepin_print_fn_t fn)
{
	cachepin_print_fn_t old = print_fn;

	print_fn = fn;
	return old;
}

void cachepin_pr(enum cachepin_print_level level, const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	if (print_fn) {
		va_start(ap, fmt);
		print_fn(level, fmt, ap);
		va_end(ap);
	}
	errno = saved;
}

static cachepin_progress_fn_t progress_fn;

cachepin_progress_fn_t cachepin_set_progress(cachepin_progress_fn_t fn)
{
	cachepin_progress_fn_t old = progress_fn;

	progress_fn = fn;
	return old;
}

void cachepin_progress(const char *label, uint64_t done, uint64_t total)
{
	int saved = errno;

	if (progress_fn && total)
		progress_fn(label, done < total ? done : total, total);
	errno = saved;
}

const char *cachepin_version(void)
{
	return CACHEPIN_VERSION;
}

int cachepin_grow(void **arr, size_t *cap, size_t n, size_t esz)
{
	size_t ncap;
	void *p;

	if (n <= *cap)
		return 0;
	ncap = *cap ? *cap : 16;
	while (ncap < n)
		ncap *= 2;
	p = realloc(*arr, ncap * esz);
	if (!p)
		return -ENOMEM;
	memset((char *)p + *cap * esz, 0, (ncap - *cap) * esz);
	*arr = p;
	*cap = ncap;
	return 0;
}

char *cachepin_strdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

int cachepin_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

int cachepin_cmp_set_misses(const void *a, const void *b)
{
	const struct cachepin_set_misses *x = a, *y = b;

	if (x->misses != y->misses)
		return x->misses > y->misses ? -1 : 1;
	return (x->set > y->set) - (x->set < y->set);
}

int cachepin_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

ssize_t cachepin_read_full(int fd, void *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, (char *)buf + got, n - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (!r)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}
