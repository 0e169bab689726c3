#!/bin/sh
# The README's program recipe (examples/pktflow/recipe.sh) on a multi-object program: record, profile, plan, relink the same objects, check, cachegrind.
. "$(dirname "$0")/test-subr.sh"
need_cmd perf gcc make valgrind cg_annotate
cp -r "$top/examples/pktflow" p
cd p
make -s clean
CACHEPIN=$top/cachepin PACKETS=1000000 ./recipe.sh > recipe.out 2> recipe.err ||
	{ cat recipe.out recipe.err >&2; fail "recipe.sh failed"; }

# check: every planned unit where the plan put it, no unit reported moved
n=$(grep -c '^\(hot\|fill\) ' hot.align)
[ "$n" -gt 10 ] || fail "the plan places $n units"
grep '^ok: ' recipe.out > check.got
testrun_compare cat check.got <<EOF2
ok: $n of $n units at their planned offsets; 0 fill units moved (cold code, -v lists them)
EOF2

# cachegrind names every planned function of the program's own objects
# by file and name (not ???); a sample in the C start-up code (Scrt1.o,
# which has no debug information) makes _start a hot unit now and then
ls *.o > own.objects
awk 'NR == FNR { own[$1] = 1; next }
	$1 == "hot" && ($3 in own) { o = $3; sub(/\.o$/, ".c", o); print o ":" $2 }' own.objects hot.align |
	LC_ALL=C sort > planned.names
[ -s planned.names ] || fail "no hot unit of the program's own objects in the plan"
cg_annotate --threshold=0 pktflow.cg | awk '$NF ~ /:/ { n = $NF; sub(/^(\.\/)+/, "", n); print n }' |
	LC_ALL=C sort -u > cg.names
missing=$(LC_ALL=C comm -23 planned.names cg.names)
[ -z "$missing" ] || fail "cachegrind does not name the planned functions:" $missing

# the same program: the same output, and fewer I1 misses than the default link
./pktflow.default 100000 > default.txt
./pktflow 100000 > planned.txt
cmp -s default.txt planned.txt || fail "the relinked program prints otherwise"
m() { sed -n "s/^   $1: \([0-9,]*\) misses$/\1/p" recipe.out | tr -d ,; }
d=$(m pktflow.default) p=$(m pktflow)
[ -n "$d" ] && [ -n "$p" ] || { cat recipe.out >&2; fail "no cachegrind figures"; }
[ "$p" -lt "$d" ] || fail "the plan's link misses $p times, the default $d"
exit 0
