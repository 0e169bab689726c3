// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * CPU-bound work for the text-input tests: four leaf functions whose
 * costs are about 8:4:2:1, called through two levels of callers, for
 * about a second in all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define noinline __attribute__((noinline))

static volatile unsigned long sink;

/* The loop is a macro so that each leaf spends the time itself. */
#define SPIN(n, x) do { \
	unsigned long i_; \
	for (i_ = 0; i_ < (n); i_++) { \
		(x) = (x) * 6364136223846793005UL + 1442695040888963407UL; \
		__asm__ volatile("" : "+r"(x)); \
	} \
} while (0)

noinline unsigned long work_heavy(unsigned long n)
{
	unsigned long x = n;

	SPIN(8 * n, x);
	return x;
}

noinline unsigned long work_medium(unsigned long n)
{
	unsigned long x = n + 1;

	SPIN(4 * n, x);
	return x;
}

noinline unsigned long work_light(unsigned long n)
{
	unsigned long x = n + 2;

	SPIN(2 * n, x);
	return x;
}

noinline unsigned long work_tiny(unsigned long n)
{
	unsigned long x = n + 3;

	SPIN(n, x);
	return x;
}

noinline unsigned long stage_one(unsigned long n)
{
	return work_heavy(n) ^ work_medium(n);
}

noinline unsigned long stage_two(unsigned long n)
{
	return work_light(n) ^ work_tiny(n);
}

/* Some time in the kernel, so that every recording has kernel frames. */
noinline void in_kernel(void)
{
	int i;

	for (i = 0; i < 200000; i++)
		sink += (unsigned long)getppid();
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 200000;
	int round;

	in_kernel();
	for (round = 0; round < 260; round++)
		sink += stage_one(n) + stage_two(n);
	printf("%lu\n", sink);
	return 0;
}
