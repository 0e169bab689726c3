// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * valgrind lackey's memory trace: "I  ADDR,SIZE" for an instruction
 * fetch, " L ADDR,SIZE" (and S, M) for data, "==PID== ..." for
 * valgrind's own messages when the trace went to --log-file.  ADDR is
 * hex without "0x", SIZE decimal.  The trace is read in chunks; a line
 * is never held longer than the chunk it ends in.
 */
#include <inttypes.h>
#include <unistd.h>
#include "internal.h"
#include "lackey.h"
#include "scan.h"

#define CHUNK (1u << 16)
#define MAX_LINE 4096

/* "I  ADDR,SIZE": true with the fetch. */
static bool fetch_line(const char *p, const char *e, uint64_t *addr, uint64_t *size)
{
	const char *q;

	if (e - p < 6 || p[0] != 'I' || p[1] != ' ' || p[2] != ' ')
		return false;
	q = scan_hex_digits(p + 3, e, addr, NULL);
	if (!q || q >= e || *q != ',')
		return false;
	q = scan_dec(q + 1, e, size);
	return q && scan_rtrim(q, e) == q && *size > 0 && *size <= 64;
}

static bool data_line(const char *p, const char *e)
{
	return e - p >= 5 && p[0] == ' ' && (p[1] == 'L' || p[1] == 'S' || p[1] == 'M') && p[2] == ' ';
}

static bool valgrind_line(const char *p, const char *e)
{
	return e - p >= 2 && p[0] == '=' && p[1] == '=';
}

bool cachepin_lackey__detect(const char *buf, size_t len)
{
	const char *p = buf, *e = buf + len, *nl;
	uint64_t a, s;

	/* the first line that is not valgrind's decides */
	while (p < e) {
		nl = memchr(p, '\n', (size_t)(e - p));
		if (!nl)
			return false;
		if (!valgrind_line(p, nl))
			return fetch_line(p, nl, &a, &s) || data_line(p, nl);
		p = nl + 1;
	}
	return false;
}

/* One line [p, e) of the trace.  0, FN's value, or -EINVAL after logging. */
static int one_line(const char *name, const char *p, const char *e, cachepin_lackey_fn_t fn,
		    void *ctx, struct cachepin_lackey_stats *st)
{
	uint64_t a, s;

	st->lines++;
	if (p < e && p[0] == 'I') {
		if (!fetch_line(p, e, &a, &s)) {
			pr_warn("'%s':%" PRIu64 ": bad instruction line (lackey writes 'I  ADDR,SIZE')\n",
				name, st->lines);
			return -EINVAL;
		}
		st->fetches++;
		return fn(ctx, a, (uint32_t)s);
	}
	if (data_line(p, e)) {
		st->data++;
	} else if (!valgrind_line(p, e)) {
		if (!st->other)
			st->first_other = st->lines;
		st->other++;
	}
	return 0;
}

int cachepin_lackey__read(int fd, const char *name, const char *head, size_t len,
			  cachepin_lackey_fn_t fn, void *ctx, struct cachepin_lackey_stats *st)
{
	char *buf = malloc(CHUNK + MAX_LINE);
	size_t have = 0;
	int err = 0;

	memset(st, 0, sizeof(*st));
	if (!buf) {
		pr_warn("out of memory\n");
		return -ENOMEM;
	}
	for (;;) {
		const char *p, *nl, *e;
		ssize_t n;

		if (len) {
			/* the sniffed head first, a chunk at a time */
			size_t take = len < CHUNK ? len : CHUNK;

			memcpy(buf + have, head, take);
			head += take;
			len -= take;
			n = (ssize_t)take;
		} else {
			n = read(fd, buf + have, CHUNK);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				err = -errno;
				pr_warn("cannot read '%s': %s\n", name, strerror(errno));
				break;
			}
		}
		if (n == 0) {
			if (have)
				st->cut_last_line = true;
			break;
		}
		e = buf + have + n;
		for (p = buf; (nl = memchr(p, '\n', (size_t)(e - p))); p = nl + 1)
			if ((err = one_line(name, p, nl, fn, ctx, st)))
				goto out;
		have = (size_t)(e - p);
		if (have >= MAX_LINE) {
			pr_warn("'%s':%" PRIu64 ": line too long for a lackey trace\n", name,
				st->lines + 1);
			err = -EINVAL;
			goto out;
		}
		memmove(buf, p, have);
	}
out:
	free(buf);
	return err;
}
