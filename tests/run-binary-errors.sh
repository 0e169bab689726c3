#!/bin/sh
# Bad inputs of the binary readers: not ELF, stripped, truncated, garbage, bad maps, no DWARF
. "$(dirname "$0")/test-subr.sh"
D=$TOOLS/bin-dump
[ -x "$D" ] || fail "no '$D': run 'make test-progs'"
need_cmd gcc strip readelf dd valgrind

printf 'int f(int x) { return x * 3; }\nint main(int c, char **v) { return f(c); }\n' > p.c
gcc -O2 -static -Wl,-Map=p.map p.c -o prog || fail "cannot link"

echo "just text" > text.txt
expect_fail "'text.txt': not an ELF file" $D funcs text.txt
: > empty
expect_fail "'empty': not an ELF file" $D funcs empty
expect_fail "cannot open 'missing'" $D funcs missing

cp prog stripped && strip --strip-all stripped
expect_fail "'stripped': no symbol table" $D funcs stripped
grep -q '^hint: ' fail.err || fail "no hint for a stripped file"

# truncated at several points, and ELF magic followed by garbage
size=$(wc -c < prog)
for n in 16 52 64 200 4096 $((size / 2)) $((size - 100)); do
	head -c $n prog > trunc.$n
	expect_fail "'trunc.$n': " $D funcs trunc.$n
done
{ head -c 16 prog; head -c 8192 /dev/urandom; } > garbage
expect_fail "'garbage': " $D funcs garbage
# section headers pointing past the end: patch e_shoff (offset 40, 8 bytes LE)
cp prog badshoff
printf '\377\377\377\177\000\000\000\000' | dd of=badshoff bs=1 seek=40 conv=notrunc 2>/dev/null
expect_fail "'badshoff': " $D funcs badshoff

# a .symtab whose offset lies past the end of the file: said, and only the
# dynamic symbols read (it loaded as 0 functions without a word)
cp prog symoff
shoff=$(od -An -t u8 -j 40 -N 8 symoff | tr -d ' ')
idx=$(readelf -SW symoff | awk '$2 == ".symtab" { gsub(/[][]/, "", $1); print $1; exit } $3 == ".symtab" { print $2; exit }' | tr -d '[]')
[ -n "$idx" ] || fail "prog has no .symtab"
printf '\000\000\000\000\000\001\000\000' | dd of=symoff bs=1 seek=$((shoff + idx * 64 + 24)) conv=notrunc status=none
expect_fail "^'symoff': its symbol table lies outside the file (offset 0x10000000000, [0-9]* bytes, the file has [0-9]*)" \
	$D funcs symoff
# maps
expect_fail "'text.txt': not a GNU ld map" $D funcs prog text.txt
expect_fail "'nomap': cannot read" $D funcs prog nomap
sed -n '1,/^Linker script and memory map/p' p.map > headonly.map
expect_fail "'headonly.map': no input sections" $D funcs prog headonly.map
# cut in half, or one line that is not ld's at column 0 inside .text:
# the rest of .text was lost without a word (94 -> 58 units); now the
# input sections must reach the end of their output section
head -c $(( $(wc -c < p.map) / 2 )) p.map > half.map
expect_fail "^'half.map':[0-9]*: the input sections of '.text' end at 0x[0-9a-f]*, short of its end at 0x[0-9a-f]*$" \
	$D units prog half.map
grep -q "^hint: the map is cut off, or has a line that is not ld's" fail.err || fail "no hint for a cut map"
n=$(grep -n '^ \.text ' p.map | sed -n 20p | cut -d: -f1)
[ -n "$n" ] || fail "p.map has fewer than 20 .text input sections"
awk -v n=$n 'NR == n { print "junk line" } { print }' p.map > junk.map
expect_fail "^'junk.map':[0-9]*: the input sections of '.text' end at" $D units prog junk.map
$D units prog p.map > whole.out || fail "the whole map failed"
gcc -O2 -static -Wl,-Map=q.map -Wl,--section-start=.text=0x800000 p.c -o prog2
expect_fail "'q.map': does not belong to 'prog'" $D funcs prog q.map
grep -q '^hint: ' fail.err || fail "no hint for a foreign map"

# no DWARF: ENODATA, reported as such by the driver
expect_fail "No data available" $D srcline prog 401000
# a section header that says a section runs past the file's end (found by
# fuzz-dwarf: libdwarf 20210528 asks malloc for it first): refused before
# libdwarf sees it.  Section 1's sh_size, 32 bytes into its header, set to
# 2^40 - 1 (a little-endian ELF64 of the test's own build, with DWARF)
gcc -O2 -g -static -o dw p.c || fail "cannot link dw"
shoff=$(readelf -hW dw | awk '/Start of section headers/ { print $5 }')
cp dw bigsec
printf '\377\377\377\377\377\000\000\000' | dd of=bigsec bs=1 seek=$((shoff + 64 + 32)) conv=notrunc 2> /dev/null
expect_fail "'bigsec': bad ELF: section 1 lies past the end of the file; no source lines" $D srcline bigsec 401000
# the section names' table turned into a note (found by fuzz-dwarf: libelf
# then gives no names, libdwarf reads them anyway and frees a range list
# twice): refused.  sh_type, 4 bytes into the header of section e_shstrndx
shstrndx=$(readelf -hW dw | awk '/Section header string table index/ { print $NF }')
cp dw notestr
printf '\007' | dd of=notestr bs=1 seek=$((shoff + shstrndx * 64 + 4)) conv=notrunc 2> /dev/null
expect_fail "'notestr': bad ELF: the name of section 1 cannot be read; no source lines" $D srcline notestr 401000
# a corrupt line table (found by fuzz-dwarf): its file entries name a
# directory past the table's, and libdwarf 20210528's dwarf_linesrc()
# reads past its array; the names as the table records them, under
# valgrind, which sees such a read (not in a sanitized build: ASan and
# valgrind exclude each other, and ASan does not see into libdwarf)
vg="valgrind -q --error-exitcode=99"
! nm "$D" 2> /dev/null | grep -q __asan_init || vg=
$vg $D srcline "$srcdir/fuzz/seeds/dwarf/corrupt-line-table.elf" \
	401190 4011d0 > corrupt.out 2> corrupt.err || { cat corrupt.err >&2; fail "srcline of the corrupt line table failed"; }
testrun_compare cat corrupt.out <<'EOF'
401190 hotfuncs.row:21
4011d0 hotfuncs.row:22
EOF
echo "errors handled"
