// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A CPU-bound program with a known cost profile for perf tests: leaf
 * functions take roughly 40/25/15/10/5 % of the run, reached through a
 * call tree three levels deep.  Runs about one second; an optional
 * argument scales the amount of work (100 = default).
 */
#include <stdlib.h>

static volatile unsigned long sink;

#define NOINLINE __attribute__((noinline))

static NOINLINE unsigned long spin(unsigned long n, unsigned long seed)
{
	unsigned long x = seed;

	while (n--)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

static NOINLINE void leaf_40(unsigned long n) { sink += spin(40 * n, 1); }
static NOINLINE void leaf_25(unsigned long n) { sink += spin(25 * n, 2); }
static NOINLINE void leaf_15(unsigned long n) { sink += spin(15 * n, 3); }
static NOINLINE void leaf_10(unsigned long n) { sink += spin(10 * n, 4); }
static NOINLINE void leaf_5(unsigned long n) { sink += spin(5 * n, 5); }

static NOINLINE void mid_a(unsigned long n)
{
	leaf_40(n);
	leaf_15(n);
}

static NOINLINE void mid_b(unsigned long n)
{
	leaf_25(n);
	leaf_10(n);
	leaf_5(n);
}

static NOINLINE void top(unsigned long n)
{
	mid_a(n);
	mid_b(n);
}

int main(int argc, char **argv)
{
	unsigned long scale = argc > 1 ? strtoul(argv[1], NULL, 0) : 100;
	unsigned long i, rounds = 3 * scale;

	for (i = 0; i < rounds; i++)
		top(30000);
	return (int)(sink & 0);
}
