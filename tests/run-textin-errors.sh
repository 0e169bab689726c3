#!/bin/sh
# text profile inputs: garbage, a perf.data, malformed lines in real perf script/report output are refused with file:line messages; truncated output still parses.
. "$(dirname "$0")/test-subr.sh"
need_cmd perf gcc awk head
dump=$TOOLS/text-dump

gcc -O2 -g -fno-omit-frame-pointer -no-pie -fdebug-prefix-map="$PWD"=. \
	-o textwork "$srcdir/src/textwork.c"
perf_record perf.data ./textwork 20000
perf script -i perf.data > chain.txt 2>/dev/null
perf report -i perf.data --stdio --no-children --sort sym > rep.txt 2>/dev/null

# no format at all
head -c 65536 /dev/urandom > random.bin
expect_fail "'random.bin': not a perf script output, hot list or perf report" "$dump" random.bin
grep -q '^hint: ' fail.err || fail "no hint for random bytes"
expect_fail "hint: this is a perf.data file" "$dump" perf.data
printf 'Dear colleague, here is the profile you asked for.\nRegards\n' > prose.txt
expect_fail "'prose.txt': not a perf script output" "$dump" prose.txt
: > empty.txt
expect_fail "'empty.txt': empty input" "$dump" empty.txt
expect_fail "cannot open 'missing.txt'" "$dump" missing.txt

# a broken frame line deep inside real perf script output: its line number
n=$(wc -l < chain.txt)
[ "$n" -gt 100 ] || fail "perf script output too short"
awk 'NR == 90 && /^\t/ { print "\tthis is not a frame"; next } { print }' chain.txt > broken.txt
cmp -s broken.txt chain.txt && awk 'NR == 91 { print "\tthis is not a frame"; next } { print }' chain.txt > broken.txt
line=$(grep -n 'this is not a frame' broken.txt | cut -d: -f1)
expect_fail "'broken.txt':$line: cannot parse perf script frame line" "$dump" broken.txt

# the same in a perf report
awk '/^ +[0-9.]+%/ && !done { print "    1.00%  [k]"; done = 1 } { print }' rep.txt > brokenrep.txt
line=$(grep -n '%  \[k\]$' brokenrep.txt | cut -d: -f1)
expect_fail "'brokenrep.txt':$line: expected 'NAME \[WEIGHT\]'" "$dump" -f hotlist brokenrep.txt
# ... as a forced wrong format
expect_fail "'rep.txt':[0-9]*: " "$dump" -f folded rep.txt

# output cut off in the middle of a line still parses up to there: the
# cut falls inside a frame line (not a sample's first) past the middle
half=$(($(wc -l < chain.txt) / 2))
n=$(awk -v h=$half 'NR > h && /^\t/ && prev ~ /^\t/ { print NR; exit } { prev = $0 }' chain.txt)
[ -n "$n" ] || fail "no frame line to cut in"
head -n $((n - 1)) chain.txt > cut.txt
sed -n "${n}p" chain.txt | head -c 6 >> cut.txt
[ "$(tail -c 1 cut.txt | od -An -c | tr -d ' ')" != '\n' ] || fail "cut.txt ends with a newline"
"$dump" cut.txt > cut.dump || fail "truncated perf script output refused"
ncut=$(grep -vc '^#' cut.dump)
nall=$(grep -c ' cpu-clock: ' cut.txt)
[ "$ncut" = "$nall" ] || fail "truncated output: $ncut samples parsed, $nall headers"
# perf's warnings in pasted output are skipped
{ printf 'Warning:\nProcessed 10 events and lost 1 chunks!\n\nCheck IO/CPU overload!\n\n'; cat chain.txt; } > warn.txt
"$dump" -q warn.txt > warn.out || fail "perf warning lines refused"
"$dump" -q chain.txt | diff - warn.out || fail "perf warning lines changed the samples"
exit 0
