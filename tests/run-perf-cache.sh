#!/bin/sh
# run-perf-cache.sh: without --cache, score and plan take the L1 instruction cache of the recording machine from perf.data's HEADER_CACHE (and from a profile made from it) and say so; --cache wins silently; a recorded cache the model cannot take leaves the default, with a warning.
. "$(dirname "$0")/test-subr.sh"
. "$srcdir/perf-data-subr.sh"

# what perf records: sysfs's caches of cpu0, the level-1 Instruction one
l1i=
for d in /sys/devices/system/cpu/cpu0/cache/index*; do
	[ "$(cat "$d/level" 2> /dev/null)" = 1 ] && [ "$(cat "$d/type" 2> /dev/null)" = Instruction ] &&
		{ l1i=$d; break; }
done
[ -n "$l1i" ] || skip "sysfs has no L1 Instruction cache of cpu0"
sets=$(cat "$l1i/number_of_sets")
ways=$(cat "$l1i/ways_of_associativity")
line=$(cat "$l1i/coherency_line_size")
size=$((sets * ways * line))
if [ $((size % 1024)) = 0 ]; then name=$((size / 1024))K:$ways:$line; else name=$size:$ways:$line; fi

gcc -O2 -g -fno-omit-frame-pointer -no-pie -ffunction-sections -Wl,-Map=perfwork.map \
	-fdebug-prefix-map="$PWD"=. -o perfwork "$srcdir/src/perfwork.c" || fail "cannot build perfwork"
perf_record x.data ./perfwork 50

# FILE's messages but the share of samples outside the program, which a
# busy machine may push past the 1 % that has it said
errs() {
	grep -v "samples are outside 'perfwork'" "$1" || true
}

# no --cache: the recorded one, said on standard error
$CACHEPIN score perfwork x.data > data.out 2> data.err || { cat data.err >&2; fail "score failed"; }
testrun_compare errs data.err <<EOF
cachepin: cache $name from the HEADER_CACHE of 'x.data' (L1 Instruction of the recording machine)
EOF
testrun_compare sed -n 's/^cache //p' data.out <<EOF
$name: $((size / 1024)) KiB, $ways-way, $line B lines, $sets sets, way span $((size / ways)) B (CPU replaces lru)
EOF

# --cache wins, and nothing is said
$CACHEPIN score -c 16K:4:32 perfwork x.data > c.out 2> c.err || { cat c.err >&2; fail "score -c failed"; }
testrun_compare errs c.err < /dev/null
testrun_compare sed -n 's/^cache //p' c.out <<EOF
16K:4:32: 16 KiB, 4-way, 32 B lines, 128 sets, way span 4096 B (CPU replaces lru)
EOF

# a profile made from it carries the cache (version 3) and scores the same
$CACHEPIN profile -o x.prof perfwork x.data 2> /dev/null || fail "profile failed"
testrun_compare sed -n '1p; /^cache /p' x.prof <<EOF
# cachepin-profile 3
cache $sets $ways $line
EOF
$CACHEPIN score perfwork x.prof > prof.out 2> prof.err || { cat prof.err >&2; fail "score of the profile failed"; }
testrun_compare errs prof.err <<EOF
cachepin: cache $name from the 'cache' line of 'x.prof' (L1 Instruction of the recording machine)
EOF
cmp -s data.out prof.out || { diff data.out prof.out | head >&2; fail "the perf.data and its profile score differently"; }

# plan: the alignment file is for the recorded cache
$CACHEPIN plan --map perfwork.map -o p.lds perfwork x.data 2> plan.err || { cat plan.err >&2; fail "plan failed"; }
errs plan.err > plan.msgs
testrun_compare sed -n 1p plan.msgs <<EOF
cachepin: cache $name from the HEADER_CACHE of 'x.data' (L1 Instruction of the recording machine)
EOF
testrun_compare sed -n '/^cache /p' p.align <<EOF
cache $name $line $sets
EOF

# a recorded cache of 48 sets: the default, with a warning, from the
# perf.data and from its profile alike
gcc -O2 -nostdlib -static -no-pie -Wl,--defsym=_text=0x401000 -Wl,-e,start_kernel \
	-o kern "$srcdir/src/synthkern.c" || fail "cannot build kern"
"$TOOLS/perf-synth" -n 200 -C 48:8:64 kern k.data || fail "perf-synth failed"
$CACHEPIN profile --kernel -o k.prof kern k.data 2> /dev/null || fail "profile of k.data failed"
for in in k.data k.prof; do
	from="the HEADER_CACHE"
	[ $in = k.prof ] && from="the 'cache' line"
	$CACHEPIN score --kernel kern $in > k.out 2> k.err || { cat k.err >&2; fail "score of $in failed"; }
	testrun_compare cat k.err <<EOF
cachepin: warning: $from of '$in' gives an L1 Instruction cache of 48 sets, 8 ways, 64-byte lines, which the model cannot take (the sets, SIZE / (WAYS * LINE), must be a power of two); using cortex-a9-32k
hint: give the cache with --cache SIZE:WAYS:LINE
EOF
	testrun_compare sed -n 's/^cache //p' k.out <<EOF
cortex-a9-32k: 32 KiB, 4-way, 32 B lines, 256 sets, way span 8192 B (CPU replaces random)
EOF
done
exit 0
