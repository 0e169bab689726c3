#!/bin/sh
# A kernel's samples in a module (perf.data): kept by page of the module's text, position-independent, scored as fixed occupants at the recorded load address.
. "$(dirname "$0")/test-subr.sh"
need_cmd gcc

# A perf.data as perf writes it for a kernel with a module loaded: the
# module's MMAP (its file, its text's load address, 16 KiB) and every 8th
# of 400 samples in it, at text offsets 0x40 (20), 0x44 (10), 0x1080
# (10) and 0x3ffc (10), each called from the kernel.  This machine's
# kernel loads no modules, so perf-synth writes what perf would (the lab
# records a real one).
gcc -O2 -nostdlib -static -no-pie -Wl,--defsym=_text=0x401000 -Wl,-e,start_kernel \
	-o kern "$srcdir/src/synthkern.c" || fail "cannot build kern"
ko=/lib/modules/6.1.0/kernel/net/netfilter/nf_conntrack.ko
"$TOOLS/perf-synth" -n 400 -m "$ko@0x7f000000" kern a.data || fail "perf-synth failed"
"$TOOLS/perf-synth" -n 400 -m "$ko@0x7f123000" kern b.data || fail "perf-synth failed"
# perf's name for a module it found no file of
"$TOOLS/perf-synth" -n 400 -m "[nf_conntrack]@0x7f000000" kern c.data || fail "perf-synth failed"

$CACHEPIN profile --kernel -o a.prof kern a.data 2> a.err || { cat a.err >&2; fail "profile of a.data failed"; }
testrun_compare cat a.err <<'EOF'
cachepin: 'a.data': 12.5 % of the samples are outside 'kern': nf_conntrack.ko 12.5 %
cachepin: 'a.data': 3 hot pages of modules are fixed occupants of their sets (above 4096 bytes as loaded in this recording; another boot or load order may put them elsewhere)
hint: a module's code moves only within its module (plan --modules-lds); build it in (=y) for the kernel's plan to place it
EOF
# the module, its load address, its pages and their granules (weight
# 250000 a sample): 0x40 and 0x44 share a granule
testrun_compare sh -c "grep -E '^o |^f \\[nf_conntrack' a.prof; awk '/^f / { f = \$2 } /^g / && f ~ /^\\[nf_conntrack/ { print f, \$2, \$3 }' a.prof" <<'EOF'
o nf_conntrack.ko 50 12500000 0x7f000000
f [nf_conntrack.ko+0x0] - 7500000 30 7500000 4096
f [nf_conntrack.ko+0x1000] - 2500000 10 2500000 4096
f [nf_conntrack.ko+0x3000] - 2500000 10 2500000 4096
[nf_conntrack.ko+0x0] 0x40 7500000
[nf_conntrack.ko+0x1000] 0x80 2500000
[nf_conntrack.ko+0x3000] 0xff0 2500000
EOF
# loaded elsewhere, or known only by perf's name: the same profile but
# for the load address
$CACHEPIN profile --kernel -o b.prof kern b.data 2> /dev/null || fail "profile of b.data failed"
$CACHEPIN profile --kernel -o c.prof kern c.data 2> /dev/null || fail "profile of c.data failed"
testrun_compare sh -c "diff a.prof b.prof | grep '^[<>]'" <<'EOF'
< o nf_conntrack.ko 50 12500000 0x7f000000
> o nf_conntrack.ko 50 12500000 0x7f123000
EOF
cmp -s a.prof c.prof || fail "a module perf named '[nf_conntrack]' gives another profile"

# scored: the module's lines in the sets of its load address (32K:4:32,
# set = address / 32 mod 256): at 0x7f000000 sets 2, 132 and 255; at
# 0x7f123000 (0x1000 further in the 8 KiB way span) 130, 4 and 127
for r in a b; do
	$CACHEPIN score --kernel -c 32K:4:32 --top 256 kern $r.prof > $r.score 2> /dev/null ||
		fail "score of $r.prof failed"
done
testrun_compare sh -c "grep -h 'modules (fixed)' a.score b.score" <<'EOF'
  modules (fixed): nf_conntrack.ko 3 LRU misses, 30.0 % of all (12.5 % of the samples)
  modules (fixed): nf_conntrack.ko 3 LRU misses, 30.0 % of all (12.5 % of the samples)
EOF
sets() { awk '/worst sets/ { on = 1; next } on && NF == 0 { on = 0 } on && /nf_conntrack/ { print $1 }' "$1" | sort -n | tr '\n' ' '; }
[ "$(sets a.score)" = "2 132 255 " ] || fail "module lines at 0x7f000000 in sets $(sets a.score), not 2 132 255"
[ "$(sets b.score)" = "4 127 130 " ] || fail "module lines at 0x7f123000 in sets $(sets b.score), not 4 127 130"

# With the module's file (--modules DIR, searched by name): the samples
# go to its functions.  A module shaped as kbuild leaves it: functions in
# sections of their own, init code between them (the loader puts it
# apart, so what follows is where the file's order would not have it),
# and modpost's __this_module; one static function has the name of one
# of the kernel's (f3), and the file name has '-' where the kernel's
# module name has '_'.  Text offsets as the loader lays it out: m_in 0
# (0x48 bytes), m_big 0x50, f3 0x1050, m_out 0x3050.
mkdir -p mods/net/netfilter
cat > mod.s <<'X'
	.section .gnu.linkonce.this_module,"aw"
	.globl __this_module
__this_module:
	.asciz "nf_conntrack"
	.section .text.m_in,"ax",@progbits
	.globl m_in
	.type m_in,@function
m_in:	.skip 0x48, 0x90
	.size m_in, .-m_in
	.section .init.text,"ax",@progbits
	.type m_init,@function
m_init:	.skip 0x100, 0x90
	.size m_init, .-m_init
	.section .text.m_big,"ax",@progbits
	.balign 16
	.type m_big,@function
m_big:	.skip 0x1000, 0x90
	.size m_big, .-m_big
	.section .text.f3,"ax",@progbits
	.balign 16
	.type f3,@function
f3:	.skip 0x2000, 0x90
	.size f3, .-f3
	.section .text.m_out,"ax",@progbits
	.balign 16
	.globl m_out
	.type m_out,@function
m_out:	.skip 0x1000, 0x90
	.size m_out, .-m_out
X
as -o mods/net/netfilter/nf-conntrack.ko mod.s || fail "cannot assemble the module"
$CACHEPIN profile --kernel --modules mods -o m.prof kern a.data 2> m.err || { cat m.err >&2; fail "profile --modules of a.data failed"; }
testrun_compare cat m.err <<'EOF'
cachepin: 'a.data': 12.5 % of the samples are outside 'kern': nf_conntrack.ko 12.5 %
cachepin: 'a.data': 3 hot functions of modules are fixed occupants of their sets (above 4096 bytes as loaded in this recording; another boot or load order may put them elsewhere)
hint: a module's code moves only within its module (plan --modules-lds); build it in (=y) for the kernel's plan to place it
EOF
# 0x40 and 0x44 in m_in, 0x1080 at f3+0x30, 0x3ffc at m_out+0xfac; the
# kernel's own f3 keeps its samples
mfuncs() { awk '/^f / { f = ($3 == "nf_conntrack.ko"); if (f) print $1, $2, $3, $4, $5 } f && /^g / { print $1, $2, $3 }' "$1"; }
testrun_compare mfuncs m.prof <<'EOF'
f m_in nf_conntrack.ko 7500000 30
g 0x40 7500000
f f3 nf_conntrack.ko 2500000 10
g 0x30 2500000
f m_out nf_conntrack.ko 2500000 10
g 0xfa0 2500000
EOF
testrun_compare sh -c "grep -E '^o |^f f3 ' m.prof" <<'EOF'
o nf_conntrack.ko 50 12500000 0x7f000000
f f3 - 4750000 19 61000000 11
f f3 nf_conntrack.ko 2500000 10 2500000 8192
EOF
# perf script names a module's symbols from the running kernel's
# kallsyms; this machine has none of the module's, so its frames get the
# names perf prints in the lab: the same functions, the same base
perf script -i a.data 2> /dev/null | sed 's/7f000040 \[unknown\]/7f000040 m_in+0x40/
	s/7f000044 \[unknown\]/7f000044 m_in+0x44/; s/7f001080 \[unknown\]/7f001080 f3+0x30/
	s/7f003ffc \[unknown\]/7f003ffc m_out+0xfac/' > a.txt
[ "$(grep -c '(\[nf_conntrack\])' a.txt)" = 50 ] || fail "perf script gave $(grep -c nf_conntrack a.txt) module frames, not 50"
$CACHEPIN profile --kernel --modules mods -o t.prof kern a.txt 2> /dev/null || fail "profile --modules of perf script's text failed"
[ "$(mfuncs t.prof)" = "$(mfuncs m.prof)" ] || fail "perf script's module functions differ: $(mfuncs t.prof)"
[ "$(grep '^o ' t.prof)" = "o nf_conntrack.ko 50 12500000 0x7f000000" ] || fail "perf script's module: $(grep '^o ' t.prof)"

# scored with the module's file: its functions where the recording
# loaded it, in the sets of its pages (2, 132, 255), named by module
$CACHEPIN score --kernel -c 32K:4:32 --top 256 --modules mods kern m.prof > m.score 2> /dev/null ||
	fail "score --modules of m.prof failed"
testrun_compare sh -c "grep 'modules (fixed)' m.score; awk '/worst sets/ { on = 1; next } on && NF == 0 { on = 0 } on && /nf_conntrack/ { print \$1, \$NF }' m.score | sort -n" <<'EOF'
  modules (fixed): nf_conntrack.ko 3 LRU misses, 30.0 % of all (12.5 % of the samples)
2 nf_conntrack.ko:m_in+0x40
132 nf_conntrack.ko:f3+0x30
255 nf_conntrack.ko:m_out+0xf90
EOF
# another boot may load the module on the way span's other page: with
# --module-pages every (plan's default), each line a half on both
$CACHEPIN score --kernel -c 32K:4:32 --top 256 --modules mods --module-pages every kern m.prof > e.score 2> e.err ||
	fail "score --module-pages every failed"
testrun_compare sh -c "grep 'fixed occupants' e.err; awk '/worst sets/ { on = 1; next } on && NF == 0 { on = 0 } on && /nf_conntrack/ { print \$1, \$NF }' e.score | sort -n" <<'EOF'
cachepin: 'm.prof': 3 hot functions of modules are fixed occupants of their sets (above 4096 bytes on every page of a way span they may load on, each a share of the weight)
2 nf_conntrack.ko:m_in+0x40
4 nf_conntrack.ko:f3@page1+0x30
127 nf_conntrack.ko:m_out@page1+0xf90
130 nf_conntrack.ko:m_in@page1+0x40
132 nf_conntrack.ko:f3+0x30
255 nf_conntrack.ko:m_out+0xf90
EOF
expect_fail "bad --module-pages 'some': recorded or every" \
	$CACHEPIN score --kernel --modules mods --module-pages some kern m.prof
# without it: said, and not scored (nor taken for the kernel's f3)
$CACHEPIN score --kernel -c 32K:4:32 kern m.prof > n.score 2> n.err || fail "score of m.prof failed"
testrun_compare cat n.err <<'EOF'
cachepin: warning: 'm.prof': 3 hot functions of modules are not in the score: no module files were given
hint: --modules DIR, the kernel build tree or the directory of the modules as they were loaded
cachepin: 'm.prof': 12.5 % of the samples are outside 'kern': nf_conntrack.ko 12.5 %
EOF
! grep -q nf_conntrack n.score || fail "the module's functions were scored without its file"
# a directory without modules: an error, and no output
mkdir empty
testrun_compare sh -c "$CACHEPIN profile --kernel --modules empty -o e.prof kern a.data 2>&1; echo \"exit \$?\"; [ -e e.prof ] || echo 'no e.prof'" <<'EOF'
cachepin: 'empty': no kernel module (*.ko) under it
hint: give the kernel build tree, or the directory 'make modules_install' filled
exit 1
no e.prof
EOF

# A QEMU log has no maps: a copy of the router's /proc/modules
# (--proc-modules) says where the kernel had the module.  Two
# instructions of start_kernel twice, three at m_in+0x40 twice, two at
# f3+0x30 once: every instruction a sample
cat > q.log <<'EOF'
----------------
IN: start_kernel
0x004010d0:  55              pushq    %rbp
0x004010d1:  c3              retq

----------------
IN:
0x7f000040:  90              nop
0x7f000041:  90              nop
0x7f000042:  c3              retq

----------------
IN:
0x7f001080:  90              nop
0x7f001081:  c3              retq

Trace 0: 0x7f0000000000 [00000000/004010d0/00000000/00000000] start_kernel
Trace 0: 0x7f0000000000 [00000000/7f000040/00000000/00000000]
Trace 0: 0x7f0000000000 [00000000/7f000040/00000000/00000000]
Trace 0: 0x7f0000000000 [00000000/7f001080/00000000/00000000]
Trace 0: 0x7f0000000000 [00000000/004010d0/00000000/00000000] start_kernel
EOF
[ "$(nm kern | awk '$3 == "start_kernel" { print $1 }')" = 00000000004010d0 ] ||
	fail "start_kernel is not at 0x4010d0 in kern: the log's addresses are wrong"
printf 'nf_conntrack 16384 0 - Live 0x7f000000\nnf_nat 8192 0 - Live 0x7f008000\n' > modules.txt
$CACHEPIN profile --kernel --modules mods --proc-modules modules.txt -o q.prof kern q.log 2> /dev/null ||
	fail "profile --proc-modules of a QEMU log failed"
{ grep -E '^samples |^o ' q.prof; mfuncs q.prof; } > q.out
testrun_compare cat q.out <<'EOF'
samples 12 4
o nf_conntrack.ko 8 8 0x7f000000
f m_in nf_conntrack.ko 6 6
g 0x40 6
f f3 nf_conntrack.ko 2 2
g 0x30 2
EOF
# without it, the module's instructions are nobody's
$CACHEPIN profile --kernel --modules mods -o r.prof kern q.log 2> /dev/null || fail "profile of the QEMU log failed"
[ "$(grep -c 'nf_conntrack' r.prof)" = 0 ] || fail "module instructions attributed without --proc-modules"
# a /proc/modules read without the right to see the addresses, and no
# /proc/modules at all
sed 's/0x7f008000/0x00000000/' modules.txt > hidden.txt
expect_fail "'hidden.txt': line 2: nf_nat.ko at address 0: the addresses were hidden" \
	$CACHEPIN profile --kernel --proc-modules hidden.txt -o h.prof kern q.log
grep -qx 'hint: copy /proc/modules as root with kernel.kptr_restrict = 0' fail.err || fail "no hint for hidden addresses"
[ ! -e h.prof ] || fail "h.prof written after an error"
expect_fail "'q.log': line 1 is not a line of /proc/modules (NAME SIZE REFS DEPS STATE ADDRESS)" \
	$CACHEPIN profile --kernel --proc-modules q.log -o h.prof kern a.data

# The build-id perf recorded for the module against its file's: the same
# is nothing to say; another is said, the file's functions being perhaps
# elsewhere than the recording's
need_cmd readelf
mkdir -p bmods
as -o mod.o mod.s && ld -r --build-id=sha1 -o bmods/nf_conntrack.ko mod.o || fail "cannot link the module with a build-id"
bid=$(readelf -n bmods/nf_conntrack.ko | sed -n 's/^ *Build ID: //p')
[ ${#bid} = 40 ] || fail "no build-id in the module: '$bid'"
case $bid in f*) other=e${bid#?} ;; *) other=f${bid#?} ;; esac
"$TOOLS/perf-synth" -n 400 -m "$ko@0x7f000000" -B "$bid" kern same.data || fail "perf-synth -B failed"
"$TOOLS/perf-synth" -n 400 -m "$ko@0x7f000000" -B "$other" kern other.data || fail "perf-synth -B failed"
$CACHEPIN profile --kernel --modules bmods -o same.prof kern same.data 2> same.err || fail "profile of same.data failed"
! grep -q 'build-id' same.err || fail "a matching build-id was said: $(cat same.err)"
$CACHEPIN profile --kernel --modules bmods -o other.prof kern other.data 2> other.err || fail "profile of other.data failed"
testrun_compare sh -c "grep -A1 'build-id' other.err" <<EOF
cachepin: warning: build-id of 'bmods/nf_conntrack.ko' ($bid) differs from the one 'other.data' recorded for nf_conntrack.ko ($other): its functions need not be where the recording had them
hint: give the modules built with the recorded kernel (--modules)
EOF
exit 0
