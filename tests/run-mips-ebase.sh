#!/bin/sh
# MIPS32 kernels: the exception handlers at ebase are fixed occupants that profile, score and plan count and never emit; a real QEMU trace hits them; other binaries get none.
. "$(dirname "$0")/test-subr.sh"
need_cmd mips-linux-gnu-gcc mips-linux-gnu-nm arm-linux-gnueabihf-gcc gcc jq awk
MCC="mips-linux-gnu-gcc -O2 -EB -march=mips32r2 -mno-abicalls -fno-pic -G0 -ffunction-sections"
D=$TOOLS/bin-dump
CACHE=mips-74k-32k	# 32 KiB, 4 ways, 32 B lines: 256 sets, way span 8 KiB

# A kernel-like MIPS32 BE image: text at 0x80100000 (KSEG0), four hot
# functions that fill 8 KiB, 8 KiB, 8 KiB and 7.5 KiB, and start_kernel.
# Its linker script includes the layout fragment inside .text, as the
# kernel hook does (empty for the first link).
cat > k.c <<'EOF'
#define BODY(n) __asm__ volatile(".rept " #n "\n\tnop\n\t.endr")
__attribute__((noinline)) int busy_a(int x) { BODY(2046); return x + 1; }
__attribute__((noinline)) int busy_b(int x) { BODY(2046); return x + 2; }
__attribute__((noinline)) int busy_c(int x) { BODY(2046); return x + 3; }
__attribute__((noinline)) int busy_d(int x) { BODY(1918); return x + 4; }
void start_kernel(void)
{
	volatile int v = 0;

	for (;;)
		v = busy_a(v) + busy_b(v) + busy_c(v) + busy_d(v);
}
EOF
cat > kernel.lds <<'EOF'
ENTRY(start_kernel)
SECTIONS
{
	. = 0x80100000;
	.text : {
		INCLUDE layout.lds
		*(.text .text.*)
	}
	.notes : { *(.note.*) }
}
EOF
: > layout.lds
$MCC -c -o k.o k.c || fail "compiling k.c failed"
mips-linux-gnu-gcc -nostdlib -static -Wl,-T,kernel.lds -Wl,-Map=k.map -o k k.o ||
	fail "linking k failed"
addr() { mips-linux-gnu-nm "$1" | awk -v s="$2" '$3 == s { print substr($1, length($1) - 7) }'; }
[ "$(addr k busy_a)" = 80100000 ] && [ "$(addr k busy_d)" = 80106000 ] ||
	fail "k is not laid out as planned: busy_a at $(addr k busy_a), busy_d at $(addr k busy_d)"

# the handlers are synthetic fixed functions, each in a fixed unit, also through the map
"$D" funcs k > funcs.txt || fail "bin-dump funcs failed"
grep '^80000000 80 \[ebase.tlb_refill\] - \[ebase.tlb_refill\] synthetic$' funcs.txt > /dev/null &&
	grep '^80000180 80 \[ebase.general\] - \[ebase.general\] synthetic$' funcs.txt > /dev/null &&
	grep '^80000200 800 \[ebase.interrupt\] - \[ebase.interrupt\] synthetic$' funcs.txt > /dev/null ||
	{ cat funcs.txt; fail "the ebase handlers are not in the function list"; }
"$D" units k k.map > units.txt || fail "bin-dump units failed"
[ "$(grep -c ' fixed,synthetic 1 exception handler at ebase$' units.txt)" = 3 ] ||
	{ cat units.txt; fail "the ebase handlers' units are not fixed through the map"; }
grep -q '^80100000 2000 \.text\.busy_a k\.o .* movable,map 1 -$' units.txt ||
	{ cat units.txt; fail "the map's units are not there next to the handlers'"; }
"$D" fix k k.map '*' > fix.txt 2>&1 || :
"$D" units k k.map > units.txt
[ "$(grep -c ' exception handler at ebase$' units.txt)" = 3 ] || fail "--fixed took over the handlers' reason"

# perf script text with raw addresses (perf knows no symbol on the router):
# one sample in every 16-byte granule of the hot functions, and four in the
# first two lines of the TLB refill handler and of the general exception
# vector; perf prints the handlers' frames without the kernel's map, and
# unwinds from them into the interrupted code (here busy_a).
samples() {	# lines "ADDR DSO [CALLER]"
	awk '{ printf "swapper     0 [000]     1.%06d:     250000 cpu-clock: \n\t%16s [unknown] (%s)\n", NR, $1, $2
		if (NF > 2) printf "\t%16s [unknown] ([kernel.kallsyms])\n", $3
		print "" }'
}
mips-linux-gnu-nm -S k | awk '$4 ~ /^busy_/ { a = strtonum("0x" substr($1, length($1) - 7)); n = strtonum("0x" $2);
	for (o = 0; o < n; o += 16) printf "%x [kernel.kallsyms]\n", a + o }' > hot.addr
[ "$(wc -l < hot.addr)" = 2016 ] || fail "expected 2016 hot granules, got $(wc -l < hot.addr)"
vectors() {	# EBASE [PREFIX]: the handlers' sampled addresses
	for o in 0x0 0x10 0x20 0x30; do printf '%s%x [unknown] 80100010\n' "$2" $(($1 + o)); done
	for o in 0x180 0x190 0x1a0 0x1b0; do printf '%s%x [kernel.kallsyms] 80100010\n' "$2" $(($1 + o)); done
}
vectors 0x80000000 > vec.addr
cat hot.addr vec.addr | samples > with.txt
samples < hot.addr > without.txt
vectors 0x80752000 | cat hot.addr - | samples > moved.txt
vectors 0x80000000 ffffffff | cat hot.addr - | samples > sext.txt

# (a) the profile names the handlers with their weight, by offset
$CACHEPIN profile -m k.map -o with.profile k with.txt || fail "profile failed"
$CACHEPIN profile -m k.map -o without.profile k without.txt || fail "profile without the handlers failed"
grep -qx 'samples 2024 2024' with.profile || fail "not every sample matched: $(grep ^samples with.profile)"
for h in tlb_refill general; do
	awk -v h="[ebase.$h]" '$1 == "f" { cur = $2; if (cur == h) print; next }
		$1 == "g" && cur == h { print }' with.profile > $h.lines
	# perf script text is in time order: the handlers' samples come last,
	# in the last of the 16 time slices
	z='0 0 0 0 0 0 0 0 0 0 0 0 0 0 0'
	printf 'f [ebase.%s] - 1000000 4 1000000 128\ng 0x0 250000 %s 250000\ng 0x10 250000 %s 250000\ng 0x20 250000 %s 250000\ng 0x30 250000 %s 250000\n' \
		$h "$z" "$z" "$z" "$z" | diff -u - $h.lines || fail "[ebase.$h] does not carry its four samples"
done
grep -q 'ebase' without.profile && fail "a profile without handler samples names a handler"
grep -q '^e ' with.profile && fail "an exception handler has callers"
grep -qx 'f busy_a - 128000000 512 128000000 8192' with.profile ||
	fail "the code an exception interrupted is charged for the handler"
# position independent: the same profile for handlers at another ebase,
# for sign-extended addresses, and on a second run
$CACHEPIN profile -m k.map --ebase 0x80752000 -o moved.profile k moved.txt || fail "profile --ebase failed"
cmp -s with.profile moved.profile || fail "the profile depends on ebase"
$CACHEPIN profile -m k.map -o sext.profile k sext.txt || fail "profile of sign-extended addresses failed"
cmp -s with.profile sext.profile || fail "sign-extended handler addresses give another profile"
$CACHEPIN profile -m k.map -o again.profile k with.txt
cmp -s with.profile again.profile || fail "the profile is not reproducible"
# handler samples at another base than the binary's: a warning names it
for i in 1 2 3 4; do vectors 0x80752000; done | cat hot.addr - | samples > moved4.txt
$CACHEPIN profile -m k.map -o moved4.profile k moved4.txt 2> moved4.err || fail "profile moved4.txt failed"
grep -q "^cachepin: 'k': 32 kernel samples (1.56 %) matched no function at 0x80752000 " moved4.err &&
	grep -qx 'hint: pass --ebase 0x80752000 to profile, score and plan' moved4.err ||
	{ cat moved4.err; fail "no hint at the exception base the samples point to"; }
grep -q 'ebase' moved4.profile && fail "samples at another base were taken for the handlers"
$CACHEPIN profile -m k.map --ebase 80752000 -o moved4.profile k moved4.txt 2> moved4.err ||
	fail "profile --ebase 80752000 failed"
[ ! -s moved4.err ] || { cat moved4.err; fail "a warning with the right --ebase"; }
grep -qx 'f \[ebase.general\] - 4000000 16 4000000 128' moved4.profile || fail "--ebase 80752000 missed samples"
# a hot list's addresses resolve to the handlers too
printf '0x80000190 7\n0x80100000@vmlinux 1\n' > hot.list
$CACHEPIN profile k hot.list > list.profile || fail "profile of a hot list failed"
grep -qx 'f \[ebase.general\] - 7 1 7 128' list.profile && grep -qx 'g 0x10 7' list.profile ||
	{ cat list.profile; fail "a hot list's handler address was not attributed"; }

# the handlers' sets in this geometry: set = address / 32 % 256
hsets=$(awk '{ printf "%d\n", strtonum("0x" $1) / 32 % 256 }' vec.addr | sort -nu | tr '\n' ' ')
[ "$hsets" = "0 1 12 13 " ] || fail "handler sets are '$hsets'"

# The samples above sweep the granules once, in address order: as a time
# order that is no workload.  The rest takes the profiles folded into one
# time slice, a steady state in which every sampled line runs.
fold() { awk '$1 == "slices" { next } $1 == "g" { print $1, $2, $3; next }
	NR == 1 { print "# cachepin-profile 1"; next } { print }' "$1"; }
fold with.profile > steady.profile
fold without.profile > without1.profile
mv without1.profile without.profile

# (b) score: the handlers' lines are occupants; four hot lines in their
# sets now conflict (five lines in four ways), none did without them
conflict() {	# BINARY PROFILE
	$CACHEPIN score --json -c $CACHE "$1" "$2" > score.json || fail "score $1 $2 failed"
	jq '.caches[0].misses.lru - .caches[0].misses.fully_associative_lru' score.json
}
c0=$(conflict k without.profile)
c1=$(conflict k steady.profile)
m0=$(jq '.caches[0].misses.lru' score.json)
echo "modelled LRU conflict misses on $CACHE: $c0 without the handler samples, $c1 with them ($m0 misses)"
[ "$c0" = 0 ] || fail "without the handlers the layout conflicts ($c0)"
[ "$c1" -gt 1000 ] || fail "the handlers' lines do not count in their sets (conflict $c1)"
for s in $hsets; do
	[ "$(jq ".caches[0].sets_detail[] | select(.set == $s) | .lines" score.json)" = 5 ] ||
		fail "set $s does not hold the handler's line and four hot lines"
done
$CACHEPIN score -c $CACHE k steady.profile > score.txt
grep -q '^ *12 *5 .* \[ebase\.general\]+0x0 ' score.txt || { cat score.txt; fail "set 12 does not name [ebase.general]"; }
# a handler is the room it may take, not its code: --whole-functions does
# not widen it, and a weight known only by name is its entry line's
$CACHEPIN score --json --whole-functions -c $CACHE k steady.profile > whole.json
[ "$(jq '.caches[0].hot_lines' whole.json)" = 1012 ] || fail "--whole-functions widened the handlers"
printf '[ebase.interrupt]@vmlinux 1000\n' > name.list
$CACHEPIN score --json -c $CACHE k name.list > name.json || fail "score of a handler's name failed"
[ "$(jq -c '[.caches[0].hot_lines, [.caches[0].sets_detail[].set]]' name.json)" = '[1,[16]]' ] ||
	fail "a handler known by name is not its entry line (set 16): $(jq -c '.caches[0].sets_detail' name.json)"

# (c) plan: hot lines stay out of the handlers' sets beyond the ways left
# (the search, which colours around fixed occupants; with one sample per
# line, halves of this profile share no line to judge candidates on)
$CACHEPIN plan --method search -m k.map -c $CACHE --lld-order hot.lld --section-order hot.sec -o hot.lds \
	k steady.profile 2> plan.err || { cat plan.err; fail "plan failed"; }
cat plan.err
grep -q '(8 fixed hot granules stay)' plan.err || fail "plan does not keep the handlers' granules as fixed"
ranges_count() {	# SET: hot lines the alignment file puts in it
	awk -v s="$1" '$1 == "hot" { n = split($9, r, ","); for (i = 1; i <= n; i++) {
		k = split(r[i], b, "-"); lo = b[1]; hi = k > 1 ? b[2] : b[1];
		if (s + 0 >= lo + 0 && s + 0 <= hi + 0) c++ } } END { print c + 0 }' hot.align
}
for s in $hsets; do
	n=$(ranges_count $s)
	[ "$n" -le 3 ] || { cat hot.align; fail "the plan puts $n hot lines in handler set $s (4 ways, 1 taken)"; }
done
after=$(sed -n 's/^# cache .*modelled misses before [0-9]* after \([0-9]*\) .*/\1/p' hot.align)
[ "$after" = 1012 ] || fail "the plan still misses more than once per line ($after of 1012 lines)"
# (d) the handlers are in no emitted file
grep -il 'ebase' hot.lds hot.align hot.lld hot.sec && fail "an emitted file names an ebase handler"
grep -q '^\*(\.text\.busy_d)$' hot.lds || fail "the fragment does not place busy_d"
# relink with the fragment, check, and score the result
cp hot.lds layout.lds
mips-linux-gnu-gcc -nostdlib -static -Wl,-T,kernel.lds -o k.new k.o || fail "relink failed"
$CACHEPIN check k.new hot.align > check.out || { cat check.out; fail "check failed"; }
grep -q '^ok: ' check.out || fail "check did not say ok"
c2=$(conflict k.new steady.profile)
[ "$c2" = 0 ] || fail "the relinked kernel still conflicts with the handlers ($c2)"
d=$(printf '%d' 0x$(addr k.new busy_d))
awk -v a="$d" -v hs="$hsets" 'BEGIN { n = split(hs, h, " "); for (l = 0; l < 240; l++) {
	s = int((a + 32 * l) / 32) % 256; for (i = 1; i <= n; i++) if (s == h[i]) exit 1 } }' ||
	fail "busy_d of the relinked kernel ($(addr k.new busy_d)) has a line in a handler set"

# (e) errors, and binaries that get no handlers
expect_fail "bad --ebase 'zz'" $CACHEPIN score --ebase zz -c $CACHE k steady.profile
[ "$(sh -c "$CACHEPIN score --ebase zz k steady.profile 2>/dev/null; echo \$?")" = 129 ] ||
	fail "a malformed --ebase is not a usage error"
expect_fail "not an exception base" $CACHEPIN score --ebase 0x80000100 -c $CACHE k steady.profile
expect_fail "hint: a 32-bit MIPS kernel's exception base is a multiple of 0x1000" \
	$CACHEPIN score --ebase 0x7ffff000 -c $CACHE k steady.profile
expect_fail "inside its section '.text'" $CACHEPIN plan --ebase 0x80104000 -m k.map -c $CACHE -o x.lds k steady.profile
[ ! -e x.lds ] && [ ! -e x.align ] || fail "a refused --ebase left output behind"
printf 'void start_kernel(void) { for (;;) ; }\n' > other.c
arm-linux-gnueabihf-gcc -O2 -nostdlib -static -e start_kernel -Wl,-Ttext=0x80008000 -o arm-k other.c ||
	fail "building the ARM kernel-like binary failed"
gcc -O2 -nostdlib -static -e start_kernel -o x86-k other.c || fail "building the x86-64 binary failed"
printf 'void __start(void) { for (;;) ; }\n' > user.c
$MCC -nostdlib -static -Wl,-Ttext=0x80100000 -o mips-user user.c || fail "building the MIPS program failed"
for b in arm-k x86-k mips-user; do
	"$D" funcs $b > $b.funcs || fail "bin-dump funcs $b failed"
	grep -q 'ebase\|synthetic' $b.funcs && fail "$b got synthetic functions"
	"$D" units $b | grep -q 'synthetic' && fail "$b got synthetic units"
	expect_fail "hint: leave --ebase out" $CACHEPIN score --ebase 0x80000000 $b hot.list
done

# a real trace: a kernel in miniature copies a handler to ebase + 0x000
# and + 0x180 at boot, as Linux does, takes N TLB refills and N system
# calls on QEMU's malta, and resets the board
if command -v qemu-system-mips > /dev/null 2>&1; then
	cat > qk.c <<'EOF'
#define N 1000
#define EBASE 0x80000000u

/* both vectors get it: return past the faulting instruction (5 instructions) */
__asm__(".section .text.vec_tmpl, \"ax\"\n"
	".set push\n.set noreorder\n.set noat\n"
	".globl vec_tmpl\nvec_tmpl:\n"
	"	mfc0	$26, $14\n"
	"	addiu	$26, $26, 4\n"
	"	mtc0	$26, $14\n"
	"	ehb\n"
	"	eret\n"
	".globl vec_tmpl_end\nvec_tmpl_end:\n"
	".set pop\n");
extern const unsigned int vec_tmpl[], vec_tmpl_end[];

static void copy_vector(unsigned int off)
{
	volatile unsigned int *dst = (volatile unsigned int *)(EBASE + off);
	const unsigned int *src;

	for (src = vec_tmpl; src < vec_tmpl_end; src++)
		*dst++ = *src;
}

/* called: the exceptions come with a caller on QEMU's shadow stack */
__attribute__((noinline)) void fault(void)
{
	__asm__ volatile(".set push\n.set noreorder\n"
			 "lui	$8, 0x4000\n"
			 "lw	$9, 0($8)\n"	/* unmapped: TLB refill */
			 "nop\n"
			 "syscall\n"		/* general exception */
			 "nop\n"
			 ".set pop" : : : "$8", "$9", "memory");
}

void start_kernel(void)
{
	unsigned int st;
	int i;

	copy_vector(0x000);	/* TLB refill */
	copy_vector(0x180);	/* general exception */
	__asm__ volatile("mtc0 %0, $15, 1\n\tehb" : : "r"(EBASE));
	__asm__ volatile("mfc0 %0, $12" : "=r"(st));
	st &= ~((1u << 22) | 7u);	/* BEV, ERL, EXL, IE: vectors at ebase, kernel mode */
	__asm__ volatile("mtc0 %0, $12\n\tehb" : : "r"(st));
	for (i = 0; i < N; i++)
		fault();
	*(volatile unsigned int *)0xbf000500u = 0x42;	/* malta: board reset */
	for (;;)
		;
}
EOF
	$MCC -c -o qk.o qk.c || fail "compiling qk.c failed"
	mips-linux-gnu-gcc -nostdlib -static -e start_kernel -Wl,-Ttext=0x80100000 -Wl,-Map=qk.map \
		-o qk qk.o ||
		fail "linking qk failed"
	timeout 60 qemu-system-mips -M malta -m 64 -kernel qk -display none -vga none \
		-serial none -monitor none -nic none -no-reboot \
		-d in_asm,exec,nochain -D qk.log < /dev/null 2> qemu.err || { cat qemu.err; fail "QEMU failed"; }
	# QEMU may log a block and then leave it before its first instruction
	# for an exit request of its I/O thread (host timing): "Stopped
	# execution of TB chain before" that block follows, and the entry does
	# not count; the reader cancels it, and so does the count here
	runs() {
		awk -v pc="$1" '$1 == "Trace" && index($0, "/" pc "/") { n++ }
			/^Stopped execution of TB chain before / && index($0, "[" pc "]") { n-- }
			END { print n + 0 }' qk.log
	}
	n0=$(runs 80000000) n1=$(runs 80000180)
	[ "$n0" = 1000 ] && [ "$n1" = 1000 ] || fail "QEMU ran the vectors $n0 and $n1 times, not 1000"
	$CACHEPIN profile -m qk.map -o qk.profile qk qk.log || fail "profile of the QEMU log failed"
	grep -qx 'f \[ebase.tlb_refill\] - 5000 5000 5000 128' qk.profile &&
		grep -qx 'f \[ebase.general\] - 5000 5000 5000 128' qk.profile ||
		{ cat qk.profile; fail "the QEMU trace's vector instructions are not counted exactly"; }
	grep -q '^e start_kernel - fault - ' qk.profile || { cat qk.profile; fail "no call edge in the QEMU profile"; }
	grep -q '^e .*ebase' qk.profile && fail "an exception handler has callers in the QEMU profile"
	$CACHEPIN score -c $CACHE qk qk.profile > qk.score || fail "score of the QEMU profile failed"
	grep -q '\[ebase.tlb_refill\]+0x0' qk.score || fail "the score does not show the refill handler's line"
else
	echo "no qemu-system-mips: the QEMU trace part is not run"
fi
exit 0
