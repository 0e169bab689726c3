#!/bin/sh
# plan --traced: a QEMU log recorded on one link of a program plans another link of the same objects as the other link's own log does; fetches of functions the planned binary does not hold by name and size are left out, and said; --traced takes only a log.
. "$(dirname "$0")/test-subr.sh"
need_cmd qemu-x86_64 gcc awk cmp

qtrace() {
	env -i "$@" > /dev/null || fail "'$*' failed"
}

# twelve hot functions called in turn, each linked a 4 KiB way span of
# 16K:4:32 after the one before (a cold function between them), so that
# all of them share sets; the cold ones run now and then
cat > p.c <<'EOF'
#include <stdlib.h>
#define BODY(n) __asm__ volatile(".rept " #n "\n\tlea 1(%%rax), %%rax\n\t.endr" : : : "rax")
#define HOT(i) __attribute__((noinline)) void hot##i(void) { BODY(90); }
#define COLD(i) __attribute__((noinline)) void cold##i(void) { BODY(931); }
HOT(0) COLD(0) HOT(1) COLD(1) HOT(2) COLD(2) HOT(3) COLD(3) HOT(4) COLD(4) HOT(5) COLD(5)
HOT(6) COLD(6) HOT(7) COLD(7) HOT(8) COLD(8) HOT(9) COLD(9) HOT(10) COLD(10) HOT(11)
int main(int argc, char **argv)
{
	int n = atoi(argv[1]), i;

	for (i = 0; i < n; i++) {
		hot0(); hot1(); hot2(); hot3(); hot4(); hot5();
		hot6(); hot7(); hot8(); hot9(); hot10(); hot11();
		if (!(i % 50)) {
			cold0(); cold1(); cold2();
		}
	}
	return 0;
}
EOF
gcc -O1 -ffunction-sections -fdebug-prefix-map="$PWD"=. -c -o p.o p.c || fail "cannot compile p.c"
# two links of the same object: the default order, and sections by name
gcc -no-pie -o a p.o -Wl,-Map=a.map || fail "cannot link a"
gcc -no-pie -o b p.o -Wl,-Map=b.map -Wl,--sort-section=name || fail "cannot link b"
[ "$(nm a | awk '$3 == "hot3" { print $1 }')" != "$(nm b | awk '$3 == "hot3" { print $1 }')" ] ||
	fail "the two links put hot3 at the same address"
qtrace qemu-x86_64 -d in_asm,exec,nochain -D a.log ./a 400
qtrace qemu-x86_64 -d in_asm,exec,nochain -D b.log ./b 400

# b planned from a's log equals b planned from its own
$CACHEPIN plan -c 16K:4:32 -m b.map --standalone -o own.lds b b.log > /dev/null 2> own.err ||
	{ cat own.err >&2; fail "plan from b's own log failed"; }
$CACHEPIN plan -c 16K:4:32 -m b.map --standalone --traced a -o traced.lds b a.log > /dev/null 2> traced.err ||
	{ cat traced.err >&2; fail "plan --traced failed"; }
body() { grep -v '^#' "$1"; }
body own.align > own.body
body traced.align > traced.body
cmp -s own.body traced.body || { diff own.body traced.body | head >&2; fail "b's plans from the two logs differ"; }
# the fragments' headers name each log's profile by its digest, which
# differs where the two links' runs split blocks at other addresses
body own.lds | sed 's/; profile [0-9a-f]*$//' > own.lbody
body traced.lds | sed 's/; profile [0-9a-f]*$//' > traced.lbody
cmp -s own.lbody traced.lbody || fail "b's fragments from the two logs differ"
grep -q '^hot hot3 ' traced.align || fail "hot3 is not planned"

# a link where hot3 is longer: its fetches in a's log are left out
sed 's/HOT(3) COLD(3)/__attribute__((noinline)) void hot3(void) { BODY(120); } COLD(3)/' p.c > q.c
gcc -O1 -ffunction-sections -c -o q.o q.c || fail "cannot compile q.c"
gcc -no-pie -o c q.o -Wl,-Map=c.map || fail "cannot link c"
$CACHEPIN plan -c 16K:4:32 -m c.map --standalone --traced a -o c.lds c a.log > /dev/null 2> c.err ||
	{ cat c.err >&2; fail "plan --traced of c failed"; }
testrun_compare sed -n 1p c.err <<'EOF'
cachepin: warning: 'a.log': 7.8 % of the fetches of 'a' are in functions 'c' does not hold by that name and size; they are left out
EOF
grep -q '^hot hot3 ' c.align && fail "hot3 of c is planned from fetches of another hot3"

# --traced takes a QEMU log only
$CACHEPIN profile --user -o a.profile a a.log 2> /dev/null || fail "profile of a's log failed"
$CACHEPIN plan -c 16K:4:32 -m b.map --traced a -o x.lds b a.profile > /dev/null 2> x.err &&
	fail "plan --traced of a profile succeeded"
testrun_compare cat x.err <<'EOF'
cachepin: 'a.profile': --traced is for a QEMU log, and this is another input
EOF
[ ! -e x.lds ] || fail "a failed plan --traced wrote x.lds"
# and never writes over the binary it names
cp a a.keep
$CACHEPIN plan -c 16K:4:32 -m b.map --traced a -o a b a.log > /dev/null 2>&1 &&
	fail "plan wrote its fragment over the --traced binary"
cmp -s a a.keep || fail "plan changed the --traced binary"
exit 0
