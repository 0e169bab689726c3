/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * x86 straight-line code through libopcodes (flow-x86.c), for flow.c.
 */
#ifndef CACHEPIN_FLOW_X86_H
#define CACHEPIN_FLOW_X86_H

#include "flow.h"

/* FL's x86 disassembler (FL->bin's class): 0 or -ENOTSUP. */
int flow_x86_open(struct cachepin_flow *fl);

/* FL's walker (FL->walk) for x86 code: FN for every jump and return of CODE[0..SIZE) at VMA.  0. */
int flow_x86_walk(const struct cachepin_flow *fl, const uint8_t *code, uint64_t size,
		  uint64_t vma, cachepin_flow_fn fn, void *arg);

#endif
