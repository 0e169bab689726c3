#!/bin/sh
# Symbol names are bytes: names with XML's characters, quotes, a backslash, DEL, control bytes, an escape sequence, bytes that are not UTF-8 and a noncharacter give strict JSON from score, diff, whatif and simulate, well-formed XML from --svg, and no control byte on a terminal.
. "$(dirname "$0")/test-subr.sh"
need_cmd as objcopy gcc nm jq xmllint iconv

# fifteen functions of 1000 bytes, called in turn from _start
{
	echo '.globl _start'
	echo '.section .text._start,"ax",@progbits'
	echo '_start:'
	i=0
	while [ $i -lt 15 ]; do echo "	call h$i"; i=$((i + 1)); done
	echo '	ud2'
	i=0
	while [ $i -lt 15 ]; do
		printf '.section .text.h%d,"ax",@progbits\n.globl h%d\n.type h%d, @function\n.p2align 6\nh%d:\n' $i $i $i $i
		printf '	.fill 1000,1,0x90\n	ret\n.size h%d, .-h%d\n' $i $i
		i=$((i + 1))
	done
	echo '.section .note.GNU-stack,"",@progbits'
} > hostile.s
as -o plain.o hostile.s || fail "assembling failed"
# the names (octal escapes: \377\376 and \303( are not UTF-8, \342\202\254 is the euro sign,
# \357\277\276 is U+FFFE, UTF-8 that XML 1.0 cannot hold)
set -- 'fn<lt' 'fn&amp' 'fn"dq' "fn'sq" 'fn>gt' 'fn\377\376bad' 'fn\303(bad2' 'fn]]>cdata' 'fn<!--c-->' \
	'fn\177del' 'fn\\bs' 'fn\342\202\254ok' 'fn\001ctl' 'fn\033[31mred' 'fn\357\277\276nc'
i=0
for n; do
	printf "h$i $n\n"
	i=$((i + 1))
done > names.txt
objcopy --redefine-syms=names.txt plain.o hostile.o || fail "renaming the symbols failed"
gcc -nostdlib -static -no-pie -Wl,-Map=h.map -o h hostile.o || fail "linking failed"
gcc -nostdlib -static -no-pie -Wl,-Map=h2.map -Wl,--sort-section=name -o h2 hostile.o || fail "linking h2 failed"
[ "$(nm h | grep -c ' T fn')" = 15 ] || fail "the binary has $(nm h | grep -c ' T fn') of the 15 names"
# a hot list of the names it can hold (not control bytes, not DEL), the
# profile of it, and the other three added to the profile, quoted: the
# profile's reader takes any byte but NUL
cut -d' ' -f2- names.txt | LC_ALL=C awk '{ print $0, 100 - NR }' | LC_ALL=C grep -av 'del\|ctl\|red' > hot.txt
$CACHEPIN profile -m h.map -o hot.profile h hot.txt 2> /dev/null || fail "profile of the hot list failed"
[ "$(grep -c '^f ' hot.profile)" = 12 ] || fail "the profile has $(grep -c '^f ' hot.profile) of the hot list's 12 functions"
printf 'f "fn\\177del" - 300 1 300 1001\nf "fn\\001ctl" - 299 1 299 1001\nf "fn\\033[31mred" - 298 1 298 1001\n' >> hot.profile
# a lackey trace that runs each function 20 times
nm h | awk '/ T fn/ { print $1 }' | while read -r a; do echo "$a"; done > addrs
awk 'BEGIN { print "==1== Lackey" } { a[NR] = strtonum("0x" $1) }
	END { for (r = 0; r < 20; r++) for (i = 1; i <= NR; i++) for (o = 0; o < 1000; o += 4) printf "I  %08x,4\n", a[i] + o }' addrs > h.lackey

# strict JSON: UTF-8 throughout (iconv), and JSON (jq refuses raw control bytes)
strict_json() {
	iconv -f UTF-8 -t UTF-8 "$1" > /dev/null && jq empty "$1" || fail "'$1' is not strict JSON"
}
xml_ok() {
	xmllint --noout "$1" || fail "'$1' is not well-formed XML"
}
$CACHEPIN score -m h.map -c 1K:1:32 --top 100 --json --svg score.svg h hot.profile > score.json 2> /dev/null || fail "score failed"
strict_json score.json
xml_ok score.svg
$CACHEPIN diff -c 1K:1:32 --old-map h.map --new-map h2.map --top 100 --json --svg diff.svg h h2 hot.profile > diff.json 2> /dev/null ||
	fail "diff failed"
strict_json diff.json
xml_ok diff.svg
$CACHEPIN whatif -m h.map -c 1K:1:32 --top 100 --json --svg whatif.svg h hot.profile "swap fn<lt fn&amp" > whatif.json 2> /dev/null ||
	fail "whatif failed"
strict_json whatif.json
xml_ok whatif.svg
$CACHEPIN simulate -c 1K:1:32 --sets 20 --json h.lackey h > simulate.json 2> /dev/null || fail "simulate failed"
strict_json simulate.json

# the names as JSON has them: a byte that is not UTF-8 as the code point
# of its number, control bytes and DEL escaped, the rest as it is (jq -a
# writes what is not ASCII as \u escapes)
testrun_compare jq -a '.caches[0].functions[].name' diff.json <<'EOF'
"fn\u007fdel"
"fn\u0001ctl"
"fn\u001b[31mred"
"fn<lt"
"fn&amp"
"fn\"dq"
"fn'sq"
"fn>gt"
"fn\u00ff\u00febad"
"fn\u00c3(bad2"
"fn]]>cdata"
"fn<!--c-->"
"fn\\bs"
"fn\u20acok"
"fn\ufffenc"
EOF
# on a terminal the names' control bytes are written as \xNN: the escape
# sequence does not reach it (script gives the command a terminal)
if command -v script > /dev/null; then
	TERM=xterm script -qec "$CACHEPIN score -m h.map -c 1K:1:32 --top 100 h hot.profile" \
		/dev/null > tty.out || fail "score on a terminal failed"
	! od -An -tx1 tty.out | grep -qw -e 1b -e 01 -e 7f || fail "a control byte of a name reached the terminal"
	grep -qF 'fn\x1b[31mred' tty.out || fail "the terminal did not get fn\\x1b[31mred"
	# a file gets the bytes as they are
	$CACHEPIN score -m h.map -c 1K:1:32 --top 100 h hot.profile > file.out 2> /dev/null
	od -An -tx1 file.out | grep -qw 1b || fail "the report in a file lost the name's bytes"
fi
exit 0
