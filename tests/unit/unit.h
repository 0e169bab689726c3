/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Tiny harness for table-driven unit tests. */
#ifndef CACHEPIN_UNIT_H
#define CACHEPIN_UNIT_H
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int unit_failures;

#define CHECK(cond, ...) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: check '%s' failed: ", __FILE__, __LINE__, #cond); \
		fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); unit_failures++; \
	} } while (0)

/*
 * Make an empty temporary file for test NAME; its path in PATH (N
 * bytes).  0, or -1 after printing why.
 */
static inline int unit_tmpfile(char *path, size_t n, const char *name)
{
	int fd;

	snprintf(path, n, "%s/%s.XXXXXX", P_tmpdir, name);
	fd = mkstemp(path);
	if (fd < 0) {
		perror("mkstemp");
		return -1;
	}
	close(fd);
	return 0;
}

#define UNIT_DONE() do { \
	if (unit_failures) { fprintf(stderr, "%d failures\n", unit_failures); return 1; } \
	return 0; } while (0)
#endif
