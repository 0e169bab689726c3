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
hint: a module's code is not planned; build it into the kernel (=y) for the plan to place it
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
exit 0
