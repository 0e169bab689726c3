#!/bin/sh
# The bench's peer orders (bench/lib/order.sh): a function GCC split into hot and cold parts is placed by its hot part.
. "$(dirname "$0")/test-subr.sh"
need_cmd gcc awk
. "$top/bench/lib/order.sh"

# GCC splits main (.text.startup.main and its cold part in
# .text.unlikely.main); rare is cold whole
cat > s.c <<'EOF2'
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) int work(int x)
{
	if (__builtin_expect(x < 0, 0)) {
		fprintf(stderr, "bad %d\n", x);
		fprintf(stderr, "bad %d\n", x * 2);
		abort();
	}
	return x * 3 + 1;
}
__attribute__((cold, noinline)) void rare(void) { puts("rare"); }
int main(int argc, char **argv)
{
	int s = 0;

	for (int i = 0; i < 100; i++)
		s += work(i - argc + 1);
	if (argc > 5)
		rare();
	return s & 1;
}
EOF2
gcc -O2 -ffunction-sections -c -o s.o s.c || fail "compiling s.c failed"
gcc -o s -Wl,-Map=s.map s.o || fail "linking s failed"
sections s.map > sections.all
testrun_compare grep ' s\.o ' sections.all <<'EOF2'
rare s.o .text.unlikely.rare
main.cold s.o .text.unlikely.main
main s.o .text.startup.main
work s.o .text.work
EOF2
printf 'work -\nrare -\nmain s.o\n' > order
order_lds order sections.all > order.lds
testrun_compare cat order.lds <<'EOF2'
SECTIONS
{
  .text.hot :
  {
    *s.o(.text.work)
    *s.o(.text.unlikely.rare)
    *s.o(.text.startup.main)
  }
}
INSERT BEFORE .text;
EOF2
# the script links, and work's hot part leads the block
gcc -o s2 -Wl,-T,order.lds -Wl,-Map=s2.map s.o 2> ld.err || { cat ld.err >&2; fail "linking with the order failed"; }
[ "$(nm s2 | awk '$3 == "work" { print $1 }')" = "$(awk '$1 == ".text.hot" { print substr($2, 3) }' s2.map)" ] ||
	fail "work is not at the start of .text.hot"
exit 0
