#!/bin/sh
# plan shows its progress on a terminal: one self-overwriting line on
# standard error, erased before the report, which is then the same as
# without a terminal; without one there is no progress at all.  The
# fixed ARM program (tests/src/golden.s) and a long search
# (--iterations), so that the plan takes some seconds.
. "$(dirname "$0")/test-subr.sh"
need_cmd arm-linux-gnueabihf-as arm-linux-gnueabihf-ld script

cp "$srcdir/src/golden.s" "$srcdir/src/golden.lds" .
: > text-layout.lds
arm-linux-gnueabihf-as -o golden.o golden.s || fail "assembling golden.s failed"
arm-linux-gnueabihf-ld --build-id=none -T golden.lds -Map=golden.map -o golden golden.o ||
	fail "linking golden failed"
cat > hot.txt <<'EOF2'
route 400
lookup 300
hash 200
parse 150
csum 100
queue 50
EOF2
untime() { sed 's/ in [0-9.]* s$/ in X s/' "$@"; }
plan="$CACHEPIN plan --growth 0 --iterations 1500000 --map golden.map -c 1K:2:32"

# no terminal: the report alone, byte for byte
$plan -o plain.lds golden hot.txt 2> plain.err || { cat plain.err; fail "plan failed"; }
testrun_compare untime plain.err <<'EOF2'
cachepin: modelled misses of the candidates, in-sample (the profile has no samples to hold out)
cachepin:   method          1K:2:32  mean change
cachepin:   link             659073
cachepin:   search               17  -100.0 %
cachepin:   heat                 17  -100.0 %  <- planned
cachepin:   density              17  -100.0 %
cachepin:   c3                   17  -100.0 %
cachepin:   keep             659073    +0.0 %
cachepin: heat leaves every line of the hot units a way of its own, sampled or not: of such layouts the fewest misses is planned, whatever the link's (the samples see nothing there but first fetches)
cachepin: 1K:2:32 (lru): modelled misses 659073 -> 17 (-100.0 %), LRU 659073 -> 17
cachepin: 6 hot units (0 fixed hot granules stay), 0 fill units, 608 bytes, 80 bytes of padding; heat in X s
EOF2

# a terminal (script's pty carries standard output and error alike)
TERM=xterm script -qec "$plan -o tty.lds golden hot.txt" /dev/null > tty.raw ||
	{ cat tty.raw; fail "plan under a terminal failed"; }
cmp -s plain.lds tty.lds || fail "the terminal changed the plan"
# each progress line is "\rplan: LABEL, N %\e[K"; "\r\e[K" erases it
tr '\r' '\n' < tty.raw | sed -n 's/^\(plan: .*\)\x1b\[K$/\1/p' > progress.lines
[ -s progress.lines ] || { cat -v tty.raw >&2; fail "no progress line on the terminal"; }
bad=$(sed -E '/^plan: (candidate [1-5] of 5 \((search|heat|density|c3|keep)\)|(search|heat|density|c3|keep) on the whole profile(, run [1-2] of 2)?|scoring the plan), [0-9]+ %$/d' progress.lines)
[ -z "$bad" ] || fail "progress lines of another form: $bad"
sed 's/.*, \([0-9]*\) %$/\1/' progress.lines | awk 'NR > 1 && $1 < last { exit 1 } { last = $1 }' ||
	fail "the progress went back: $(tr '\n' ' ' < progress.lines)"
[ "$(wc -l < progress.lines)" -le 100 ] || fail "$(wc -l < progress.lines) progress lines: more than a few a second"
# without the progress and its erasure, the terminal got the same report
sed 's/\r[^\r]*\x1b\[K//g; s/\r$//' tty.raw | untime > tty.err
untime plain.err > plain.untimed
diff -u plain.untimed tty.err || fail "the report on the terminal differs"
exit 0
