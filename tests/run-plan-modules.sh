#!/bin/sh
# plan --modules-lds: modules planned first (each one's hot functions packed from the page offset the modules before it load least, led there by its own cold functions), the kernel around them; the script linked, checked (check --modules), and a trace remapped onto it (simulate --relink-modules).
. "$(dirname "$0")/test-subr.sh"
need_cmd gcc as ld

# The kernel: a dozen small functions, function sections, a map
gcc -O2 -ffunction-sections -nostdlib -static -no-pie -Wl,--defsym=_text=0x401000 \
	-Wl,-e,start_kernel -Wl,-Map=k.map -o k "$srcdir/src/synthkern.c" || fail "cannot build k"
[ "$(nm k | awk '$3 == "start_kernel" { print $1 }')" = 00000000004010d0 ] ||
	fail "start_kernel is not at 0x4010d0 in k: the log's addresses are wrong"
# Two modules as kbuild leaves them: a function a section, init code
# apart.  nf_conntrack: m_in 0, c1 0x50, m_big 0x150, f3 0x1150, c2
# 0x3150, m_out 0x3350, c3 0x4350; nf_nat: n_hot 0, d1 0x80, d2 0x100
cat > fn.s <<'EOF'
	.macro fn name, size
	.section .text.\name,"ax",@progbits
	.balign 16
	.type \name,@function
\name:	.skip \size, 0x90
	.size \name, .-\name
	.endm
EOF
cat > ct.s <<'EOF'
	.include "fn.s"
	.section .gnu.linkonce.this_module,"aw"
	.globl __this_module
__this_module:
	.asciz "nf_conntrack"
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
cat > nat.s <<'EOF'
	.include "fn.s"
	.section .gnu.linkonce.this_module,"aw"
	.globl __this_module
__this_module:
	.asciz "nf_nat"
	fn n_hot, 0x80
	fn d1, 0x80
	fn d2, 0x100
EOF
mkdir -p mods net/netfilter new
for m in ct:nf-conntrack nat:nf_nat; do
	as -o "net/netfilter/${m#*:}.o" "${m%%:*}.s" || fail "cannot assemble ${m#*:}"
	cp "net/netfilter/${m#*:}.o" "mods/${m#*:}.ko"
done
# A QEMU log of both, loaded at 0x7f001000 and 0x7f010000 (a copy of
# /proc/modules says so): m_in+0x40 three times, n_hot+0x40 twice, both
# on page offset 0x40 as built
cat > q.log <<'EOF'
----------------
IN: start_kernel
0x004010d0:  55              pushq    %rbp
0x004010d1:  c3              retq

----------------
IN:
0x7f001040:  90              nop
0x7f001041:  c3              retq

----------------
IN:
0x7f010040:  90              nop
0x7f010041:  c3              retq

Trace 0: 0x7f0000000000 [00000000/004010d0/00000000/00000000] start_kernel
Trace 0: 0x7f0000000000 [00000000/7f001040/00000000/00000000]
Trace 0: 0x7f0000000000 [00000000/7f010040/00000000/00000000]
Trace 0: 0x7f0000000000 [00000000/7f001040/00000000/00000000]
Trace 0: 0x7f0000000000 [00000000/7f010040/00000000/00000000]
Trace 0: 0x7f0000000000 [00000000/7f001040/00000000/00000000]
EOF
printf 'nf_conntrack 32768 0 - Live 0x7f001000\nnf_nat 8192 0 - Live 0x7f010000\n' > modules.txt
$CACHEPIN profile --kernel -m k.map --modules mods --proc-modules modules.txt -o m.prof k q.log 2> /dev/null ||
	fail "profile failed"

# diff: the modules' hot lines occupy their sets in both builds (m_in's
# line at 0x7f001040 and n_hot's at 0x7f010040 beside start_kernel's),
# each thing said of the profile once; without their files, left out
$CACHEPIN diff --kernel -c 32K:4:32 --modules mods k k m.prof > diff.txt 2> diff.err ||
	{ cat diff.err >&2; fail "diff --modules failed"; }
testrun_compare sh -c "sed -n 4,5p diff.txt; cat diff.err" <<'EOF'
modelled misses: LRU 4 -> 4 (+0.0 %), pseudo-random 4 -> 4 (+0.0 %); fully associative 4 -> 4
hot functions: 3 in both builds, 0 in another set
cachepin: 'm.prof': 83.3 % of the samples are outside 'k': nf_conntrack.ko 50.0 %, nf_nat.ko 33.3 %
cachepin: 'm.prof': 2 hot functions of modules are fixed occupants of their sets (above 4096 bytes as loaded in this recording; another boot or load order may put them elsewhere)
hint: a module's code moves only within its module (plan --modules-lds); build it in (=y) for the kernel's plan to place it
EOF
testrun_compare sh -c "$CACHEPIN diff --kernel -c 32K:4:32 k k m.prof 2>&1 | sed -n '1,3p;7,8p'" <<'EOF'
cachepin: warning: 'm.prof': 2 hot functions of modules are not in the score: no module files were given
hint: --modules DIR, the kernel build tree or the directory of the modules as they were loaded
cachepin: 'm.prof': 83.3 % of the samples are outside 'k': nf_conntrack.ko 50.0 %, nf_nat.ko 33.3 %
modelled misses: LRU 2 -> 2 (+0.0 %), pseudo-random 2 -> 2 (+0.0 %); fully associative 2 -> 2
hot functions: 1 in both builds, 0 in another set
EOF

# nf_conntrack, the heavier, first: nothing loads any set yet, so its
# hot code stays at 0.  nf_nat's hot line would share page offset 0x40
# with m_in's: d1 leads n_hot to 0x80, its line to 0xc0
$CACHEPIN plan --kernel -m k.map -c 32K:4:32 --modules mods --modules-lds m.lds -o k.lds k m.prof \
	2> plan.err || { cat plan.err >&2; fail "plan --modules-lds failed"; }
testrun_compare sh -c "grep -E '\\.ko: |modules as built' plan.err" <<'EOF'
cachepin: nf_conntrack.ko: 1 hot functions from +0x0, after 0 of its cold ones
cachepin: nf_nat.ko: 1 hot functions from +0x80, after 1 of its cold ones
cachepin: 32K:4:32 (lru): this plan with the modules as built 4, as planned 4 (+0.0 %; 2 of 2 modules planned, at the load addresses of the recording)
EOF
# The log itself as the model (the run, fetch by fetch): its fetches in
# the modules are their occupants', so the same modules' plan; the
# modelled misses are the run's, one cold miss for each of its 3 lines
$CACHEPIN plan --kernel -m k.map -c 32K:4:32 --modules mods --proc-modules modules.txt \
	--modules-lds mq.lds -o kq.lds k q.log 2> planq.err ||
	{ cat planq.err >&2; fail "plan --modules-lds of a QEMU log failed"; }
testrun_compare sh -c "grep -E '\\.ko: |modules as built' planq.err" <<'EOF'
cachepin: nf_conntrack.ko: 1 hot functions from +0x0, after 0 of its cold ones
cachepin: nf_nat.ko: 1 hot functions from +0x80, after 1 of its cold ones
cachepin: 32K:4:32 (lru): this plan with the modules as built 3, as planned 3 (+0.0 %; 2 of 2 modules planned, at the load addresses of the recording)
EOF
cmp -s m.lds mq.lds || fail "the modules' plan of the log is not that of its profile"
# --module-pages every: the same modules' plan, the kernel around a share
# of their lines on both pages of the way span
$CACHEPIN plan --kernel -m k.map -c 32K:4:32 --modules mods --module-pages every --modules-lds me.lds \
	-o ke.lds k m.prof 2> plane.err || { cat plane.err >&2; fail "plan --module-pages every failed"; }
testrun_compare sh -c "grep 'modules as built' plane.err" <<'EOF'
cachepin: 32K:4:32 (lru): this plan with the modules as built 6, as planned 6 (+0.0 %; 2 of 2 modules planned, a share of their lines on every page of a way span)
EOF
cmp -s m.lds me.lds || fail "the modules' plan depends on --module-pages"
# --module-pages every of the log: the run twice, its module code on the
# other page of the way span in the second: 5 misses, the run's 3 lines
# and the modules' 2 on the other page; the same modules' plan
$CACHEPIN plan --kernel -m k.map -c 32K:4:32 --modules mods --proc-modules modules.txt \
	--module-pages every --modules-lds mqe.lds -o kqe.lds k q.log 2> planqe.err ||
	{ cat planqe.err >&2; fail "plan --module-pages every of a QEMU log failed"; }
testrun_compare sh -c "grep 'modules as built' planqe.err" <<'EOF'
cachepin: 32K:4:32 (lru): this plan with the modules as built 5, as planned 5 (+0.0 %; 2 of 2 modules planned, a share of their lines on every page of a way span)
EOF
cmp -s m.lds mqe.lds || fail "the modules' plan of the log depends on --module-pages"
testrun_compare cat m.lds <<'EOF'
/*
 * cachepin: the modules' hot functions at planned offsets in their text.
 * For each module's link: LDFLAGS_MODULE="-T <this file>" (GNU ld takes it
 * with scripts/module.lds).  A module named nowhere here links as before.
 */
SECTIONS
{
	.text : {
		/* nf_conntrack.ko: 1 hot functions from +0x0, 0 cold before them */
		*/nf-conntrack.o(.text.m_in)	/* +0x0 */
		/* nf_nat.ko: 1 hot functions from +0x80, 1 cold before them */
		*/nf_nat.o(.text.d1)	/* +0x0 */
		*/nf_nat.o(.text.n_hot)	/* +0x80 */
	}
}
EOF

# The modules' links with it (kbuild's ld -r, the object by its path),
# each laid out as the loader does: every function where the script says
for m in nf-conntrack nf_nat; do
	ld -r -T m.lds -o "new/$m.ko" "net/netfilter/$m.o" || fail "$m's link with the script failed"
done
testrun_compare sh -c "$TOOLS/bin-dump funcs new/nf_nat.ko | awk '{ print \$1, \$3 }'" <<'EOF'
0 d1
80 n_hot
100 d2
EOF
# cachepin check --modules: the relinked modules in place; those as
# built not, each function said; something else than the script refused
testrun_compare $CACHEPIN check --modules new m.lds <<'EOF'
ok: 3 of 3 planned functions of 2 modules at their planned offsets
EOF
testrun_compare sh -c "$CACHEPIN check --modules mods m.lds; echo \"exit \$?\"" <<'EOF'
nf_nat.ko: d1 planned +0x0, now +0x80
nf_nat.ko: n_hot planned +0x80, now +0x0
FAILED: 1 of 3 planned functions of 2 modules in place, 2 moved, 0 missing
exit 1
EOF
expect_fail "'k.lds': not a script of cachepin plan --modules-lds" $CACHEPIN check --modules new k.lds
mkdir -p none
cp new/nf_nat.ko none/
expect_fail "'m.lds': line 9: no module nf_conntrack.ko under 'none'" $CACHEPIN check --modules none m.lds

# simulate --relink-modules: the log fetched on the relinked modules:
# n_hot+0x40, traced at 0x7f010040 (set 2, beside m_in+0x40 at
# 0x7f001040, set 130: a way span's two pages apart), at 0x7f0100c0, set 6
$CACHEPIN simulate -c 32K:4:32 -p lru --sets 3 q.log k --modules mods --proc-modules modules.txt \
	--relink-modules new > sim.txt 2> sim.err || { cat sim.err >&2; fail "simulate --relink-modules failed"; }
testrun_compare sh -c "sed -n '/the 3 sets/,\$p' sim.txt" <<'EOF'
32K:4:32 lru: the 3 sets with the most misses
  set 6              1 misses, 1 lines
             1  0x7f0100c0  (traced at 0x7f010040)
  set 130            1 misses, 1 lines
             1  0x7f001040
  set 134            1 misses, 1 lines
             1  0x004010c0  start_kernel+0x0
EOF
$CACHEPIN simulate -c 32K:4:32 -p lru --sets 3 q.log k > sim0.txt 2> /dev/null || fail "simulate failed"
grep -q '^  set 2 ' sim0.txt || fail "n_hot's line is not in set 2 as traced: $(cat sim0.txt)"
# a relinked module without one of the traced one's functions: said, kept
sed 's/fn d2, 0x100/fn d3, 0x100/' nat.s > nat3.s
mkdir -p new3
cp new/nf-conntrack.ko new3/
as -o net/netfilter/nf_nat.o nat3.s && ld -r -T m.lds -o new3/nf_nat.ko net/netfilter/nf_nat.o ||
	fail "cannot link nf_nat with d3"
$CACHEPIN simulate -c 32K:4:32 -p lru q.log k --modules mods --proc-modules modules.txt \
	--relink-modules new3 > /dev/null 2> sim3.err || fail "simulate --relink-modules new3 failed"
testrun_compare cat sim3.err <<'EOF'
cachepin: warning: 1 functions of the traced modules are not once in the modules of 'new3': their code stays where it ran
EOF
expect_fail "needs the traced modules (--modules), where they were (--proc-modules) and the traced binary" \
	$CACHEPIN simulate q.log k --relink-modules new

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
$CACHEPIN profile --kernel -m k.map --modules one --proc-modules modules.txt -o one.prof k q.log 2> /dev/null ||
	fail "profile of one.ko failed"
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
exit 0
