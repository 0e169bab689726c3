#!/bin/sh
# run-perf-data-be.sh: big-endian perf.data (64- and 32-bit feature bitmaps, made by perf-to-be) reads like the little-endian original, in perf and in the reader.
. "$(dirname "$0")/test-subr.sh"
. "$srcdir/perf-data-subr.sh"

build_perfwork
perf_record le.data ./perfwork
perf record -q -e cpu-clock,task-clock -F 4000 -g -o multi.data -- ./perfwork > /dev/null 2> perf.err ||
	{ cat perf.err >&2; fail "perf record with two events failed"; }

for f in le multi; do
	"$TOOLS/perf-to-be" $f.data $f-be.perf || fail "perf-to-be $f.data failed"
	"$TOOLS/perf-to-be" --bitmap32 $f.data $f-be32.perf || fail "perf-to-be --bitmap32 $f.data failed"
	[ "$(head -c 8 $f-be.perf)" = 2ELIFREP ] || fail "$f-be.perf has no big-endian magic"
	cmp -s $f.data $f-be.perf && fail "$f-be.perf equals its original"

	# perf itself reads the copies as it reads the original
	perf script -i $f.data -F ip,sym,period > $f.script 2> /dev/null
	[ -s $f.script ] || fail "perf script printed nothing for $f.data"
	for be in $f-be $f-be32; do
		perf script -i $be.perf -F ip,sym,period > $be.script 2> /dev/null
		cmp -s $f.script $be.script || fail "perf script reads $be.perf differently"
		check_same $be.perf
		[ "$(meta_field $be.perf endian)" = big ] || fail "$be.perf not read as big-endian"
		"$TOOLS/perf-dump" -s $be.perf > be.view
		"$TOOLS/perf-dump" -s $f.data > le.view
		cmp -s le.view be.view || fail "the reader sees $be.perf differently from $f.data"
		"$TOOLS/perf-dump" -q -m $be.perf | sed 1d > be.meta
		"$TOOLS/perf-dump" -q -m $f.data | sed 1d > le.meta
		diff -u le.meta be.meta || fail "meta data of $be.perf differs"
	done
done
grep -q '^# hostname .' be.meta || fail "no host name from the big-endian feature sections"
grep -q '^# buildid ' be.meta || fail "no build-ids from the big-endian feature sections"
# perf records the caches sysfs lists
[ -z "$(ls /sys/devices/system/cpu/cpu0/cache 2> /dev/null)" ] || grep -q '^# cache L1 ' be.meta ||
	fail "no caches from the big-endian CACHE section"
exit 0
