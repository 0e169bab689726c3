/*
 * jitwork: runs code it wrote into anonymous memory, as a JIT does
 * (x86-64 only): a count-down loop of about 2^26 iterations, called until
 * argv[1] (default 20) calls are done.  The code is written, then moved
 * (mremap) and made executable, so the map's page offset is not its
 * address, as with a JIT that reuses memory.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int main(int argc, char **argv)
{
	/* mov ecx, 0x4000000; 1: dec ecx; jnz 1b; ret */
	static const unsigned char code[] = {
		0xb9, 0x00, 0x00, 0x00, 0x04, 0xff, 0xc9, 0x75, 0xfc, 0xc3,
	};
	int n = argc > 1 ? atoi(argv[1]) : 20;
	void (*fn)(void);
	void *mem, *to;

	mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	to = mmap(NULL, 1 << 20, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED || to == MAP_FAILED)
		goto fail;
	memcpy(mem, code, sizeof(code));
	to = (char *)to + (512 << 10);
	mem = mremap(mem, 4096, 4096, MREMAP_MAYMOVE | MREMAP_FIXED, to);
	if (mem == MAP_FAILED || mprotect(mem, 4096, PROT_READ | PROT_EXEC))
		goto fail;
	fn = (void (*)(void))mem;
	while (n-- > 0)
		fn();
	return 0;
fail:
	perror("jitwork");
	return 1;
}
