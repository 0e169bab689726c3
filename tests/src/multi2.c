// SPDX-License-Identifier: GPL-2.0-or-later
/* Second file of the multi test program: another static helper(). */
extern volatile int sink;

int other_helper(int x);
int cold_path(int x);

/* Always inlined: its code in other_helper() is "inlined" in the DWARF. */
static inline __attribute__((always_inline)) int mix(int x)
{
	int r = x;

	r ^= sink << 3;
	sink = r;
	r += sink * 9;
	return r;
}

static __attribute__((noinline)) int helper(int x)
{
	sink = x + 1;
	return x * 5 - sink;
}

__attribute__((noinline)) int cold_path(int x)
{
	return helper(x) * 3;
}

__attribute__((noinline)) int other_helper(int x)
{
	if (x > 100)
		return cold_path(x);
	return helper(x) + mix(helper(x + 1));
}
