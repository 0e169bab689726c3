#!/bin/sh
# plan --modules-lds: a module's hot functions packed from the page offset its sets are lightest at, led there by its own cold functions; the fragment, linked, puts them at the planned offsets.
. "$(dirname "$0")/test-subr.sh"
need_cmd gcc as ld

# The kernel: a dozen small hot functions at the start of a page
# (0x401000: page offsets 0 to 0xff hot), function sections, a map
gcc -O2 -ffunction-sections -nostdlib -static -no-pie -Wl,--defsym=_text=0x401000 \
	-Wl,-e,start_kernel -Wl,-Map=k.map -o k "$srcdir/src/synthkern.c" || fail "cannot build k"
# The module as kbuild leaves it: a function a section, init code apart;
# the loader lays its text out as m_in 0, c1 0x50, m_big 0x150, f3
# 0x1150, c2 0x3150, m_out 0x3350, c3 0x4350
cat > mod.s <<'EOF'
	.section .gnu.linkonce.this_module,"aw"
	.globl __this_module
__this_module:
	.asciz "nf_conntrack"
	.macro fn name, size
	.section .text.\name,"ax",@progbits
	.balign 16
	.type \name,@function
\name:	.skip \size, 0x90
	.size \name, .-\name
	.endm
	fn m_in, 0x48
	.section .init.text,"ax",@progbits
m_init:	.skip 0x100, 0x90
	fn c1, 0x100
	fn m_big, 0x1000
	fn f3, 0x2000
	fn c2, 0x200
	fn m_out, 0x1000
	fn c3, 0x400
EOF
mkdir -p mods net/netfilter new
as -o net/netfilter/nf-conntrack.o mod.s || fail "cannot assemble the module"
cp net/netfilter/nf-conntrack.o mods/nf-conntrack.ko
# loaded at 0x7f001000: samples at text offsets 0x40 and 0x44 (m_in),
# 0x1080 (m_big+0xf30) and 0x3ffc (m_out+0xcac)
"$TOOLS/perf-synth" -n 400 -m "/lib/modules/6.1.0/kernel/net/netfilter/nf_conntrack.ko@0x7f001000" k a.data ||
	fail "perf-synth failed"
$CACHEPIN profile --kernel -m k.map --modules mods -o m.prof k a.data 2> /dev/null || fail "profile failed"

# As built, m_in's hot line (+0x40) is at page offset 0x40, among the
# kernel's hot lines (page offsets 0 to 0xff; at 32K:4:32 a module's
# page may be either of a way span's two).  Planned, the hot functions
# start at 0x300, after c2 and c1 (no padding): m_in's line at 0x340,
# m_big's at 0x280 of its second page, m_out's at 0xfe0
$CACHEPIN plan --kernel -m k.map -c 32K:4:32 --modules mods --modules-lds m.lds -o k.lds k m.prof \
	2> plan.err || { cat plan.err >&2; fail "plan --modules-lds failed"; }
testrun_compare sh -c "grep -E 'nf_conntrack.ko: |modules planned' plan.err" <<'EOF'
cachepin: nf_conntrack.ko: 3 hot functions from +0x300, after 2 of its cold ones
cachepin: 32K:4:32 (lru): with 1 of 1 modules planned, modelled misses 15 -> 15 (+0.0 %), at the load addresses of the recording
EOF
testrun_compare cat m.lds <<'EOF'
/*
 * cachepin: the modules' hot functions at planned offsets in their text.
 * For each module's link: LDFLAGS_MODULE="-T <this file>" (GNU ld takes it
 * with scripts/module.lds).  A module named nowhere here links as before.
 */
SECTIONS
{
	.text : {
		/* nf_conntrack.ko: 3 hot functions from +0x300, 2 cold before them */
		*/nf-conntrack.o(.text.c2)	/* +0x0 */
		*/nf-conntrack.o(.text.c1)	/* +0x200 */
		*/nf-conntrack.o(.text.m_in)	/* +0x300 */
		*/nf-conntrack.o(.text.m_big)	/* +0x350 */
		*/nf-conntrack.o(.text.m_out)	/* +0x1350 */
	}
}
EOF

# The module's link with it (kbuild's ld -r, the object by its path):
# every function where the fragment says, as the loader lays it out
ld -r -T m.lds -o new/nf-conntrack.ko net/netfilter/nf-conntrack.o || fail "the module's link with the fragment failed"
sed -n 's|^\t\t\*/nf-conntrack.o(.text.\([a-z0-9_]*\))\t/\* +0x\([0-9a-f]*\) \*/$|\2 \1|p' m.lds > planned.txt
[ "$(wc -l < planned.txt)" = 5 ] || fail "planned.txt: $(cat planned.txt)"
"$TOOLS/bin-dump" funcs new/nf-conntrack.ko | awk '{ print $1, $3 }' > linked.txt
while read -r off fn; do
	grep -qx "$off $fn" linked.txt || fail "$fn is not at +0x$off in the relinked module: $(grep " $fn\$" linked.txt)"
done < planned.txt
# cachepin check --modules: the relinked module in place; the module as
# built not, each function said; something else than the script refused
testrun_compare $CACHEPIN check --modules new m.lds <<'EOF'
ok: 5 of 5 planned functions of 1 modules at their planned offsets
EOF
testrun_compare sh -c "$CACHEPIN check --modules mods m.lds; echo \"exit \$?\"" <<'EOF'
nf_conntrack.ko: c2 planned +0x0, now +0x3150
nf_conntrack.ko: c1 planned +0x200, now +0x50
nf_conntrack.ko: m_in planned +0x300, now +0x0
nf_conntrack.ko: m_big planned +0x350, now +0x150
nf_conntrack.ko: m_out planned +0x1350, now +0x3350
FAILED: 0 of 5 planned functions of 1 modules in place, 5 moved, 0 missing
exit 1
EOF
expect_fail "'k.lds': not a script of cachepin plan --modules-lds" $CACHEPIN check --modules new k.lds
mkdir -p none
cp new/nf-conntrack.ko none/nf_nat.ko
expect_fail "'m.lds': line 9: no module nf_conntrack.ko under 'none'" $CACHEPIN check --modules none m.lds
# scored with the relinked module: its functions where its file has
# them now (at 0x7f001000: m_in+0x40 at set 128 + 0x340 / 32 = 154,
# m_big+0xf30 at 0x1280 + 0x1000, set 20, m_out+0xcac at 0x1ffc + 0x1000,
# set 127)
$CACHEPIN score --kernel -m k.map -c 32K:4:32 --top 256 --modules new k m.prof > s.txt 2> /dev/null ||
	fail "score with the relinked module failed"
testrun_compare sh -c "awk '/worst sets/ { on = 1; next } on && NF == 0 { on = 0 } on && /nf_conntrack/ { print \$1, \$NF }' s.txt | sort -n" <<'EOF'
20 nf_conntrack.ko:m_big+0xf30
127 nf_conntrack.ko:m_out+0xc90
154 nf_conntrack.ko:m_in+0x40
EOF

# a module built without function sections is said and left as it is
cat > one.s <<'EOF'
	.section .gnu.linkonce.this_module,"aw"
	.globl __this_module
__this_module:
	.asciz "nf_conntrack"
	.text
	.type m_in,@function
m_in:	.skip 0x4000, 0x90
	.size m_in, .-m_in
EOF
mkdir -p one
as -o one/nf_conntrack.ko one.s || fail "cannot assemble the module without function sections"
$CACHEPIN profile --kernel -m k.map --modules one -o one.prof k a.data 2> /dev/null || fail "profile of one.ko failed"
$CACHEPIN plan --kernel -m k.map -c 32K:4:32 --modules one --modules-lds one.lds -o one-k.lds k one.prof \
	2> one.err || { cat one.err >&2; fail "plan --modules-lds with one.ko failed"; }
testrun_compare sh -c "grep 'not planned:' one.err; grep 'nf_conntrack' one.lds" <<'EOF'
cachepin: warning: nf_conntrack.ko: not planned: its hot code is not in sections of its own (build it with -ffunction-sections)
		/* nf_conntrack.ko: not planned: its hot code is not in sections of its own (build it with -ffunction-sections) */
EOF
# no modules' files: a usage error, nothing written
expect_fail "needs the modules' files: --modules DIR" \
	$CACHEPIN plan --kernel -m k.map -c 32K:4:32 --modules-lds x.lds -o x-k.lds k m.prof
[ ! -e x.lds ] && [ ! -e x-k.lds ] || fail "outputs written after an error"

# simulate --relink-modules: a QEMU log of the module as built (loaded
# at 0x7f001000, as a copy of /proc/modules says) fetched on the
# relinked one: m_in+0x40, traced at 0x7f001040, at 0x7f001340 (set 154)
cat > q.log <<'EOF'
----------------
IN: start_kernel
0x004010d0:  55              pushq    %rbp
0x004010d1:  c3              retq

----------------
IN:
0x7f001040:  90              nop
0x7f001041:  90              nop
0x7f001042:  c3              retq

Trace 0: 0x7f0000000000 [00000000/004010d0/00000000/00000000] start_kernel
Trace 0: 0x7f0000000000 [00000000/7f001040/00000000/00000000]
Trace 0: 0x7f0000000000 [00000000/7f001040/00000000/00000000]
EOF
printf 'nf_conntrack 32768 0 - Live 0x7f001000\n' > modules.txt
$CACHEPIN simulate -c 32K:4:32 -p lru --sets 2 q.log k --modules mods --proc-modules modules.txt \
	--relink-modules new > sim.txt 2> sim.err || { cat sim.err >&2; fail "simulate --relink-modules failed"; }
testrun_compare sh -c "sed -n '/the 2 sets/,\$p' sim.txt" <<'EOF'
32K:4:32 lru: the 2 sets with the most misses
  set 134            1 misses, 1 lines
             1  0x004010c0  start_kernel+0x0
  set 154            1 misses, 1 lines
             1  0x7f001340  (traced at 0x7f001040)
EOF
# as traced, the same line is in set 130, beside the kernel's f3
$CACHEPIN simulate -c 32K:4:32 -p lru --sets 2 q.log k > sim0.txt 2> /dev/null || fail "simulate failed"
grep -q '^  set 130 ' sim0.txt || fail "the module's line is not in set 130 as traced: $(cat sim0.txt)"
# the relinked file lacks a function of the traced one: said, kept
sed 's/fn c3, 0x400/fn c4, 0x400/' mod.s > mod4.s
mkdir -p new4
as -o net/netfilter/nf-conntrack.o mod4.s && ld -r -T m.lds -o new4/nf-conntrack.ko net/netfilter/nf-conntrack.o ||
	fail "cannot link the module with c4"
$CACHEPIN simulate -c 32K:4:32 -p lru q.log k --modules mods --proc-modules modules.txt \
	--relink-modules new4 > /dev/null 2> sim4.err || fail "simulate --relink-modules new4 failed"
testrun_compare cat sim4.err <<'EOF'
cachepin: warning: 1 functions of the traced modules are not once in the modules of 'new4': their code stays where it ran
EOF
expect_fail "needs the traced modules (--modules), where they were (--proc-modules) and the traced binary" \
	$CACHEPIN simulate q.log k --relink-modules new
exit 0
