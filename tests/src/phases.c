// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A program that does three things in turn, each for a few
 * milliseconds of CPU, over and over: a recording of it holds every
 * phase in every stretch of its time, and one slice per phase when
 * grouped by what the samples hit.  A phase is a count of work, not a
 * stretch of the clock, so that a busy machine gives the recording as
 * many samples (cpu-clock counts the CPU time the program gets).
 * Usage: phases [ROUNDS [BLOCKS]]  (a block is 2000 dependent
 * multiply-adds, about 2 us)
 */
#include <stdlib.h>

volatile unsigned long sink;

#define PHASE(name, mul)                                                        \
	__attribute__((noinline)) void name(unsigned long blocks)              \
	{                                                                       \
		unsigned long x = sink, b, i;                                   \
		for (b = 0; b < blocks; b++)                                    \
			for (i = 0; i < 2000; i++)                              \
				x = x * (mul) + 1442695040888963407UL;          \
		sink = x;                                                       \
	}

PHASE(parse, 6364136223846793005UL)
PHASE(optimise, 2862933555777941757UL)
PHASE(emit, 3202034522624059733UL)

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 25, r;
	unsigned long blocks = argc > 2 ? strtoul(argv[2], NULL, 10) : 14000;

	for (r = 0; r < rounds; r++) {
		parse(blocks);
		optimise(blocks);
		emit(blocks);
	}
	return 0;
}
