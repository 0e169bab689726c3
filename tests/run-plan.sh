#!/bin/sh
# plan + relink + check on ARM32, MIPS32 BE and x86-64 (GNU ld, and lld for x86-64); a vanished unit fails check.
. "$(dirname "$0")/test-subr.sh"
need_cmd arm-linux-gnueabihf-gcc mips-linux-gnu-gcc gcc perf

cp "$top/examples/natsim/natsim.c" .
awk '$1 == "f" && $4 > 0 { print $2, $4 }' "$top/examples/natsim/natsim.profile" > hot.txt

# frame FRAGMENT: the fragment without its header and the block's unit lines
frame() {
	sed -e '/^ \* \(cachepin\|block aligned\|cache\) /d' \
	    -e '1,/__cachepin_end = \.;/{ /^\t*\. = MAX(\., __cachepin_start + 0x[0-9a-f]*);$/d
	        /^\t*\*[^ ]*([^ )]*)\(\t\/\* fill \*\/\)\{0,1\}$/d; }' "$1"
}
# same_units FRAGMENT TAG: the fragment carries the header of TAG.align and
# its units (kind and section) in its order
same_units() {
	sed -n 's/^ \* \(\(cachepin\|block aligned\|cache\) \)/# \1/p' "$1" > "$1.head"
	grep '^# \(cachepin\|block aligned\|cache\) ' "$2.align" | diff -u - "$1.head" ||
		fail "'$1': header differs from the alignment file's"
	awk '/__cachepin_end/ { exit } /^\t*\*[^ ]*\([^ )]*\)/ { s = $1; sub(/^[^(]*\(/, "", s); sub(/\).*/, "", s)
		print (/\/\* fill \*\/$/ ? "fill" : "hot"), s }' "$1" > "$1.units"
	awk '$1 == "hot" || $1 == "fill" { print $1, $4 }' "$2.align" | diff -u - "$1.units" ||
		fail "'$1': units differ from the alignment file's"
}
# check_ok TAG BINARY REPORT: REPORT is check's whole report of a good
# link: the block start the symbol table says, every unit counted
check_ok() {
	start=$(readelf -sW "$2" | awk '$8 == "__cachepin_start" { print $2 }')
	n=$(grep -c '^\(hot\|fill\) ' "$1.align")
	balign=$(awk '$1 == "block-align" { print $2 }' "$1.align")
	moved=$(sed -n 's/^ok: .*; \([0-9]*\) fill units moved .*/\1/p' "$3")
	[ -n "$start" ] && [ -n "$moved" ] || { cat "$3"; fail "$2: check did not say ok"; }
	testrun_compare cat "$3" <<EOF
block start $(printf '0x%x' $((0x$start))), aligned to $balign
ok: $((n - moved)) of $n units at their planned offsets; $moved fill units moved (cold code, -v lists them)
EOF
}

# CC TAG CACHE [extra ld flags]: build, plan, relink, check
roundtrip() {
	cc=$1 tag=$2 cache=$3 hot=${HOT:-hot.txt}; shift 3
	$cc -O2 -ffunction-sections -static -Wl,-Map=$tag.map -o $tag natsim.c "$@" ||
		fail "$tag: build failed"
	$CACHEPIN plan --growth 0 --map $tag.map -c $cache --standalone -o $tag.lds $tag $hot 2> $tag.plan.err ||
		{ cat $tag.plan.err; fail "$tag: plan failed"; }
	[ -s $tag.align ] || fail "$tag: no alignment file"
	testrun_compare frame $tag.lds <<'EOF'
/*
 * Hot units sit at fixed offsets from __cachepin_start; cold units fill the gaps.
 */
SECTIONS
{
	.text : {
		. = ALIGN(0x2000);
		__cachepin_start = .;
		__cachepin_end = .;
		/* the rest of .text, as in GNU ld's default scripts */
		*(.text.unlikely .text.*_unlikely .text.unlikely.*)
		*(.text.exit .text.exit.*)
		*(.text.startup .text.startup.*)
		*(.text.hot .text.hot.*)
		*(SORT(.text.sorted.*))
		*(.text .stub .text.* .gnu.linkonce.t.*)
		*(.gnu.warning)
		*(.glue_7t) *(.glue_7) *(.vfp11_veneer) *(.v4_bx)
		*(.mips16.fn.*) *(.mips16.call.*)
	}
}
INSERT BEFORE .text;	/* lld: INSERT AFTER .init; */
EOF
	same_units $tag.lds $tag
	$cc -O2 -ffunction-sections -static -Wl,-T,$tag.lds -o $tag.new natsim.c "$@" ||
		fail "$tag: relink with the fragment failed"
	# the block is the start of the one .text section (what valgrind reads
	# symbols and lines from), the default .text left empty and dropped
	readelf -SW $tag.new | sed 's/^ *\[ *[0-9]*\] *//' |
		awk '$1 == ".text" { n++; lo = strtonum("0x" $3); hi = lo + strtonum("0x" $5) }
		     END { print n + 0, lo, hi }' > $tag.text
	bstart=$(readelf -sW $tag.new | awk '$8 == "__cachepin_start" { print strtonum("0x" $2) }')
	read n lo hi < $tag.text
	[ "$n" = 1 ] && [ "$bstart" -ge "$lo" ] && [ "$bstart" -lt "$hi" ] ||
		fail "$tag: the block (at $bstart) is not in the one .text section ($n, $lo-$hi)"
	$CACHEPIN check $tag.new $tag.align > $tag.check || { cat $tag.check; fail "$tag: check failed"; }
	check_ok $tag $tag.new $tag.check
	# the score of the relinked binary is the plan's "after"
	after=$(sed -n "s/.*cache \([^ ]*\) ([a-z-]*): modelled misses before [0-9]* after \([0-9]*\) .*/\2/p" $tag.lds | head -1)
	repl=$(sed -n "s/.*cache [^ ]* (\([a-z-]*\)): modelled.*/\1/p" $tag.lds | head -1)
	[ "$repl" = round-robin ] && repl=round-robin
	now=$($CACHEPIN score --json -c $cache $tag.new $hot | jq ".caches[0].misses[\"$repl\"]")
	[ -n "$after" ] && [ "$now" = "$after" ] ||
		fail "$tag: score of the relinked binary ($now) is not the plan's after ($after)"
	# the same plan twice is byte-identical
	$CACHEPIN plan --growth 0 --map $tag.map -c $cache --standalone -o $tag.again.lds $tag $hot 2>/dev/null
	cmp -s $tag.lds $tag.again.lds && cmp -s $tag.align $tag.again.align ||
		fail "$tag: plan is not reproducible"
	# short options mean the same as the long ones
	$CACHEPIN plan --growth 0 -m $tag.map -c $cache --standalone -o $tag.short.lds -a $tag.short.al $tag $hot 2>/dev/null ||
		fail "$tag: plan with short options failed"
	cmp -s $tag.lds $tag.short.lds && cmp -s $tag.align $tag.short.al ||
		fail "$tag: short options gave another plan"
}

roundtrip arm-linux-gnueabihf-gcc arm cortex-a9-32k -marm
# an assembly object whose .text begins with local code before its first
# function (as the kernel's arch/arm/lib/csumpartial.o): the alignment file
# places that function where the plan put it, not at the unit's start
cat > asmhot.S <<'EOF'
	.text
	.arm
	.align 2
.Llocal_head:
	mov	r0, #0
	bx	lr
	.globl	asm_hot
	.type	asm_hot, %function
asm_hot:
	add	r0, r0, #1
	bx	lr
	.size	asm_hot, . - asm_hot
EOF
arm-linux-gnueabihf-gcc -c -o asmhot.o asmhot.S || fail "assembling asmhot.S failed"
{ cat hot.txt; echo "asm_hot 50000"; } > hot-asm.txt
HOT=hot-asm.txt roundtrip arm-linux-gnueabihf-gcc armasm cortex-a9-32k -marm asmhot.o
grep -q '^hot asm_hot asmhot.o .text ' armasm.align || { grep asm_hot armasm.align; fail "asmhot.o's .text is not a hot unit"; }
roundtrip mips-linux-gnu-gcc mips mips-74k-32k
readelf -h mips.new | grep -q 'big endian' || fail "MIPS build is not big-endian"
roundtrip gcc x86 32K:4:32
# the restarts run in threads, one per CPU: the plan is the same on one
if command -v taskset > /dev/null; then
	$CACHEPIN plan --restarts 4 --map x86.map -c 32K:4:32 -o x86.r4.lds x86 hot.txt 2> /dev/null ||
		fail "plan --restarts 4 failed"
	taskset -c 0 $CACHEPIN plan --restarts 4 --map x86.map -c 32K:4:32 -o x86.one.lds x86 hot.txt 2> /dev/null ||
		fail "plan on one CPU failed"
	sed 's/x86\.one\./x86.r4./g' x86.one.lds | cmp -s - x86.r4.lds && cmp -s x86.one.align x86.r4.align ||
		fail "the plan of four restarts depends on the CPUs it ran on"
fi

# x86-64 with lld: the same fragment, inserted as its last line says
if gcc -fuse-ld=lld -o lldtest natsim.c 2>/dev/null; then
	sed 's|^INSERT BEFORE \.text;\t/\* lld: \(INSERT AFTER \.init;\) \*/$|\1|' x86.lds > x86.lld.lds
	grep -qx 'INSERT AFTER .init;' x86.lld.lds || fail "the fragment's last line does not say what lld takes"
	gcc -O2 -ffunction-sections -static -fuse-ld=lld -Wl,-T,x86.lld.lds -o x86.lld natsim.c ||
		fail "lld rejects the fragment"
	# lld fails on the fragment as GNU ld takes it, and says so
	if gcc -O2 -ffunction-sections -static -fuse-ld=lld -Wl,-T,x86.lds -o x86.lld2 natsim.c 2> lld.err; then
		fail "lld took INSERT BEFORE .text"
	fi
	$CACHEPIN check x86.lld x86.align > lld.check || { cat lld.check; fail "check after lld failed"; }
	check_ok x86 x86.lld lld.check
	# lld's symbol ordering file: accepted, and the first planned hot function comes first
	$CACHEPIN plan --map x86.map -c 32K:4:32 -o x86.plain.lds --lld-order x86.order x86 hot.txt 2>/dev/null
	gcc -O2 -ffunction-sections -static -fuse-ld=lld -Wl,--symbol-ordering-file=x86.order \
		-Wl,--no-warn-symbol-ordering -o x86.ordered natsim.c || fail "lld rejects the ordering file"
	# the planned functions come out in the planned order
	nm x86.ordered | awk '$2 ~ /[tT]/ { print $3, $1 }' | sort > ordered.addr
	grep -v '^#' x86.order | while read -r fn; do grep "^$fn " ordered.addr; done |
		awk '{ print $2 }' > order.seq
	[ "$(wc -l < order.seq)" -ge 20 ] || fail "ordered functions not found after lld"
	sort -c order.seq || fail "lld did not follow the symbol ordering file"
else
	echo "no lld here" >&2; exit 1
fi

# ordering file for GNU ld 2.43+: well-formed
$CACHEPIN plan --map x86.map -c 32K:4:32 -o x86.frag.lds --section-order x86.secorder x86 hot.txt 2>/dev/null
sed '/^\t\*/d' x86.secorder > secorder.frame
testrun_compare cat secorder.frame <<'EOF'
/* GNU ld >= 2.43 --section-ordering-file: prepended to .text, no padding */
.text : {
}
EOF
awk '$1 == "hot" || $1 == "fill" { print $4 }' x86.frag.align > secorder.expect
sed -n 's/^\t\*[^ (]*(\([^ )]*\))$/\1/p' x86.secorder | diff -u secorder.expect - ||
	fail "the section ordering file has other units than the plan"

# the kernel form (no --standalone) has no SECTIONS wrapper, and works the way
# the kernel hook uses it: INCLUDEd at the start of the .text output section
testrun_compare frame x86.frag.lds <<'EOF'
/*
 * Hot units sit at fixed offsets from __cachepin_start; cold units fill the gaps.
 */
. = ALIGN(0x2000);
__cachepin_start = .;
__cachepin_end = .;
EOF
same_units x86.frag.lds x86.frag
ld --verbose | awk '/^====/ { p = !p; next } p' |
	awk -v inc="$PWD/x86.frag.lds" '{ print } /^  \.text  *:/ { t = 1; next } t && /^  \{/ { print "    INCLUDE " inc; t = 0 }' > full.lds
grep -q '^    INCLUDE ' full.lds || fail "could not put INCLUDE into the default script"
gcc -O2 -ffunction-sections -static -Wl,-T,full.lds -o x86.included natsim.c || fail "link with INCLUDE failed"
$CACHEPIN check x86.included x86.frag.align > inc.check || { cat inc.check; fail "check after INCLUDE failed"; }
check_ok x86.frag x86.included inc.check

# a unit that no longer exists: the linker says nothing, check fails
sed 's/fib_table_lookup/fib_table_lookup_v2/g' natsim.c > natsim2.c
gcc -O2 -ffunction-sections -static -Wl,-T,x86.lds -o x86.stale natsim2.c || fail "stale relink failed"
if $CACHEPIN check x86.stale x86.align > stale.check; then
	fail "check passed although fib_table_lookup is gone"
fi
obj=$(awk '$2 == "fib_table_lookup" { print $3 }' x86.align)
grep -qxF "missing: fib_table_lookup ($obj:.text.fib_table_lookup) is not in 'x86.stale'" stale.check ||
	{ cat stale.check; fail "check did not name the missing unit"; }
grep -q '^FAILED: ' stale.check || fail "no FAILED line"
# an unaligned block start is caught
sed 's/^block-align 8192/block-align 16384/' x86.align > x86.bad.align
if $CACHEPIN check x86.new x86.bad.align > bad.check; then fail "a misaligned block passed"; fi
start=$(sed -n 's/^block start \(0x[0-9a-f]*\), .*/\1/p' x86.check)
grep -qx "misaligned: __cachepin_start at $start is not a multiple of 16384" bad.check ||
	{ cat bad.check; fail "the misaligned block is not named"; }
exit 0
