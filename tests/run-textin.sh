#!/bin/sh
# perf script text (default, -G, -F ip,sym,symoff,dso, --ns, -F with period) of a real profile parses to perf's own samples, depths and shares.
. "$(dirname "$0")/test-subr.sh"
need_cmd perf gcc readelf awk

gcc -O2 -g -fno-omit-frame-pointer -no-pie -fdebug-prefix-map="$PWD"=. \
	-o textwork "$srcdir/src/textwork.c"
perf_record perf.data ./textwork
dump=$TOOLS/text-dump

perf script -i perf.data > chain.txt 2>/dev/null
perf script -i perf.data -G > flat.txt 2>/dev/null
perf script -i perf.data -F ip,sym,symoff,dso > fchain.txt 2>/dev/null
perf script -i perf.data -F ip,sym,symoff,dso -G > fflat.txt 2>/dev/null
perf script -i perf.data -F comm,pid,tid,time,event,ip,sym,symoff,dso,period > full.txt 2>/dev/null
perf script -i perf.data --ns -G > ns.txt 2>/dev/null
perf script -i perf.data -F pid,tid -G > pids.txt 2>/dev/null
perf report -i perf.data --stdio --no-children --sort sym > rep.txt 2>/dev/null
perf report -i perf.data --stdio --no-children --sort sym -n -g none > repn.txt 2>/dev/null

for f in chain flat fchain fflat full ns; do
	"$dump" -p "$f.txt" > "$f.dump" || fail "text-dump $f.txt failed"
done
[ "$("$dump" -D chain.txt)" = script ] || fail "chain.txt not detected as perf script"
[ "$("$dump" -D fchain.txt)" = script ] || fail "fchain.txt not detected as perf script"
[ "$("$dump" -D fflat.txt)" = script ] || fail "fflat.txt not detected as perf script"
grep -qx '# event cpu-clock' chain.dump || fail "event name not returned"

# sample counts: perf report -n (its header rounds to "3K"), grep on perf script, ours
nrep=$(awk '/^ +[0-9.]+%/ { n += $2 } END { print n }' repn.txt)
ngrep=$(grep -c ' cpu-clock: ' chain.txt)
[ -n "$nrep" ] && [ "$nrep" -gt 1000 ] || fail "too few samples recorded: '$nrep'"
[ "$nrep" = "$ngrep" ] || fail "perf report says $nrep samples, perf script has $ngrep"
for f in chain flat fchain fflat full ns; do
	n=$(grep -vc '^#' "$f.dump")
	[ "$n" = "$nrep" ] || fail "$f.txt: parsed $n samples, perf has $nrep"
done

# callchain depths: the number of frame lines of every sample
awk '/^[^\t]/ { if (n) print d; n = 1; d = 0; next }
     /^\t/ { d++ } END { if (n) print d }' chain.txt > depth.expect
awk '!/^#/ { print $3 }' chain.dump > depth.actual
diff -u depth.expect depth.actual > /dev/null || fail "callchain depths differ from perf script"
awk '!/^#/ { print $3 }' fchain.dump | diff - depth.actual > /dev/null ||
	fail "-F ip,sym,symoff,dso callchain depths differ"
awk '!/^#/ { print $3 }' full.dump | diff - depth.actual > /dev/null ||
	fail "-F comm,...,period callchain depths differ"
for f in flat fflat ns; do
	awk '!/^#/ && $3 != 1 { exit 1 }' "$f.dump" || fail "$f.txt: a sample with more than one frame"
done
# a callchain of the heaviest leaf, with its callers up to main
grep -q ' 250000 [3-9] work_heavy+0x[0-9a-f]*@0x[0-9a-f]*\[[^]]*textwork\]/ISOR .*main+0x[0-9a-f]*@' chain.dump ||
	fail "no work_heavy ... main callchain with period 250000"

# pid/tid and period
awk '{ print $1 }' pids.txt > pids.expect
awk '!/^#/ { print $1 }' full.dump > pids.actual
diff -u pids.expect pids.actual > /dev/null || fail "pid/tid differ from perf script -F pid,tid"
awk '!/^#/ && $2 != 250000 { exit 1 }' full.dump || fail "period is not perf's 250000"
awk '!/^#/ && $2 != 1 { exit 1 }' fchain.dump || fail "period without header is not 1"

# per-symbol shares of the leaf frames against perf report --sort sym
leafshare() {
	awk '!/^#/ { s = $4; sub(/[+@[\/].*/, "", s); p[s] += $2; t += $2 }
	     END { for (s in p) if (s !~ /^0x/) printf "%s %.4f\n", s, 100 * p[s] / t }' "$1" | sort
}
awk '/^ +[0-9.]+%/ { s = $3; for (i = 4; i <= NF; i++) s = s " " $i;
	sub(/%/, "", $1); p[s] += $1 }
     END { for (s in p) if (s !~ /^0x/) printf "%s %.4f\n", s, p[s] }' rep.txt | sort > share.expect
for f in chain flat fchain fflat full ns; do
	leafshare "$f.dump" > "share.$f"
	join -a 1 -a 2 -e 0 -o 0,1.2,2.2 share.expect "share.$f" |
		awk -v f="$f" '{ d = $2 - $3; if (d < 0) d = -d;
			if (d > 0.1) { print f ": " $1 " perf " $2 "% parsed " $3 "%"; bad = 1 } }
			END { exit bad }' || fail "$f.txt: per-symbol shares differ from perf report"
done
grep -q '^work_heavy ' share.chain || fail "work_heavy missing from the shares"

# user callchain frames are dso-relative, -G ips absolute: the difference
# is the executable's load bias (vaddr - offset of its text segment)
hexfn='function hex(s,  i, v) { sub(/^0x/, "", s); s = tolower(s); v = 0
	for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v }'
bias=$(readelf -lW textwork | awk "$hexfn"' $1 == "LOAD" && / E +0x[0-9a-f]+$/ { printf "%d\n", hex($3) - hex($2); exit }')
[ -n "$bias" ] || fail "no executable LOAD segment in textwork"
ipof() { awk "$hexfn"' !/^#/ { f = $4; if (f !~ /textwork\]/) { print "-"; next }
	sub(/^[^@]*@/, "", f); sub(/\[.*/, "", f); print hex(f), substr($4, length($4)) }' "$1"; }
ipof chain.dump > ip.rel
ipof flat.dump > ip.abs
paste -d ' ' ip.rel ip.abs | awk -v b="$bias" '
	$1 == "-" { next }
	{ n++; if ($3 - $1 != b || $2 != "R" || $4 == "R") { print; bad = 1 } }
	END { if (n < 1000 || bad) exit 1 }' > ip.bad || { head -3 ip.bad >&2; fail "dso-relative/absolute ips do not differ by the load bias $bias"; }
grep -q '\[\[kernel.kallsyms\]\]/KISO' chain.dump || fail "no kernel frame with K flag"
! grep -q 'kallsyms\]\]/[^ ]*R' chain.dump || fail "kernel frame marked dso-relative"
exit 0
