#!/bin/sh
# A kernel module (.ko) is laid out as Linux 6.1 loads it: its executable sections in section-header order from 0, init code apart; a plain object as ld would.
. "$(dirname "$0")/test-subr.sh"
need_cmd arm-linux-gnueabihf-gcc arm-linux-gnueabihf-readelf
D=$TOOLS/bin-dump
[ -x "$D" ] || fail "no '$D': run 'make test-progs'"

# A module's shape, as kbuild leaves it for the loader: functions in
# sections of their own, init code between two of them, exit code, an
# aligned function, and modpost's __this_module section.
cat > m.c <<'X'
struct module { char name[56]; };
__attribute__((section(".gnu.linkonce.this_module"))) struct module __this_module = { "m" };
__attribute__((noinline)) int m_rx(int x) { return x * 3 + 1; }
__attribute__((noinline, section(".init.text"))) int m_init(void) { return m_rx(1) + 4; }
__attribute__((noinline)) int m_poll(int x) { return x - 7; }
__attribute__((noinline, section(".exit.text"))) void m_exit(void) { m_poll(2); }
__attribute__((noinline, aligned(64))) int m_tx(int x) { return (x ^ 0x5a) + m_rx(x); }
X
arm-linux-gnueabihf-gcc -O2 -marm -ffunction-sections -fno-pic -c -o m.ko m.c || fail "compiling the module failed"

# The loader's offsets, computed from readelf: every SHF_ALLOC +
# SHF_EXECINSTR section but ".init*", in header order, each at the next
# multiple of its alignment
arm-linux-gnueabihf-readelf -SW m.ko | awk '
	function hex(s,   i, v) {
		s = tolower(s); v = 0
		for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	{ sub(/^ *\[ *[0-9]+\] */, "") }
	NF >= 8 && $7 ~ /A/ && $7 ~ /X/ && $1 !~ /^\.init/ {
		a = $NF + 0; if (a < 1) a = 1
		off = int((size + a - 1) / a) * a
		printf "%x %s\n", off, $1
		size = off + hex($5)
	}' > loader.txt
[ "$(wc -l < loader.txt)" -ge 4 ] || fail "readelf gave too few text sections: $(cat loader.txt)"
$D secs m.ko | awk '$4 == 1 && $5 !~ /^\.init/ { print $1, $5 }' > ours.txt
diff -u loader.txt ours.txt || fail "the module's text is not where the loader puts it"
testrun_compare cat ours.txt <<'EOF'
0 .text
0 .text.m_rx
c .text.m_poll
14 .exit.text
40 .text.m_tx
EOF
# init code in an allocation of its own: a page past the text at least
last=$($D secs m.ko | awk '$4 == 1 && $5 !~ /^\.init/ { l = $1 " " $2 } END { print l }')
end=$((0x${last% *} + 0x${last#* }))
init=$($D secs m.ko | awk '$5 == ".init.text" { print $1 }')
[ -n "$init" ] && [ $((0x$init)) -ge $((end + 4096)) ] && [ $((0x$init % 4096)) = 0 ] ||
	fail "init code at 0x$init, not a page past the text's end ($end)"
# the functions at their sections' offsets
testrun_compare sh -c "$D funcs m.ko | awk '{ print \$1, \$3 }' | grep ' m_'" <<'EOF'
0 m_rx
c m_poll
14 m_exit
40 m_tx
2000 m_init
EOF

# Without __this_module the same object is laid out as ld would: init
# code in line with the rest
cat > plain.c <<'X'
__attribute__((noinline)) int m_rx(int x) { return x * 3 + 1; }
__attribute__((noinline, section(".init.text"))) int m_init(void) { return m_rx(1) + 4; }
__attribute__((noinline)) int m_poll(int x) { return x - 7; }
X
arm-linux-gnueabihf-gcc -O2 -marm -ffunction-sections -fno-pic -c -o plain.o plain.c || fail "compiling the object failed"
testrun_compare sh -c "$D secs plain.o | awk '\$4 == 1 { print \$5 }'" <<'EOF'
.text
.text.m_rx
.init.text
.text.m_poll
EOF
rx=$($D secs plain.o | awk '$5 == ".text.m_rx" { print $1, $2 }')
[ "$($D secs plain.o | awk '$5 == ".init.text" { print $1 }')" = "$(printf %x $((0x${rx% *} + 0x${rx#* })))" ] ||
	fail "a plain object's init code is not right after the code before it"
exit 0
