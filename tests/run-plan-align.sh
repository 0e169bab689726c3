#!/bin/sh
# A multi-object, dynamically linked program planned with and without --objects, relinked, checked: no unit moved, a real move reported.
. "$(dirname "$0")/test-subr.sh"
need_cmd gcc perf readelf
[ "$(uname -m)" = x86_64 ] || skip "the expected layouts are x86-64's"

# functions of many sizes; gcc aligns -O2 code to 16, -Os code and the
# cold functions (.text.unlikely.*) to 1, so the map's addresses overstate
# most alignments
cat > main.c <<'EOF'
#include <stdlib.h>
unsigned long work_a(unsigned long);
unsigned long work_b(unsigned long);
unsigned long tiny(unsigned long);
unsigned long c3(unsigned long);
void report(unsigned long);
int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], 0, 0) : 20000000, s = 0, i;

	for (i = 0; i < n; i++)
		s += work_a(i) + work_b(i) + tiny(i) + c3(i & 7);
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
unsigned long unused_a1(unsigned long x) { if (x == 7) fail_a("seven"); return x * x + 5; }
unsigned long unused_a2(unsigned long x) { unsigned long s = 0; while (x) { s += x % 10; x /= 10; } return s; }
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
__attribute__((cold, noinline)) void fail_b(int c) { fprintf(stderr, "bad %d\n", c); }
__attribute__((cold)) int cold_b2(int c) { if (c) fail_b(c); return c + 2; }
void report(unsigned long s) { printf("%lu\n", s & 1); }
int unused_b(int a, int b) { return a / (b | 1) + cold_b2(a); }
EOF
cat > c.c <<'EOF'
unsigned long c1(unsigned long x) { return x + 11; }
unsigned long c2(unsigned long x) { return x * 13; }
unsigned long c3(unsigned long x) { unsigned long s = 0; int i; for (i = 0; i < (int)x; i++) s += i * x; return s; }
__attribute__((cold)) unsigned long c4(unsigned long x) { return x - 1; }
EOF
for f in main a b; do gcc -O2 -ffunction-sections -c $f.c || fail "cannot compile $f.c"; done
gcc -Os -ffunction-sections -c c.c || fail "cannot compile c.c"
OBJS="main.o a.o b.o c.o"
gcc -Wl,-Map=prog.map -o prog $OBJS || fail "link failed"
readelf -SW a.o | grep -q ' \.text\.unlikely\.fail_a .* 1$' || fail "a.o: .text.unlikely.fail_a is not aligned to 1"
readelf -SW c.o | grep -q ' \.text\.c2 .* 1$' || fail "c.o: .text.c2 is not aligned to 1"

cat > hot.txt <<'EOF'
work_a 5000
work_b 4000
tiny 3000
main 1000
c3 500
EOF

# relink with plan TAG's fragment and check it; the block start is the
# relinked binary's __cachepin_start
relink() {
	gcc -Wl,-T,$1.lds -o $1.new $OBJS || fail "$1: relink failed"
	start=$(nm $1.new | awk '$3 == "__cachepin_start" { print $1 }' | sed 's/^0*//')
	[ -n "$start" ] || fail "$1: no __cachepin_start"
}

# from the map alone: the alignments are the map's guesses, and the
# fragment pins every fill unit the plan puts after padding
$CACHEPIN plan --growth 0 --map prog.map -c 4K:2:64 --standalone -o map.lds prog hot.txt 2>/dev/null ||
	fail "plan from the map failed"
testrun_compare awk '$1 == "hot" || $1 == "fill" { print $1, $2, $4, $5, $6 }' map.align <<'EOF'
hot tiny .text.tiny 0x0 16
fill fail_b .text.unlikely.fail_b 0x8 8
fill report .text.report 0x20 16
fill c2 .text.c2 0x34 1
hot work_a .text.work_a 0x40 64
fill cold_b2 .text.unlikely.cold_b2 0x6e 1
hot work_b .text.work_b 0x80 32
fill unused_a1.cold .text.unlikely.unused_a1 0xa7 1
fill c1 .text.c1 0xb4 4
hot c3 .text.c3 0xc0 2
fill c4 .text.unlikely.c4 0xd8 4
hot main .text.startup.main 0xe0 16
EOF
relink map
testrun_compare $CACHEPIN check -v map.new map.align <<EOF
block start 0x$start, aligned to 2048
ok: 12 of 12 units at their planned offsets; 0 fill units moved (cold code, -v lists them)
EOF

# with the objects: their sh_addralign, as readelf gives it
$CACHEPIN plan --growth 0 --map prog.map $(for o in $OBJS; do echo --objects $o; done) -c 4K:2:64 \
	--standalone -o obj.lds prog hot.txt 2>/dev/null || fail "plan with --objects failed"
testrun_compare awk '$1 == "hot" || $1 == "fill" { print $1, $2, $4, $5, $6 }' obj.align <<'EOF'
hot tiny .text.tiny 0x0 16
fill c2 .text.c2 0x6 1
fill c1 .text.c1 0xb 1
hot work_a .text.work_a 0x10 16
hot work_b .text.work_b 0x40 16
fill c4 .text.unlikely.c4 0x67 1
hot c3 .text.c3 0x70 1
fill fail_a .text.unlikely.fail_a 0x85 1
hot main .text.startup.main 0x90 16
EOF
awk '$1 == "hot" || $1 == "fill" { print $3, $4, $6 }' obj.align | while read o s a; do
	readelf -SW $o | awk -v s=$s -v a=$a -v o=$o '$2 == s || $3 == s {
		if ($NF != a) { print o ": " s " aligned to " $NF ", planned at " a; exit 1 } }' || exit 1
done || fail "an alignment of the plan is not the object's"
relink obj
testrun_compare $CACHEPIN check -v obj.new obj.align <<EOF
block start 0x$start, aligned to 2048
ok: 9 of 9 units at their planned offsets; 0 fill units moved (cold code, -v lists them)
EOF

# a real move is still seen: a fill unit without its pin, a hot unit one
# line later
sed '/__cachepin_start + 0xd8);/d' map.lds > fillmoved.lds
relink fillmoved
testrun_compare $CACHEPIN check -v fillmoved.new map.align <<EOF
block start 0x$start, aligned to 2048
note: fill moved: fill c4 planned +0xd8 (set 3), now +0xd5 (set 3)
ok: 11 of 12 units at their planned offsets; 1 fill units moved (cold code, -v lists them)
EOF
sed 's/__cachepin_start + 0x70);/__cachepin_start + 0xb0);/' obj.lds > hotmoved.lds
relink hotmoved
if $CACHEPIN check hotmoved.new obj.align > hotmoved.out; then fail "a moved hot unit passed"; fi
testrun_compare cat hotmoved.out <<EOF
block start 0x$start, aligned to 2048
moved after: fill c4, at its planned offset +0x67 (it grew past its room, or the link put other code after it)
moved: hot c3 planned +0x70 (set 1), now +0xb0 (set 2)
moved: hot main planned +0x90 (set 2), now +0xd0 (set 3)
FAILED: 6 of 9 units in place, 2 hot moved, 0 missing
EOF

# a recorded profile, with the objects: every unit where the plan put it
perf_record perf.data ./prog
$CACHEPIN plan --growth 0 --map prog.map $(for o in $OBJS; do echo --objects $o; done) -c 4K:2:64 \
	--standalone -o perf.lds prog perf.data 2>plan.err || { cat plan.err; fail "plan of perf.data failed"; }
n=$(awk '$1 == "end" { print $2 + $3 }' perf.align)
[ "${n:-0}" -gt 0 ] || fail "the plan of perf.data has no units"
relink perf
testrun_compare $CACHEPIN check -v perf.new perf.align <<EOF
block start 0x$start, aligned to 2048
ok: $n of $n units at their planned offsets; 0 fill units moved (cold code, -v lists them)
EOF
exit 0
