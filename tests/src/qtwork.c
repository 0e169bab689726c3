// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * qtwork: functions whose executed instruction counts are known, for the
 * QEMU trace tests.  spin_a and spin_b each run one loop of SPIN_INSNS
 * instructions per iteration (2 on x86-64, ARM and Thumb, 3 on MIPS with
 * its delay slot), N times a call, plus their entry and return; driver
 * calls spin_a(4 * N) and spin_b(N) ten times each.
 *
 *   qtwork N
 */
#include <stdlib.h>

#if defined(__x86_64__)
#define SPIN(n) __asm__ volatile("1:\tdec %0\n\tjnz 1b" : "+r"(n) : : "cc")
#elif defined(__arm__)
#define SPIN(n) __asm__ volatile("1:\tsubs %0, %0, #1\n\tbne 1b" : "+r"(n) : : "cc")
#elif defined(__mips__)
#define SPIN(n) __asm__ volatile(".set push\n\t.set noreorder\n1:\taddiu %0, %0, -1\n\t" \
				 "bnez %0, 1b\n\tnop\n\t.set pop" : "+r"(n))
#else
#error "no spin loop for this target"
#endif

volatile unsigned int qtwork_sink;

__attribute__((noinline, noclone)) void spin_a(unsigned int n)
{
	SPIN(n);
	qtwork_sink = n;
}

__attribute__((noinline, noclone)) void spin_b(unsigned int n)
{
	SPIN(n);
	qtwork_sink = n + 1;
}

__attribute__((noinline, noclone)) void driver(unsigned int n)
{
	int i;

	for (i = 0; i < 10; i++) {
		spin_a(4 * n);
		spin_b(n);
	}
}

int main(int argc, char **argv)
{
	driver(argc > 1 ? (unsigned int)atoi(argv[1]) : 1000);
	return 0;
}
