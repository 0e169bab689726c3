// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of the text profile reader: one row per input line form with
 * the format it is detected as and the samples it parses to (printed as
 * tests/tools/text-print.h does, "PID/TID PERIOD NR FRAMES", one a line);
 * and of the scanner underneath (src/lib/scan.h): fields, numbers, lines.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cachepin/textin.h"
#include "scan.h"
#include "unit.h"
#include "../tools/text-print.h"

#define A CACHEPIN_TEXT_AUTO
#define S CACHEPIN_TEXT_PERF_SCRIPT
#define H CACHEPIN_TEXT_HOTLIST
#define F CACHEPIN_TEXT_FOLDED

struct row {
	const char *in;
	enum cachepin_text_format detect;	/* what detect() says */
	int rc;					/* of cachepin_text__read(AUTO) */
	const char *out;			/* the samples */
	const char *event;
};

#define T(in, det, rc, out, ev) { in, det, rc, out, ev }

static const struct row rows[] = {
	/* perf script, callchains; comm with spaces, pid/tid, cpu, period */
	T("perf-exec 123/124 [002] 403.480208:     250000 cpu-clock: \n"
	  "\tffffffff81652af0 kmem_cache_alloc+0x10 ([kernel.kallsyms])\n"
	  "\t            117e a+0x1e (/usr/bin/w)\n"
	  "\t    7f8557f718a8 [unknown] ([unknown])\n\n",
	  S, 0, "123/124 250000 3 kmem_cache_alloc+0x10@0xffffffff81652af0[[kernel.kallsyms]]/KISO "
	  "a+0x1e@0x117e[/usr/bin/w]/ISOR 0x7f8557f718a8/I\n", "cpu-clock"),
	T("Web Content 4242   403.480208:     1 cycles:u: \n"
	  "\t  1234 foo (/lib/x.so)\n",
	  S, 0, "4242/4242 1 1 foo@0x1234[/lib/x.so]/ISR\n", "cycles:u"),
	/* digits and colons in the comm, cpu column, the swapper's pid 0 */
	T("kworker/u8:2-ev 1 77 [001] 12.000001:          1 cpu-clock: \n"
	  "\tffffffff81000000 worker_thread+0x5 ([kernel.kallsyms])\n\n"
	  "         swapper     0 [000]    12.000002:          1 cpu-clock: \n"
	  "\tffffffff81000010 default_idle ([kernel.kallsyms])\n",
	  S, 0, "77/77 1 1 worker_thread+0x5@0xffffffff81000000[[kernel.kallsyms]]/KISO\n"
	  "0/0 1 1 default_idle@0xffffffff81000010[[kernel.kallsyms]]/KIS\n", "cpu-clock"),
	/* -G one-liners: padded comm, absolute ip, --ns time, no period */
	T("               w 29436   403.480449707:     250000 cpu-clock:            40117e a+0x1e (/usr/bin/w)\n",
	  S, 0, "29436/29436 250000 1 a+0x1e@0x40117e[/usr/bin/w]/ISO\n", "cpu-clock"),
	T("w 7 403.480449: cpu-clock:  40117e a (w)\n",
	  S, 0, "7/7 1 1 a@0x40117e[w]/IS\n", "cpu-clock"),
	/* module dso, .ko path, (deleted) dso, sym with parentheses */
	T("x 1 1.000001: 1 ev:\n"
	  "\tffffffffc0a01234 nf_ct_get+0x4 ([nf_conntrack])\n"
	  "\tffffffffc0b00000 foo ([kernel.kallsyms])\n"
	  "\t1000 bar+0x0 (/lib/modules/6.1/kernel/foo.ko.xz)\n"
	  "\t2000 f(int)+0x8 (/usr/lib/a b.so (deleted))\n",
	  S, 0, "1/1 1 4 nf_ct_get+0x4@0xffffffffc0a01234[[nf_conntrack]]/KISO "
	  "foo@0xffffffffc0b00000[[kernel.kallsyms]]/KIS "
	  "bar+0@0x1000[/lib/modules/6.1/kernel/foo.ko.xz]/KISO "
	  "f(int)+0x8@0x2000[/usr/lib/a b.so (deleted)]/ISOR\n", "ev"),
	/* -F ip,sym,symoff,dso with callchains: blank-separated blocks */
	T("\n\t117e a+0x1e (/w)\n\t104e main+0xe (/w)\n\n\t1177 a+0x17 (/w)\n",
	  S, 0, "0/0 1 2 a+0x1e@0x117e[/w]/ISOR main+0xe@0x104e[/w]/ISOR\n"
	  "0/0 1 1 a+0x17@0x1177[/w]/ISOR\n", NULL),
	/* ... and without: a line each, absolute */
	T(" ffffffff81652af0 kmem_cache_alloc_noprof+0x0 ([kernel.kallsyms])\n           40117e a+0x1e (/w)\n",
	  S, 0, "0/0 1 1 kmem_cache_alloc_noprof+0@0xffffffff81652af0[[kernel.kallsyms]]/KISO\n"
	  "0/0 1 1 a+0x1e@0x40117e[/w]/ISO\n", NULL),
	/* perf warnings and --header lines are skipped; srcline lines too */
	T("# ========\n# captured on: x\n# ========\n#\n"
	  "Warning:\nProcessed 10 events and lost 1 chunks!\n\n"
	  "w 1/1 1.5: 3 ev:\n\t10 a+0x1 (/w)\n  w.c:12\n",
	  S, 0, "1/1 3 1 a+0x1@0x10[/w]/ISOR\n", "ev"),
	/* a tracepoint without callchain has no frames: skipped */
	T("w 1 1.5: sched:sched_switch: prev_comm=w prev_pid=1\n",
	  S, 0, "", "sched:sched_switch"),
	/* perf report --stdio rows */
	T("# Samples: 9  of event 'cpu-clock'\n"
	  "# Overhead  Symbol\n"
	  "    88.89%  [.] a\n            |\n            ---main\n               __libc_start_call_main\n\n"
	  "    11.11%  [k] kmem_cache_alloc_noprof\n",
	  H, 0, "0/0 888900 1 a/S\n0/0 111100 1 kmem_cache_alloc_noprof/KS\n", "cpu-clock"),
	T("# Overhead       Samples  Shared Object      Symbol\n"
	  "    24.62%            32  [kernel.kallsyms]  [k] read_zero\n"
	  "     0.01%             1  [unknown]          [k] 0x00000000803a0cbc\n",
	  H, 0, "0/0 246200 1 read_zero[[kernel.kallsyms]]/KS\n0/0 100 1 0x803a0cbc/KI\n", NULL),
	T("# Children      Self  Command  Shared Object      Symbol\n"
	  "    88.89%    88.89%  my prog  w                  [.] a\n"
	  "    88.89%     0.00%  my prog  w                  [.] main\n"
	  "               |--53.36%--work_heavy\n"
	  "                --6.66%--work_tiny\n",
	  H, 0, "0/0 888900 1 a[w]/S\n", NULL),
	/* no header: the token before the tag is the dso */
	T("    12.34%  [k] fib_table_lookup\n     1.5%  vmlinux  [k] ip_rcv\n",
	  H, 0, "0/0 123400 1 fib_table_lookup/KS\n0/0 15000 1 ip_rcv[vmlinux]/KS\n", NULL),
	/* hot lists */
	T("# comment\nfib_table_lookup 1234\n\nip_rcv\n12.5% a\nb 0.123456%\nc@vmlinux 2\n",
	  H, 0, "0/0 1234 1 fib_table_lookup/S\n0/0 1 1 ip_rcv/S\n0/0 125000 1 a/S\n"
	  "0/0 1235 1 b/S\n0/0 2 1 c[vmlinux]/KS\n", NULL),
	T("memcpy@@GLIBC_2.2.5 4\nmemmove@GLIBC_2.2.5\n",
	  H, 0, "0/0 4 1 memcpy@@GLIBC_2.2.5/S\n0/0 1 1 memmove@GLIBC_2.2.5/S\n", NULL),
	/* perf top: the last screen only */
	T("\033[H\033[2J   PerfTop: 1 irqs/sec [4000Hz cpu-clock],  (all, 2 CPUs)\n"
	  "  \033[31m  9.00%\033[m  [kernel]  [k] old\n"
	  "\033[H\033[2J   PerfTop: 1 irqs/sec [4000Hz cpu-clock],  (all, 2 CPUs)\n----------\n"
	  "  \033[31m  4.93%\033[m  [kernel]  [k] do_syscall_64\r\n",
	  H, 0, "0/0 49300 1 do_syscall_64[[kernel]]/KS\n", "cpu-clock"),
	/* folded */
	T("w;main;a 5\nswapper;cpu_idle_[k];default_idle_[k] 2\nw;b_[i];c_[j] 0\nlone 3\n",
	  F, 0, "0/0 5 2 a/S main/S\n0/0 2 2 default_idle/KS cpu_idle/KS\n0/0 3 1 lone/S\n", NULL),
	/* garbage and malformed lines */
	T("hello world, this is not a profile\n", A, -EINVAL, "", NULL),
	T("", A, -EINVAL, "", NULL),
	T("PERFILE2\x01\x02\x03", A, -EINVAL, "", NULL),
	T("w 1 1.5: 1 ev:\n\tnot a frame\n", S, -EINVAL, "", NULL),
	/* a first row that is a hot list's: the bad one is reported by its line */
	T("a 1\nb two words\n", H, -EINVAL, "", NULL),
	T("w;a 5\nw;b five\n", F, -EINVAL, "", NULL),
};

struct capture {
	char *buf;
	size_t len;
	FILE *f;
	size_t n;
};

static int capture_sample(void *ctx, const struct cachepin_sample *s)
{
	struct capture *c = ctx;

	text_print_sample(c->f, s, 1);
	c->n++;
	return 0;
}

static char tmpl[4096];

static const char *write_input(const char *data, size_t len)
{
	FILE *f = fopen(tmpl, "w");

	if (!f || fwrite(data, 1, len, f) != len) {
		perror("textin unit: write input");
		exit(1);
	}
	fclose(f);
	return tmpl;
}

static int silent(enum cachepin_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

static int read_capture(const char *path, enum cachepin_text_format fmt, char **out,
			char **event, size_t *n)
{
	struct capture c = { 0 };
	int err;

	c.f = open_memstream(&c.buf, &c.len);
	err = cachepin_text__read(path, fmt, capture_sample, &c, event);
	fclose(c.f);
	*out = c.buf;
	if (n)
		*n = c.n;
	return err;
}

static void test_rows(void)
{
	size_t i;

	cachepin_set_print(silent);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		size_t len = strlen(r->in);
		char *out, *event;
		int err;

		if (!strncmp(r->in, "PERFILE2", 8))
			len = 11;
		CHECK(cachepin_text__detect(r->in, len) == r->detect,
		      "row %zu: detected %d, want %d", i, cachepin_text__detect(r->in, len), r->detect);
		err = read_capture(write_input(r->in, len), CACHEPIN_TEXT_AUTO, &out, &event, NULL);
		CHECK(err == r->rc, "row %zu: rc %d, want %d", i, err, r->rc);
		if (!r->rc) {
			CHECK(!strcmp(out, r->out), "row %zu: got\n%s want\n%s", i, out, r->out);
			CHECK((!event && !r->event) || (event && r->event && !strcmp(event, r->event)),
			      "row %zu: event '%s', want '%s'", i, event ? event : "(none)",
			      r->event ? r->event : "(none)");
		}
		/* the detected format, given explicitly, reads the same */
		if (r->detect != A) {
			char *out2, *ev2;

			err = read_capture(tmpl, r->detect, &out2, &ev2, NULL);
			CHECK(err == r->rc, "row %zu: explicit format rc %d", i, err);
			CHECK(r->rc || !strcmp(out, out2), "row %zu: explicit format differs", i);
			free(out2);
			free(ev2);
		}
		free(out);
		free(event);
	}
	cachepin_set_print(NULL);
}

static char msgbuf[8192];

static int capture_msg(enum cachepin_print_level level, const char *fmt, va_list ap)
{
	size_t n = strlen(msgbuf);

	if (level == CACHEPIN_WARN && n < sizeof(msgbuf) - 1)
		vsnprintf(msgbuf + n, sizeof(msgbuf) - n, fmt, ap);
	return 0;
}

/* Error messages name the file and the line, git style. */
static const struct {
	const char *in;
	const char *msg;
} msgs[] = {
	{ "w 1 1.5: 1 ev:\n\t10 a (/w)\n\tzz\n", "':3: cannot parse perf script frame line\n" },
	{ "a 1\nc 2\nb two words\n", "':3: expected 'NAME [WEIGHT]', 'PCT% NAME' or a perf report row\n" },
	{ "w;a 5\nw;b five\n", "':2: expected 'COMM;FRAME;...;FRAME COUNT'\n" },
	{ "just some words here\n", "': not a perf script output, hot list or perf report\nhint: " },
	{ "PERFILE2\1\2", "hint: this is a perf.data file" },
	{ "", "': empty input, no samples\n" },
};

static void test_messages(void)
{
	char *out, *ev;
	size_t i;
	int err;

	cachepin_set_print(capture_msg);
	for (i = 0; i < sizeof(msgs) / sizeof(msgs[0]); i++) {
		msgbuf[0] = '\0';
		write_input(msgs[i].in, strlen(msgs[i].in));
		err = read_capture(tmpl, CACHEPIN_TEXT_AUTO, &out, &ev, NULL);
		CHECK(err == -EINVAL, "message %zu: rc %d", i, err);
		CHECK(!strncmp(msgbuf, "'", 1) && strstr(msgbuf, tmpl) && strstr(msgbuf, msgs[i].msg),
		      "message %zu: '%s' lacks '%s'", i, msgbuf, msgs[i].msg);
		free(out);
		free(ev);
	}
	cachepin_set_print(NULL);
}

/* Random bytes and huge lines: no crash, no truncation. */
static void test_garbage(void)
{
	static const enum cachepin_text_format fmts[] = { A, S, H, F };
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	size_t len = 1 << 20, i, j, n;
	char *buf = malloc(len + 64), *out, *ev;
	int err;

	CHECK(buf != NULL, "malloc");
	if (!buf)
		return;
	cachepin_set_print(silent);
	for (j = 0; j < 8; j++) {
		for (i = 0; i < len; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			/* half of the runs mostly printable, with newlines */
			buf[i] = j & 1 ? (char)x : " \t\n;:[]()%.+0123456789abcdefx@w"[x % 32];
		}
		write_input(buf, len);
		for (i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
			err = read_capture(tmpl, fmts[i], &out, &ev, NULL);
			CHECK(err <= 0, "garbage run %zu format %zu: rc %d", j, i, err);
			free(out);
			free(ev);
		}
		(void)cachepin_text__detect(buf, len);
	}

	/* one frame line with a 1 MiB symbol */
	memcpy(buf, "w 1 1.5: 1 ev:\n\t10 ", 19);
	memset(buf + 19, 's', len - 19);
	memcpy(buf + len, " (/w)\n", 6);
	write_input(buf, len + 6);
	err = read_capture(tmpl, CACHEPIN_TEXT_AUTO, &out, &ev, &n);
	CHECK(!err && n == 1, "long line: rc %d, %zu samples", err, n);
	CHECK(!err && strlen(out) > len - 19 && strstr(out, "sss@0x10[/w]/ISR"),
	      "long line: symbol truncated (%zu bytes out)", strlen(out));
	free(out);
	free(ev);

	/* a hot list of 100000 lines without a final newline */
	{
		FILE *f = fopen(tmpl, "w");

		for (i = 0; i < 100000; i++)
			fprintf(f, "%sfn%zu %zu", i ? "\n" : "", i, i + 1);
		fclose(f);
		err = read_capture(tmpl, CACHEPIN_TEXT_AUTO, &out, &ev, &n);
		CHECK(!err && n == 100000, "big hot list: rc %d, %zu samples", err, n);
		CHECK(!err && strstr(out, "0/0 100000 1 fn99999/S\n"), "big hot list: last row");
		free(out);
		free(ev);
	}
	cachepin_set_print(NULL);
	free(buf);
}

static void test_args(void)
{
	char *ev = (char *)1;

	cachepin_set_print(silent);
	CHECK(cachepin_text__read(NULL, A, capture_sample, NULL, NULL) == -EINVAL, "NULL path");
	CHECK(cachepin_text__read("no-such-file.txt", A, capture_sample, NULL, &ev) == -ENOENT &&
	      ev == NULL, "missing file");
	CHECK(cachepin_text__detect(NULL, 0) == A, "detect NULL");
}


/* scan.h: the field splitter, the number parsers and the line reader. */
static void test_scan_fields(void)
{
	static const char line[] = " \tab  c\r\vd\f ";
	const char *e = line + sizeof(line) - 1, *q = line;
	struct scan_field f[4];
	size_t n;

	n = scan_fields(line, e, f, 4);
	CHECK(n == 3 && f[0].e - f[0].p == 2 && !memcmp(f[0].p, "ab", 2) && *f[1].p == 'c' &&
	      f[1].e - f[1].p == 1 && *f[2].p == 'd' && f[2].e == e - 2, "scan_fields: %zu", n);
	CHECK(scan_fields(line, e, f, 2) == 2 && *f[1].p == 'c', "scan_fields: max");
	CHECK(scan_fields(line, line + 2, f, 4) == 0, "scan_fields: blanks only");
	CHECK(scan_field(&q, e, &f[0]) && q == line + 4 && scan_field(&q, e, &f[0]) &&
	      scan_field(&q, e, &f[0]) && !scan_field(&q, e, &f[1]) && f[0].p == q - 1,
	      "scan_field: leaves P after the last field");
	CHECK(scan_rtrim(line, e) == e - 2 && scan_skip_ws(line, e) == line + 2 &&
	      scan_skip_ws(e, e) == e && scan_rtrim(line, line + 2) == line, "trim");
	CHECK(scan_field_back(line, e - 2) == e - 3 && scan_field_back(line, e) == e &&
	      scan_field_back(line + 2, line + 4) == line + 2, "scan_field_back");
	CHECK(scan_eq(line + 2, line + 4, "ab") && !scan_eq(line + 2, line + 5, "ab") &&
	      scan_starts(line + 2, line + 5, "ab") && !scan_starts(line + 2, line + 3, "ab"),
	      "scan_eq, scan_starts");
}

static bool hex_ok(const char *s, uint64_t want)
{
	uint64_t v = 42;

	return scan_hex(s, s + strlen(s), &v) && v == want;
}

static bool hex_bad(const char *s)
{
	uint64_t v = 42;

	return !scan_hex(s, s + strlen(s), &v) && v == 42;
}

/* The value of S, or 42 if scan_hex0x() refuses it. */
static uint64_t hex0x(const char *s)
{
	uint64_t v = 42;

	scan_hex0x(s, s + strlen(s), &v);
	return v;
}

static bool dec_ok(const char *s, uint64_t want)
{
	uint64_t v = 42;

	return scan_u64(s, s + strlen(s), &v) && v == want;
}

static bool dec_bad(const char *s)
{
	uint64_t v = 42;

	return !scan_u64(s, s + strlen(s), &v) && v == 42;
}

static void test_scan_numbers(void)
{
	static const char ex[] = "7f2abc000100 [";
	const char *q;
	unsigned int nd = 0;
	uint64_t v = 0;

	CHECK(hex_ok("0", 0) && hex_ok("ff", 255) && hex_ok("0x1F", 31) && hex_ok("0X10", 16) &&
	      hex_ok("ffffffffffffffff", UINT64_MAX) && hex_ok("0xffffffffffffffff", UINT64_MAX) &&
	      hex_bad("0x") && hex_bad("") && hex_bad("1g") && hex_bad("0x0x1") &&
	      hex_bad("10000000000000000") && hex_bad(" 1"),
	      "scan_hex");
	CHECK(hex0x("0x1f") == 31 && hex0x("1f") == 42 && hex0x("0X1f") == 42 && hex0x("0x") == 42,
	      "scan_hex0x");
	q = scan_hex_digits(ex, ex + sizeof(ex) - 1, &v, &nd);
	CHECK(q == ex + 12 && v == 0x7f2abc000100ULL && nd == 12, "scan_hex_digits");
	CHECK(!scan_hex_digits(ex + 12, ex + sizeof(ex) - 1, &v, NULL) &&
	      scan_skip_hex(ex, ex + sizeof(ex) - 1) == ex + 12 && !scan_skip_hex(ex + 12, ex + 13),
	      "scan_hex_digits, scan_skip_hex: no digit");
	CHECK(dec_ok("0", 0) && dec_ok("250000", 250000) &&
	      dec_ok("18446744073709551609", 18446744073709551609ULL) &&
	      dec_bad("18446744073709551610") && dec_bad("") && dec_bad("-1") && dec_bad("1 ") &&
	      dec_bad("+1") && dec_bad("0x1"), "scan_u64");
	q = "403.48";
	CHECK(scan_dec(q, q + 6, &v) == q + 3 && v == 403 && !scan_dec(q + 3, q + 6, &v),
	      "scan_dec");
}

static void test_scan_reader(void)
{
	static const char in[] = "one\n\ntw\0o\nlast";
	struct scan_reader r = { 0 };
	const char *want[] = { "one", "", "tw", "last" };
	size_t wlen[] = { 3, 0, 4, 4 }, len, i;
	char *line;
	int err;

	write_input(in, sizeof(in) - 1);
	r.f = fopen(tmpl, "r");
	CHECK(r.f != NULL, "open %s", tmpl);
	if (!r.f)
		return;
	CHECK(!cachepin_scan_peek(&r, 8) && r.end - r.start == sizeof(in) - 1 &&
	      !memcmp(r.buf, in, sizeof(in) - 1), "cachepin_scan_peek");
	for (i = 0; (line = cachepin_scan_line(&r, &len, &err)); i++) {
		CHECK(i < 4 && len == wlen[i] && !strcmp(line, want[i]) && r.cut == (i == 3),
		      "line %zu: '%s' (%zu bytes)", i, line, len);
		if (i >= 4)
			break;
	}
	CHECK(i == 4 && !err && !r.error, "%zu lines, err %d", i, err);
	CHECK(!cachepin_scan_line(&r, &len, &err) && !err, "at the end");
	fclose(r.f);
	cachepin_scan_release(&r);
	CHECK(!r.buf, "cachepin_scan_release");

	/* a line longer than the first buffer, then one ending in '\n' */
	{
		size_t big = 600 * 1024;
		char *buf = malloc(big + 3);

		CHECK(buf != NULL, "malloc");
		if (!buf)
			return;
		memset(buf, 'x', big);
		memcpy(buf + big, "\ny\n", 3);
		write_input(buf, big + 3);
		free(buf);
		memset(&r, 0, sizeof(r));
		r.f = fopen(tmpl, "r");
		line = r.f ? cachepin_scan_line(&r, &len, &err) : NULL;
		CHECK(line && len == big && line[big - 1] == 'x' && !line[big] && !r.cut, "long line");
		line = r.f ? cachepin_scan_line(&r, &len, &err) : NULL;
		CHECK(line && len == 1 && *line == 'y' && !r.cut, "line after the long one");
		CHECK(r.f && !cachepin_scan_line(&r, &len, &err) && !err, "end after a newline");
		if (r.f)
			fclose(r.f);
		cachepin_scan_release(&r);
	}
}

int main(void)
{
	if (unit_tmpfile(tmpl, sizeof(tmpl), "textin-unit"))
		return 1;
	test_rows();
	test_messages();
	test_garbage();
	test_args();
	test_scan_fields();
	test_scan_numbers();
	test_scan_reader();
	unlink(tmpl);
	UNIT_DONE();
}
