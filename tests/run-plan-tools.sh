#!/bin/sh
# A program relinked with a --standalone plan: cachegrind, callgrind, gdb and addr2line name the planned functions and their files.
. "$(dirname "$0")/test-subr.sh"
need_cmd gcc valgrind cg_annotate callgrind_annotate gdb addr2line
[ "$(uname -m)" = x86_64 ] || skip "valgrind runs the program natively"

cat > main.c <<'EOF'
#include <stdlib.h>
unsigned long work_a(unsigned long);
unsigned long work_b(unsigned long);
unsigned long tiny(unsigned long);
void report(unsigned long);
int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], 0, 0) : 1000, s = 0, i;

	for (i = 0; i < n; i++)
		s += work_a(i) + work_b(i) + tiny(i);
	report(s);
	return 0;
}
EOF
cat > a.c <<'EOF'
unsigned long tiny(unsigned long x) { return x * 3 + 1; }
static unsigned long mix(unsigned long x) { return (x ^ (x >> 7)) * 0x9e3779b97f4a7c15ul; }
unsigned long work_a(unsigned long x)
{
	unsigned long s = 0;
	int i;

	for (i = 0; i < 8; i++)
		s += mix(x + i);
	return s;
}
__attribute__((cold, noinline)) void fail_a(const char *m) { __builtin_puts(m); __builtin_abort(); }
EOF
cat > b.c <<'EOF'
#include <stdio.h>
unsigned long work_b(unsigned long x)
{
	unsigned long s = x;
	int i;

	for (i = 0; i < 5; i++)
		s = s * 31 + (s >> 3);
	return s;
}
void report(unsigned long s) { printf("%lu\n", s & 1); }
EOF
# the source files named as in the test directory, not by its path
for f in main a b; do
	gcc -g -O2 -ffunction-sections -fdebug-prefix-map="$PWD"=. -c $f.c || fail "cannot compile $f.c"
done
OBJS="main.o a.o b.o"
gcc -Wl,-Map=prog.map -o prog $OBJS || fail "link failed"
printf 'work_a 5000\nwork_b 4000\ntiny 3000\nmain 1000\n' > hot.txt
$CACHEPIN plan --growth 0 --map prog.map -c 4K:2:64 --standalone -o prog.lds prog hot.txt 2>/dev/null ||
	fail "plan failed"
gcc -Wl,-T,prog.lds -o prog.new $OBJS || fail "relink failed"
$CACHEPIN check -q prog.new prog.align > check.out || { cat check.out; fail "check failed"; }
awk '$1 == "hot" { print $2 }' prog.align | sort > hot.funcs
testrun_compare cat hot.funcs <<'EOF'
main
tiny
work_a
work_b
EOF

# file:function of the planned functions, as cachegrind and callgrind
# (with the object) attribute them
valgrind -q --tool=cachegrind --cache-sim=yes --cachegrind-out-file=cg.out ./prog.new 2000 \
	> /dev/null 2> cg.err || { cat cg.err; fail "cachegrind failed"; }
cg_annotate --auto=no cg.out > cg.txt || fail "cg_annotate failed"
# FILE:FUNCTION fields naming a planned function (the last field of
# cg_annotate's function lines, the one before the object in callgrind's)
named() {
	awk -v k=$1 'NR == FNR { h[$1]; next }
		     NF > k && (!k || $NF ~ /^\[/) { f = $(NF - k); n = split(f, p, ":"); if (n == 2 && (p[2] in h)) print f, (k ? $NF : "") }' hot.funcs - |
		sed 's/\[.*\//[/' | sort -u
}
named 0 < cg.txt > cg.names
testrun_compare cat cg.names <<'EOF'
././a.c:tiny 
././a.c:work_a 
././b.c:work_b 
././main.c:main 
EOF
valgrind -q --tool=callgrind --callgrind-out-file=cl.out ./prog.new 2000 > /dev/null 2> cl.err ||
	{ cat cl.err; fail "callgrind failed"; }
callgrind_annotate --auto=no cl.out > cl.txt || fail "callgrind_annotate failed"
named 1 < cl.txt > cl.names
testrun_compare cat cl.names <<'EOF'
././a.c:tiny [prog.new]
././a.c:work_a [prog.new]
././b.c:work_b [prog.new]
././main.c:main [prog.new]
EOF

# gdb finds them in .text, addr2line their lines
for f in $(cat hot.funcs); do echo "-ex 'info symbol $f'"; done | xargs gdb -batch -nx prog.new > gdb.out 2>&1 ||
	{ cat gdb.out; fail "gdb failed"; }
testrun_compare cat gdb.out <<'EOF'
main in section .text
tiny in section .text
work_a in section .text
work_b in section .text
EOF
# (with what is inlined at each function's first instruction)
for f in $(cat hot.funcs); do
	a=$(nm prog.new | awk -v f=$f '$3 == f { print "0x" $1 }')
	addr2line -f -i -e prog.new $a | paste -s -d ' '
done > a2l.out
testrun_compare cat a2l.out <<'EOF'
main ././main.c:7
tiny ././a.c:1
mix ././a.c:2 work_a ././a.c:9
work_b ././b.c:3
EOF
exit 0
