#!/bin/sh
# Straight-line runs of real ARM, AArch64, MIPS and x86-64 programs: where cachepin's decoder ends a function's run agrees with objdump on every instruction, and the model takes a sampled granule's run as hot as it.
. "$(dirname "$0")/test-subr.sh"
need_cmd arm-linux-gnueabihf-gcc aarch64-linux-gnu-gcc mips-linux-gnu-gcc gcc \
	arm-linux-gnueabihf-objdump aarch64-linux-gnu-objdump mips-linux-gnu-objdump objdump awk sort

cat > prog.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>

struct node { struct node *next; unsigned key, val; };

static unsigned hash(unsigned x)
{
	x ^= x >> 16;
	x *= 0x7feb352d;
	x ^= x >> 15;
	return x;
}

__attribute__((noinline)) unsigned lookup(struct node **tab, unsigned n, unsigned key)
{
	struct node *p;

	for (p = tab[hash(key) % n]; p; p = p->next)
		if (p->key == key)
			return p->val;
	return 0;
}

__attribute__((noinline)) void insert(struct node **tab, unsigned n, unsigned key, unsigned val)
{
	struct node *p = malloc(sizeof(*p));
	unsigned h = hash(key) % n;

	if (!p)
		abort();
	p->key = key;
	p->val = val;
	p->next = tab[h];
	tab[h] = p;
}

__attribute__((noinline)) unsigned sum(const unsigned *v, unsigned n)
{
	unsigned s = 0, i;

	for (i = 0; i < n; i++)
		s += v[i] > 100 ? v[i] - 100 : v[i] * 3;
	return s;
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 1000, i, s = 0, v[64];
	struct node **tab = calloc(n, sizeof(*tab));

	if (!tab)
		return 1;
	for (i = 0; i < n; i++)
		insert(tab, n, i * 7, i);
	for (i = 0; i < n; i++)
		s += lookup(tab, n, i * 7);
	for (i = 0; i < 64; i++)
		v[i] = i * 5;
	printf("%u %u\n", s, sum(v, 64));
	return 0;
}
EOF

# objdump's view, an independent decoder: "function offset 4 [slot]" for
# every instruction after which the run stops (calls return: not these),
# in the program's own functions (the C library's start files and
# libgcc's division are Thumb on ARM, which the decoder leaves alone);
# data it shows as .word is left out of both sides
ends_objdump() {
	"$1" -d --no-show-raw-insn "$3" | awk -v isa="$2" '
	/^[0-9a-f]+ <.*>:$/ { base = strtonum("0x" $1); fn = $2; gsub(/[<>:]/, "", fn); next }
	/^ *[0-9a-f]+:\t/ {
		split($0, f, "\t"); a = f[1]; sub(/:$/, "", a); sub(/^ */, "", a)
		mn = f[2]; ops = f[3]; sub(/ +$/, "", mn)
		if (mn ~ /^\./) next
		off = strtonum("0x" a) - base; e = 0; slot = ""
		if (isa == "arm") {
			if (mn ~ /^b(eq|ne|cs|hs|cc|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le|al)?$/ || mn ~ /^bx/ || mn ~ /^udf/) e = 1
			else if (mn ~ /^(pop|ldm)/ && ops ~ /pc/) e = 1
			else if (mn !~ /^(cmp|cmn|tst|teq|str|push|stm)/ && ops ~ /^pc,/) e = 1
		} else if (isa == "aarch64") {
			if (mn ~ /^(b|br|ret|eret|brk|cbz|cbnz|tbz|tbnz)$/ || mn ~ /^b\./) e = 1
		} else {
			if (mn ~ /^(j|jr|b|beq|bne|beqz|bnez|blez|bgtz|bltz|bgez|beql|bnel|beqzl|bnezl|blezl|bgtzl|bltzl|bgezl|bc1f|bc1t)$/) { e = 1; slot = " slot" }
			else if (mn == "eret") e = 1
		}
		if (e) printf "%s %x 4%s\n", fn, off, slot
	}' | awk '$1 ~ /^(lookup|insert|sum|main)$/' | sort
}

for isa in arm aarch64 mips; do
	case $isa in
	arm) cc=arm-linux-gnueabihf-gcc od=arm-linux-gnueabihf-objdump fl=-marm ;;
	aarch64) cc=aarch64-linux-gnu-gcc od=aarch64-linux-gnu-objdump fl= ;;
	mips) cc=mips-linux-gnu-gcc od=mips-linux-gnu-objdump fl=-mno-mips16 ;;
	esac
	$cc -O2 $fl -o prog-$isa prog.c || fail "$isa: cannot build"
	ends_objdump $od $isa prog-$isa > want-$isa
	# the .word lines are data: the decoder reads them as instructions
	$od -d prog-$isa | awk '/^[0-9a-f]+ <.*>:$/ { base = strtonum("0x" $1); fn = $2; gsub(/[<>:]/, "", fn) }
		/\t\.(word|short|inst)/ { a = $1; sub(/:$/, "", a); printf "%s %x\n", fn, strtonum("0x" a) - base }' > data-$isa
	"$top/build/tests/tools/bin-dump" flow prog-$isa |
		awk 'FILENAME != "-" { d[$1 " " $2] = 1; next }
		     !(($1 " " $2) in d) && $1 ~ /^(lookup|insert|sum|main)$/' data-$isa - | sort > got-$isa
	[ -s want-$isa ] || fail "$isa: objdump shows no branch"
	cmp -s want-$isa got-$isa || { diff -u want-$isa got-$isa >&2; fail "$isa: run ends differ from objdump's"; }
done

# x86-64: instructions of many lengths, decoded through libopcodes.
# objdump's view again, with each instruction's bytes on one line: a
# jump or return, its offset and length, ends the run; the prefixes (bnd,
# notrack, rep) are not the mnemonic
gcc -O2 -fcf-protection=full -o prog-x86 prog.c || fail "x86: cannot build"
objdump -d --insn-width=16 prog-x86 | awk '
	/^[0-9a-f]+ <.*>:$/ { base = strtonum("0x" $1); fn = $2; gsub(/[<>:]/, "", fn); next }
	/^ *[0-9a-f]+:\t/ {
		split($0, f, "\t"); a = f[1]; sub(/:$/, "", a); sub(/^ */, "", a)
		len = split(f[2], bytes, " ")
		n = split(f[3], w, " ")
		for (i = 1; i <= n && w[i] ~ /^(bnd|notrack|rep|repz|repnz|lock|data16|cs|ds)$/; i++)
			;
		mn = w[i]
		if (mn ~ /^(j|loop|ret|lret|iret|ud|sysret)/ || mn == "hlt" || mn == "int3")
			printf "%s %x %d\n", fn, strtonum("0x" a) - base, len
	}' | awk '$1 ~ /^(lookup|insert|sum|main)$/' | sort > want-x86
"$top/build/tests/tools/bin-dump" flow prog-x86 | awk '$1 ~ /^(lookup|insert|sum|main)$/' | sort > got-x86
[ -s want-x86 ] || fail "x86: objdump shows no jump"
cmp -s want-x86 got-x86 || { diff -u want-x86 got-x86 >&2; fail "x86: run ends differ from objdump's"; }

# The model: lookup's only sample at its entry (an ARM profile, granule
# 16).  Its run goes on to the bne at 0x2c: lines 0x00 and 0x20 are hot,
# where the short holes alone made one line of it.
cat > one.profile <<'EOF'
# cachepin-profile 2
event cpu-clock
binary prog-arm
granule 16
samples 100 100
period 100 100
f lookup - 100 100 100 0
g 0x0 100
EOF
sed -i "s/^binary .*/binary prog-arm/" one.profile
$CACHEPIN score -c 1K:1:32 prog-arm one.profile > score.out 2> score.err ||
	{ cat score.err >&2; fail "score failed"; }
awk '$1 == "line" && $2 == "fetches" { print "hot lines", $6 }' score.out > got-lines
testrun_compare cat got-lines <<'EOF'
hot lines 2
EOF

# x86-64: main's loop that fills v[] sampled at its set-up only (granule
# 0x90; the run starts at main+0x88, after the jne that closes the lookup
# loop).  The run goes on through the loop to its jne at main+0xd0:
# granules 0x90 to 0xd0 hot, three lines of main (it starts at 0x...a0),
# where the short holes alone made one.
cat > x86.profile <<'PEOF'
# cachepin-profile 2
event cpu-clock
binary prog-x86
granule 16
samples 100 100
period 100 100
f main - 100 100 100 0
g 0x90 100
PEOF
grep -q 'main 86 2$' want-x86 && grep -q 'main d0 2$' want-x86 ||
	fail "x86: main is not the code this test expects (two-byte jumps at 0x86 and 0xd0)"
$CACHEPIN score -c 1K:1:32 prog-x86 x86.profile > score-x86.out 2> score-x86.err ||
	{ cat score-x86.err >&2; fail "x86: score failed"; }
awk '$1 == "line" && $2 == "fetches" { print "hot lines", $6 }' score-x86.out > got-lines-x86
testrun_compare cat got-lines-x86 <<'PEOF'
hot lines 3
PEOF

# The same loop sampled in granule 0x80 only, whose jne at main+0x86
# ends the lookup loop's run: its bytes after the jne (main+0x88 on)
# start the next run, which takes half the granule's weight (8 of its 16
# bytes) on through the loop.  Three lines again; without the bytes
# after an end, one.
sed 's/^g 0x90 100$/g 0x80 100/' x86.profile > x86-end.profile
$CACHEPIN score -c 1K:1:32 prog-x86 x86-end.profile > score-x86-end.out 2> score-x86-end.err ||
	{ cat score-x86-end.err >&2; fail "x86: score failed"; }
awk '$1 == "line" && $2 == "fetches" { print "hot lines", $6 }' score-x86-end.out > got-lines-x86-end
testrun_compare cat got-lines-x86-end <<'PEOF'
hot lines 3
PEOF
