#!/bin/sh
# QEMU execution logs as a profile source (x86-64, ARM, Thumb, MIPS under qemu user mode); bad logs.  cachepin simulate on such logs: run-simulate.sh.
. "$(dirname "$0")/test-subr.sh"
need_cmd qemu-x86_64 qemu-arm qemu-mips gcc arm-linux-gnueabihf-gcc mips-linux-gnu-gcc \
	valgrind objdump arm-linux-gnueabihf-objdump mips-linux-gnu-objdump readelf nm awk cmp
N=1000

# qtrace QEMU ARGS...: run a program under QEMU, environment empty
qtrace() {
	env -i "$@" || fail "'$*' failed"
}

# field NAME FIELD PROFILE: field FIELD of function NAME's 'f' line
field() {
	awk -v n="$1" -v k="$2" '$1 == "f" && $2 == n { print $k; found = 1 } END { if (!found) print "none" }' "$3"
}

# callsite BIN OBJDUMP FUNC CALLEE DELAY: offset in FUNC of the return
# address of its call of CALLEE, from the disassembly (DELAY: a delay slot)
callsite() {
	"$2" -d --no-show-raw-insn "$1" | awk -v f="$3" -v c="$4" -v ds="$5" '
		function hex(h,   i, v) { v = 0; h = tolower(h)
			for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
			return v }
		$2 == "<" f ">:" { start = hex($1); inf = 1; next }
		inf && /^$/ { inf = 0 }
		inf && want { printf "0x%x\n", hex(substr($1, 1, length($1) - 1)) - start; want = 0; exit }
		inf && $NF == "<" c ">" {
			a = hex(substr($1, 1, length($1) - 1))
			if (ds) { printf "0x%x\n", a + 8 - start; exit }
			want = 1 }'
}

# instructions executed in a section (the PLT stubs that no symbol covers),
# counted from the log itself: in_asm instruction lines per block, summed
# over the exec lines whose pc is in [LO, HI); also the total
log_insns() {
	awk -v lo="$2" -v hi="$3" '
		function norm(h) { sub(/^0x/, "", h); sub(/^0+/, "", h); return h == "" ? "0" : h }
		function hex(h,   i, v) { v = 0; h = tolower(h)
			for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
			return v }
		/^IN:/ { inb = 1; n = 0; pc = ""; next }
		inb && /^0x/ {
			rest = $0; sub(/^0x[0-9a-f]+: /, "", rest)
			if (rest ~ /^( [0-9a-f][0-9a-f])+ *$/) next	# an x86 encoding continued
			if (pc == "") pc = norm(substr($1, 1, length($1) - 1))
			n++; next }
		inb && /^$/ { if (pc != "") cnt[pc] = n; inb = 0; next }
		/^Trace / { split($0, f, "/"); p = norm(f[2]); t += cnt[p]; a = hex(p); if (a >= lo && a < hi) u += cnt[p] }
		END { print t + 0, u + 0 }' "$1"
}

# ---- profiles of qtwork: known instruction counts, call edges ----
# target compiler objdump readelf qemu insns-per-loop-iteration delay-slot flags
for spec in "x86 gcc objdump readelf qemu-x86_64 2 0" \
	    "arm arm-linux-gnueabihf-gcc arm-linux-gnueabihf-objdump arm-linux-gnueabihf-readelf qemu-arm 2 0 -marm" \
	    "thumb arm-linux-gnueabihf-gcc arm-linux-gnueabihf-objdump arm-linux-gnueabihf-readelf qemu-arm 2 0 -mthumb" \
	    "mips mips-linux-gnu-gcc mips-linux-gnu-objdump mips-linux-gnu-readelf qemu-mips 3 1 -mno-abicalls -fno-pic"; do
	set -- $spec
	t=$1 cc=$2 od=$3 re=$4 qemu=$5 L=$6 ds=$7
	shift 7
	# (MIPS: ld warns about linking non-abicalls code with libc's)
	$cc -O1 -static "$@" -o qtwork.$t "$srcdir/src/qtwork.c" 2> cc.err || { cat cc.err >&2; fail "cannot build qtwork for $t"; }
	qtrace $qemu -d in_asm,exec,nochain -D $t.log ./qtwork.$t $N
	$CACHEPIN profile -v -o $t.prof qtwork.$t $t.log 2> $t.err || { cat $t.err >&2; fail "profile of $t.log failed"; }
	grep -q '^event instructions$' $t.prof || fail "$t: event is not 'instructions'"

	# spin_a runs 4N iterations a call, spin_b N, ten calls each, plus at
	# most 8 instructions of entry and return a call
	wa=$(field spin_a 4 $t.prof) wb=$(field spin_b 4 $t.prof) wd=$(field driver 4 $t.prof)
	[ "$wa" != none ] && [ "$wb" != none ] && [ "$wd" != none ] || fail "$t: spin_a, spin_b or driver missing"
	[ "$wa" -ge $((40 * N * L + 10)) ] && [ "$wa" -le $((40 * N * L + 80)) ] ||
		fail "$t: spin_a weight $wa outside [$((40 * N * L + 10)), $((40 * N * L + 80))]"
	[ "$wb" -ge $((10 * N * L + 10)) ] && [ "$wb" -le $((10 * N * L + 80)) ] ||
		fail "$t: spin_b weight $wb outside [$((10 * N * L + 10)), $((10 * N * L + 80))]"
	# samples = weight at period 1; the granules add up, the loop's is hot
	[ "$(field spin_a 5 $t.prof)" = "$wa" ] || fail "$t: spin_a samples differ from its weight"
	awk -v n=spin_a -v w="$wa" -v min=$((40 * N)) '
		$1 == "f" { inf = ($2 == n) } inf && $1 == "g" { s += $3; if ($3 > max) max = $3 }
		END { exit !(s == w && max >= min) }' $t.prof || fail "$t: spin_a's granules do not add up to $wa with one of $((40 * N)) or more"
	# driver is on the stack of every spin instruction
	[ "$(field driver 6 $t.prof)" = $((wd + wa + wb)) ] ||
		fail "$t: driver's inclusive weight $(field driver 6 $t.prof) is not $wd + $wa + $wb"
	# the call edges: return address offset as the disassembly has it
	for callee in spin_a spin_b; do
		cs=$(callsite qtwork.$t $od driver $callee $ds)
		[ -n "$cs" ] || fail "$t: no call of $callee in driver's disassembly"
		w=$(field $callee 4 $t.prof)
		grep -q "^e driver - $callee - $cs $w d$" $t.prof ||
			{ grep '^e driver' $t.prof >&2; fail "$t: no edge 'driver -> $callee' at $cs with weight $w"; }
	done
	# every executed instruction is a sample: the log's own count; those
	# that resolve to no function are the PLT stubs' (no symbol covers them)
	plt=$($re -SW qtwork.$t | sed -n 's/.* \.i\{0,1\}plt *PROGBITS *\([0-9a-f]*\) [0-9a-f]* \([0-9a-f]*\) .*/\1 \2/p')
	set -- ${plt:-0 0}
	set -- $(log_insns $t.log $((0x$1)) $((0x$1 + 0x$2)))
	grep -q "^samples $1 $(($1 - $2))$" $t.prof ||
		fail "$t: '$(grep '^samples' $t.prof)', the log holds $1 instructions, $2 of them in the PLT"
	grep -q "$(($1 - $2)) of $1 samples matched" $t.err || fail "$t: -v summary lacks the matched samples"
	# reproducible, and --every N: one sample per N instructions
	# (--period N is its older name)
	$CACHEPIN profile qtwork.$t $t.log 2>/dev/null | cmp -s - $t.prof || fail "$t: profile not reproducible"
	$CACHEPIN profile --every 7 -o $t.p7 qtwork.$t $t.log || fail "$t: --every 7 failed"
	$CACHEPIN profile --period 7 qtwork.$t $t.log 2>/dev/null | cmp -s - $t.p7 || fail "$t: --period 7 is not --every 7"
	total=$1
	grep -q "^samples $((total / 7)) " $t.p7 && grep -q "^period $((total / 7 * 7)) " $t.p7 ||
		fail "$t: --every 7: '$(grep '^samples' $t.p7)' for $total instructions"
	w7=$(field spin_a 4 $t.p7)
	[ $((w7 - wa)) -le 70 ] && [ $((wa - w7)) -le 70 ] || fail "$t: spin_a weighs $w7 at period 7, $wa at period 1"
	echo "$t: spin_a $wa, spin_b $wb, driver $wd (inclusive $((wd + wa + wb))), $total instructions"
done
expect_fail "bad --every '0'" $CACHEPIN profile --every 0 qtwork.x86 x86.log
# another run of the program: another log (other host addresses), the same profile
qtrace qemu-x86_64 -d in_asm,exec,nochain -D again.log ./qtwork.x86 $N
cmp -s again.log x86.log && fail "two QEMU runs wrote the same log"
$CACHEPIN profile qtwork.x86 again.log 2>/dev/null | cmp -s - x86.prof || fail "two runs of qtwork give two profiles"

# per function, QEMU's instruction counts are valgrind's
env -i valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=qtwork.cg ./qtwork.x86 $N 2>/dev/null ||
	fail "cachegrind on qtwork failed"
for f in spin_a spin_b driver; do
	ir=$(awk -v n=$f '/^fn=/ { inf = (substr($0, 4) == n); next } inf && /^[0-9]/ { s += $2 } END { print s + 0 }' qtwork.cg)
	[ "$ir" = "$(field $f 4 x86.prof)" ] || fail "$f: cachegrind counts $ir instructions, the QEMU profile $(field $f 4 x86.prof)"
done

# ---- bad and odd logs ----
# a pipe (sniffed, then read on) gives the same profile as the file
cat x86.log | $CACHEPIN profile qtwork.x86 /dev/stdin 2>/dev/null | cmp -s - x86.prof ||
	fail "profile of a piped log differs"
# cut in the middle of a line: the part before the cut counts
size=$(wc -c < x86.log)
head -c $((size / 2)) x86.log > cut.log
[ "$(tail -c 1 cut.log | od -An -c | tr -d ' ')" != '\n' ] || head -c $((size / 2 + 1)) x86.log > cut.log
head -n "$(wc -l < cut.log)" cut.log > whole-lines.log
$CACHEPIN profile qtwork.x86 cut.log > cut.prof 2> cut.err || fail "a cut log was refused"
grep -q "'cut.log': the last line is cut off" cut.err || fail "no warning about the cut line"
$CACHEPIN profile qtwork.x86 whole-lines.log 2>/dev/null | cmp -s - cut.prof || fail "a cut line changed the profile"
# exec lines whose block has no in_asm: spin_b's blocks dropped
awk '/^----------------$/ { if (blk != "" && !drop) printf "%s", blk; blk = $0 "\n"; drop = 0; inb = 1; next }
	inb && /^IN: spin_b$/ { drop = 1 }
	inb && /^Trace / { if (!drop) printf "%s", blk; blk = ""; inb = 0 }
	inb { blk = blk $0 "\n"; next } { print }
	END { if (!drop) printf "%s", blk }' x86.log > nob.log
nb=$(grep -c '^Trace .* spin_b$' nob.log)
[ "$nb" -gt $((10 * N)) ] || fail "spin_b ran only $nb blocks"
$CACHEPIN profile qtwork.x86 nob.log > nob.prof 2> nob.err || fail "profile without spin_b's in_asm failed"
grep -q "warning: 'nob.log': $nb of $(grep -c '^Trace ' nob.log) executed blocks .* have no in_asm block" nob.err ||
	{ cat nob.err >&2; fail "the $nb blocks without in_asm are not reported"; }
grep -q '^hint: ' nob.err || fail "no hint for blocks without in_asm"
[ "$(field spin_b 4 nob.prof)" = none ] || fail "spin_b has a weight without its in_asm"
[ "$(field spin_a 4 nob.prof)" = "$(field spin_a 4 x86.prof)" ] || fail "spin_a changed with spin_b's in_asm gone"
# only exec lines: nothing can be counted
grep '^Trace ' x86.log > exec-only.log
expect_fail "no sample matched" $CACHEPIN profile qtwork.x86 exec-only.log
grep -q "have no in_asm block" fail.err || fail "exec-only log: blocks without in_asm not reported"
# written with chaining on: exec lines miss blocks
qtrace qemu-x86_64 -d in_asm,exec -D chain.log ./qtwork.x86 10
expect_fail "'chain.log':[0-9]*: the log was written with block chaining on" $CACHEPIN profile qtwork.x86 chain.log
grep -q "hint: record with '-d in_asm,exec,nochain'" fail.err || fail "no hint for a chained log"
# a line that is no log line, and a broken exec line, deep inside
n=$(($(wc -l < x86.log) / 2))
awk -v n=$n 'NR == n { print "Dear colleague, the trace you asked for" } { print }' x86.log > prose.log
expect_fail "'prose.log':$n: not a line of a QEMU in_asm/exec log" $CACHEPIN profile qtwork.x86 prose.log
m=$(awk -v n=$n 'NR > n && /^Trace / { print NR; exit }' x86.log)
awk -v m=$m 'NR == m { sub(/\/[0-9a-f]+\//, "/00zz40/") } { print }' x86.log > badexec.log
expect_fail "'badexec.log':$m: bad exec line" $CACHEPIN profile qtwork.x86 badexec.log
# an in_asm block whose instructions span more than two 64 KiB pages
printf '%s\n' '----------------' 'IN: spin_a' '0x00401130:  55        pushq    %rbp' \
	'0x00421130:  c3        retq     ' '' \
	'Trace 0: 0x7f0000000000 [00000000/00401130/00000000/00000000] spin_a' > wide.log
expect_fail "'wide.log':4: block larger than 128 KiB (QEMU blocks span at most two pages)" \
	$CACHEPIN profile qtwork.x86 wide.log
exit 0
