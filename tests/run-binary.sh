#!/bin/sh
# ELF functions, map units, lookups and source lines per architecture, against nm, readelf and addr2line
. "$(dirname "$0")/test-subr.sh"
D=$TOOLS/bin-dump
[ -x "$D" ] || fail "no '$D': run 'make test-progs'"

# The checks of one function list against nm: every function is an nm
# text symbol with one of its names at that address and (unless NOSIZE)
# its size; every nm text symbol is a function or lies inside one.
cat > nmcmp.awk <<'EOF'
function hex(s,   i, v) {
	s = tolower(s); sub(/^0x/, "", s); v = 0
	for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v
}
FILENAME == ARGV[1] {	# readelf -SW: executable ranges
	sub(/^ *\[ *[0-9]+\] */, "")
	if (NF >= 7 && $7 ~ /X/) { lo[++nr] = hex($3); hi[nr] = hex($3) + hex($5) }
	next
}
FILENAME == ARGV[2] {	# nm -S --defined-only
	t = $(NF - 1); n = $NF
	if (t !~ /^[tTwWi]$/ || n ~ /^\$/) next
	a = hex($1); if (thumb && a % 2) a--
	for (i = 1; i <= nr; i++) if (a >= lo[i] && a < hi[i]) break
	if (i > nr) next
	nmat[a] = 1; nmname[a " " n] = 1; nmsize[a " " n] = NF == 4 ? hex($2) : 0
	next
}
{	# bin-dump funcs
	a = hex($1); mine[a] = 1; nf++; fa[nf] = a; fe[nf] = a + hex($2)
	if (!(a in nmat)) { print "extra function " $3 " at " $1; bad++; next }
	if (!((a " " $3) in nmname)) { print "name " $3 " not nm's at " $1; bad++; next }
	if ($6 !~ /nosize/ && nmsize[a " " $3] != hex($2)) { print "size of " $3 " differs"; bad++ }
	if ($6 ~ /nosize/ && nmsize[a " " $3]) { print "nosize " $3 " has a size in nm"; bad++ }
}
END {
	for (a in nmat) {
		if (a in mine) continue
		for (i = 1; i <= nf; i++) if (a > fa[i] && a < fe[i]) break
		if (i > nf) { printf "nm symbol at %x missing\n", a; bad++ }
	}
	if (nf < 100) { print "only " nf " functions"; bad++ }
	if (!bad) print "ok"
}
EOF

# field F of the line of bin-dump output FILE whose 3rd field is NAME
fld() { awk -v n="$2" -v f="$3" '$3 == n { print $f; exit }' "$1"; }

check_arch() {
	dir=$1 triple=$2 arch=$3 class=$4 endian=$5 cflags=$6
	if [ "$triple" = host ]; then P=; cc=gcc; else P=$triple-; cc=$triple-gcc; fi
	command -v "$cc" >/dev/null 2>&1 || { echo "no $cc: $dir not tested"; return 0; }
	tested=$((tested + 1))
	mkdir "$dir" && cd "$dir"
	cp "$srcdir/src/multi.c" "$srcdir/src/multi2.c" .
	for f in multi multi2; do
		$cc $cflags -O2 -g -ffunction-sections -fdebug-prefix-map="$PWD"=. -c $f.c -o $f.o ||
			fail "$dir: cannot compile $f.c"
	done
	$cc $cflags -static -Wl,-Map=prog.map multi.o multi2.o -o prog || fail "$dir: cannot link"
	thumb=0
	[ "$arch" = arm ] && thumb=1

	# identity: arch, class, byte order (from readelf too), build-id
	bid=$(${P}readelf -n prog | awk '/Build ID/ { print $3 }')
	[ -n "$bid" ] || fail "$dir: readelf shows no build-id"
	[ "$($D info prog)" = "$arch $class $endian linked $bid" ] ||
		fail "$dir: info '$($D info prog)' != '$arch $class $endian linked $bid'"
	case $endian in
	be) ${P}readelf -h prog | grep -q 'big endian' || fail "$dir: not a big-endian file" ;;
	le) ${P}readelf -h prog | grep -q 'little endian' || fail "$dir: not little-endian" ;;
	esac

	# functions against nm
	${P}readelf -SW prog > secs.txt
	${P}nm -S --defined-only prog > nm.txt
	$D funcs prog > funcs.txt || fail "$dir: bin-dump funcs failed"
	r=$(awk -v thumb=$thumb -f ../nmcmp.awk secs.txt nm.txt funcs.txt)
	[ "$r" = ok ] || fail "$dir: functions differ from nm: $r"

	# units from the map: each function of ours in its own input section
	$D funcs prog prog.map > mfuncs.txt || fail "$dir: load_map failed"
	$D units prog prog.map > units.txt
	for fn in hot_a hot_b cold_path other_helper scale.constprop.0 main; do
		sec=.text.$fn
		[ $fn = main ] && sec=.text.startup.main
		obj=multi.o
		case $fn in cold_path|other_helper) obj=multi2.o ;; esac
		[ "$(fld mfuncs.txt $fn 4) $(fld mfuncs.txt $fn 5)" = "$obj $sec" ] ||
			fail "$dir: $fn is in '$(fld mfuncs.txt $fn 4) $(fld mfuncs.txt $fn 5)', not '$obj $sec'"
		nmaddr=$(awk -v n=$fn '$NF == n { print $1 }' nm.txt | sed 's/^0*//')
		[ $thumb = 1 ] && nmaddr=$(printf %x $((0x$nmaddr & ~1)))
		uaddr=$(awk -v s=$sec -v o=$obj '$3 == s && $4 == o { print $1 }' units.txt)
		[ "$uaddr" = "$nmaddr" ] || fail "$dir: unit $obj:$sec at '$uaddr', nm says '$nmaddr'"
	done
	for o in multi.o multi2.o; do
		want=$(${P}readelf -SW $o | sed 's/^ *\[ *[0-9]*\] *//' |
		       awk '$7 ~ /X/ && $5 !~ /^0+$/' | wc -l)
		got=$(awk -v o=$o '$4 == o' units.txt | wc -l)
		[ "$want" = "$got" ] || fail "$dir: $o has $want code sections, $got units"
	done
	awk '$3 == ".text" && $4 == "multi.o"' units.txt | grep -q ' movable,whole,map 2 -$' ||
		fail "$dir: the assembly .text of multi.o is not one whole unit of 2 functions"
	grep -q '^[0-9a-f]* [0-9a-f]* \.init .* fixed,map [0-9]* init/fini code$' units.txt ||
		fail "$dir: .init not fixed"
	grep asm_entry mfuncs.txt | grep -q nosize || fail "$dir: asm_entry (no size) not nosize"
	[ "$(grep -c ' helper multi.*dupname' mfuncs.txt)" = 2 ] || fail "$dir: helper x2 not dupname"
	if [ $thumb = 1 ]; then
		case $cflags in
		*-mthumb*) fld mfuncs.txt hot_a 6 | grep -q thumb || fail "$dir: hot_a not thumb" ;;
		*) fld mfuncs.txt hot_a 6 | grep -q thumb && fail "$dir: ARM hot_a is thumb" ;;
		esac
		fld mfuncs.txt asm_entry 6 | grep -q thumb && fail "$dir: .arm asm_entry is thumb"
	fi

	# lookups
	$D lookup prog prog.map helper | grep -q ' helper ambiguous$' || fail "$dir: helper not ambiguous"
	h1=$(awk '$3 == "helper" && $4 == "multi.o" { print $1 }' mfuncs.txt)
	h2=$(awk '$3 == "helper" && $4 == "multi2.o" { print $1 }' mfuncs.txt)
	[ "$($D lookup prog prog.map helper multi2.o)" = "$h2 helper" ] || fail "$dir: helper in multi2.o"
	[ "$($D lookup prog prog.map helper multi.o)" = "$h1 helper" ] || fail "$dir: helper in multi.o"
	[ "$($D lookup prog prog.map scale)" = none ] || fail "$dir: 'scale' found (clone merged?)"
	[ "$($D lookup prog prog.map hot_a nosuch.o)" = none ] || fail "$dir: hot_a in nosuch.o"
	a=$(fld mfuncs.txt hot_a 1)
	[ "$($D find prog $(printf %x $((0x$a + 2))))" = "$(printf %x $((0x$a + 2))) hot_a" ] ||
		fail "$dir: find_func in hot_a"
	e=_start
	[ $arch = mips ] && e=__start
	s=$(awk -v e=$e '$NF == e { print $1 }' nm.txt | sed 's/^0*//')
	[ -n "$s" ] && [ "$($D sym prog $e)" = "$s" ] || fail "$dir: $e '$($D sym prog $e)' != '$s'"
	set -- $(sed 's/^ *\[ *[0-9]*\] *//' secs.txt | awk '$1 == ".text" { print $3, $4 }')
	[ "$($D off prog $(printf %x $((0x$2 + 16))))" = \
	  "$(printf '%x %x' $((0x$2 + 16)) $((0x$1 + 16)))" ] || fail "$dir: off_to_addr in .text"
	[ "$($D fix prog prog.map 'multi.o:.text.hot_a' | head -1)" = "fixed 1" ] || fail "$dir: fix object:section"
	[ "$($D fix prog prog.map 'cold_*' | head -1)" = "fixed 1" ] || fail "$dir: fix by function"

	# source lines against addr2line (file base name, line, innermost inlined function)
	lo=$(fld mfuncs.txt other_helper 1) sz=$(fld mfuncs.txt other_helper 2)
	addrs=
	for fn in hot_a hot_b cold_path main; do addrs="$addrs $(fld mfuncs.txt $fn 1)"; done
	i=0
	while [ $i -lt $((0x$sz)) ]; do addrs="$addrs $(printf %x $((0x$lo + i)))"; i=$((i + 4)); done
	$D srcline prog $addrs | awk '{ f = $2; sub(/.*\//, "", f); print $1, f, $3 }' > ours.txt
	${P}addr2line -a -f -i -e prog $addrs | awk '
		/^0x/ { if (a != "") print a, fl, (n > 1 ? first : ""); a = $1; sub(/^0x0*/, "", a); n = 0; next }
		{ k++ } k % 2 == 1 { fn = $1; next }
		{ sub(/ .*/, ""); f = $0; sub(/.*\//, "", f); n++; if (n == 1) { fl = f; first = fn } }
		END { print a, fl, (n > 1 ? first : "") }' | sed 's/ *$//' > theirs.txt
	sed 's/ *$//' ours.txt > ours2.txt
	diff -u theirs.txt ours2.txt || fail "$dir: srcline differs from addr2line"
	grep -q ' mix$' ours2.txt || fail "$dir: no address inlined from mix()"

	# a map of another link of the same program
	$cc $cflags -static multi2.o multi.o -o prog2
	expect_fail "does not belong" $D funcs prog2 prog.map

	# a relocatable object: sections laid out from 0, one unit each
	$D secs multi.o | awk '$4 == 1' > osecs.txt
	r=$(awk 'function hex(s,   i, v) { v = 0
			for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v }
		{ a = hex($1); if (NR == 1 && a) print "starts at " a
		  if (a < end) print $5 " overlaps"; if ($3 > 1 && a % $3) print $5 " misaligned"
		  end = a + hex($2) }
		END { if (NR < 6) print "only " NR " code sections" }' osecs.txt)
	[ -z "$r" ] || fail "$dir: object layout: $r"
	$D funcs multi.o > ofuncs.txt
	[ "$(fld ofuncs.txt hot_a 5)" = .text.hot_a ] || fail "$dir: hot_a of multi.o not in .text.hot_a"
	$D units multi.o | awk '$3 == ".text"' | grep -q ' multi.o [0-9]* movable,whole 2 -$' ||
		fail "$dir: .text of multi.o not whole"
	cd ..
}

tested=0
check_arch arm arm-linux-gnueabihf arm 32 le -marm
check_arch thumb arm-linux-gnueabihf arm 32 le -mthumb
check_arch mips mips-linux-gnu mips 32 be
check_arch mipsel mipsel-linux-gnu mips 32 le
check_arch aarch64 aarch64-linux-gnu aarch64 64 le
[ "$(uname -m)" = x86_64 ] && check_arch x86_64 host x86_64 64 le
[ $tested -gt 0 ] || skip "no compiler"
echo "$tested architectures checked"
