#!/bin/sh
# Objects and archives through libbfd: call graph against the source and objdump -dr, archive member names against ld's map
. "$(dirname "$0")/test-subr.sh"
D=$TOOLS/bin-dump
[ -x "$D" ] || fail "no '$D': run 'make test-progs'"

# the calls of tests/src/multi*.c: caller callee count
cat > calls.expect <<'EOF2'
cold_path helper 1
hot_a scale.constprop.0 1
hot_b helper 1
hot_b scale.constprop.0 1
main asm_entry 1
main helper 1
main hot_a 2
main hot_b 1
main other_helper 1
other_helper cold_path 1
other_helper helper 2
EOF2

check_arch() {
	dir=$1 triple=$2
	if [ "$triple" = host ]; then P=; cc=gcc; else P=$triple-; cc=$triple-gcc; fi
	command -v "$cc" >/dev/null 2>&1 || { echo "no $cc: $dir not tested"; return 0; }
	tested=$((tested + 1))
	mkdir "$dir" && cd "$dir"
	cp "$srcdir/src/multi.c" "$srcdir/src/multi2.c" .
	for f in multi multi2; do
		$cc $3 -O2 -ffunction-sections -c $f.c -o $f.o || fail "$dir: cannot compile $f.c"
	done

	$D objects multi.o multi2.o > objs.txt || fail "$dir: bin-dump objects failed"
	awk '$1 == "edge" { print $2, $4, $5 }' objs.txt > calls.txt
	diff -u ../calls.expect calls.txt || fail "$dir: call graph differs from the source"
	grep -q '^edge main multi.o hot_a 2 call$' objs.txt || fail "$dir: main -> hot_a"
	# every code section with its sh_addralign, as readelf gives them
	for f in multi.o multi2.o; do
		${P}readelf -SW $f | sed 's/^ *\[ *[0-9]*\] *//' |
			awk -v f=$f '$1 ~ /^[.]/ && $7 ~ /X/ && $5 != "000000" { print "sec", f, $1, $NF }'
	done | sort > secs.expect
	grep '^sec ' objs.txt | sort | diff -u secs.expect - || fail "$dir: code sections or alignments differ from readelf"
	[ $(wc -l < secs.expect) -ge 8 ] || fail "$dir: too few code sections"

	# per caller section: as many call/jump relocations as objdump shows
	${P}objdump -dr multi.o multi2.o | awk '
		/^Disassembly of section / { s = $4; sub(/:$/, "", s); next }
		/R_(ARM_CALL|ARM_JUMP24|ARM_THM_CALL|ARM_THM_JUMP24|ARM_PC24|AARCH64_CALL26|AARCH64_JUMP26|MIPS_26|MIPS_JALR|X86_64_PLT32)|R_X86_64_PC32[ \t]+[.]text/ {
			n[s]++; if ($2 ~ /JUMP/) j++ }
		END { for (s in n) print s, n[s]; print "jumps", j + 0 }' | sort > rel.expect
	awk '$1 == "edge" { s = ".text." $2; if ($2 == "main") s = ".text.startup.main"
			    n[s] += $5; if ($6 == "tail") t += $5 }
	     END { for (s in n) print s, n[s]; print "jumps", t + 0 }' objs.txt | sort > rel.got
	case $triple in
	arm*|aarch64*) diff -u rel.expect rel.got || fail "$dir: relocations differ from objdump" ;;
	*) grep -v jumps rel.expect > r1; grep -v jumps rel.got > r2
	   diff -u r1 r2 || fail "$dir: relocations differ from objdump" ;;
	esac

	# archives: names as ld's map writes them
	mkdir -p sub/deep
	cp multi2.o sub/deep/m2.o
	${P}ar rcs libr.a multi2.o
	${P}ar rcsT sub/libt.a sub/deep/m2.o
	${P}ar rcsT outer.a sub/libt.a multi.o
	$cc $3 -static -Wl,-Map=prog.map multi.o sub/libt.a -o prog || fail "$dir: link with thin archive"
	$cc $3 -static -Wl,-Map=prog2.map multi.o libr.a -o prog2 || fail "$dir: link with archive"
	mapobj() { grep -A1 '^ \.text\.other_helper' "$1" | awk 'NR == 2 { print $3 }'; }
	$D objects sub/libt.a > thin.txt
	grep -q "^edge other_helper $(mapobj prog.map) " thin.txt ||
		fail "$dir: thin member not named '$(mapobj prog.map)' as in the map"
	$D objects libr.a > reg.txt
	grep -q "^edge other_helper $(mapobj prog2.map | sed 's/.*\///') " reg.txt ||
		fail "$dir: archive member not named '$(mapobj prog2.map)' as in the map"
	$D objects outer.a > outer.txt
	[ "$(awk '$1 == "edge" { print $2, $4, $5 }' outer.txt | sort)" = "$(sort ../calls.expect)" ] ||
		fail "$dir: nested thin archive lacks edges"
	grep -q '^edge cold_path sub/deep/m2.o ' outer.txt || fail "$dir: nested thin member name"
	cd ..
}

tested=0
check_arch arm arm-linux-gnueabihf -marm
check_arch thumb arm-linux-gnueabihf -mthumb
check_arch mips mips-linux-gnu
check_arch mipsel mipsel-linux-gnu
check_arch aarch64 aarch64-linux-gnu
[ "$(uname -m)" = x86_64 ] && check_arch x86_64 host
[ $tested -gt 0 ] || skip "no compiler"

echo "not an object" > junk.o
expect_fail "'junk.o': not an object file or archive" $D objects junk.o
expect_fail "'none.o': cannot open" $D objects none.o
mkdir objdir
testrun_compare sh -c "$D objects objdir 2>&1; echo \$?" <<'EOF'
'objdir': a directory; --objects takes objects and archives
hint: name the files, e.g. --objects DIR/built-in.a or one --objects per object
1
EOF
echo "$tested architectures checked"
