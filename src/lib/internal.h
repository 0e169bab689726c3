/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Private helpers of libcachepin; never installed. */
#ifndef CACHEPIN_INTERNAL_H
#define CACHEPIN_INTERNAL_H

#include <errno.h>
#include <sys/types.h>
#include <stdlib.h>
#include <string.h>
#include "cachepin/cachepin.h"

__attribute__((format(printf, 2, 3)))
void cachepin_pr(enum cachepin_print_level level, const char *fmt, ...);

/* Messages follow git's rules: lower case, no full stop, subject quoted. */
#define pr_warn(fmt, ...)  cachepin_pr(CACHEPIN_WARN, fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...)  cachepin_pr(CACHEPIN_INFO, fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...) cachepin_pr(CACHEPIN_DEBUG, fmt, ##__VA_ARGS__)

/* To the progress callback, if one is set (cachepin_set_progress()). */
void cachepin_progress(const char *label, uint64_t done, uint64_t total);

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define zfree(p) do { free(*(p)); *(p) = NULL; } while (0)

/* Grow *arr (element size esz) so that it holds at least n elements. */
int cachepin_grow(void **arr, size_t *cap, size_t n, size_t esz);
#define GROW(arr, cap, n) cachepin_grow((void **)&(arr), &(cap), (n), sizeof(*(arr)))

char *cachepin_strdup(const char *s);

/*
 * Read N bytes of FD into BUF, as many reads as a pipe needs: the number
 * read (fewer only at the end of the input), or -1 with errno set.
 */
ssize_t cachepin_read_full(int fd, void *buf, size_t n);

/* qsort() that accepts an empty (possibly NULL) array. */
static inline void sort_n(void *base, size_t n, size_t size,
			  int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

/* Unaligned, explicit-endian loads (perf.data and ELF payloads). */
static inline uint16_t get_u16(const void *p, bool be)
{
	const uint8_t *b = p;
	return be ? (uint16_t)(b[0] << 8 | b[1]) : (uint16_t)(b[1] << 8 | b[0]);
}

static inline uint32_t get_u32(const void *p, bool be)
{
	const uint8_t *b = p;
	if (be)
		return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
	return (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
}

static inline uint64_t get_u64(const void *p, bool be)
{
	const uint8_t *b = p;
	if (be)
		return (uint64_t)get_u32(b, true) << 32 | get_u32(b + 4, true);
	return (uint64_t)get_u32(b + 4, false) << 32 | get_u32(b, false);
}

/* The last component of the path P ("a/b/c" -> "c"). */
static inline const char *cachepin_base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* Marsaglia's xorshift64: the library's one PRNG (*S must not be 0). */
static inline uint64_t cachepin_xorshift64(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

/* qsort() comparators of plain unsigned keys, ascending. */
int cachepin_cmp_u64(const void *a, const void *b);
int cachepin_cmp_u32(const void *a, const void *b);

/* A cache set by its misses; cachepin_cmp_set_misses(): most first, then by set. */
struct cachepin_set_misses {
	uint64_t misses;
	uint32_t set;
};

int cachepin_cmp_set_misses(const void *a, const void *b);

/* FNV-1a, for cheap stable hashes (profile digests, PRNG seeds). */
static inline uint64_t cachepin_fnv1a(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;
	while (n--) {
		h ^= *b++;
		h *= 0x100000001b3ULL;
	}
	return h;
}
#define FNV1A_INIT 0xcbf29ce484222325ULL

#include "banned.h"

#endif
