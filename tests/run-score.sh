#!/bin/sh
# cachepin score on ARM32 and MIPS32 BE builds: every hot line lands in the set nm's addresses say; figures are consistent and reproducible.
. "$(dirname "$0")/test-subr.sh"
need_cmd arm-linux-gnueabihf-gcc mips-linux-gnu-gcc jq perf

src=$top/examples/natsim/natsim.c
# a hot list (name weight) from the shipped, position-independent profile
awk '$1 == "f" && $4 > 0 { print $2, $4 }' "$top/examples/natsim/natsim.profile" > hot.txt
[ "$(wc -l < hot.txt)" -ge 20 ] || fail "shipped profile has too few hot functions"

check_sets() {	# BINARY NM CACHE SETS: per-set hot-line counts agree with nm
	bin=$1 nm=$2 cache=$3 nsets=$4
	$CACHEPIN score --json --cache "$cache" "$bin" hot.txt > "$bin.json" || fail "score $bin failed"
	jq -e . "$bin.json" > /dev/null || fail "score --json of $bin is not JSON"
	[ "$(jq '.caches[0].sets' "$bin.json")" = "$nsets" ] || fail "$bin: expected $nsets sets"
	jq -r '.caches[0].sets_detail[] | "\(.set) \(.lines)"' "$bin.json" | sort -n > ours.sets
	# the model puts a function known only by name on all its 16-byte granules
	: > lines.txt
	$nm -S --defined-only "$bin" | while read -r a s t n; do
		grep -q "^$n " hot.txt || continue
		a=$((0x$a)) s=$((0x$s)) k=0
		while [ $((k * 16)) -lt $s ]; do
			echo $(( (a + k * 16) / 32 ))
			k=$((k + 1))
		done >> lines.txt
	done
	sort -un lines.txt | awk -v n="$nsets" '{ c[$1 % n]++ } END { for (s in c) print s, c[s] }' |
		sort -n > nm.sets
	[ -s nm.sets ] || fail "$bin: no hot lines from nm"
	diff -u nm.sets ours.sets > sets.diff || { head -20 sets.diff; fail "$bin: set occupancy differs from nm"; }
	# the totals are ordered as they must be
	jq -e '.caches[0].misses | .optimal <= .lru and .optimal <= .random and
		.fully_associative_optimal <= .fully_associative_lru and
		.fully_associative_optimal <= .optimal' "$bin.json" > /dev/null ||
		fail "$bin: miss totals out of order: $(jq -c '.caches[0].misses' "$bin.json")"
}

arm-linux-gnueabihf-gcc -O2 -marm -static -ffunction-sections -Wl,-Map=arm.map -o natsim-arm "$src"
check_sets natsim-arm arm-linux-gnueabihf-nm 32K:4:32 256
# every policy of the library's table, in the totals and in each set
testrun_compare jq -c '.caches[0] | [(.misses | keys_unsorted), (.sets_detail[0] | keys_unsorted)]' natsim-arm.json <<'EOF'
[["lru","random","round-robin","optimal","fully_associative_lru","fully_associative_optimal","conflict"],["set","lines","weight","lru","random","round-robin","optimal","fully_associative_lru"]]
EOF
# and a diff's, the online ones (no Belady)
$CACHEPIN diff --json --cache 32K:4:32 natsim-arm natsim-arm hot.txt > diff.json || fail "diff --json failed"
testrun_compare jq -c '.caches[0] | [(.old | keys_unsorted), (.new | keys_unsorted)]' diff.json <<'EOF'
[["lru","random","round-robin","fully_associative_lru"],["lru","random","round-robin","fully_associative_lru"]]
EOF
check_sets natsim-arm arm-linux-gnueabihf-nm cortex-a9-16k 128
mips-linux-gnu-gcc -O2 -static -ffunction-sections -Wl,-Map=mips.map -o natsim-mips "$src"
readelf -h natsim-mips | grep -q 'big endian' || fail "MIPS build is not big-endian"
check_sets natsim-mips mips-linux-gnu-nm mips-74k-64k 512

# text report: names the sets and the fighting pairs; reproducible
$CACHEPIN score --map arm.map --cache cortex-a9-16k --top 5 natsim-arm hot.txt > r1.txt
$CACHEPIN score --map arm.map --cache cortex-a9-16k --top 5 natsim-arm hot.txt > r2.txt
cmp -s r1.txt r2.txt || fail "score output is not reproducible"
grep -q "^cache cortex-a9-16k: 16 KiB, 4-way, 32 B lines, 128 sets, way span 4096 B" r1.txt || fail "no geometry line"
grep -q "worst sets" r1.txt && grep -q " <-> " r1.txt || { cat r1.txt; fail "no worst sets or pairs at 16K"; }
worst=$(awk '/worst sets/ { getline; getline; print $1; exit }' r1.txt)
jq -e --argjson s "$worst" '[.caches[0].sets_detail[] | select(.set == $s)][0].lines > 4' natsim-arm.json > /dev/null 2>&1 ||
	$CACHEPIN score --json --cache cortex-a9-16k natsim-arm hot.txt | jq -e --argjson s "$worst" \
		'[.caches[0].sets_detail[] | select(.set == $s)][0].lines > 4' > /dev/null ||
	fail "the worst set $worst does not hold more than 4 hot lines"

# static call graph from the objects: edges flagged 's'
arm-linux-gnueabihf-gcc -O2 -marm -ffunction-sections -c -o natsim-arm.o "$src"
$CACHEPIN profile --objects natsim-arm.o -o static.prof natsim-arm hot.txt
grep -q '^e nf_hook_slow - nf_conntrack_in - - 0 s$' static.prof ||
	{ grep '^e' static.prof | head; fail "static edge nf_hook_slow -> nf_conntrack_in missing"; }
$CACHEPIN score --json --cache 32K:4:32 natsim-arm static.prof | jq -e '.model.ordered' > /dev/null ||
	fail "static edges did not give an execution order"

# a perf.data and the profile made from it score the same
gcc -O2 -g -fno-omit-frame-pointer -no-pie -ffunction-sections -o natsim "$src"
perf_record ns.data ./natsim 100000
$CACHEPIN profile -o ns.prof natsim ns.data
$CACHEPIN score natsim ns.data > from-data.txt
$CACHEPIN score natsim ns.prof > from-prof.txt
cmp -s from-data.txt from-prof.txt || { diff from-data.txt from-prof.txt | head; fail "perf.data and its profile score differently"; }
# --whole-functions takes every line of a sampled function: more hot lines, all of them in sampled functions
a=$($CACHEPIN score --json natsim ns.prof | jq '.caches[0].hot_lines')
b=$($CACHEPIN score --json --whole-functions natsim ns.prof | jq '.caches[0].hot_lines')
lines=$(nm -S natsim | awk '$3 ~ /[tT]/' | while read -r ad sz t n; do
	grep -q "^f $n " ns.prof && echo $(( (0x$sz + 31) / 32 + 1 )); done | awk '{ s += $1 } END { print s }')
[ "$b" -gt "$a" ] && [ "$b" -le "$lines" ] ||
	fail "--whole-functions: $b hot lines (sampled only: $a, sampled functions span at most $lines)"
# and perf script text of the same recording: same functions, same order of magnitude
perf script -i ns.data > ns.txt 2>/dev/null
$CACHEPIN score --json natsim ns.txt | jq -e '.caches[0].hot_lines > 500' > /dev/null ||
	fail "perf script input found too few hot lines"
exit 0
