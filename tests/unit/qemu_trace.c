// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of the QEMU trace reader: one row per log excerpt (in the
 * line formats QEMU 7.2 writes for ARM, Thumb, x86-64 and MIPS) with the
 * blocks it delivers, printed "PC SIZE INSNS FLAGS [CALL RET]" a line,
 * and the counters; the samples and shadow call stack of a small call
 * tree; the messages for malformed logs.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cachepin/qemu.h"
#include "unit.h"

struct row {
	const char *in;
	bool detect;
	const char *out;	/* the blocks */
	const char *stats;	/* "unknown U/P stopped S rewound W translations T/R partial X cut C" */
};

#define SEP "----------------\n"
#define TR32(pc, sym) "Trace 0: 0x7f2abc000100 [00000000/" pc "/00000370/ff000200] " sym "\n"
#define TRCF(pc, cflags) "Trace 0: 0x7f2abc000100 [00000000/" pc "/00000070/" cflags "] \n"
#define REWOUND(pc) "cpu_io_recompile: rewound execution of TB to " pc "\n"
#define TR64(pc, sym) "Trace 0: 0x7f0a25c00100 [0000000000000000/" pc "/1040c0b3/00000200] " sym "\n"

static const struct row rows[] = {
	/* ARM: 32-bit words; bl ends a block with a call, bx lr with a return */
	{ SEP "IN: \n"
	  "0x60010000:  e3a00000  mov      r0, #0\n"
	  "0x60010004:  e2800001  add      r0, r0, #1\n"
	  "0x60010008:  eb000000  bl       #0x60010010\n\n"
	  TR32("60010000", "")
	  SEP "IN: \n"
	  "0x60010010:  e2811003  add      r1, r1, #3\n"
	  "0x60010014:  e12fff1e  bx       lr\n\n"
	  TR32("60010010", "") TR32("60010000", "") TR32("60010010", ""),
	  true,
	  "60010000 12 3 C 8 12\n60010010 8 2 R\n60010000 12 3 C 8 12\n60010010 8 2 R\n",
	  "unknown 0/0 stopped 0 rewound 0 translations 2/0 partial 0 cut 0" },
	/* Thumb: 16-bit units, 32-bit instructions as two */
	{ SEP "IN: \n"
	  "0x00010348:  bc02       pop      {r1}\n"
	  "0x0001034a:  466a       mov      r2, sp\n"
	  "0x00010350:  f8df a018  ldr.w    sl, [pc, #0x18]\n"
	  "0x00010364:  f000 f90a  bl       #0x1057c\n\n"
	  TR32("00010348", ""),
	  true, "10348 32 4 C 28 32\n",
	  "unknown 0/0 stopped 0 rewound 0 translations 1/0 partial 0 cut 0" },
	/* x86-64: bytes, at most 8 a line, the rest on a line of its own */
	{ SEP "IN: main\n"
	  "0x004348b4:  48 c7 84 24 90 00 00 00  movq     $0x37f, 0x90(%rsp)\n"
	  "0x004348bc:  7f 03 00 00\n"
	  "0x004348c0:  e8 3b 00 00 00           callq    0x434900\n\n"
	  TR64("00000000004348b4", "main")
	  SEP "IN: f\n"
	  "0x00434900:  c3                       retq     \n\n"
	  TR64("0000000000434900", "f"),
	  true, "4348b4 17 2 C 12 17\n434900 1 1 R\n",
	  "unknown 0/0 stopped 0 rewound 0 translations 2/0 partial 0 cut 0" },
	/* MIPS: no encoding; a call or return ends after its delay slot */
	{ SEP "IN: __libc_start_main\n"
	  "0x00400574:  lw\tt9,-32740(gp)\n"
	  "0x00400578:  jalr\tt9\n"
	  "0x0040057c:  nop\n\n"
	  TR32("00400574", "__libc_start_main")
	  SEP "IN: f\n"
	  "0x00423fc0:  jr\tra\n"
	  "0x00423fc4:  addiu\tsp,sp,32\n\n"
	  TR32("00423fc0", "f")
	  SEP "IN: _start\n"
	  "0x00400534:  bal\t0x40053c\n\n"
	  TR32("00400534", "_start"),
	  true, "400574 12 3 C 4 12\n423fc0 8 2 R\n400534 4 1 C 0 8\n",
	  "unknown 0/0 stopped 0 rewound 0 translations 3/0 partial 0 cut 0" },
	/* ARM call and return forms; exception returns and b<cond> are neither */
	{ SEP "IN: \n0x1000:  1b000000  blne     #0x2000\n\n" TR32("00001000", "")
	  SEP "IN: \n0x1004:  da000000  ble      #0x2000\n\n" TR32("00001004", "")
	  SEP "IN: \n0x1008:  e8bd8010  pop      {r4, pc}\n\n" TR32("00001008", "")
	  SEP "IN: \n0x100c:  e8bd8010  ldm      sp!, {r4, pc}\n\n" TR32("0000100c", "")
	  SEP "IN: \n0x1010:  e8dd7fff  ldm      sp, {r0, r1, r2, r3, r4, r5, r6, r7, r8, sb, sl, fp, ip, sp, lr, pc}^\n\n"
	  TR32("00001010", "")
	  SEP "IN: \n0x1014:  e12fff33  blx      r3\n\n" TR32("00001014", "")
	  SEP "IN: \n0x1018:  e1a0f00e  mov      pc, lr\n\n" TR32("00001018", ""),
	  true, "1000 4 1 C 0 4\n1004 4 1 -\n1008 4 1 R\n100c 4 1 R\n1010 4 1 -\n1014 4 1 C 0 4\n1018 4 1 R\n",
	  "unknown 0/0 stopped 0 rewound 0 translations 7/0 partial 0 cut 0" },
	/* the latest translation wins; exec lines before any count as unknown */
	{ TR32("00002000", "") TR32("00002000", "") TR32("00003000", "")
	  SEP "IN: \n0x00002000:  e2800001  add      r0, r0, #1\n\n" TR32("00002000", "")
	  SEP "IN: \n0x00002000:  e2800001  add      r0, r0, #1\n"
	  "0x00002004:  e12fff1e  bx       lr\n\n" TR32("00002000", ""),
	  true, "2000 4 1 -\n2000 8 2 R\n",
	  "unknown 3/2 stopped 0 rewound 0 translations 2/1 partial 0 cut 0" },
	/* "Stopped execution" cancels the exec line before it, if its pc is the same */
	{ SEP "IN: \n0x60010004:  e2800001  add      r0, r0, #1\n\n" TR32("60010004", "")
	  TR32("60010004", "")
	  "Stopped execution of TB chain before 0x7f2abc000480 [60010004] \n"
	  TR32("60010004", "")
	  "Stopped execution of TB chain before 0x7f2abc000480 [60010008] \n",
	  true, "60010004 4 1 -\n60010004 4 1 -\n",
	  "unknown 0/0 stopped 1 rewound 0 translations 1/0 partial 0 cut 0" },
	/*
	 * -icount: a block that reaches a device access (0x1004) other than
	 * at its end is rewound to it, ran only what came before (none when
	 * that is its start), and the access runs in a block of its own,
	 * count 1 in its cflags, which does not replace the pc's block
	 */
	{ SEP "IN: \n"
	  "0x00001000:  e3a00000  mov      r0, #0\n"
	  "0x00001004:  e5923000  ldr      r3, [r2]\n"
	  "0x00001008:  e2800001  add      r0, r0, #1\n"
	  "0x0000100c:  eb0003fb  bl       #0x2000\n\n"
	  TRCF("00001000", "ff020200") REWOUND("00001004")
	  SEP "IN: \n0x00001004:  e5923000  ldr      r3, [r2]\n\n"
	  TRCF("00001004", "ff038201")
	  SEP "IN: \n0x00001008:  e2800001  add      r0, r0, #1\n"
	  "0x0000100c:  eb0003fb  bl       #0x2000\n\n"
	  TRCF("00001008", "ff020200")
	  TRCF("00001004", "ff020200") REWOUND("00001004")
	  SEP "IN: \n0x00001004:  e5923000  ldr      r3, [r2]\n\n"
	  TRCF("00001004", "ff038201")
	  TRCF("00001000", "ff020200") "Stopped execution of TB chain before 0x7f2abc000100 [00001000] \n"
	  TRCF("00001000", "ff020200"),
	  true, "1000 4 1 -\n1004 4 1 -\n1008 8 2 C 4 8\n1004 4 1 -\n1000 16 4 C 12 16\n",
	  "unknown 0/0 stopped 1 rewound 2 translations 4/0 partial 0 cut 0" },
	/* the disassembler gave up: a partial block */
	{ SEP "IN: \n0x1000:  e2800001  add      r0, r0, #1\n"
	  "Disassembler disagrees with translator over instruction decoding\n"
	  "Please report this to qemu-devel@nongnu.org\n\n" TR32("00001000", ""),
	  true, "1000 4 1 P\n",
	  "unknown 0/0 stopped 0 rewound 0 translations 1/0 partial 1 cut 0" },
	/* a log cut inside a line: that line is ignored */
	{ SEP "IN: \n0x1000:  e2800001  add      r0, r0, #1\n\n" TR32("00001000", "")
	  "Trace 0: 0x7f2abc000100 [00000000/000010",
	  true, "1000 4 1 -\n",
	  "unknown 0/0 stopped 0 rewound 0 translations 1/0 partial 0 cut 1" },
	/* the log of a monitor window: exec lines first */
	{ TR32("00001000", ""), true, "", "unknown 1/1 stopped 0 rewound 0 translations 0/0 partial 0 cut 0" },
};

static char tmpl[4096];

static void write_input(const char *data)
{
	FILE *f = fopen(tmpl, "w");

	if (!f || fwrite(data, 1, strlen(data), f) != strlen(data)) {
		perror("qemu_trace unit: write input");
		exit(1);
	}
	fclose(f);
}

static int print_block(void *ctx, const struct cachepin_qblock *b)
{
	FILE *f = ctx;
	const char *fl = b->flags & CACHEPIN_QBLOCK_PARTIAL ? "P" :
			 b->flags & CACHEPIN_QBLOCK_CALL ? "C" :
			 b->flags & CACHEPIN_QBLOCK_RET ? "R" : "-";

	fprintf(f, "%llx %u %u %s", (unsigned long long)b->pc, b->size, b->nr_insns, fl);
	if (b->flags & CACHEPIN_QBLOCK_CALL)
		fprintf(f, " %u %u", b->call_off, b->ret_off);
	fputc('\n', f);
	return 0;
}

static char msgbuf[8192];

static int capture_msg(enum cachepin_print_level level, const char *fmt, va_list ap)
{
	size_t n = strlen(msgbuf);

	if (level == CACHEPIN_WARN && n < sizeof(msgbuf) - 1)
		vsnprintf(msgbuf + n, sizeof(msgbuf) - n, fmt, ap);
	return 0;
}

static void test_rows(void)
{
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		const struct cachepin_qtrace_stats *st;
		struct cachepin_qtrace *t;
		char *out = NULL, stats[256];
		size_t len = 0;
		FILE *f;
		int err;

		CHECK(cachepin_qtrace__detect(r->in, strlen(r->in)) == r->detect, "row %zu: detect", i);
		write_input(r->in);
		t = cachepin_qtrace__open(tmpl);
		CHECK(t, "row %zu: open", i);
		if (!t)
			continue;
		f = open_memstream(&out, &len);
		err = cachepin_qtrace__for_each_block(t, print_block, f);
		fclose(f);
		CHECK(!err, "row %zu: rc %d: %s", i, err, msgbuf);
		CHECK(!strcmp(out, r->out), "row %zu: got\n%swant\n%s", i, out, r->out);
		st = cachepin_qtrace__stats(t);
		snprintf(stats, sizeof(stats), "unknown %llu/%llu stopped %llu rewound %llu translations %llu/%llu partial %llu cut %d",
			 (unsigned long long)st->nr_unknown, (unsigned long long)st->nr_unknown_pcs,
			 (unsigned long long)st->nr_stopped, (unsigned long long)st->nr_rewound,
			 (unsigned long long)st->nr_translations,
			 (unsigned long long)st->nr_retranslated, (unsigned long long)st->nr_partial,
			 st->cut_last_line);
		CHECK(!strcmp(stats, r->stats), "row %zu: stats '%s', want '%s'", i, stats, r->stats);
		free(out);
		cachepin_qtrace__free(t);
		msgbuf[0] = '\0';
	}
}

/* ---- samples: a calls b (which calls c), then a runs on ---- */

static const char calls_log[] =
	SEP "IN: a\n0x1000:  e2800001  add      r0, r0, #1\n0x1004:  eb000000  bl       #0x2000\n\n"
	SEP "IN: b\n0x2000:  e2800001  add      r0, r0, #1\n0x2004:  eb000000  bl       #0x3000\n\n"
	SEP "IN: c\n0x3000:  e2800001  add      r0, r0, #1\n0x3004:  e12fff1e  bx       lr\n\n"
	SEP "IN: b\n0x2008:  e2800001  add      r0, r0, #1\n0x200c:  e8bd8010  pop      {r4, pc}\n\n"
	SEP "IN: a\n0x1008:  e2800001  add      r0, r0, #1\n0x100c:  e2800001  add      r0, r0, #1\n"
	"0x1010:  e2800001  add      r0, r0, #1\n\n"
	TR32("00001000", "a") TR32("00002000", "b") TR32("00003000", "c")
	TR32("00002008", "b") TR32("00001008", "a");

static int print_samples(void *ctx, const struct cachepin_sample *s, const uint32_t *leaf_off,
			 size_t n)
{
	FILE *f = ctx;
	size_t i;

	fprintf(f, "%llu@%llx", (unsigned long long)s->period, (unsigned long long)s->frames[0].ip);
	for (i = 0; i < n; i++)
		fprintf(f, "%c%u", i ? ',' : '+', leaf_off[i]);
	for (i = 1; i < s->nr; i++)
		fprintf(f, " %llx", (unsigned long long)s->frames[i].ip);
	fputc('\n', f);
	return 0;
}

static void test_samples(void)
{
	static const struct {
		uint64_t period;
		const char *out;
	} cases[] = {
		{ 1, "1@1000+0,4\n1@2000+0,4 1008\n1@3000+0,4 2008 1008\n1@2008+0,4 1008\n1@1008+0,4,8\n" },
		/* the 3rd, 6th, 9th instruction of the log */
		{ 3, "3@2000+0 1008\n3@3000+4 2008 1008\n3@1008+0\n" },
	};
	size_t i;

	write_input(calls_log);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cachepin_qsample_opts o = { .period = cases[i].period };
		struct cachepin_qtrace *t = cachepin_qtrace__open(tmpl);
		char *out = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&out, &len);
		int err;

		err = cachepin_qtrace__for_each_sample(t, &o, print_samples, f);
		fclose(f);
		CHECK(!err, "samples %zu: rc %d", i, err);
		CHECK(!strcmp(out, cases[i].out), "samples at period %llu: got\n%swant\n%s",
		      (unsigned long long)cases[i].period, out, cases[i].out);
		free(out);
		cachepin_qtrace__free(t);
	}
}

/* __switch_to at 0x4000 loads another task's pc: 0x5000 runs on its stack */
static const char switch_log[] =
	SEP "IN: a\n0x1000:  eb000000  bl       #0x4000\n\n"
	SEP "IN: __switch_to\n0x4000:  e2800001  add      r0, r0, #1\n0x4004:  eb000000  bl       #0x6000\n\n"
	SEP "IN: helper\n0x6000:  e12fff1e  bx       lr\n\n"
	SEP "IN: __switch_to\n0x4008:  e894a000  ldm      r4, {sp, pc}\n\n"
	SEP "IN: b\n0x5000:  e2800001  add      r0, r0, #1\n\n"
	TR32("00001000", "a") TR32("00004000", "__switch_to") TR32("00006000", "helper")
	TR32("00004008", "__switch_to") TR32("00005000", "b");

static void test_switch(void)
{
	static const uint64_t sw[1][2] = { { 0x4000, 0x4010 } };
	static const char *const want[] = {
		"1@1000+0\n1@4000+0,4 1004\n1@6000+0 4008 1004\n1@4008+0 1004\n1@5000+0 1004\n",
		"1@1000+0\n1@4000+0,4 1004\n1@6000+0 4008 1004\n1@4008+0 1004\n1@5000+0\n",
	};
	size_t i;

	write_input(switch_log);
	for (i = 0; i < 2; i++) {
		struct cachepin_qsample_opts o = { .switch_ranges = sw, .nr_switch_ranges = i };
		struct cachepin_qtrace *t = cachepin_qtrace__open(tmpl);
		char *out = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&out, &len);

		CHECK(!cachepin_qtrace__for_each_sample(t, &o, print_samples, f), "switch %zu: rc", i);
		fclose(f);
		CHECK(!strcmp(out, want[i]), "switch %zu: got\n%swant\n%s", i, out, want[i]);
		free(out);
		cachepin_qtrace__free(t);
	}
}

/* ---- messages name the file and the line ---- */

static const struct {
	const char *in;
	const char *msg;
} msgs[] = {
	{ SEP "IN: \n0x1000:  e2800001  add      r0, r0, #1\n\n" TR32("00001000", "")
	  "Linking TBs 0x7f03500002c0 index 1 -> 0x7f0350000540\n",
	  "':6: the log was written with block chaining on ('Linking TBs'): exec lines miss the chained blocks\n"
	  "hint: record with '-d in_asm,exec,nochain'\n" },
	{ "0x1000:  e2800001  add      r0, r0, #1\n", "':1: instruction line outside an in_asm block\n" },
	{ SEP "IN: \n0xzz:  e2800001  add      r0, r0, #1\n", "':3: bad instruction line (expected '0xADDRESS:  ...')\n" },
	{ SEP "IN: \n0x1004:  e2800001  add      r0, r0, #1\n0x1000:  e2800001  add      r0, r0, #1\n",
	  "':4: instruction address does not follow the previous one\n" },
	{ SEP "IN: \n0x1000:  7f 03 00 00\n", "':3: encoding continues no instruction\n" },
	{ "Trace 0: 0x7f2abc000100 [00000000/zz/00000370/ff000200] \n",
	  "':1: bad exec line (expected 'Trace CPU: 0xHOST [CSBASE/PC/FLAGS/CFLAGS] SYMBOL')\n" },
	{ TR32("00001000", "") "Stopped execution of TB chain before 0x7f [\n", "':2: bad 'Stopped execution' line\n" },
	{ TR32("00001000", "") "cpu_io_recompile: rewound execution of TB to zz\n",
	  "':2: bad 'cpu_io_recompile' line\n" },
	{ TR32("00001000", "") "R00: 00000000 R01: 00000000\n",
	  "':2: not a line of a QEMU in_asm/exec log\n"
	  "hint: record with '-d in_asm,exec,nochain' and no other log items\n" },
	{ "", "': empty log\n" },
};

static int count_block(void *ctx, const struct cachepin_qblock *b)
{
	return 0;
}

static void test_msgs(void)
{
	size_t i;

	for (i = 0; i < sizeof(msgs) / sizeof(msgs[0]); i++) {
		struct cachepin_qtrace *t;
		char want[8192];
		int err;

		write_input(msgs[i].in);
		msgbuf[0] = '\0';
		t = cachepin_qtrace__open(tmpl);
		err = cachepin_qtrace__for_each_block(t, count_block, NULL);
		CHECK(err < 0, "msg %zu: rc %d", i, err);
		snprintf(want, sizeof(want), "'%s%s", tmpl, msgs[i].msg);
		CHECK(!strcmp(msgbuf, want), "msg %zu: got '%s', want '%s'", i, msgbuf, want);
		cachepin_qtrace__free(t);
	}
	msgbuf[0] = '\0';
	CHECK(!cachepin_qtrace__open("/nonexistent/qemu.log"), "open of a missing file");
	CHECK(strstr(msgbuf, "cannot open '/nonexistent/qemu.log'"), "missing file: '%s'", msgbuf);
}

/* A pipe that was sniffed: the head given back and the rest read on. */
static void test_head(void)
{
	struct cachepin_qtrace *t;
	char *out = NULL;
	size_t len = 0, cut = 20;
	FILE *f;
	int fd[2];

	if (pipe(fd)) {
		perror("pipe");
		exit(1);
	}
	CHECK(write(fd[1], rows[0].in + cut, strlen(rows[0].in) - cut) == (ssize_t)(strlen(rows[0].in) - cut),
	      "write to the pipe");
	close(fd[1]);
	t = cachepin_qtrace__open_fd(fd[0], "pipe", rows[0].in, cut);
	f = open_memstream(&out, &len);
	CHECK(cachepin_qtrace__for_each_block(t, print_block, f) == 0, "pipe read");
	fclose(f);
	CHECK(!strcmp(out, rows[0].out), "pipe: got\n%s", out);
	free(out);
	cachepin_qtrace__free(t);
}

int main(void)
{
	if (unit_tmpfile(tmpl, sizeof(tmpl), "qemu-trace-unit"))
		return 1;
	cachepin_set_print(capture_msg);
	test_rows();
	test_samples();
	test_switch();
	test_msgs();
	test_head();
	unlink(tmpl);
	UNIT_DONE();
}
