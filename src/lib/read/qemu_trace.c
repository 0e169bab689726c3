// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * QEMU execution traces (see cachepin/qemu.h).
 *
 * `-d in_asm,exec,nochain` (QEMU 7.2) writes two kinds of records:
 *
 *   - in_asm, once per translation of a block, before it first runs:
 *
 *       ----------------
 *       IN: SYMBOL
 *       0x00010484:  e92d4010  push     {r4, lr}         ARM: one 32-bit word
 *       0x00010348:  bc02       pop      {r1}            Thumb: 16-bit units
 *       0x00010350:  f8df a018  ldr.w    sl, [pc, #0x18]
 *       0x0040280e:  49 89 d4                 movq ...   x86: bytes ...
 *       0x004348b4:  48 c7 84 24 90 00 00 00  movq ...   ... at most 8 a line,
 *       0x004348bc:  7f 03 00 00                         the rest on the next
 *       0x00400578:  jalr	t9                           MIPS: no encoding
 *       (blank line)
 *
 *     capstone prints each unit of the encoding after one space and the
 *     mnemonic after two or more, so the encoding gives the instruction's
 *     length.  QEMU's own MIPS disassembler prints no encoding: there the
 *     length is the distance to the next instruction, 4 for the last one
 *     (MIPS32; no MIPS16e or microMIPS).  After an instruction capstone
 *     cannot decode it prints "Disassembler disagrees with translator
 *     ..." and stops: such a block is PARTIAL, shorter than it ran.
 *
 *   - exec, each time a block is entered:
 *
 *       Trace 0: 0x7ffa96228200 [00000480/00010484/00000000/00000200] main
 *
 *     cpu index, host code, [cs_base/pc/flags/cflags] (8 hex digits for a
 *     32-bit guest, 16 for a 64-bit one), symbol.  "Stopped execution of
 *     TB chain before HOST [PC] SYMBOL" right after it means the block
 *     was entered but exited before its first instruction (an exit
 *     request): that exec line is cancelled.  "Linking TBs" lines mean
 *     chaining was on, so exec lines miss the chained blocks: refused.
 *     With -icount, an instruction that accesses a device's registers
 *     must end its block: QEMU logs "cpu_io_recompile: rewound execution
 *     of TB to PC" right after the exec line of a block that reached it
 *     elsewhere, which then ran only its instructions before PC, and
 *     translates a block of CFLAGS' instruction count (its low 9 bits) at
 *     PC, which an exec line with that count runs.  That translation is
 *     not taken for the pc's block when it has one.
 *     QEMU's MIPS system emulation also logs under exec "Status OLD (..)
 *     => NEW (..) Cause C" (mtc0 to Status), "ERET: PC .. EPC .." and
 *     "  =>  PC .. EPC .." (eret): skipped.
 *
 * A pc translated again (TB flush, other flags) takes the latest
 * translation.  A log may start with in_asm blocks and no exec lines (the
 * monitor's `log` command turns exec on for a window), and exec lines for
 * blocks translated before in_asm logging started have no block: they
 * are counted, not delivered.
 *
 * The reader keeps one buffer (read(2), no per-line allocation), the
 * blocks in an array, their instruction offsets in one pool, and an
 * open-addressing table from pc to block.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>
#include "cachepin/qemu.h"
#include "internal.h"
#include "scan.h"

#define QT_BUF		(4u << 20)	/* read buffer; also the longest line */
#define QS_CAP		1024		/* shadow stack frames kept per cpu */
#define QS_MAX_STACK	127		/* frames given to samples (perf's default) */
#define QT_MAX_CPUS	4096
#define QT_CF_COUNT	0x1ff		/* cflags: the block's instruction count, 0: any */

enum insn_kind { K_NONE, K_CALL, K_CALL_DS, K_RET, K_RET_DS };
enum insn_family { FAM_NONE, FAM_X86, FAM_ARM };

#define QT_MAX_BLOCK (128u << 10)

struct qt_insn {
	uint64_t addr;
	uint32_t len;		/* 0: no encoding printed */
	uint8_t kind;
};

struct qt_block {
	uint64_t pc;
	uint32_t size, nr_insns;
	uint32_t call_off, ret_off;
	uint32_t pool, cap;	/* offsets in pool[pool .. pool + cap) */
	unsigned int flags;
};

struct cachepin_qtrace {
	char *path;
	int fd;
	char *buf;
	size_t len, pos;
	bool eof;
	uint64_t lineno;

	struct qt_block *blocks;
	size_t nr_blocks, cap_blocks;
	uint32_t *tab;		/* block index + 1, 0 = empty */
	size_t tab_size;	/* power of two */
	uint32_t *pool;
	size_t nr_pool, cap_pool;
	uint64_t *unk;		/* pcs without a block; UINT64_MAX = empty */
	size_t unk_size;

	/* the in_asm block being read */
	bool in_block;
	struct qt_insn *ins;
	size_t nr_ins, cap_ins;
	bool partial;

	/* the exec line seen last, delivered when the next line is not "Stopped" */
	bool pend;
	long pend_idx;		/* block index, -1 if unknown */
	uint64_t pend_pc, pend_line;
	uint32_t pend_cpu;
	uint32_t pend_count;	/* instructions its cflags allow, 0: any */
	bool io_next;		/* the next in_asm block is an I/O recompile */

	struct cachepin_qtrace_stats st;
};

static const char SEP[] = "----------------";
static const char STOPPED[] = "Stopped execution of TB chain before ";
static const char REWOUND[] = "cpu_io_recompile: rewound execution of TB to ";
static const char LINKING[] = "Linking TBs";
static const char DISAGREE[] = "Disassembler disagrees with translator";
static const char REPORT[] = "Please report this to ";
/* what QEMU's MIPS system emulation logs with exec: mtc0 Status, eret */
static const char MIPS_STATUS[] = "Status ";
static const char MIPS_ERET[] = "ERET: PC ";
static const char MIPS_ERET_TO[] = "  =>  PC ";

static int qt_bad(struct cachepin_qtrace *t, const char *what, const char *hint)
{
	pr_warn("'%s':%" PRIu64 ": %s\n", t->path, t->lineno, what);
	if (hint)
		pr_warn("hint: %s\n", hint);
	return -EINVAL;
}

bool cachepin_qtrace__detect(const char *buf, size_t len)
{
	const char *p = buf, *e = buf + len, *nl;
	uint64_t v;

	while (p < e && *p == '\n')
		p++;
	nl = memchr(p, '\n', (size_t)(e - p));
	if (!nl)
		nl = e;
	if (scan_starts(p, nl, SEP))
		return nl - p == (ptrdiff_t)(sizeof(SEP) - 1);
	if (scan_starts(p, nl, "IN: ") || (nl - p == 3 && !memcmp(p, "IN:", 3)) ||
	    scan_starts(p, nl, STOPPED) || scan_starts(p, nl, LINKING))
		return true;
	if (scan_starts(p, nl, "Trace ")) {
		p += 6;
		while (p < nl && *p >= '0' && *p <= '9')
			p++;
		return scan_starts(p, nl, ": 0x");
	}
	if (scan_starts(p, nl, "0x") && (p = scan_hex_digits(p + 2, nl, &v, NULL)))
		return scan_starts(p, nl, ":  ");
	return false;
}

struct cachepin_qtrace *cachepin_qtrace__open_fd(int fd, const char *name,
						 const char *head, size_t len)
{
	struct cachepin_qtrace *t = calloc(1, sizeof(*t));

	if (!t || len > QT_BUF)
		goto nomem;
	t->fd = fd;
	t->path = strdup(name);
	t->buf = malloc(QT_BUF);
	t->tab_size = 1u << 12;
	t->tab = calloc(t->tab_size, sizeof(*t->tab));
	t->unk_size = 1u << 8;
	t->unk = malloc(t->unk_size * sizeof(*t->unk));
	if (!t->path || !t->buf || !t->tab || !t->unk)
		goto nomem;
	memset(t->unk, 0xff, t->unk_size * sizeof(*t->unk));
	if (len)
		memcpy(t->buf, head, len);
	t->len = len;
	t->st.bytes = len;
	t->pend_idx = -1;
	return t;
nomem:
	cachepin_qtrace__free(t);
	if (!t)
		close(fd);
	errno = ENOMEM;
	return NULL;
}

struct cachepin_qtrace *cachepin_qtrace__open(const char *path)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : dup(0);

	if (fd < 0) {
		int err = errno;

		pr_warn("cannot open '%s': %s\n", path, strerror(err));
		errno = err;
		return NULL;
	}
	return cachepin_qtrace__open_fd(fd, path, NULL, 0);
}

void cachepin_qtrace__free(struct cachepin_qtrace *t)
{
	if (!t)
		return;
	if (t->fd >= 0)
		close(t->fd);
	free(t->path);
	free(t->buf);
	free(t->blocks);
	free(t->tab);
	free(t->pool);
	free(t->unk);
	free(t->ins);
	free(t);
}

const struct cachepin_qtrace_stats *cachepin_qtrace__stats(const struct cachepin_qtrace *t)
{
	return &t->st;
}

static inline size_t hash_pc(uint64_t pc, size_t size)
{
	return (size_t)((pc * 0x9e3779b97f4a7c15ULL) >> 32) & (size - 1);
}

static long qt_find(const struct cachepin_qtrace *t, uint64_t pc)
{
	size_t h = hash_pc(pc, t->tab_size);
	uint32_t i;

	while ((i = t->tab[h])) {
		if (t->blocks[i - 1].pc == pc)
			return (long)i - 1;
		h = (h + 1) & (t->tab_size - 1);
	}
	return -1;
}

static int qt_tab_insert(struct cachepin_qtrace *t, size_t idx)
{
	size_t h, i;

	if (2 * (t->nr_blocks + 1) > t->tab_size) {
		size_t nsize = t->tab_size * 2;
		uint32_t *ntab = calloc(nsize, sizeof(*ntab));

		if (!ntab)
			return -ENOMEM;
		for (i = 0; i < t->tab_size; i++) {
			if (!t->tab[i])
				continue;
			h = hash_pc(t->blocks[t->tab[i] - 1].pc, nsize);
			while (ntab[h])
				h = (h + 1) & (nsize - 1);
			ntab[h] = t->tab[i];
		}
		free(t->tab);
		t->tab = ntab;
		t->tab_size = nsize;
	}
	h = hash_pc(t->blocks[idx].pc, t->tab_size);
	while (t->tab[h])
		h = (h + 1) & (t->tab_size - 1);
	t->tab[h] = (uint32_t)idx + 1;
	return 0;
}

/* Count an exec line without a block; distinct pcs in a small set. */
static int qt_unknown(struct cachepin_qtrace *t, uint64_t pc, uint64_t line)
{
	size_t h, i;

	t->st.nr_unknown++;
	if (!t->st.first_unknown_line)
		t->st.first_unknown_line = line;
	if (pc == UINT64_MAX)
		return 0;
	if (2 * (t->st.nr_unknown_pcs + 1) > t->unk_size) {
		size_t nsize = t->unk_size * 2;
		uint64_t *n = malloc(nsize * sizeof(*n));

		if (!n)
			return -ENOMEM;
		memset(n, 0xff, nsize * sizeof(*n));
		for (i = 0; i < t->unk_size; i++) {
			if (t->unk[i] == UINT64_MAX)
				continue;
			h = hash_pc(t->unk[i], nsize);
			while (n[h] != UINT64_MAX)
				h = (h + 1) & (nsize - 1);
			n[h] = t->unk[i];
		}
		free(t->unk);
		t->unk = n;
		t->unk_size = nsize;
	}
	h = hash_pc(pc, t->unk_size);
	while (t->unk[h] != UINT64_MAX) {
		if (t->unk[h] == pc)
			return 0;
		h = (h + 1) & (t->unk_size - 1);
	}
	t->unk[h] = pc;
	t->st.nr_unknown_pcs++;
	return 0;
}

/* ---- instructions: which ones call and return ---- */

static bool arm_cond(const char *s, size_t n)
{
	static const char conds[] = "eqnecshsccloplmivsvchilsgeltgtleal";
	size_t i;

	if (n == 0)
		return true;
	if (n != 2)
		return false;
	for (i = 0; i < sizeof(conds) - 1; i += 2)
		if (s[0] == conds[i] && s[1] == conds[i + 1])
			return true;
	return false;
}

static bool has_sub(const char *s, size_t n, const char *lit)
{
	size_t l = strlen(lit), i;

	for (i = 0; i + l <= n; i++)
		if (!memcmp(s + i, lit, l))
			return true;
	return false;
}

static int classify_arm(const char *m, size_t mn, const char *ops, size_t on)
{
	const char *dot = memchr(m, '.', mn);

	if (dot)
		mn = (size_t)(dot - m);	/* .w, .n */
	if (mn >= 2 && !memcmp(m, "bl", 2)) {
		if (arm_cond(m + 2, mn - 2) || scan_eq(m, m + mn, "blr"))
			return K_CALL;
		if (mn >= 3 && m[2] == 'x' && arm_cond(m + 3, mn - 3))
			return K_CALL;
		return K_NONE;
	}
	if (scan_eq(m, m + mn, "ret"))
		return K_RET;
	if (mn >= 2 && !memcmp(m, "bx", 2) && arm_cond(m + 2, mn - 2))
		return scan_eq(ops, ops + on, "lr") ? K_RET : K_NONE;
	if (memchr(ops, '^', on))
		return K_NONE;	/* exception return */
	if (mn >= 3 && !memcmp(m, "pop", 3) && arm_cond(m + 3, mn - 3))
		return has_sub(ops, on, "pc}") ? K_RET : K_NONE;
	if (mn >= 3 && !memcmp(m, "ldm", 3))
		return (scan_starts(ops, ops + on, "sp") || scan_starts(ops, ops + on, "fp")) &&
		       has_sub(ops, on, "pc}") ? K_RET : K_NONE;
	if (mn >= 3 && !memcmp(m, "ldr", 3) && arm_cond(m + 3, mn - 3))
		return scan_starts(ops, ops + on, "pc, [sp], #4") ? K_RET : K_NONE;
	if (mn >= 3 && !memcmp(m, "mov", 3) && arm_cond(m + 3, mn - 3))
		return scan_eq(ops, ops + on, "pc, lr") ? K_RET : K_NONE;
	return K_NONE;
}

static int classify_x86(const char *m, size_t mn, const char *ops, size_t on)
{
	static const char *const prefixes[] = { "rep", "repz", "repe", "repnz", "repne", "bnd",
						"notrack", "lock", "data16", "addr32" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(prefixes); i++) {
		if (!scan_eq(m, m + mn, prefixes[i]))
			continue;
		m = ops;
		for (mn = 0; mn < on && ops[mn] != ' '; mn++)
			;
		break;
	}
	if (mn >= 4 && !memcmp(m, "call", 4))
		return K_CALL;
	if (scan_eq(m, m + mn, "ret") || scan_eq(m, m + mn, "retq") ||
	    scan_eq(m, m + mn, "retl") || scan_eq(m, m + mn, "retw"))
		return K_RET;
	return K_NONE;
}

static int classify_noenc(const char *m, size_t mn, const char *ops, size_t on)
{
	static const char *const ds_calls[] = { "jal", "jalr", "jalr.hb", "bal", "bgezal",
						"bltzal", "bgezall", "bltzall", "jalx" };
	static const char *const calls[] = { "jalrc", "jalrc.hb", "balc", "jialc" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ds_calls); i++)
		if (scan_eq(m, m + mn, ds_calls[i]))
			return K_CALL_DS;
	for (i = 0; i < ARRAY_SIZE(calls); i++)
		if (scan_eq(m, m + mn, calls[i]))
			return K_CALL;
	if ((scan_eq(m, m + mn, "jr") || scan_eq(m, m + mn, "jr.hb")) &&
	    scan_eq(ops, ops + on, "ra"))
		return K_RET_DS;
	if (scan_eq(m, m + mn, "jrc") && scan_eq(ops, ops + on, "ra"))
		return K_RET;
	return K_NONE;
}

/* ---- in_asm blocks ---- */

static int qt_insn_line(struct cachepin_qtrace *t, const char *p, const char *e)
{
	const char *q, *m, *ops;
	unsigned int fam = FAM_NONE, nd;
	uint32_t nbytes = 0;
	size_t mn, on;
	uint64_t addr, v;
	struct qt_insn *in;

	q = scan_hex_digits(p + 2, e, &addr, NULL);
	if (!q || q >= e || *q != ':')
		return qt_bad(t, "bad instruction line (expected '0xADDRESS:  ...')", NULL);
	q++;
	if (q < e && *q == ' ')
		q++;
	/* encoding units: " HEX" each; the mnemonic follows two spaces or more */
	while (q + 1 < e && q[0] == ' ' && scan_hexval(q[1]) >= 0) {
		const char *r = scan_hex_digits(q + 1, e, &v, &nd);

		if (!r || (r < e && *r != ' ') || (nd & 1))
			break;
		nbytes += nd / 2;
		fam = nd == 2 ? FAM_X86 : FAM_ARM;
		q = r;
	}
	while (q < e && (*q == ' ' || *q == '\t'))
		q++;
	m = q;
	while (q < e && *q != ' ' && *q != '\t')
		q++;
	mn = (size_t)(q - m);
	while (q < e && (*q == ' ' || *q == '\t'))
		q++;
	ops = q;
	on = (size_t)(e - q);
	while (on && (ops[on - 1] == ' ' || ops[on - 1] == '\t'))
		on--;
	if (!mn) {
		/* the rest of a long x86 encoding */
		if (!nbytes)
			return qt_bad(t, "instruction line without encoding or mnemonic", NULL);
		in = t->nr_ins ? &t->ins[t->nr_ins - 1] : NULL;
		if (!in || !in->len || addr != in->addr + in->len)
			return qt_bad(t, "encoding continues no instruction", NULL);
		in->len += nbytes;
		return 0;
	}
	if (t->nr_ins && addr <= t->ins[t->nr_ins - 1].addr)
		return qt_bad(t, "instruction address does not follow the previous one", NULL);
	/* QEMU ends a block at the second guest page (64 KiB at most) */
	if (t->nr_ins && addr - t->ins[0].addr >= QT_MAX_BLOCK)
		return qt_bad(t, "block larger than 128 KiB (QEMU blocks span at most two pages)", NULL);
	if (GROW(t->ins, t->cap_ins, t->nr_ins + 1))
		return -ENOMEM;
	in = &t->ins[t->nr_ins++];
	in->addr = addr;
	in->len = nbytes;
	if (fam == FAM_X86)
		in->kind = (uint8_t)classify_x86(m, mn, ops, on);
	else if (fam == FAM_ARM)
		in->kind = (uint8_t)classify_arm(m, mn, ops, on);
	else
		in->kind = (uint8_t)classify_noenc(m, mn, ops, on);
	return 0;
}

/* The block read since the separator is complete: store it. */
static int qt_commit(struct cachepin_qtrace *t)
{
	struct qt_insn *ins = t->ins;
	size_t n = t->nr_ins, i;
	struct qt_block b = { 0 }, *dst;
	long idx;

	t->in_block = false;
	if (!n) {
		t->partial = false;
		return 0;	/* nothing was disassembled: no block to count */
	}
	for (i = 0; i < n; i++)
		if (!ins[i].len)
			ins[i].len = i + 1 < n ? (uint32_t)(ins[i + 1].addr - ins[i].addr) : 4;
	b.pc = ins[0].addr;
	b.nr_insns = (uint32_t)n;
	b.size = (uint32_t)(ins[n - 1].addr - b.pc + ins[n - 1].len);
	if (ins[n - 1].kind == K_CALL || ins[n - 1].kind == K_CALL_DS) {
		b.flags |= CACHEPIN_QBLOCK_CALL;
		b.call_off = (uint32_t)(ins[n - 1].addr - b.pc);
		/* a call whose delay slot is in the next block returns past it */
		b.ret_off = b.call_off + (ins[n - 1].kind == K_CALL_DS ? 8 : ins[n - 1].len);
	} else if (n >= 2 && ins[n - 2].kind == K_CALL_DS) {
		b.flags |= CACHEPIN_QBLOCK_CALL;
		b.call_off = (uint32_t)(ins[n - 2].addr - b.pc);
		b.ret_off = b.call_off + 8;
	}
	if (ins[n - 1].kind == K_RET || ins[n - 1].kind == K_RET_DS ||
	    (n >= 2 && ins[n - 2].kind == K_RET_DS))
		b.flags |= CACHEPIN_QBLOCK_RET;
	if (t->partial)
		b.flags |= CACHEPIN_QBLOCK_PARTIAL, t->st.nr_partial++;
	t->partial = false;
	t->st.nr_translations++;

	idx = qt_find(t, b.pc);
	if (idx >= 0 && t->io_next) {
		/* an I/O recompile: exec lines of it carry its count */
		t->io_next = false;
		t->nr_ins = 0;
		return 0;
	}
	t->io_next = false;
	if (idx >= 0) {
		t->st.nr_retranslated++;
		dst = &t->blocks[idx];
		b.pool = dst->pool;
		b.cap = dst->cap;
	} else {
		if (GROW(t->blocks, t->cap_blocks, t->nr_blocks + 1))
			return -ENOMEM;
		idx = (long)t->nr_blocks++;
		dst = &t->blocks[idx];
		dst->pc = b.pc;
		if (qt_tab_insert(t, (size_t)idx)) {
			t->nr_blocks--;
			return -ENOMEM;
		}
	}
	if (b.cap < n) {
		if (GROW(t->pool, t->cap_pool, t->nr_pool + n))
			return -ENOMEM;
		b.pool = (uint32_t)t->nr_pool;
		b.cap = (uint32_t)n;
		t->nr_pool += n;
	}
	for (i = 0; i < n; i++)
		t->pool[b.pool + i] = (uint32_t)(ins[i].addr - b.pc);
	*dst = b;
	t->nr_ins = 0;
	return 0;
}

/* ---- exec lines ---- */

/* The pending exec line's block, its first LIMIT instructions (0: all). */
static int qt_deliver_n(struct cachepin_qtrace *t, uint32_t limit, cachepin_qblock_fn_t fn, void *ctx)
{
	const struct qt_block *b;
	struct cachepin_qblock qb;

	t->pend = false;
	if (t->pend_idx < 0)
		return qt_unknown(t, t->pend_pc, t->pend_line);
	b = &t->blocks[t->pend_idx];
	if (t->pend_count && (!limit || t->pend_count < limit))
		limit = t->pend_count;
	qb.pc = b->pc;
	qb.size = b->size;
	qb.nr_insns = b->nr_insns;
	qb.insn_off = t->pool + b->pool;
	qb.call_off = b->call_off;
	qb.ret_off = b->ret_off;
	qb.flags = b->flags;
	if (limit && limit < b->nr_insns) {
		/* it stopped before its end, and before its call or return */
		qb.nr_insns = limit;
		qb.size = qb.insn_off[limit];
		qb.flags &= ~(unsigned int)(CACHEPIN_QBLOCK_CALL | CACHEPIN_QBLOCK_RET);
	}
	qb.cpu = t->pend_cpu;
	qb.line = t->pend_line;
	t->st.nr_blocks++;
	t->st.nr_insns += qb.nr_insns;
	return fn(ctx, &qb);
}

static int qt_deliver(struct cachepin_qtrace *t, cachepin_qblock_fn_t fn, void *ctx)
{
	return qt_deliver_n(t, 0, fn, ctx);
}

/*
 * "cpu_io_recompile: rewound execution of TB to PC": the pending block
 * ran its instructions before PC only (none: cancelled).
 */
static int qt_rewound_line(struct cachepin_qtrace *t, const char *p, const char *e,
			   cachepin_qblock_fn_t fn, void *ctx)
{
	const char *q = p + sizeof(REWOUND) - 1;
	const struct qt_block *b;
	uint64_t pc;
	uint32_t k;

	if (!(q = scan_hex_digits(q, e, &pc, NULL)) || scan_rtrim(q, e) != q)
		return qt_bad(t, "bad 'cpu_io_recompile' line", NULL);
	t->io_next = true;
	t->st.nr_rewound++;
	if (!t->pend)
		return 0;
	if (t->pend_idx < 0 || pc < t->pend_pc)
		return qt_deliver(t, fn, ctx);
	b = &t->blocks[t->pend_idx];
	for (k = 0; k < b->nr_insns && t->pool[b->pool + k] < pc - t->pend_pc; k++)
		;
	if (!k) {
		t->pend = false;
		return 0;
	}
	return qt_deliver_n(t, k, fn, ctx);
}

static int qt_exec_line(struct cachepin_qtrace *t, const char *p, const char *e)
{
	const char *q = p + 6;
	uint64_t cpu = 0, pc, cflags;
	unsigned int nd;

	if (q >= e || *q < '0' || *q > '9')
		goto bad;
	while (q < e && *q >= '0' && *q <= '9') {
		cpu = cpu * 10 + (uint64_t)(*q++ - '0');
		if (cpu >= QT_MAX_CPUS)
			goto bad;
	}
	if (!scan_starts(q, e, ": 0x") || !(q = scan_skip_hex(q + 4, e)) ||
	    !scan_starts(q, e, " [") || !(q = scan_skip_hex(q + 2, e)) || q >= e || *q != '/' ||
	    !(q = scan_hex_digits(q + 1, e, &pc, &nd)))
		goto bad;
	if (q >= e || *q != '/' || !(q = scan_skip_hex(q + 1, e)) ||
	    q >= e || *q != '/' || !(q = scan_hex_digits(q + 1, e, &cflags, NULL)))
		goto bad;
	if (q >= e || *q != ']')
		goto bad;
	t->st.nr_exec++;
	if (nd > t->st.addr_digits)
		t->st.addr_digits = nd;
	if (cpu >= t->st.nr_cpus)
		t->st.nr_cpus = (uint32_t)cpu + 1;
	t->pend = true;
	t->pend_pc = pc;
	t->pend_cpu = (uint32_t)cpu;
	t->pend_line = t->lineno;
	t->pend_idx = qt_find(t, pc);
	t->pend_count = (uint32_t)(cflags & QT_CF_COUNT);
	return 0;
bad:
	return qt_bad(t, "bad exec line (expected 'Trace CPU: 0xHOST [CSBASE/PC/FLAGS/CFLAGS] SYMBOL')",
		      NULL);
}

/* "Stopped execution of TB chain before 0xHOST [PC] SYMBOL" */
static int qt_stopped_line(struct cachepin_qtrace *t, const char *p, const char *e)
{
	const char *q = p + sizeof(STOPPED) - 1;
	uint64_t v, pc;

	if (!scan_starts(q, e, "0x") || !(q = scan_hex_digits(q + 2, e, &v, NULL)) ||
	    !scan_starts(q, e, " [") || !(q = scan_hex_digits(q + 2, e, &pc, NULL)) || q >= e || *q != ']')
		return qt_bad(t, "bad 'Stopped execution' line", NULL);
	if (t->pend && t->pend_pc == pc) {
		t->pend = false;
		t->st.nr_stopped++;
	}
	return 0;
}

static int qt_line(struct cachepin_qtrace *t, const char *p, const char *e,
		   cachepin_qblock_fn_t fn, void *ctx)
{
	int err;

	/* "Stopped" and "cpu_io_recompile" lines are about the pending block */
	if (t->pend && (p == e || (*p != 'S' && !scan_starts(p, e, REWOUND))) &&
	    (err = qt_deliver(t, fn, ctx)))
		return err;
	if (p == e) {
		if (t->in_block)
			return qt_commit(t);
		return 0;
	}
	switch (*p) {
	case 'T':
		if (scan_starts(p, e, "Trace ")) {
			if (t->in_block && (err = qt_commit(t)))
				return err;
			return qt_exec_line(t, p, e);
		}
		break;
	case '0':
		if (e - p > 2 && p[1] == 'x') {
			if (!t->in_block)
				return qt_bad(t, "instruction line outside an in_asm block", NULL);
			return qt_insn_line(t, p, e);
		}
		break;
	case '-':
		if (e - p == (ptrdiff_t)(sizeof(SEP) - 1) && !memcmp(p, SEP, sizeof(SEP) - 1)) {
			if (t->in_block && (err = qt_commit(t)))
				return err;
			t->in_block = true;
			t->nr_ins = 0;
			t->partial = false;
			return 0;
		}
		break;
	case 'I':
		if (scan_starts(p, e, "IN:")) {
			if (t->in_block && t->nr_ins && (err = qt_commit(t)))
				return err;
			t->in_block = true;
			return 0;
		}
		break;
	case 'S':
		if (scan_starts(p, e, STOPPED))
			return qt_stopped_line(t, p, e);
		if (scan_starts(p, e, MIPS_STATUS))
			return 0;
		break;
	case 'E':
		if (scan_starts(p, e, MIPS_ERET))
			return 0;
		break;
	case ' ':
		if (scan_starts(p, e, MIPS_ERET_TO))
			return 0;
		break;
	case 'L':
		if (scan_starts(p, e, LINKING))
			return qt_bad(t, "the log was written with block chaining on ('Linking TBs'): exec lines miss the chained blocks",
				      "record with '-d in_asm,exec,nochain'");
		break;
	case 'D':
		if (scan_starts(p, e, DISAGREE) && t->in_block) {
			t->partial = true;
			return 0;
		}
		break;
	case 'c':
		if (scan_starts(p, e, REWOUND))
			return qt_rewound_line(t, p, e, fn, ctx);
		break;
	case 'P':
		if (scan_starts(p, e, REPORT))
			return 0;
		break;
	}
	return qt_bad(t, "not a line of a QEMU in_asm/exec log",
		      "record with '-d in_asm,exec,nochain' and no other log items");
}

static int qt_fill(struct cachepin_qtrace *t)
{
	size_t rem = t->len - t->pos;
	ssize_t n;

	if (t->pos) {
		memmove(t->buf, t->buf + t->pos, rem);
		t->len = rem;
		t->pos = 0;
	}
	for (;;) {
		n = read(t->fd, t->buf + t->len, QT_BUF - t->len);
		if (n >= 0)
			break;
		if (errno != EINTR) {
			int err = errno;

			pr_warn("cannot read '%s': %s\n", t->path, strerror(err));
			return -err;
		}
	}
	if (n == 0)
		t->eof = true;
	t->len += (size_t)n;
	t->st.bytes += (uint64_t)n;
	return 0;
}

int cachepin_qtrace__for_each_block(struct cachepin_qtrace *t, cachepin_qblock_fn_t fn,
				    void *ctx)
{
	int err;

	for (;;) {
		char *s = t->buf + t->pos, *end = t->buf + t->len, *nl;

		nl = memchr(s, '\n', (size_t)(end - s));
		if (!nl) {
			if (t->eof) {
				if (s < end) {
					t->st.cut_last_line = true;
					pr_info("'%s':%" PRIu64 ": the last line has no newline: ignored\n",
						t->path, t->lineno + 1);
				}
				break;
			}
			if (t->len - t->pos == QT_BUF) {
				t->lineno++;
				return qt_bad(t, "line longer than 4 MiB", NULL);
			}
			if ((err = qt_fill(t)))
				return err;
			continue;
		}
		t->pos = (size_t)(nl + 1 - t->buf);
		t->lineno++;
		if ((err = qt_line(t, s, nl, fn, ctx)))
			return err;
	}
	t->st.lines = t->lineno;
	if (t->pend && (err = qt_deliver(t, fn, ctx)))
		return err;
	if (!t->lineno && !t->st.cut_last_line) {
		pr_warn("'%s': empty log\n", t->path);
		return -EINVAL;
	}
	return 0;
}

/* ---- samples ---- */

struct qs_stack {
	struct cachepin_frame *f;	/* QS_CAP + 1: leaf slot, then the frames up to f[QS_CAP] */
	size_t depth;
	bool after_ret;
	bool in_switch;		/* the last block was in a stack-switching function */
};

struct qs_ctx {
	uint64_t period, phase;
	uint32_t max_stack;
	unsigned int fflags;
	struct qs_stack *cpus;
	size_t nr_cpus;
	uint32_t *leaf;
	size_t cap_leaf;
	const uint64_t (*sw)[2];
	size_t nr_sw;
	cachepin_qsample_fn_t fn;
	void *ctx;
};

static int qs_block(void *ctx, const struct cachepin_qblock *b)
{
	struct qs_ctx *q = ctx;
	struct qs_stack *st;
	struct cachepin_frame *top, *leaf;
	const uint32_t *offs = b->insn_off;
	size_t n = b->nr_insns, k, i;
	int err;

	if (b->cpu >= q->nr_cpus) {
		size_t nn = (size_t)b->cpu + 1;
		struct qs_stack *ns = realloc(q->cpus, nn * sizeof(*ns));

		if (!ns)
			return -ENOMEM;
		memset(ns + q->nr_cpus, 0, (nn - q->nr_cpus) * sizeof(*ns));
		q->cpus = ns;
		q->nr_cpus = nn;
	}
	st = &q->cpus[b->cpu];
	if (!st->f && !(st->f = calloc(QS_CAP + 1, sizeof(*st->f))))
		return -ENOMEM;

	/* a context switch: the frames on the stack are the previous task's */
	if (q->nr_sw) {
		bool in = false;

		for (i = 0; i < q->nr_sw && !in; i++)
			in = b->pc >= q->sw[i][0] && b->pc < q->sw[i][1];
		if (st->in_switch && !in)
			st->depth = 0;
		st->in_switch = in;
	}
	/* returns: back to the frame whose return address this block starts at */
	top = &st->f[QS_CAP + 1 - st->depth];
	if (st->depth && st->after_ret) {
		for (i = 0; i < st->depth; i++)
			if (top[i].ip == b->pc) {
				st->depth -= i + 1;
				break;
			}
	} else if (st->depth && top->ip == b->pc) {
		st->depth--;
	}
	st->after_ret = b->flags & CACHEPIN_QBLOCK_RET;

	/* the instructions sampled: the PERIOD-th, 2*PERIOD-th, ... of the trace */
	if (q->period == 1) {
		k = n;
	} else {
		uint64_t first = q->period - 1 - q->phase;

		if (GROW(q->leaf, q->cap_leaf, n + 1))
			return -ENOMEM;
		for (k = 0, i = first; i < n; i += q->period)
			q->leaf[k++] = offs[i];
		offs = q->leaf;
		q->phase = (q->phase + n) % q->period;
	}
	if (k) {
		struct cachepin_sample s = { 0 };

		leaf = &st->f[QS_CAP - st->depth];
		memset(leaf, 0, sizeof(*leaf));
		leaf->ip = b->pc;
		leaf->flags = CACHEPIN_FRAME_HAS_IP | q->fflags;
		s.period = q->period;
		s.pid = s.tid = b->cpu;
		s.nr = 1 + (uint32_t)(st->depth < q->max_stack ? st->depth : q->max_stack);
		s.frames = leaf;
		s.event = "instructions";
		if ((err = q->fn(q->ctx, &s, offs, k)))
			return err;
	}

	if (b->flags & CACHEPIN_QBLOCK_CALL) {
		st->in_switch = false;	/* a call out of it is no switch */
		if (st->depth == QS_CAP)	/* drop the outermost frame */
			memmove(&st->f[2], &st->f[1], (QS_CAP - 1) * sizeof(*st->f));
		else
			st->depth++;
		top = &st->f[QS_CAP + 1 - st->depth];
		memset(top, 0, sizeof(*top));
		top->ip = b->pc + b->ret_off;
		top->flags = CACHEPIN_FRAME_HAS_IP | q->fflags;
	}
	return 0;
}

int cachepin_qtrace__for_each_sample(struct cachepin_qtrace *t,
				     const struct cachepin_qsample_opts *opts,
				     cachepin_qsample_fn_t fn, void *ctx)
{
	struct qs_ctx q = { 0 };
	size_t i;
	int err;

	q.period = opts && opts->period ? opts->period : 1;
	q.max_stack = opts && opts->max_stack ? opts->max_stack : QS_MAX_STACK;
	if (q.max_stack > QS_CAP)
		q.max_stack = QS_CAP;
	q.fflags = opts && opts->kernel ? CACHEPIN_FRAME_KERNEL : 0;
	if (opts) {
		q.sw = opts->switch_ranges;
		q.nr_sw = opts->nr_switch_ranges;
	}
	q.fn = fn;
	q.ctx = ctx;
	err = cachepin_qtrace__for_each_block(t, qs_block, &q);
	for (i = 0; i < q.nr_cpus; i++)
		free(q.cpus[i].f);
	free(q.cpus);
	free(q.leaf);
	return err;
}
