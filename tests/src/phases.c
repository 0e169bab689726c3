// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A program that does three things in turn, each for a few
 * milliseconds, over and over: a recording of it holds every phase in
 * every stretch of its time, and one slice per phase when grouped by
 * what the samples hit.  Usage: phases [ROUNDS [MS]]
 */
#include <stdlib.h>
#include <time.h>

volatile unsigned long sink;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* spin in its own loop until MS milliseconds have passed */
#define PHASE(name, mul)                                                        \
	__attribute__((noinline)) void name(double ms)                         \
	{                                                                       \
		double end = now_ms() + ms;                                     \
		unsigned long x = sink, i;                                      \
		while (now_ms() < end)                                          \
			for (i = 0; i < 2000; i++)                              \
				x = x * (mul) + 1442695040888963407UL;          \
		sink = x;                                                       \
	}

PHASE(parse, 6364136223846793005UL)
PHASE(optimise, 2862933555777941757UL)
PHASE(emit, 3202034522624059733UL)

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 40, r;
	double ms = argc > 2 ? atof(argv[2]) : 15;

	for (r = 0; r < rounds; r++) {
		parse(ms);
		optimise(ms);
		emit(ms);
	}
	return 0;
}
