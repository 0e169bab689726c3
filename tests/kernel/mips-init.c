/*
 * /init of the MIPS boot check: says that user space ran, with the
 * kernel's release, and waits to be stopped.  No C library: a static glibc
 * uses the FPU, which the lab's tinyconfig kernel does not enable
 * (MIPS_FP_SUPPORT), so its first FP instruction would kill init.
 * Build: mips-linux-gnu-gcc -static -nostdlib -ffreestanding -fno-pic -mno-abicalls -Os
 */
#include <asm/unistd.h>
#include <sys/utsname.h>

static long sys3(long n, long a, long b, long c)
{
	register long v0 asm("$2") = n;
	register long a0 asm("$4") = a;
	register long a1 asm("$5") = b;
	register long a2 asm("$6") = c;
	register long a3 asm("$7");

	asm volatile("syscall"
		     : "+r"(v0), "=r"(a3)
		     : "r"(a0), "r"(a1), "r"(a2)
		     : "$1", "$3", "$8", "$9", "$10", "$11", "$12", "$13", "$14",
		       "$15", "$24", "$25", "hi", "lo", "memory");
	return a3 ? -v0 : v0;
}

static void put(const char *s)
{
	long n = 0;

	while (s[n])
		n++;
	sys3(__NR_write, 1, (long)s, n);
}

void __start(void)
{
	static struct utsname u;

	put("LAB: mips init ran on ");
	if (sys3(__NR_uname, (long)&u, 0, 0) == 0) {
		put(u.sysname);
		put(" ");
		put(u.release);
		put(" ");
		put(u.machine);
	}
	put("\n");
	for (;;)
		sys3(__NR_pause, 0, 0, 0);
}
