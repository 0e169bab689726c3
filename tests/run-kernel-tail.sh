#!/bin/sh
# A kernel's text after TEXT_TEXT (sched, lock text) moves to the block alignment in a relink with the hook: plan colours around it there, check fails a link without that alignment, and where even keep is worse than the link nothing moves.
. "$(dirname "$0")/test-subr.sh"
need_cmd gcc nm awk

# A kernel-like image (it defines start_kernel): four hot movable
# functions (8 KiB, 8 KiB, 8 KiB, 4 KiB), a cold one, and 4 KiB of hot
# sched and lock text that cannot move.  Its script has the hook's
# shape: the plan INCLUDEd at the start of .text and, between the
# general text and the sched text, the end alignment that the kbuild
# patches copy from the plan (empty for the first link).
cat > k.c <<'EOF'
#define BODY(n) __asm__ volatile(".rept " #n "\n\tnop\n\t.endr")
__attribute__((noinline)) int hot_a(int x) { BODY(8150); return x + 1; }
__attribute__((noinline)) int hot_b(int x) { BODY(8150); return x + 2; }
__attribute__((noinline)) int cold_c(int x) { BODY(5001); return x + 3; }
__attribute__((noinline)) int hot_c(int x) { BODY(8150); return x + 3; }
__attribute__((noinline)) int hot_d(int x) { BODY(4000); return x + 3; }
__attribute__((noinline, section(".sched.text"))) int sched_y(int x) { BODY(2000); return x + 5; }
__attribute__((noinline, section(".spinlock.text"))) int lock_x(int x) { BODY(2000); return x + 4; }
void start_kernel(void)
{
	volatile int v = 0;

	for (;;)
		v = hot_a(v) + hot_b(v) + hot_c(v) + hot_d(v) + lock_x(v) + sched_y(v) +
		    (v > 1000 ? cold_c(v) : 0);
}
EOF
cat > kernel.lds <<'EOF'
ENTRY(start_kernel)
SECTIONS
{
	. = 0x400000;
	.text : {
		INCLUDE layout.lds
		*(.text .text.*)
		INCLUDE layout-end.lds
		*(.sched.text)
		*(.spinlock.text)
	}
	.notes : { *(.note.*) }
	/DISCARD/ : { *(.eh_frame) *(.comment) }
}
EOF
link() {	# OUT: link k.o with layout.lds and layout-end.lds
	gcc -nostdlib -static -no-pie -Wl,-T,kernel.lds -Wl,-Map="$1.map" -o "$1" k.o ||
		fail "linking $1 failed"
}
gcc -O2 -ffunction-sections -fno-asynchronous-unwind-tables -c -o k.o k.c || fail "compiling k.c failed"
: > layout.lds
: > layout-end.lds
link k
addr() { nm "$1" | awk -v s="$2" '$3 == s { print $1 }'; }
# the sched text right after the general text, off the 8 KiB way span
[ "$(addr k sched_y)" = 0000000000408350 ] || fail "sched_y at $(addr k sched_y), not 0x408350"

printf '%s@vmlinux %s\n' hot_a 100 hot_b 100 hot_c 100 hot_d 40 lock_x 25 sched_y 25 > hot.txt
$CACHEPIN profile -o k.profile k hot.txt || fail "profile failed"
# a hot list's bare names are the kernel's functions too
sed 's/@vmlinux//' hot.txt > bare.txt
$CACHEPIN profile -o bare.profile k bare.txt || fail "profile of bare names failed"
cmp k.profile bare.profile || fail "bare names give another profile than NAME@vmlinux"
$CACHEPIN plan --growth 0 --max-pad 4096 -c 32K:4:32 -m k.map -o plan.lds -a plan.align k k.profile \
	2> plan.log || { cat plan.log; fail "plan failed"; }
# the plan takes the sched and lock text at the next multiple of 8 KiB,
# and puts hot_d, the only hot unit that fits in three of the four ways,
# in the sets they leave free (126-251, sched_y and lock_x take 0-124)
grep '^cachepin: the kernel text' plan.log > tail.log
testrun_compare cat tail.log <<'EOF'
cachepin: the kernel text after TEXT_TEXT (from 0x408350) is taken 0x1cb0 bytes later, on the block alignment, where a relink with the plan puts it
EOF
testrun_compare grep -v '^# c' plan.align <<'EOF'
# block aligned to 8192 bytes, 32612 bytes: 4 hot units, 1 fill units, 4036 bytes of padding
block-align 8192
cache 32K:4:32 32 256
tail sched_y 0x0
# kind symbol object section offset align first-set hot-lines sets
hot hot_a k.o .text.hot_a 0x0 64 0 255 0-254
hot hot_b k.o .text.hot_b 0x2000 32 0 255 0-254
hot hot_c k.o .text.hot_c 0x3fe0 16 255 255 0-253,255
fill start_kernel k.o .text.start_kernel 0x5fc0 32 254 0 -
hot hot_d k.o .text.hot_d 0x6fc0 16 126 126 126-251
end 4 1
EOF

# relinked as the hook does, with the plan's first ALIGN at the end of
# the general text: the modelled misses of the plan are those of the
# relinked image, and check passes
cp plan.lds layout.lds
sed -n '/^\. = ALIGN(0x[0-9a-fA-F]*);$/{p;q}' plan.lds > layout-end.lds
link k2
[ "$(addr k2 sched_y)" = 000000000040a000 ] || fail "sched_y at $(addr k2 sched_y), not 0x40a000"
planned=$(sed -n 's/^cachepin: 32K:4:32 (lru): modelled misses [0-9]* -> \([0-9]*\) .*/\1/p' plan.log)
$CACHEPIN score -c 32K:4:32 k2 k.profile > score.txt || fail "score of k2 failed"
relinked=$(awk '$1 == "misses" && $2 == "LRU" { print $3 }' score.txt)
[ -n "$planned" ] && [ "$planned" = "$relinked" ] ||
	fail "the plan modelled '$planned' misses, the relinked image '$relinked'"
[ "$relinked" -lt 2000 ] || fail "the relinked image misses $relinked times: hot_d is in the sched text's sets"
testrun_compare $CACHEPIN check k2 plan.align <<'EOF'
block start 0x400000, aligned to 8192
ok: 5 of 5 units at their planned offsets; 0 fill units moved (cold code, -v lists them)
EOF

# without the end alignment every unit is in place, but the sched text
# is not, and hot_d shares its sets: check fails and says why
: > layout-end.lds
link k3
rc=0
$CACHEPIN check k3 plan.align > check3.out || rc=$?
[ $rc = 1 ] || fail "check of k3 exited with $rc, not 1"
testrun_compare cat check3.out <<'EOF'
block start 0x400000, aligned to 8192
moved: the text after the block: sched_y planned at 0x0 past a multiple of 8192, now at 0x1300 (0x409300); its sets differ from the plan's (is TEXT_TEXT ended on the block alignment? the kbuild patches and cachepin-kbuild -n do)
FAILED: 5 of 5 units in place, 0 hot moved, 0 missing, the text after the block elsewhere
EOF
$CACHEPIN score -c 32K:4:32 k3 k.profile > score3.txt || fail "score of k3 failed"
[ "$(awk '$1 == "misses" && $2 == "LRU" { print $3 }' score3.txt)" -gt 100000 ] ||
	fail "k3 should thrash the sched text's sets: $(grep 'misses LRU' score3.txt)"

# within the default padding budget only keep is left, and keeping the
# link's sets in a block moves the sched text too, to where hot_d
# thrashes it (98,695 misses against the link's 1,018): nothing moves,
# and a relink with the empty fragment is the link, byte for byte
: > layout.lds
: > layout-end.lds
$CACHEPIN plan --growth 0 -c 32K:4:32 -m k.map -o none.lds -a none.align k k.profile 2> none.log ||
	{ cat none.log; fail "plan within the padding budget failed"; }
grep -e '  link ' -e '  keep ' -e 'no layout' none.log | sed 's/(in [0-9.]* s)/(in T s)/' > none.sum
testrun_compare cat none.sum <<'EOF'
cachepin:   link               1018             <- planned
cachepin:   keep              98695  +9595.0 %  (worse than the link somewhere)
cachepin: no layout: no candidate beats the link, and keeping its sets in a block is worse than it; nothing moves (in T s)
EOF
testrun_compare grep -v -e '^ \* cachepin ' -e '^ \* cache ' none.lds <<'EOF'
/*
 * no block: the link stays
 * No layout: no candidate beat the link, so nothing moves.
 */
EOF
testrun_compare grep -v '^#' none.align <<'EOF'
block-align 8192
cache 32K:4:32 32 256
end 0 0
EOF
cp none.lds layout.lds
sed -n '/^\. = ALIGN(0x[0-9a-fA-F]*);$/{p;q}' none.lds > layout-end.lds
link k4
cmp k k4 || fail "a relink with the empty fragment is not the link"
testrun_compare $CACHEPIN check k4 none.align <<'EOF'
ok: the plan moves nothing (the link stays)
EOF

# a tail line that names nothing in the binary is a failure too
sed 's/^tail sched_y/tail no_such_fn/' plan.align > bad.align
rc=0
$CACHEPIN check k2 bad.align > check4.out || rc=$?
[ $rc = 1 ] || fail "check with a missing tail symbol exited with $rc, not 1"
grep -qx "missing: no_such_fn (the text after the block) is not in 'k2'" check4.out ||
	{ cat check4.out; fail "check does not name the missing tail symbol"; }
exit 0
