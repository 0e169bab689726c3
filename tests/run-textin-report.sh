#!/bin/sh
# perf report --stdio (sort sym, dso,sym -n, children), a pasted perf top screen, hot lists and folded stacks parse to the right weights.
. "$(dirname "$0")/test-subr.sh"
need_cmd perf gcc awk
dump=$TOOLS/text-dump

gcc -O2 -g -fno-omit-frame-pointer -no-pie -fdebug-prefix-map="$PWD"=. \
	-o textwork "$srcdir/src/textwork.c"
perf_record perf.data ./textwork

perf report -i perf.data --stdio --no-children --sort sym > sym.txt 2>/dev/null
perf report -i perf.data --stdio --no-children --sort dso,sym -n > dsosym.txt 2>/dev/null
perf report -i perf.data --stdio > children.txt 2>/dev/null

# percentages round-trip exactly: COL is the percentage column that counts
roundtrip() {
	file=$1 col=$2
	[ "$("$dump" -D "$file")" = hotlist ] || fail "'$file' not detected as a perf report"
	"$dump" "$file" > "$file.dump" || fail "text-dump '$file' failed"
	awk -v c="$col" '/^ +[0-9.]+%/ && $c != "0.00%" { print $c }' "$file" > "$file.pct"
	awk '!/^#/ { printf "%.2f%%\n", $1 / 10000 }' "$file.dump" | diff -u "$file.pct" - ||
		fail "'$file': percentages do not round-trip"
	[ -s "$file.pct" ] || fail "'$file': no rows"
	grep -qx '# event cpu-clock' "$file.dump" || fail "'$file': event name not returned"
}
roundtrip sym.txt 1
roundtrip dsosym.txt 1
roundtrip children.txt 2

# symbols, dsos and kernel flags of the rows
# (a dso of "[unknown]", a kernel address outside any map such as a module
# perf has no symbols for, is no dso)
awk '/^ +[0-9.]+%/ { s = $5; for (i = 6; i <= NF; i++) s = s " " $i
	k = $4 == "[k]" ? "K" : ""; d = $3 == "[unknown]" ? "" : "[" $3 "]"
	if (s ~ /^0x/) { sub(/^0x0*/, "0x", s); print s d "/" k "I" }
	else print s d "/" k "S" }' dsosym.txt > dsosym.frames
awk '!/^#/ { print $3 }' dsosym.txt.dump | diff -u dsosym.frames - || fail "dso,sym rows parse wrong"
grep -q '^work_heavy\[textwork\]/S$' dsosym.frames || fail "no work_heavy row in --sort dso,sym"
awk '!/^#/ && $2 != 1 { exit 1 }' sym.txt.dump || fail "a report row with more than one frame"
grep -q ' work_heavy/S$' sym.txt.dump || fail "no work_heavy in --sort sym"
# the children report counts Self: rows with 0.00 % self must not appear
awk '/^ +[0-9.]+% +0\.00% / { print $NF }' children.txt | sort -u > zero.self
[ -s zero.self ] || fail "no zero-self row in the children report to check"
while read -r z; do
	! grep -q " $z\[" children.txt.dump || fail "a zero-self row ($z) was kept"
done < zero.self

# a pasted perf top screen: only the last redraw counts
esc=$(printf '\033')
{
	printf '%s[H%s[2J\r\n' "$esc" "$esc"
	printf '   PerfTop:    2331 irqs/sec  kernel:88.2%%  exact:  0.0%% lost: 0/0 drop: 0/0 [4000Hz cpu-clock],  (all, 2 CPUs)\r\n'
	printf -- '-------------------------------------------------------------------------------\r\n\r\n'
	printf '  %s[31m  79.02%%%s[m  [kernel]          [k] pv_native_safe_halt\r\n' "$esc" "$esc"
	printf '     0.73%%  libc.so.6         [.] __libc_calloc\r\n'
	printf '%s[H%s[2J\r\n' "$esc" "$esc"
	printf '   PerfTop:     998 irqs/sec  kernel:99.8%%  exact:  0.0%% lost: 0/0 drop: 0/0 [4000Hz cpu-clock],  (all, 2 CPUs)\r\n'
	printf -- '-------------------------------------------------------------------------------\r\n\r\n'
	printf '  %s[31m  85.49%%%s[m  [kernel]          [k] pv_native_safe_halt\r\n' "$esc" "$esc"
	printf '  %s[32m   2.48%%%s[m  perf              [.] 0x0000000000163ce7\r\n' "$esc" "$esc"
	printf '     4.93%%  [kernel]          [k] do_syscall_64\r\n'
	printf '     0.40%%  [nf_conntrack]    [k] nf_conntrack_in\r\n'
	printf '     0.26%%  libc.so.6         [.] __strchr_evex\r\n'
} > top.txt
[ "$("$dump" -D top.txt)" = hotlist ] || fail "perf top screen not detected"
testrun_compare "$dump" top.txt <<'EOT'
854900 1 pv_native_safe_halt[[kernel]]/KS
24800 1 0x163ce7[perf]/I
49300 1 do_syscall_64[[kernel]]/KS
4000 1 nf_conntrack_in[[nf_conntrack]]/KS
2600 1 __strchr_evex[libc.so.6]/S
# event cpu-clock
EOT

# a hand-written hot list
cat > hot.txt <<'EOT'
# hot kernel functions of the forwarding path
fib_table_lookup 1234
ip_rcv

12.5% __netif_receive_skb_core
nf_conntrack_in@[nf_conntrack] 40
ip_forward@net/ipv4/ip_forward.o 7.25%
memcpy@@GLIBC_2.14 3
0xc0123456 9
std::vector<int, std::allocator<int> >::push_back(int const&) 2
EOT
[ "$("$dump" -D hot.txt)" = hotlist ] || fail "hot list not detected"
testrun_compare "$dump" hot.txt <<'EOT'
1234 1 fib_table_lookup/S
1 1 ip_rcv/S
125000 1 __netif_receive_skb_core/S
40 1 nf_conntrack_in[[nf_conntrack]]/KS
72500 1 ip_forward[net/ipv4/ip_forward.o]/S
3 1 memcpy@@GLIBC_2.14/S
9 1 0xc0123456/I
2 1 std::vector<int, std::allocator<int> >::push_back(int const&)/S
EOT

# folded stacks, hand-written and made from the real perf script output
cat > folded.txt <<'EOT'
swapper;secondary_startup_64_[k];cpu_idle_[k];default_idle_[k] 120
textwork;main;stage_one;work_heavy 300
textwork;[unknown];work_tiny 5
EOT
[ "$("$dump" -D folded.txt)" = folded ] || fail "folded stacks not detected"
testrun_compare "$dump" folded.txt <<'EOT'
120 3 default_idle/KS cpu_idle/KS secondary_startup_64/KS
300 3 work_heavy/S stage_one/S main/S
5 2 work_tiny/S ?/
EOT
perf script -i perf.data > chain.txt 2>/dev/null
# (a small stackcollapse: perf script lists frames leaf first, folded is root first)
awk 'function done() { if (comm != "") c[comm (fr == "" ? "" : ";" fr)]++ }
     /^[^\t]/ { done(); split($0, h, " "); comm = h[1]; fr = ""; lf = 1; next }
     /^\t/ { sub(/^\t *[0-9a-f]+ /, ""); sub(/ \(.*\)$/, ""); sub(/\+0x[0-9a-f]+$/, "")
	if (lf) print $0 > "leaf.expect"; lf = 0; fr = $0 (fr == "" ? "" : ";" fr) }
     END { done(); for (s in c) print s, c[s] }' chain.txt > perf.folded
"$dump" perf.folded > folded.dump || fail "text-dump perf.folded failed"
n=$(awk '!/^#/ { n += $1 } END { print n }' folded.dump)
m=$(grep -c ' cpu-clock: ' chain.txt)
[ "$n" = "$m" ] || fail "folded stacks of perf script count $n samples, perf script has $m"
awk '{ n = split($1, f, ";"); print n - 1 }' perf.folded | sort -n | uniq -c > depth.expect
awk '!/^#/ { print $2 }' folded.dump | sort -n | uniq -c > depth.actual
diff -u depth.expect depth.actual || fail "folded stack depths differ"
sort leaf.expect | uniq -c > leaves.expect
awk '!/^#/ { s = $3; sub(/\/.*/, "", s); if (s == "?") s = "[unknown]"; for (i = 0; i < $1; i++) print s }' folded.dump |
	sort | uniq -c > leaves.actual
diff -u leaves.expect leaves.actual || fail "leaf frames of the folded stacks differ from perf script"
exit 0
