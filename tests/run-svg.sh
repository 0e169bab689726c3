#!/bin/sh
# score --svg, diff --svg and whatif --svg on the fixed ARM program, drawn by a real headless browser (chromium): the panels, the over-full sets in red, the tooltips, the ways line between the bars that fit and those that do not.
. "$(dirname "$0")/test-subr.sh"
need_cmd arm-linux-gnueabihf-as arm-linux-gnueabihf-ld chromium

cp "$srcdir/src/golden.s" "$srcdir/src/golden.lds" .
: > text-layout.lds
arm-linux-gnueabihf-as -o golden.o golden.s || fail "assembling golden.s failed"
link() { arm-linux-gnueabihf-ld --build-id=none -T golden.lds -Map="$1.map" -o "$1" golden.o; }
link golden || fail "linking golden failed"
printf 'route 400\nlookup 300\nhash 200\nparse 150\ncsum 100\nqueue 50\n' > hot.txt
$CACHEPIN plan --growth 0 --map golden.map -c 1K:2:32 -o plan.lds golden hot.txt 2> /dev/null || fail "plan failed"
cp plan.lds text-layout.lds
link golden.new || fail "relinking with the plan failed"

$CACHEPIN score -c 1K:2:32 --svg score.svg golden hot.txt > /dev/null || fail "score --svg failed"
$CACHEPIN diff -c 1K:2:32 --svg diff.svg golden golden.new hot.txt > /dev/null || fail "diff --svg failed"
$CACHEPIN whatif -c 1K:2:32 -m golden.map --svg whatif.svg golden hot.txt "after hash csum" > /dev/null ||
	fail "whatif --svg failed"
# reproducible
$CACHEPIN diff -c 1K:2:32 --svg again.svg golden golden.new hot.txt > /dev/null
cmp -s diff.svg again.svg || fail "diff --svg is not reproducible"

# browse FILE.svg: what the browser makes of it, from a page that holds
# the picture and a script that reads the drawn elements: per panel its
# title, the sets drawn (set:lines, + when over-full), the bars' computed
# colours, whether the ways line lies above every bar that fits and
# below the top of every over-full one, and the first tooltip
browse() {
	{
		echo '<!DOCTYPE html><html><body>'
		sed 1d "$1"
		cat "$srcdir/src/svg-probe.html"
	} > "$1.html"
	timeout 120 chromium --headless --no-sandbox --disable-gpu --dump-dom "file://$PWD/$1.html" 2> "$1.err" > "$1.dom" ||
		{ cat "$1.err" >&2; fail "chromium failed on '$1.html'"; }
	awk '/<pre id="out">/ { sub(/.*<pre id="out">/, ""); on = 1 }
		on && /<\/pre>/ { sub(/<\/pre>.*/, ""); if ($0 != "") print; exit }
		on && $0 != "" { print }' "$1.dom"
}

browse score.svg > score.seen
testrun_compare cat score.seen <<'EOF'
'golden' as linked | 0:4+ 1:4+ 2:3+ 3:2 4:2 5:1 6:1 7:1 | rgb(192, 57, 43) rgb(74, 123, 183) | ways line between | set 0: 4 hot lines in 2 ways, 288357 LRU misses; route (1); lookup (1); hash (1); parse (1)
EOF
browse diff.svg > diff.seen
testrun_compare cat diff.seen <<'EOF'
golden | 0:4+ 1:4+ 2:3+ 3:2 4:2 5:1 6:1 7:1 | rgb(192, 57, 43) rgb(74, 123, 183) | ways line between | set 0: 4 hot lines in 2 ways, 288357 LRU misses; route (1); lookup (1); hash (1); parse (1)
golden.new | 0:2 1:2 2:2 3:1 4:1 5:1 6:1 8:1 9:1 10:1 12:1 13:1 14:1 15:1 | rgb(74, 123, 183) | ways line between | set 0: 2 hot lines in 2 ways, 2 LRU misses; route (1); parse (1)
EOF
browse whatif.svg > whatif.seen
testrun_compare cat whatif.seen <<'EOF'
as linked | 0:4+ 1:4+ 2:3+ 3:2 4:2 5:1 6:1 7:1 | rgb(192, 57, 43) rgb(74, 123, 183) | ways line between | set 0: 4 hot lines in 2 ways, 288357 LRU misses; route (1); lookup (1); hash (1); parse (1)
after the edits | 0:3+ 1:3+ 2:3+ 3:2 4:2 5:1 6:1 7:1 14:1 15:1 | rgb(192, 57, 43) rgb(74, 123, 183) | ways line between | set 0: 3 hot lines in 2 ways, 83144 LRU misses; route (1); lookup (1); parse (1)
EOF
# and a picture: a PNG of the diff, as big as the SVG says
timeout 120 chromium --headless --no-sandbox --disable-gpu --window-size=640,596 --screenshot="$PWD/diff.png" \
	"file://$PWD/diff.svg" > /dev/null 2>&1 || fail "chromium could not take a screenshot"
[ "$(od -An -tx1 -N8 diff.png | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "diff.png is no PNG"
[ "$(od -An -tu1 -j16 -N8 diff.png | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4, $5 * 16777216 + $6 * 65536 + $7 * 256 + $8 }')" = "640 596" ] ||
	fail "diff.png is not 640x596"
expect_fail "cannot" $CACHEPIN score -c 1K:2:32 --svg nodir/x.svg golden hot.txt
[ ! -e nodir ] || fail "a failed --svg left something behind"
exit 0
