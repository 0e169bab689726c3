#!/bin/sh
# cachepin profile of a valgrind lackey trace: every instruction, or with
# --every N every N-th, a sample of event instructions in time order; a
# hand-made trace with every figure computed by hand, a real trace of a
# program built here against awk's count of the same trace, a pipe, and
# bad traces.
. "$(dirname "$0")/test-subr.sh"
need_cmd gcc valgrind nm awk cmp

cat > p.c <<'EOF'
#define BODY(n) __asm__ volatile(".rept " #n "\n\tnop\n\t.endr")
volatile int n1 = 300, n2 = 100;
__attribute__((noinline)) int f(int x) { int s = 0; for (int i = 0; i < x; i++) { BODY(8); s += i; } return s; }
__attribute__((noinline)) int g(int x) { int s = 1; for (int i = 0; i < x; i++) { BODY(24); s ^= i; } return s; }
int main(void) { int s = 0; for (int k = 0; k < 20; k++) s += f(n1) + g(n2); return s & 1; }
EOF
gcc -O1 -static -no-pie -o p p.c || fail "cannot build p"
addr() { nm p | awk -v s="$1" '$3 == s { print $1 }'; }

# ---- by hand: f's first 32 bytes as eight 4-byte instructions run 100
# times (800 fetches), g's 50 times (400), then 20 fetches outside the
# program: 1,220 instructions.  Every 10th: 122 samples, 120 in p.  The
# i-th fetch of a loop is at offset 4 * ((i - 1) mod 8), so the 10th,
# 20th, ... land on 0x4, 0xc, 0x14, 0x1c in turn: of f's 80 samples 40
# in the granule at 0x0 and 40 at 0x10, of g's 40 20 and 20; each weighs
# its period, 10.
{
	echo "==7== Lackey, an example Valgrind tool"
	echo "==7== Command: ./p"
	awk -v f=$((0x$(addr f))) -v g=$((0x$(addr g))) 'BEGIN {
		for (r = 0; r < 100; r++) for (o = 0; o < 32; o += 4) printf "I  %08x,4\n", f + o
		print " L 1ffefff000,8"
		for (r = 0; r < 50; r++) for (o = 0; o < 32; o += 4) printf "I  %08x,4\n", g + o
		for (r = 0; r < 20; r++) printf "I  %08x,4\n", 16
	}'
	echo "==7== "
} > hand.lk
$CACHEPIN profile --every 10 p hand.lk > hand.prof 2> hand.err || { cat hand.err >&2; fail "profile of hand.lk failed"; }
testrun_compare awk '/^(event|samples|period|slices|phases)/; $1 == "f" { print $1, $2, $3, $4, $5, $6 } $1 == "g" { print $1, $2, $3 }' hand.prof <<'EOF'
event instructions
samples 122 120
period 1220 1200
slices 16
f f - 800 80 800
g 0x0 400
g 0x10 400
f g - 400 40 400
g 0x0 200
g 0x10 200
EOF
# slices in time order: the slices double in length until 16 hold the
# 122 samples, so each holds 8 (the last 2, outside p); the first 80
# samples are f's (slices 0-9, 4 samples of 10 in each granule), the
# next 40 g's (10-14)
testrun_compare awk '$1 == "g" { s = ""; for (i = 4; i <= NF; i++) s = s " " $i; print $2 s }' hand.prof <<'EOF'
0x0 40 40 40 40 40 40 40 40 40 40 0 0 0 0 0 0
0x10 40 40 40 40 40 40 40 40 40 40 0 0 0 0 0 0
0x0 0 0 0 0 0 0 0 0 0 0 40 40 40 40 40 0
0x10 0 0 0 0 0 0 0 0 0 0 40 40 40 40 40 0
EOF

# ---- a real trace of p: the profile's samples in f and g are awk's
# count of the same fetches, every instruction and every 7th
valgrind --tool=lackey --trace-mem=yes --log-file=p.lk ./p || fail "valgrind lackey failed"
fsz=$(nm -S p | awk '$4 == "f" { print $2 }') gsz=$(nm -S p | awk '$4 == "g" { print $2 }')
count() {	# N: samples in f and g of every N-th instruction of p.lk
	awk -v n="$1" -v f=$((0x$(addr f))) -v fe=$((0x$(addr f) + 0x$fsz)) \
		-v g=$((0x$(addr g))) -v ge=$((0x$(addr g) + 0x$gsz)) '
		/^I  / { i++; if (i % n) next
			a = strtonum("0x" substr($2, 1, index($2, ",") - 1))
			if (a >= f && a < fe) nf++; else if (a >= g && a < ge) ng++ }
		END { printf "samples %d\nf %d\ng %d\n", int(i / n), nf, ng }' p.lk
}
mine() { awk '$1 == "samples" { print $1, $2 } $1 == "f" && ($2 == "f" || $2 == "g") { print $2, $5 }' "$1"; }
for n in 1 7; do
	$CACHEPIN profile --every $n -o p$n.prof p p.lk 2> p$n.err || { cat p$n.err >&2; fail "profile --every $n failed"; }
	count $n > awk$n.out
	mine p$n.prof > mine$n.out
	diff -u awk$n.out mine$n.out || fail "--every $n: the profile's samples are not the trace's"
done
# f runs 20 x 300 iterations of its eight nops and more: thousands of samples
[ "$(awk '$1 == "f" { print $2 }' awk1.out)" -gt 48000 ] || fail "f has $(cat awk1.out)"

# on a pipe, the same profile; reproducible
cat p.lk | $CACHEPIN profile --every 7 p /dev/stdin 2> /dev/null | cmp -s - p7.prof ||
	fail "a lackey trace on a pipe gives another profile"
$CACHEPIN profile --every 7 p p.lk 2> /dev/null | cmp -s - p7.prof || fail "the profile is not reproducible"

# ---- bad traces
head -c 30000 p.lk > cut.lk
printf 'I  0040zz10,4\n' >> cut.lk
expect_fail "^cachepin: 'cut.lk':[0-9]*: bad instruction line (lackey writes 'I  ADDR,SIZE')$" \
	$CACHEPIN profile p cut.lk
printf '==1== Lackey\n L 1ffefff000,8\n S 1ffefff008,4\n' > data.lk
expect_fail "^cachepin: 'data.lk': no instruction lines$" $CACHEPIN profile p data.lk
grep -q "^hint: record with 'valgrind --tool=lackey --trace-mem=yes'$" fail.err || fail "no hint for data.lk"
[ ! -s fail.out ] || fail "a failed profile wrote output"
