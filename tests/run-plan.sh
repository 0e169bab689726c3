#!/bin/sh
# plan + relink + check on ARM32, MIPS32 BE and x86-64 (GNU ld, and lld for x86-64); a vanished unit fails check.
. "$(dirname "$0")/test-subr.sh"
need_cmd arm-linux-gnueabihf-gcc mips-linux-gnu-gcc gcc perf

cp "$top/examples/natsim/natsim.c" .
awk '$1 == "f" && $4 > 0 { print $2, $4 }' "$top/examples/natsim/natsim.profile" > hot.txt

# CC TAG CACHE [extra ld flags]: build, plan, relink, check
roundtrip() {
	cc=$1 tag=$2 cache=$3 hot=${HOT:-hot.txt}; shift 3
	$cc -O2 -ffunction-sections -static -Wl,-Map=$tag.map -o $tag natsim.c "$@" ||
		fail "$tag: build failed"
	$CACHEPIN plan --map $tag.map -c $cache --standalone -o $tag.lds $tag $hot 2> $tag.plan.err ||
		{ cat $tag.plan.err; fail "$tag: plan failed"; }
	[ -s $tag.align ] || fail "$tag: no alignment file"
	grep -q '\. = ALIGN(0x' $tag.lds && grep -q '__cachepin_start = \.;' $tag.lds &&
		grep -q '^INSERT BEFORE \.text;' $tag.lds || fail "$tag: fragment lacks its parts"
	$cc -O2 -ffunction-sections -static -Wl,-T,$tag.lds -o $tag.new natsim.c "$@" ||
		fail "$tag: relink with the fragment failed"
	$CACHEPIN check $tag.new $tag.align > $tag.check || { cat $tag.check; fail "$tag: check failed"; }
	grep -q '^ok: ' $tag.check || fail "$tag: check did not say ok"
	# the score of the relinked binary is the plan's "after"
	after=$(sed -n "s/.*cache \([^ ]*\) ([a-z-]*): modelled misses before [0-9]* after \([0-9]*\) .*/\2/p" $tag.lds | head -1)
	repl=$(sed -n "s/.*cache [^ ]* (\([a-z-]*\)): modelled.*/\1/p" $tag.lds | head -1)
	[ "$repl" = round-robin ] && repl=round-robin
	now=$($CACHEPIN score --json -c $cache $tag.new $hot | jq ".caches[0].misses[\"$repl\"]")
	[ -n "$after" ] && [ "$now" = "$after" ] ||
		fail "$tag: score of the relinked binary ($now) is not the plan's after ($after)"
	# the same plan twice is byte-identical
	$CACHEPIN plan --map $tag.map -c $cache --standalone -o $tag.again.lds $tag $hot 2>/dev/null
	cmp -s $tag.lds $tag.again.lds && cmp -s $tag.align $tag.again.align ||
		fail "$tag: plan is not reproducible"
	# short options mean the same as the long ones
	$CACHEPIN plan -m $tag.map -c $cache --standalone -o $tag.short.lds -a $tag.short.al $tag $hot 2>/dev/null ||
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

# x86-64 with lld: the same fragment
if gcc -fuse-ld=lld -o lldtest natsim.c 2>/dev/null; then
	gcc -O2 -ffunction-sections -static -fuse-ld=lld -Wl,-T,x86.lds -o x86.lld natsim.c ||
		fail "lld rejects the fragment"
	$CACHEPIN check x86.lld x86.align > lld.check || { cat lld.check; fail "check after lld failed"; }
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
grep -q '^\.text : {$' x86.secorder && grep -q '^}$' x86.secorder || fail "bad section ordering file"

# the kernel form (no --standalone) has no SECTIONS wrapper, and works the way
# the kernel hook uses it: INCLUDEd at the start of the .text output section
grep -q SECTIONS x86.frag.lds && fail "plain fragment has a SECTIONS wrapper"
ld --verbose | awk '/^====/ { p = !p; next } p' |
	awk -v inc="$PWD/x86.frag.lds" '{ print } /^  \.text  *:/ { t = 1; next } t && /^  \{/ { print "    INCLUDE " inc; t = 0 }' > full.lds
grep -q '^    INCLUDE ' full.lds || fail "could not put INCLUDE into the default script"
gcc -O2 -ffunction-sections -static -Wl,-T,full.lds -o x86.included natsim.c || fail "link with INCLUDE failed"
$CACHEPIN check x86.included x86.frag.align > inc.check || { cat inc.check; fail "check after INCLUDE failed"; }

# a unit that no longer exists: the linker says nothing, check fails
sed 's/fib_table_lookup/fib_table_lookup_v2/g' natsim.c > natsim2.c
gcc -O2 -ffunction-sections -static -Wl,-T,x86.lds -o x86.stale natsim2.c || fail "stale relink failed"
if $CACHEPIN check x86.stale x86.align > stale.check; then
	fail "check passed although fib_table_lookup is gone"
fi
grep -q '^missing: fib_table_lookup ' stale.check || { cat stale.check; fail "check did not name the missing unit"; }
grep -q '^FAILED: ' stale.check || fail "no FAILED line"
# an unaligned block start is caught
sed 's/^block-align 8192/block-align 16384/' x86.align > x86.bad.align
$CACHEPIN check x86.new x86.bad.align > bad.check && grep -q misaligned bad.check && fail "alignment not checked" || true
exit 0
