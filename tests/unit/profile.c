// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of the profile text format, cachepin-profile(5): writer and
 * reader round trips (the text and the fields survive, lines out of
 * order come back sorted), the message of each kind of malformed line,
 * and the reader out of memory at each of its allocations.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cachepin/profile.h"
#include "unit.h"

static char tmpl[256];
static char msg[1024];	/* the last warning */

static int capture(enum cachepin_print_level level, const char *fmt, va_list ap)
{
	if (level == CACHEPIN_WARN)
		vsnprintf(msg, sizeof(msg), fmt, ap);
	return 0;
}

static struct cachepin_profile *read_text(const char *text)
{
	FILE *f = fopen(tmpl, "w");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror("profile unit: write input");
		exit(1);
	}
	msg[0] = '\0';
	return cachepin_profile__read(tmpl);
}

/* P in the text format; the caller frees it. */
static char *write_text(const struct cachepin_profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err;

	if (!f) {
		perror("profile unit: open_memstream");
		exit(1);
	}
	err = cachepin_profile__write(p, f);
	CHECK(err == 0, "write gave %d", err);
	fclose(f);
	return buf;
}

/* In the writer's order: functions by weight, then name and object; edges by index. */
#define HEAD \
	"# cachepin-profile 1\n" \
	"event cpu-clock\n" \
	"binary natsim\n" \
	"build-id 0123abcd\n" \
	"granule 32\n" \
	"samples 1000 900\n" \
	"period 250000000 22500000.5\n"
#define F_FIB	"f fib_table_lookup - 100000000 400 120000000 1288\n" \
		"g 0x40 25000000\n" \
		"g 0x50 75000000\n"
#define F_HA	"f helper a.o 2.5 3 0.125 64\n"
#define F_HB	"f helper b.o 2.5 1 1e+20 64\n" \
		"g 0x0 0.1\n"
#define F_IDLE	"f idle - 0 0 7 16\n"
#define E_1	"e fib_table_lookup - helper a.o 0x2c4 1002500000 d\n"
#define E_2	"e fib_table_lookup - helper b.o - 0 s\n"
#define E_3	"e helper a.o fib_table_lookup - 0x10 0.5 ds\n"
#define E_4	"e idle - fib_table_lookup - - 3 d\n"

static const char canon[] = HEAD F_FIB F_HA F_HB F_IDLE E_1 E_2 E_3 E_4;

static void check_fields(const struct cachepin_profile *p)
{
	const struct cachepin_pfunc *f = p->funcs;
	const struct cachepin_pedge *e = p->edges;

	CHECK(!strcmp(p->event, "cpu-clock") && !strcmp(p->binary, "natsim") &&
	      !strcmp(p->build_id, "0123abcd") && p->granule == 32, "header strings");
	CHECK(p->nr_samples == 1000 && p->nr_matched == 900 && p->period_sum == 250000000 &&
	      p->matched_weight == 22500000.5, "header numbers");
	if (p->nr_funcs != 4 || p->nr_edges != 4) {
		CHECK(0, "%zu functions, %zu edges", p->nr_funcs, p->nr_edges);
		return;
	}
	CHECK(!strcmp(f[0].name, "fib_table_lookup") && !f[0].object && f[0].weight == 100000000 &&
	      f[0].samples == 400 && f[0].incl == 120000000 && f[0].size == 1288, "function 0");
	CHECK(f[0].nr_grans == 2 && f[0].grans[0].off == 0x40 && f[0].grans[0].weight == 25000000 &&
	      f[0].grans[1].off == 0x50 && f[0].grans[1].weight == 75000000, "granules of 0");
	CHECK(!strcmp(f[1].name, "helper") && !strcmp(f[1].object, "a.o") && f[1].weight == 2.5 &&
	      f[1].samples == 3 && f[1].incl == 0.125 && f[1].nr_grans == 0, "function 1");
	CHECK(!strcmp(f[2].object, "b.o") && f[2].incl == 1e20 && f[2].nr_grans == 1 &&
	      f[2].grans[0].off == 0 && f[2].grans[0].weight == 0.1, "function 2");
	CHECK(!strcmp(f[3].name, "idle") && f[3].weight == 0 && f[3].size == 16, "function 3");
	CHECK(e[0].caller == 0 && e[0].callee == 1 && e[0].callsite == 0x2c4 &&
	      e[0].weight == 1002500000 && e[0].flags == CACHEPIN_PEDGE_DYNAMIC, "edge 0");
	CHECK(e[1].caller == 0 && e[1].callee == 2 && e[1].callsite == UINT32_MAX &&
	      e[1].weight == 0 && e[1].flags == CACHEPIN_PEDGE_STATIC, "edge 1");
	CHECK(e[2].caller == 1 && e[2].callee == 0 && e[2].callsite == 0x10 && e[2].weight == 0.5 &&
	      e[2].flags == (CACHEPIN_PEDGE_DYNAMIC | CACHEPIN_PEDGE_STATIC), "edge 2");
	CHECK(e[3].caller == 3 && e[3].callee == 0 && e[3].callsite == UINT32_MAX &&
	      e[3].weight == 3, "edge 3");
}

/* Read IN, write, read that back, write again: both texts are WANT. */
static void round_trip(const char *name, const char *in, const char *want, bool fields)
{
	struct cachepin_profile *p = read_text(in);
	char *t1, *t2;

	CHECK(p, "%s: read failed: %s", name, msg);
	if (!p)
		return;
	if (fields)
		check_fields(p);
	t1 = write_text(p);
	cachepin_profile__free(p);
	CHECK(!strcmp(t1, want), "%s: first write:\n%s", name, t1);
	p = read_text(t1);
	CHECK(p, "%s: reading back failed: %s", name, msg);
	if (p) {
		if (fields)
			check_fields(p);
		t2 = write_text(p);
		CHECK(!strcmp(t1, t2), "%s: second write differs:\n%s", name, t2);
		free(t2);
		cachepin_profile__free(p);
	}
	free(t1);
}

static void test_round_trips(void)
{
	round_trip("canonical", canon, canon, true);
	/* functions and edges in any order, comments, blank lines, spaces */
	round_trip("shuffled", HEAD "# a comment\n\n" F_IDLE F_HB "  \n" F_HA F_FIB E_4 E_3 E_2
		   "  e   fib_table_lookup -\thelper a.o 0x2c4 1002500000 d  \n", canon, true);
	/* the defaults, and '-' for none */
	/* time slices: version 2, a weight per slice on every 'g' line */
	round_trip("slices", "# cachepin-profile 2\nslices 3\nf a - 6 3 6 32\ng 0x0 4 1 0 3\ng 0x10 2 0 2 0\n",
		   "# cachepin-profile 2\nevent -\nbinary -\nbuild-id -\ngranule 16\n"
		   "samples 0 0\nperiod 0 0\nslices 3\nf a - 6 3 6 32\ng 0x0 4 1 0 3\ng 0x10 2 0 2 0\n", false);
	/* the recording machine's cache: version 3, kept as recorded (3 sets: not modelled) */
	round_trip("cache", "# cachepin-profile 1\ncache 3 8 64\nf a - 1 1 1 32\n",
		   "# cachepin-profile 3\nevent -\nbinary -\nbuild-id -\ngranule 16\n"
		   "samples 0 0\nperiod 0 0\ncache 3 8 64\nf a - 1 1 1 32\n", false);
	round_trip("cache-slices", "# cachepin-profile 3\nslices 2\ncache 64 8 0x40\nf a - 2 1 2 32\ng 0x0 2 1 1\n",
		   "# cachepin-profile 3\nevent -\nbinary -\nbuild-id -\ngranule 16\n"
		   "samples 0 0\nperiod 0 0\ncache 64 8 64\nslices 2\nf a - 2 1 2 32\ng 0x0 2 1 1\n", false);
	/* slices that are phases: version 4, a 'phases' line after 'slices' */
	round_trip("phases", "# cachepin-profile 4\nslices 2\nphases\nf a - 2 1 2 32\ng 0x0 2 0 2\n",
		   "# cachepin-profile 4\nevent -\nbinary -\nbuild-id -\ngranule 16\n"
		   "samples 0 0\nperiod 0 0\nslices 2\nphases\nf a - 2 1 2 32\ng 0x0 2 0 2\n", false);
	round_trip("empty", "# cachepin-profile 1\n",
		   "# cachepin-profile 1\nevent -\nbinary -\nbuild-id -\ngranule 16\n"
		   "samples 0 0\nperiod 0 0\n", false);
}

struct bad {
	const char *in;
	unsigned int line;
	const char *what;
};

#define V "# cachepin-profile 1\n"

static const struct bad bads[] = {
	{ "", 1, "empty file" },
	{ "# cachepin-profile 5\n", 1, "not a cachepin profile (no '# cachepin-profile 1' to '4' line)" },
	{ "# cachepin-profile 12\n", 1, "not a cachepin profile (no '# cachepin-profile 1' to '4' line)" },
	{ "# cachepin-profile \n", 1, "not a cachepin profile (no '# cachepin-profile 1' to '4' line)" },
	{ "event x\n", 1, "not a cachepin profile (no '# cachepin-profile 1' to '4' line)" },
	{ V "phases\n", 2, "'phases' not right after the 'slices' line" },
	{ V "slices 2\nf a - 1 1 1 16\nphases\n", 4, "'phases' not right after the 'slices' line" },
	{ V "cache 64 8\n", 2, "unknown line" },
	{ V "cache 64 0 64\n", 2, "bad 'cache' line (sets, ways, line size)" },
	{ V "cache 64 8 4294967296\n", 2, "bad 'cache' line (sets, ways, line size)" },
	{ V "cache 64 -8 64\n", 2, "bad 'cache' line (sets, ways, line size)" },
	{ V "# c\n\nf a - 1 2 3\n", 4, "'f' needs name, object, weight, samples, inclusive, size" },
	{ V "f a - 1 2 3 4 5\n", 2, "'f' needs name, object, weight, samples, inclusive, size" },
	{ V "f a - x 1 1 1\n", 2, "bad number in 'f' line" },
	{ V "f a - -1 1 1 1\n", 2, "bad number in 'f' line" },
	{ V "f a - 1 -1 1 1\n", 2, "bad number in 'f' line" },
	{ V "f a - 1 1 nan 1\n", 2, "bad number in 'f' line" },
	{ V "g 0x10 5\n", 2, "bad 'g' line (needs a preceding 'f', offset, weight)" },
	{ V "f a - 1 1 1 1\ng 0x100000000 5\n", 3,
	  "bad 'g' line (needs a preceding 'f', offset, weight)" },
	{ V "f a - 1 1 1 1\ng 0x10 -5\n", 3, "bad 'g' line (needs a preceding 'f', offset, weight)" },
	{ V "f a - 1 1 1 1\ng 0x10\n", 3, "bad 'g' line (needs a preceding 'f', offset, weight)" },
	{ V "f a - 1 1 1 1\ne a - a - zz 1 d\n", 3,
	  "bad 'e' line (caller, object, callee, object, callsite, weight, flags)" },
	{ V "f a - 1 1 1 1\ne a - a - - 1\n", 3,
	  "bad 'e' line (caller, object, callee, object, callsite, weight, flags)" },
	{ V "f a - 1 1 1 1\ne a - b - - 1 d\n", 3, "edge names a function that has no 'f' line" },
	{ V "f a x.o 1 1 1 1\ne a - a x.o - 1 d\n", 3, "edge names a function that has no 'f' line" },
	{ V "e a - b - - 1 d\nf a - 1 1 1 1\nf b - 1 1 1 1\n", 2,
	  "edge names a function that has no 'f' line" },
	{ V "granule 0\n", 2, "bad granule" },
	{ V "granule 8192\n", 2, "bad granule" },
	{ V "samples 1 x\n", 2, "bad 'samples' line" },
	{ V "period 1 inf\n", 2, "bad 'period' line" },
	{ V "event a b\n", 2, "unknown line" },
	{ V "samples 1\n", 2, "unknown line" },
	{ V "F a - 1 1 1 1\n", 2, "unknown line" },
	{ V "slices 1\n", 2, "bad 'slices' line (2 to 16 time slices)" },
	{ V "slices 17\n", 2, "bad 'slices' line (2 to 16 time slices)" },
	{ V "f a - 1 1 1 1\nslices 2\n", 3, "'slices' after the first 'f' line" },
	{ V "slices 2\nf a - 3 1 1 1\ng 0x10 3\n", 4,
	  "bad 'g' line (needs a preceding 'f', offset, weight, a weight per slice)" },
	{ V "slices 2\nf a - 3 1 1 1\ng 0x10 3 1 2 0\n", 4,
	  "bad 'g' line (needs a preceding 'f', offset, weight, a weight per slice)" },
	{ V "slices 2\nf a - 3 1 1 1\ng 0x10 3 1 -2\n", 4, "bad slice weight in 'g' line" },
};

static void test_bad_lines(void)
{
	char want[1024];
	size_t i;

	cachepin_set_print(capture);
	for (i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		struct cachepin_profile *p = read_text(bads[i].in);
		int err = errno;

		snprintf(want, sizeof(want), "'%s':%u: %s\n", tmpl, bads[i].line, bads[i].what);
		CHECK(!p && err == EINVAL, "row %zu: read gave %p, errno %d", i, (void *)p, err);
		CHECK(!strcmp(msg, want), "row %zu: message '%s', not '%s'", i, msg, want);
		cachepin_profile__free(p);
	}
	msg[0] = '\0';
	CHECK(!cachepin_profile__read("/nonexistent/x.profile") && errno == ENOENT,
	      "missing file: errno %d", errno);
	CHECK(!strcmp(msg, "cannot open '/nonexistent/x.profile': No such file or directory\n"),
	      "missing file: '%s'", msg);
	cachepin_set_print(NULL);
}

/*
 * Out of memory: fail the Nth allocation after arming, for every N the
 * reader reaches.  glibc lets a program replace malloc; AddressSanitizer
 * replaces it itself (and finds leaks on its own).
 */
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);

static long fail_in = -1;	/* allocations until the failing one; -1: none */
static long live;		/* blocks allocated and not freed */

static bool fail_now(void)
{
	if (fail_in < 0 || fail_in-- > 0)
		return false;
	errno = ENOMEM;
	return true;
}

void *malloc(size_t n)
{
	void *p = fail_now() ? NULL : __libc_malloc(n);

	live += p != NULL;
	return p;
}

void *calloc(size_t n, size_t size)
{
	void *p = fail_now() ? NULL : __libc_calloc(n, size);

	live += p != NULL;
	return p;
}

void *realloc(void *old, size_t n)
{
	void *p = fail_now() ? NULL : __libc_realloc(old, n);

	live += p && !old;
	return p;
}

void free(void *p)
{
	live -= p != NULL;
	__libc_free(p);
}

static void test_out_of_memory(void)
{
	struct cachepin_profile *p = read_text(canon);
	long n, before, failed = 0;
	bool reached = true;
	char *want;

	if (!p)
		return;
	want = write_text(p);
	cachepin_profile__free(p);
	cachepin_set_print(capture);
	for (n = 0; reached && n < 100000; n++) {
		int err;

		msg[0] = '\0';
		before = live;
		fail_in = n;
		p = cachepin_profile__read(tmpl);
		err = errno;
		reached = fail_in < 0;
		fail_in = -1;
		if (p) {
			char *got = write_text(p);

			/* a failure the reader copes with (an unbuffered stream) */
			CHECK(!strcmp(got, want), "allocation %ld failed: another profile", n);
			free(got);
			cachepin_profile__free(p);
		} else {
			failed++;
			CHECK(err == ENOMEM, "allocation %ld failed: errno %d", n, err);
			CHECK(strstr(msg, "out of memory") || strstr(msg, "Cannot allocate memory"),
			      "allocation %ld failed: message '%s'", n, msg);
		}
		CHECK(live == before, "allocation %ld failed: %ld blocks leaked", n, live - before);
	}
	CHECK(!reached && failed > 10, "%ld of %ld allocations failed the read", failed, n);
	free(want);
	cachepin_set_print(NULL);
}
#else
static void test_out_of_memory(void)
{
}
#endif

int main(void)
{
	if (unit_tmpfile(tmpl, sizeof(tmpl), "profile-unit"))
		return 1;
	cachepin_set_print(capture);
	test_round_trips();
	test_bad_lines();
	test_out_of_memory();
	unlink(tmpl);
	UNIT_DONE();
}
