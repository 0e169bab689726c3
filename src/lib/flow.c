// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Straight-line code: where the instructions of a function stop running
 * on into the next one.  The instructions after a sampled one run with
 * it up to the first jump or return: a call comes back, and a
 * conditional branch's fall-through runs whenever it is not taken (the
 * model, model.c's fill_runs(), takes such a run as hot as its samples
 * say, also where no sample landed).  Timer samples miss such code: QEMU
 * takes an interrupt only between translation blocks, so every sample of
 * a guest lands on a block's first instruction, and on hardware skid
 * moves them to the instructions after slow ones.
 *
 * Decoded for the fixed-width instruction sets: ARM (A32, little-endian
 * code), AArch64 and 32-bit MIPS (the run ends after the delay slot),
 * word by word; and x86 (32- and 64-bit) through libopcodes, which gives
 * each instruction's length and says which are jumps.  Thumb and the
 * others: -ENOTSUP, and the model keeps its short holes alone.
 */
#include <dis-asm.h>
#include <elf.h>
#include <fcntl.h>
#include <stdarg.h>
#include <unistd.h>
#include "flow.h"
#include "internal.h"

#ifndef EM_AARCH64
#define EM_AARCH64 183
#endif

#define FLOW_ON 0
#define FLOW_END CACHEPIN_FLOW_END
#define FLOW_COND CACHEPIN_FLOW_COND
#define FLOW_SLOT CACHEPIN_FLOW_SLOT

static int flow_arm(uint32_t w)
{
	uint32_t cond = w >> 28, op;
	int end = cond == 0xe ? FLOW_END : FLOW_COND;	/* AL, or on a condition */

	if ((w & 0x0e000000) == 0x0a000000)	/* B, BL, BLX (imm) */
		return cond != 0xf && !(w & 0x01000000) ? end : FLOW_ON;
	if (cond == 0xf)
		return FLOW_ON;
	if ((w & 0x0ffffff0) == 0x012fff30)	/* BLX (register): a call */
		return FLOW_ON;
	if ((w & 0x0ffffff0) == 0x012fff10 || (w & 0x0ffffff0) == 0x012fff20)	/* BX, BXJ */
		return end;
	if ((w & 0x0e108000) == 0x08108000)	/* LDM with the PC: POP {..., pc} */
		return end;
	if ((w & 0x0c10f000) == 0x0410f000)	/* LDR pc, [...] */
		return end;
	if ((w & 0x0ff000f0) == 0x07f000f0)	/* UDF: BUG() */
		return FLOW_END;
	if ((w & 0x0c00f000) == 0x0000f000 && (w & 0x0f900000) != 0x01000000) {
		/* data processing into the PC (MOV pc, lr; ADD pc, ...), not TST..CMN */
		op = (w >> 21) & 0xf;
		if (op < 8 || op > 11)
			return end;
	}
	return FLOW_ON;
}

static int flow_aarch64(uint32_t w)
{
	if ((w & 0xfc000000) == 0x14000000 ||	/* B */
	    (w & 0xfffffc1f) == 0xd61f0000 ||	/* BR */
	    (w & 0xfffffc1f) == 0xd65f0000 ||	/* RET */
	    w == 0xd69f03e0 ||			/* ERET */
	    (w & 0xffe0001f) == 0xd4200000)	/* BRK: BUG() */
		return FLOW_END;
	if ((w & 0xff000010) == 0x54000000 ||	/* B.cond */
	    (w & 0x7e000000) == 0x34000000 ||	/* CBZ, CBNZ */
	    (w & 0x7e000000) == 0x36000000)	/* TBZ, TBNZ */
		return FLOW_COND;
	return FLOW_ON;		/* BL, BLR: calls */
}

static int flow_mips(uint32_t w)
{
	uint32_t op = w >> 26, rt = (w >> 16) & 0x1f, rs = (w >> 21) & 0x1f;

	switch (op) {
	case 0:			/* SPECIAL: JR ends, JALR calls */
		return (w & 0x3f) == 8 ? FLOW_END | FLOW_SLOT : FLOW_ON;
	case 1:			/* REGIMM: BLTZ, BGEZ (and -L); BLTZAL, BGEZAL call */
		return rt <= 3 ? FLOW_COND | FLOW_SLOT : FLOW_ON;
	case 2:			/* J */
		return FLOW_END | FLOW_SLOT;
	case 4:			/* BEQ; B is BEQ $0, $0 */
		return (rs == rt ? FLOW_END : FLOW_COND) | FLOW_SLOT;
	case 5: case 6: case 7:			/* BNE, BLEZ, BGTZ */
	case 20: case 21: case 22: case 23:	/* the likely forms */
		return FLOW_COND | FLOW_SLOT;
	case 16:		/* COP0: ERET */
		return w == 0x42000018 ? FLOW_END : FLOW_ON;
	case 17:		/* COP1: BC1F, BC1T */
		return rs == 8 ? FLOW_COND | FLOW_SLOT : FLOW_ON;
	default:
		return FLOW_ON;	/* JAL calls */
	}
}

/*
 * x86: libopcodes decodes one instruction at a time into text.  It marks
 * direct and indirect jumps and calls (insn_type); returns and traps are
 * known by their mnemonic, the first word of the text that is not a
 * prefix.
 */
struct x86_text {
	char buf[96];
	size_t len;
};

static int x86_vprint(struct x86_text *t, const char *fmt, va_list ap)
{
	int n;

	if (t->len + 1 >= sizeof(t->buf))
		return 0;
	n = vsnprintf(t->buf + t->len, sizeof(t->buf) - t->len, fmt, ap);
	if (n > 0)
		t->len = t->len + (size_t)n < sizeof(t->buf) ? t->len + (size_t)n : sizeof(t->buf) - 1;
	return n;
}

static int x86_print(void *stream, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = x86_vprint(stream, fmt, ap);
	va_end(ap);
	return n;
}

static int x86_print_styled(void *stream, enum disassembler_style style, const char *fmt, ...)
{
	va_list ap;
	int n;

	(void)style;
	va_start(ap, fmt);
	n = x86_vprint(stream, fmt, ap);
	va_end(ap);
	return n;
}

/* Words of the text before the mnemonic. */
static bool x86_prefix(const char *w, size_t n)
{
	static const char *const pfx[] = {
		"rep", "repz", "repnz", "repe", "repne", "lock", "bnd", "notrack", "data16",
		"data32", "addr16", "addr32", "cs", "ds", "es", "fs", "gs", "ss", "xacquire",
		"xrelease", "{vex}", "{evex}",
	};
	size_t i;

	if (n >= 3 && !strncmp(w, "rex", 3))
		return true;
	for (i = 0; i < ARRAY_SIZE(pfx); i++)
		if (strlen(pfx[i]) == n && !strncmp(w, pfx[i], n))
			return true;
	return false;
}

static int x86_kind(const struct disassemble_info *info, const struct x86_text *t)
{
	static const char *const stop[] = {
		"ret", "retq", "retl", "retw", "lret", "lretq", "lretl", "iret", "iretq", "iretd",
		"sysret", "sysretq", "sysexit", "ud2", "hlt", "int3", "(bad)",
	};
	const char *p = t->buf;
	size_t n, i;

	if (info->insn_type == dis_branch)	/* jmp */
		return FLOW_END;
	if (info->insn_type == dis_condbranch)	/* jcc, loop, jrcxz */
		return FLOW_COND;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		n = strcspn(p, " \t");
		if (!n || !x86_prefix(p, n))
			break;
		p += n;
	}
	for (i = 0; i < ARRAY_SIZE(stop); i++)
		if (strlen(stop[i]) == n && !strncmp(p, stop[i], n))
			return FLOW_END;
	return FLOW_ON;
}

static int walk_x86(const struct cachepin_flow *fl, const uint8_t *code, uint64_t size,
		    void (*fn)(uint64_t off, unsigned int kind, void *arg), void *arg)
{
	struct disassemble_info info;
	disassembler_ftype dis;
	struct x86_text t = { .len = 0 };
	unsigned long mach = fl->bin->elf_class == 64 ? bfd_mach_x86_64 : bfd_mach_i386_i386;
	uint64_t off = 0;

	dis = disassembler(bfd_arch_i386, false, mach, NULL);
	if (!dis)
		return -ENOTSUP;
	init_disassemble_info(&info, &t, x86_print, x86_print_styled);
	info.arch = bfd_arch_i386;
	info.mach = mach;
	info.buffer = (bfd_byte *)code;
	info.buffer_length = size;
	info.buffer_vma = 0;
	disassemble_init_for_target(&info);
	while (off < size) {
		int len, kind;

		t.len = 0;
		t.buf[0] = 0;
		info.insn_type = dis_noninsn;
		len = dis(off, &info);
		if (len <= 0)
			break;
		if ((kind = x86_kind(&info, &t)) != FLOW_ON)
			fn(off, (unsigned int)kind, arg);
		off += (uint64_t)len;
	}
	disassemble_free_target(&info);
	return 0;
}

int cachepin_flow__open(struct cachepin_flow *fl, const struct cachepin_binary *bin)
{
	fl->bin = bin;
	fl->fd = -1;
	fl->x86 = false;
	switch (bin->machine) {
	case EM_386:
	case EM_X86_64:
		fl->x86 = true;
		break;
	case EM_ARM:
		if (bin->big_endian)
			return -ENOTSUP;	/* BE8 code is little-endian, BE32 is not: unknown */
		fl->decode = flow_arm;
		break;
	case EM_AARCH64:
		fl->decode = flow_aarch64;
		break;
	case EM_MIPS:
		if (bin->elf_class != 32)
			return -ENOTSUP;
		fl->decode = flow_mips;
		break;
	default:
		return -ENOTSUP;
	}
	fl->fd = open(bin->path, O_RDONLY | O_CLOEXEC);
	return fl->fd < 0 ? -errno : 0;
}

void cachepin_flow__close(struct cachepin_flow *fl)
{
	if (fl->fd >= 0)
		close(fl->fd);
	fl->fd = -1;
}

static uint32_t word_at(const struct cachepin_flow *fl, const uint8_t *p)
{
	if (fl->bin->big_endian)
		return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

int cachepin_flow__walk(const struct cachepin_flow *fl, const struct cachepin_func *f,
			uint64_t max, void (*fn)(uint64_t off, unsigned int kind, void *arg),
			void *arg)
{
	const struct cachepin_binary *bin = fl->bin;
	const struct cachepin_section *sec;
	uint64_t size = f->size, off, k;
	uint8_t *code;
	ssize_t got;

	if (fl->fd < 0 || (!fl->decode && !fl->x86))
		return -ENOTSUP;
	if (f->sec < 0 || (size_t)f->sec >= bin->nr_secs || (f->flags & CACHEPIN_FUNC_THUMB) ||
	    (!fl->x86 && (f->addr & 3)) || !size)
		return -ENOTSUP;
	sec = &bin->secs[f->sec];
	if (f->addr < sec->addr || f->addr - sec->addr + size > sec->size)
		return -ENOTSUP;
	if (size > max)
		size = max;
	code = malloc(size + 1);
	if (!code)
		return -ENOMEM;
	off = sec->offset + (f->addr - sec->addr);
	got = pread(fl->fd, code, size, (off_t)off);
	if (got != (ssize_t)size) {
		free(code);
		return -EIO;
	}
	if (fl->x86) {
		int err = walk_x86(fl, code, size, fn, arg);

		free(code);
		return err;
	}
	for (k = 0; k + 4 <= size; k += 4) {
		int kind = fl->decode(word_at(fl, code + k));

		if (kind != FLOW_ON)
			fn(k, (unsigned int)kind, arg);
	}
	free(code);
	return 0;
}

struct ends_arg {
	uint8_t *ends;
	uint32_t gran;
	uint64_t size;
};

static void mark_end(uint64_t off, unsigned int kind, void *arg)
{
	struct ends_arg *e = arg;

	if ((kind & FLOW_SLOT) && off + 4 < e->size)
		off += 4;
	e->ends[off / e->gran] |= (uint8_t)(kind & (FLOW_END | FLOW_COND));
}

int cachepin_flow__ends(const struct cachepin_flow *fl, const struct cachepin_func *f,
			uint32_t gran, uint64_t nslot, uint8_t *ends)
{
	struct ends_arg e = { ends, gran, f->size < nslot * gran ? f->size : nslot * gran };

	memset(ends, 0, nslot);
	return cachepin_flow__walk(fl, f, nslot * gran, mark_end, &e);
}
