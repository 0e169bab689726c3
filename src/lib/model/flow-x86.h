/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * x86 straight-line code through libopcodes (flow-x86.c), for flow.c.
 */
#ifndef CACHEPIN_FLOW_X86_H
#define CACHEPIN_FLOW_X86_H

#include "flow.h"

/* FL's x86 disassembler (FL->bin's class) and its walker: 0 or -ENOTSUP. */
int flow_x86_open(struct cachepin_flow *fl);

#endif
