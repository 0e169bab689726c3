#!/bin/sh
# cachepin check against a System.map: fill units without a symbol (assembly fixup code) are skipped, a hot unit needs one.
. "$(dirname "$0")/test-subr.sh"

cat > System.map <<'M'
c0100000 T _stext
c0102000 T __cachepin_start
c0102000 t hot_one
c0102040 T cold_one
c0102080 t hot_two
c0102100 t hot_two
M
cat > plan.align <<'A'
# cachepin-align 1
block-align 8192
cache 32K:4:32 32 256
# kind symbol object section offset align first-set hot-lines sets
hot hot_one a.o .text.hot_one 0x0 4 0 2 0-1
fill cold_one b.o .text.cold_one 0x40 4 2 0 -
fill - arch/arm/lib/clear_user.o .text.fixup 0x60 4 3 0 -
hot hot_two c.o .text.hot_two 0x80 4 4 1 4
A
$CACHEPIN check System.map plan.align > out || { cat out >&2; fail "check of a good layout failed"; }
grep -q '^ok: 3 of 4 units' out || { cat out >&2; fail "expected 3 of 4 units checked"; }
grep -q 'without a symbol not checked' out || fail "the unchecked fill unit is not mentioned"
# two static functions named hot_two: the one at the planned offset counts
grep -q "^note: 'hot_two' names 2 symbols; one is at its planned offset" out ||
	{ cat out >&2; fail "duplicate name not resolved by offset"; }

# a hot unit moved by one line is a failure, and named
sed 's/^c0102080 t hot_two/c01020a0 t hot_two/' System.map > moved.map
if $CACHEPIN check moved.map plan.align > out2; then fail "a moved hot unit passed"; fi
grep -q '^moved: hot hot_two planned +0x80' out2 || { cat out2 >&2; fail "moved unit not named"; }

# a hot unit must have a symbol
sed 's/^hot hot_one/hot -/' plan.align > bad.align
expect_fail "'bad.align':5: bad unit line" $CACHEPIN check System.map bad.align
exit 0
