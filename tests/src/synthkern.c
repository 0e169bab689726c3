// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The smallest "kernel" perf-synth takes: a dozen functions of 8 bytes
 * and more, and start_kernel.  Link it with _text at the start of .text:
 *   gcc -O2 -nostdlib -static -no-pie -Wl,--defsym=_text=0x401000 \
 *       -Wl,-e,start_kernel -o synthkern synthkern.c
 */
#define F(n) __attribute__((noinline)) int f##n(int x) { return x * n + (x >> 3) - n; }

F(1) F(2) F(3) F(4) F(5) F(6) F(7) F(8) F(9) F(10) F(11) F(12)

int start_kernel(void)
{
	return f1(1) + f2(2) + f3(3);
}
