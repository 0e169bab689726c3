// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Straight-line code: where the instructions of a function stop running
 * on into the next one.  Every instruction after a sampled one runs as
 * often as it does, up to the first branch, jump or return (a call comes
 * back); so a sampled granule's straight run is as hot as it is, also
 * where no sample landed.  Timer samples miss such code: QEMU takes an
 * interrupt only between translation blocks, so every sample of a guest
 * lands on a block's first instruction, and on hardware skid moves them.
 *
 * Decoded here for the fixed-width instruction sets: ARM (A32,
 * little-endian code), AArch64 and 32-bit MIPS (the run ends after the
 * delay slot); x86 by libopcodes (flow-x86.c).  Thumb and the others:
 * -ENOTSUP, and the model keeps its short holes alone.
 */
#include <elf.h>
#include <fcntl.h>
#include <unistd.h>
#include "flow.h"
#include "flow-x86.h"
#include "internal.h"

#ifndef EM_AARCH64
#define EM_AARCH64 183
#endif

enum flow_kind { FLOW_ON, FLOW_END, FLOW_END_AFTER_SLOT };

static int flow_arm(uint32_t w)
{
	uint32_t cond = w >> 28, op;

	if ((w & 0x0e000000) == 0x0a000000)	/* B, BL, BLX (imm) */
		return cond != 0xf && !(w & 0x01000000) ? FLOW_END : FLOW_ON;
	if (cond == 0xf)
		return FLOW_ON;
	if ((w & 0x0ffffff0) == 0x012fff30)	/* BLX (register): a call */
		return FLOW_ON;
	if ((w & 0x0ffffff0) == 0x012fff10 || (w & 0x0ffffff0) == 0x012fff20)	/* BX, BXJ */
		return FLOW_END;
	if ((w & 0x0e108000) == 0x08108000)	/* LDM with the PC: POP {..., pc} */
		return FLOW_END;
	if ((w & 0x0c10f000) == 0x0410f000)	/* LDR pc, [...] */
		return FLOW_END;
	if ((w & 0x0ff000f0) == 0x07f000f0)	/* UDF: BUG() */
		return FLOW_END;
	if ((w & 0x0c00f000) == 0x0000f000 && (w & 0x0f900000) != 0x01000000) {
		/* data processing into the PC (MOV pc, lr; ADD pc, ...), not TST..CMN */
		op = (w >> 21) & 0xf;
		if (op < 8 || op > 11)
			return FLOW_END;
	}
	return FLOW_ON;
}

static int flow_aarch64(uint32_t w)
{
	if ((w & 0xfc000000) == 0x14000000 ||	/* B */
	    (w & 0xff000010) == 0x54000000 ||	/* B.cond */
	    (w & 0x7e000000) == 0x34000000 ||	/* CBZ, CBNZ */
	    (w & 0x7e000000) == 0x36000000 ||	/* TBZ, TBNZ */
	    (w & 0xfffffc1f) == 0xd61f0000 ||	/* BR */
	    (w & 0xfffffc1f) == 0xd65f0000 ||	/* RET */
	    w == 0xd69f03e0 ||			/* ERET */
	    (w & 0xffe0001f) == 0xd4200000)	/* BRK: BUG() */
		return FLOW_END;
	return FLOW_ON;		/* BL, BLR: calls */
}

static int flow_mips(uint32_t w)
{
	uint32_t op = w >> 26, rt = (w >> 16) & 0x1f, rs = (w >> 21) & 0x1f;

	switch (op) {
	case 0:			/* SPECIAL: JR ends, JALR calls */
		return (w & 0x3f) == 8 ? FLOW_END_AFTER_SLOT : FLOW_ON;
	case 1:			/* REGIMM: BLTZ, BGEZ (and -L); BLTZAL, BGEZAL call */
		return rt <= 3 ? FLOW_END_AFTER_SLOT : FLOW_ON;
	case 2:			/* J */
	case 4: case 5: case 6: case 7:		/* BEQ, BNE, BLEZ, BGTZ */
	case 20: case 21: case 22: case 23:	/* the likely forms */
		return FLOW_END_AFTER_SLOT;
	case 16:		/* COP0: ERET */
		return w == 0x42000018 ? FLOW_END : FLOW_ON;
	case 17:		/* COP1: BC1F, BC1T */
		return rs == 8 ? FLOW_END_AFTER_SLOT : FLOW_ON;
	default:
		return FLOW_ON;	/* JAL calls */
	}
}

static uint32_t word_at(const struct cachepin_flow *fl, const uint8_t *p)
{
	if (fl->bin->big_endian)
		return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* The walker of the fixed-width sets: every 4-byte word through fl->decode. */
static void walk_fixed(const struct cachepin_flow *fl, const uint8_t *code, uint64_t size,
		       uint64_t vma, cachepin_flow_fn fn, void *arg)
{
	uint64_t k;

	for (k = 0; k + 4 <= size; k += 4) {
		int kind = fl->decode(word_at(fl, code + k));

		if (kind != FLOW_ON)
			fn(k, 4, kind == FLOW_END_AFTER_SLOT, arg);
	}
}

int cachepin_flow__open(struct cachepin_flow *fl, const struct cachepin_binary *bin)
{
	*fl = (struct cachepin_flow){ .bin = bin, .fd = -1, .walk = walk_fixed, .align = 4 };
	switch (bin->machine) {
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
	case EM_386:
	case EM_X86_64:
		if (flow_x86_open(fl))
			return -ENOTSUP;
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

int cachepin_flow__walk(const struct cachepin_flow *fl, const struct cachepin_func *f,
			uint64_t max, cachepin_flow_fn fn, void *arg)
{
	const struct cachepin_binary *bin = fl->bin;
	const struct cachepin_section *sec;
	uint64_t size = f->size, off;
	uint8_t *code;
	ssize_t got;

	if (!cachepin_flow__decodes(fl))
		return -ENOTSUP;
	if (f->sec < 0 || (size_t)f->sec >= bin->nr_secs || (f->flags & CACHEPIN_FUNC_THUMB) ||
	    (f->addr & (fl->align - 1)) || !size)
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
	fl->walk(fl, code, size, f->addr, fn, arg);
	free(code);
	return 0;
}

struct ends_arg {
	uint8_t *ends;
	uint32_t gran;
	uint64_t size;
};

/* The last byte of the run's last instruction (its delay slot's, after a MIPS branch). */
static void mark_end(uint64_t off, uint32_t len, bool after_slot, void *arg)
{
	struct ends_arg *e = arg;
	uint64_t in;

	if (after_slot && off + len < e->size)
		off += len;	/* the slot is as long as the branch */
	if (off + len - 1 < e->size)
		off += len - 1;
	in = off % e->gran + 1;
	e->ends[off / e->gran] = (uint8_t)(in > 255 ? 255 : in);
}

int cachepin_flow__ends(const struct cachepin_flow *fl, const struct cachepin_func *f,
			uint32_t gran, uint64_t nslot, uint8_t *ends)
{
	struct ends_arg e = { ends, gran, f->size < nslot * gran ? f->size : nslot * gran };

	memset(ends, 0, nslot);
	return cachepin_flow__walk(fl, f, nslot * gran, mark_end, &e);
}
