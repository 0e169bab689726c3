#!/bin/sh
# plan --keep OLD.align re-plans from the previous plan: its hot units that still fit stay at their offsets and sets, a unit grown past its room is placed again; bad old plans are refused by name.
. "$(dirname "$0")/test-subr.sh"
need_cmd arm-linux-gnueabihf-as arm-linux-gnueabihf-ld

# the fixed program of run-golden.sh, planned for 1K:2:32 (64 bytes of
# growth: route at 0, hash at 0x100, queue at 0x180, lookup at 0x280, ...)
cp "$srcdir/src/golden.s" "$srcdir/src/golden.lds" .
: > text-layout.lds
build() {
	arm-linux-gnueabihf-as -o "$1.o" "$1.s" || fail "assembling $1.s failed"
	arm-linux-gnueabihf-ld --build-id=none -T golden.lds -Map="$1.map" -o "$1" "$1.o" || fail "linking $1 failed"
}
build golden
printf 'route 400\nlookup 300\nhash 200\nparse 150\ncsum 100\nqueue 50\n' > hot.txt
plan="$CACHEPIN plan -c 1K:2:32"
$plan --map golden.map -o old.lds golden hot.txt 2> /dev/null || fail "plan failed"
units() { grep -e '^hot ' -e '^fill ' "$1"; }

# nothing changed: every unit stays, the same units at the same offsets
$plan --keep old.align --map golden.map -o same.lds golden hot.txt 2> same.err ||
	{ cat same.err; fail "plan --keep of the same build failed"; }
testrun_compare grep '^cachepin: kept' same.err <<'EOF'
cachepin: kept 6 hot units of 'old.align' at their offsets; placed 0 again (grown into the next kept one, or aligned otherwise), 0 new; 0 no longer hot; 0 of the hot units in both plans in another set
EOF
units old.align > old.units
testrun_compare units same.align < old.units

# a commit grows hash by 100 bytes, past its 64 bytes of room (the object
# is another file now: units are known by section where the object's name
# changed).  The five others stay where they were; hash goes to the
# lowest slot the search finds clear of them, with its room after it.
sed 's/^	func	hash, 64/	func	hash, 164/' golden.s > grown.s
build grown
$plan --keep old.align --map grown.map -o new.lds grown hot.txt 2> new.err ||
	{ cat new.err; fail "plan --keep of the grown build failed"; }
testrun_compare grep -e '^cachepin: kept' -e '^cachepin: growth' new.err <<'EOF'
cachepin: kept 5 hot units of 'old.align' at their offsets; placed 1 again (grown into the next kept one, or aligned otherwise), 0 new; 0 no longer hot; 1 of the hot units in both plans in another set
EOF
testrun_compare awk '$1 == "hot" { print $2, $5, $7 }' new.align <<'EOF'
route 0x0 0
queue 0x180 12
lookup 0x280 4
csum 0x340 10
parse 0x3c0 14
hash 0x540 10
EOF
# planned from scratch, more of the six hot units change set
$plan --map grown.map -o scratch.lds grown hot.txt 2> /dev/null || fail "plan of the grown build failed"
n=$(awk '$1 == "hot" { print $2, $7 }' old.align | sort > a.sets; awk '$1 == "hot" { print $2, $7 }' scratch.align | sort > b.sets
	join a.sets b.sets | awk '$2 != $3' | wc -l)
[ "$n" -ge 2 ] || fail "a plan from scratch moved only $n hot units to another set: the test shows nothing"
echo "from scratch: $n of 6 hot units in another set; with --keep: 1"
# the relink with the kept plan has every unit where the new plan says
cp new.lds text-layout.lds
arm-linux-gnueabihf-ld --build-id=none -T golden.lds -o grown.new grown.o || fail "relinking failed"
$CACHEPIN check grown.new new.align > check.out || { cat check.out; fail "check of the kept plan's link failed"; }

# refused: another cache's plan, a file that is no plan, a method that
# cannot place around kept units; the new plan may replace the old file
expect_fail "^cachepin: 'old.align': planned for 1K:2:32, a block aligned to 512 bytes: its offsets do not give the sets of a plan for 2K:2:32$" \
	$CACHEPIN plan --keep old.align -c 2K:2:32 --map golden.map -o x.lds golden hot.txt
grep -qx 'hint: plan for the caches it was planned for, or without --keep' fail.err || { cat fail.err; fail "no hint"; }
[ ! -e x.lds ] && [ ! -e x.align ] || fail "a refused plan wrote its outputs"
expect_fail "^cachepin: 'hot.txt':1: not a cachepin alignment file" \
	$plan --keep hot.txt --map golden.map -o x.lds golden hot.txt
expect_fail "^cachepin: --keep places around the old plan with the search: --method may be search or greedy$" \
	$plan --keep old.align --method colour --map golden.map -o x.lds golden hot.txt
cp old.align kept.align
$plan --keep kept.align --map grown.map -o kept.lds grown hot.txt 2> /dev/null || fail "plan --keep onto its own input failed"
units new.align > new.units
units kept.align > kept.units
cmp -s new.units kept.units || fail "the plan written over its --keep input differs from the one beside it"
exit 0
