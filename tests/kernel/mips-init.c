/*
 * /init of the MIPS boot check: says that user space ran, then exits (the
 * kernel panics when init exits, and panic=-1 with QEMU's -no-reboot ends
 * the run).
 */
#include <stdio.h>
#include <sys/utsname.h>

int main(void)
{
	struct utsname u;

	if (uname(&u) == 0)
		printf("LAB: mips init ran on %s %s %s\n", u.sysname, u.release,
		       u.machine);
	else
		printf("LAB: mips init ran\n");
	fflush(stdout);
	return 0;
}
