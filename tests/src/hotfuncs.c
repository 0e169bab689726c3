// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A CPU-bound program with functions of clearly different self cost
 * (about 40/25/15/10/5 %), called through a small dispatch tree, for
 * tests that compare cachepin's attribution with perf report.
 * Usage: hotfuncs [ROUNDS]
 */
#include <stdlib.h>

volatile unsigned long sink;

#define WORK(name, n)                                                   \
	__attribute__((noinline)) void name(unsigned long seed)         \
	{                                                               \
		unsigned long x = seed, i;                              \
		for (i = 0; i < (n) * 1000UL; i++)                      \
			x = x * 6364136223846793005UL + 1442695040888963407UL; \
		sink += x;                                              \
	}

WORK(alpha, 40)
WORK(beta, 25)
WORK(gamma_, 15)
WORK(delta, 10)
WORK(epsilon, 5)

__attribute__((noinline)) void dispatch_a(unsigned long r)
{
	alpha(r);
	gamma_(r);
}

__attribute__((noinline)) void dispatch_b(unsigned long r)
{
	beta(r);
	delta(r);
	epsilon(r);
}

int main(int argc, char **argv)
{
	unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 0) : 8000, r;

	for (r = 0; r < rounds; r++) {
		dispatch_a(r);
		dispatch_b(r);
	}
	return (int)(sink & 1);
}
