// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Test program for the binary readers: several functions in their own
 * sections (-ffunction-sections), a static function whose name also
 * exists in multi2.c, a GCC clone of a function with a constant argument,
 * and two assembly labels without a symbol type in plain .text.
 */
volatile int sink;

int hot_a(int x);
int hot_b(int x);
int other_helper(int x);
int asm_entry(void);

/* Same name as the one in multi2.c: two functions, DUPNAME. */
static __attribute__((noinline)) int helper(int x)
{
	sink = x;
	return x * 7 + sink;
}

/*
 * Called with k == 3 only: at -O2 GCC makes a clone without k
 * ("scale.constprop.0"); noinline keeps it out of its callers.
 */
static __attribute__((noinline)) int scale(int x, int k)
{
	int i, r = 0;

	for (i = 0; i < x; i++) {
		r += i * k + sink;
		sink = r ^ i;
		r = (r << 3) ^ (r >> 2) ^ k;
		sink = r + k * i;
		r += sink * k;
	}
	return r;
}

__attribute__((noinline)) int hot_a(int x)
{
	return scale(x, 3) + 1;
}

__attribute__((noinline)) int hot_b(int x)
{
	return scale(x + 1, 3) + helper(x);
}

/* Two code labels with no .type (assembly ENTRY() style). */
#if defined(__aarch64__)
asm(".text\n.globl asm_entry\n.p2align 2\nasm_entry:\n\tmov x0, #1\n\tret\n"
    ".globl asm_second\nasm_second:\n\tmov x0, #2\n\tret\n");
#elif defined(__arm__)
asm(".text\n.arm\n.globl asm_entry\n.p2align 2\nasm_entry:\n\tmov r0, #1\n\tbx lr\n"
    ".globl asm_second\nasm_second:\n\tmov r0, #2\n\tbx lr\n");
#elif defined(__mips__)
asm(".text\n.set push\n.set noreorder\n.globl asm_entry\n.p2align 2\nasm_entry:\n"
    "\tjr $31\n\tli $2, 1\n.globl asm_second\nasm_second:\n\tjr $31\n\tli $2, 2\n.set pop\n");
#elif defined(__x86_64__)
asm(".text\n.globl asm_entry\n.p2align 4\nasm_entry:\n\tmovl $1, %eax\n\tret\n"
    ".globl asm_second\nasm_second:\n\tmovl $2, %eax\n\tret\n");
#endif

int main(int argc, char **argv)
{
	int r = 0;

	(void)argv;
	r += hot_a(argc);
	r += hot_a(argc + 2);
	r += hot_b(argc);
	r += helper(argc);
	r += other_helper(argc);
	r += asm_entry();
	return r & 1;
}
