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
end 2 2
A
# 3 of 4 units: the fill unit without a symbol is not checked, and said
# so; of the two static functions named hot_two the one at the planned
# offset counts
testrun_compare $CACHEPIN check System.map plan.align <<'EOF'
block start 0xc0102000, aligned to 8192
note: 'hot_two' names 2 symbols; one is at its planned offset
ok: 3 of 4 units at their planned offsets; 0 fill units moved (cold code, -v lists them); fill units without a symbol not checked
EOF

# an address of more hex digits than 64 bits hold is refused, not wrapped
sed 's/^c0102080 t hot_two/1c0000000c0102080 t hot_two/' System.map > wide.map
expect_fail "^cachepin: 'wide.map':5: address '1c0000000c0102080' has more than 16 hex digits$" \
	$CACHEPIN check wide.map plan.align

# a moved fill unit is no failure; -v names it
sed 's/^c0102040 T cold_one/c0102044 T cold_one/' System.map > fill.map
testrun_compare $CACHEPIN check -v fill.map plan.align <<'EOF'
block start 0xc0102000, aligned to 8192
note: fill moved: fill cold_one planned +0x40 (set 2), now +0x44 (set 2)
note: 'hot_two' names 2 symbols; one is at its planned offset
ok: 2 of 4 units at their planned offsets; 1 fill units moved (cold code, -v lists them); fill units without a symbol not checked
EOF

# a hot unit moved by one line is a failure, and named
sed 's/^c0102080 t hot_two/c01020a0 t hot_two/' System.map > moved.map
if $CACHEPIN check moved.map plan.align > out2; then fail "a moved hot unit passed"; fi
testrun_compare cat out2 <<'EOF'
block start 0xc0102000, aligned to 8192
moved after: fill cold_one, at its planned offset +0x40 (it grew past its room, or the link put other code after it)
note: 'hot_two' names 2 symbols; none at its planned offset, the first is reported
moved: hot hot_two planned +0x80 (set 4), now +0xa0 (set 5)
FAILED: 2 of 4 units in place, 1 hot moved, 0 missing
EOF

# a misaligned block fails as such, not as a moved hot unit: every unit
# is at its offset from __cachepin_start, so each set is off
awk '{ printf "%x %s %s\n", strtonum("0x" $1) + 0x40, $2, $3 }' System.map > shifted.map
if $CACHEPIN check -q shifted.map plan.align > out3; then fail "a misaligned block passed"; fi
testrun_compare cat out3 <<'EOF'
misaligned: __cachepin_start at 0xc0102040 is not a multiple of 8192
moved: hot hot_one planned +0x0 (set 0), now +0x0 (set 2)
moved: hot hot_two planned +0x80 (set 4), now +0x80 (set 6)
FAILED: 0 of 4 units in place, 2 hot moved, 0 missing, block start misaligned
EOF

# a hot unit must have a symbol
sed 's/^hot hot_one/hot -/' plan.align > bad.align
expect_fail "'bad.align':5: bad unit line" $CACHEPIN check System.map bad.align
# cut at a line end: no trailer, not a smaller plan that passes
head -n 7 plan.align > cut.align
expect_fail "^cachepin: 'cut.align':8: no 'end' line: the file is cut off (or older than the trailer; plan again)$" \
	$CACHEPIN check System.map cut.align
# a unit listed twice, a count that does not match, a line after the end
sed '5p' plan.align > twice.align
expect_fail "^cachepin: 'twice.align':6: a unit listed twice$" $CACHEPIN check System.map twice.align
sed 's/^end 2 2$/end 3 2/' plan.align > count.align
expect_fail "^cachepin: 'count.align':9: the 'end' line says 3 hot and 2 fill units, the file lists 2 and 2$" \
	$CACHEPIN check System.map count.align
{ cat plan.align; echo "hot late d.o .text.late 0xc0 4 6 1 6"; } > after.align
expect_fail "^cachepin: 'after.align':10: a line after the 'end' line$" $CACHEPIN check System.map after.align
exit 0
