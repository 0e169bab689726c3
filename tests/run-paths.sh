#!/bin/sh
# Paths and names that need quoting: an object path with a space through profile, plan, the GNU ld fragment, the link, check and --keep; a symbol name with a space, a quote, a backslash and a tab through the profile and the alignment file; a path ld cannot take is refused.
. "$(dirname "$0")/test-subr.sh"
need_cmd gcc

mkdir "my dir"
cat > "my dir/a.c" <<'X'
static __attribute__((noinline)) int work(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * x ^ (s >> 3); return s; }
int a_entry(int x) { return work(x); }
X
cat > "my dir/b.c" <<'X'
static __attribute__((noinline)) int work(int x) { int s = 1; for (int i = 0; i < x; i++) s += i * 7 ^ (s << 1); return s; }
int b_entry(int x) { return work(x); }
X
# a function whose symbol holds a quote and a backslash
printf '%s\n' '	.section .text.odd,"ax",@progbits' '	.type "odd\"na\\me",@function' \
	'"odd\"na\\me":' '	ret' '	.size "odd\"na\\me",.-"odd\"na\\me"' '	.section .note.GNU-stack,"",@progbits' > "my dir/odd.s"
cat > "my dir/main.c" <<'X'
int a_entry(int); int b_entry(int);
int main(void) { int s = 0; for (int i = 0; i < 2000; i++) s += a_entry(i & 255) + b_entry(i & 127); return s & 1; }
X
CF="-O2 -fno-omit-frame-pointer -no-pie -ffunction-sections"
(cd "my dir" && gcc $CF -c a.c b.c main.c odd.s) || fail "compiling failed"
objs="main.o a.o b.o odd.o"
link() {
	_out=$1
	shift
	set -- "$@" -o "my dir/$_out"
	for o in $objs; do set -- "$@" "my dir/$o"; done
	gcc $CF "$@"
}
link prog -Wl,-Map="my dir/prog.map" || fail "linking failed"
printf 'work 100\na_entry 10\nb_entry 10\nmain 5\nodd"na\\me 40\n' > hot.txt

# the profile says which object each 'work' is in, quoted, and reads back
$CACHEPIN profile -m "my dir/prog.map" -o sp.profile "my dir/prog" hot.txt 2> profile.err ||
	{ cat profile.err >&2; fail "profile failed"; }
# (the last field is the function's size, the compiler's)
grep -E '^f (work|"odd)' sp.profile | sed 's/ [0-9]*$//' > f.lines
testrun_compare cat f.lines <<'EOF'
f work "my dir/a.o" 100 1 100
f "odd\"na\\me" - 40 1 40
EOF
$CACHEPIN profile -m "my dir/prog.map" -o again.profile "my dir/prog" sp.profile 2> /dev/null ||
	fail "the profile does not read back"
cmp -s sp.profile again.profile || { diff sp.profile again.profile >&2; fail "the profile read back differs"; }

# the fragment quotes the file pattern; ld takes it, and the plan holds
$CACHEPIN plan --standalone -m "my dir/prog.map" -c 1K:1:32 -o "$PWD/my dir/hot.lds" "my dir/prog" hot.txt 2> plan.err ||
	{ cat plan.err >&2; fail "plan failed"; }
testrun_compare grep 'my dir' "my dir/hot.lds" <<'EOF'
		"*my dir/b.o"(.text.work)	/* fill */
		"*my dir/a.o"(.text.work)
EOF
# (without offset, alignment and sets)
grep '^hot ' "my dir/hot.align" | sed -E 's/( [^ ]+){5}$//' > hot.units
testrun_compare cat hot.units <<'EOF'
hot "odd\"na\\me" "my dir/odd.o" .text.odd
hot a_entry "my dir/a.o" .text.a_entry
hot work "my dir/a.o" .text.work
hot main "my dir/main.o" .text.startup.main
hot b_entry "my dir/b.o" .text.b_entry
EOF
link planned -Wl,-T,"$PWD/my dir/hot.lds" || fail "ld rejects the fragment"
testrun_compare $CACHEPIN check "my dir/planned" "my dir/hot.align" <<'EOF'
block start 0x401400, aligned to 1024
note: 'work' names 2 symbols; one is at its planned offset
note: 'work' names 2 symbols; one is at its planned offset
ok: 6 of 6 units at their planned offsets; 0 fill units moved (cold code, -v lists them)
EOF
$CACHEPIN plan -m "my dir/prog.map" --keep "my dir/hot.align" -c 1K:1:32 -o keep.lds "my dir/prog" hot.txt 2> keep.err ||
	{ cat keep.err >&2; fail "plan --keep failed"; }
grep -q "^cachepin: kept 5 hot units of 'my dir/hot.align' at their offsets" keep.err ||
	{ cat keep.err >&2; fail "--keep did not keep the 5 hot units"; }

# --keep of another program's plan: said (main is the one name both have)
printf 'int f1(int x) { return x * 3; }\nint main(int c, char **v) { (void)v; return f1(c); }\n' > other.c
gcc $CF -Wl,-Map=other.map -o other other.c || fail "compiling other failed"
printf 'f1 10\nmain 5\n' > other.hot
$CACHEPIN plan -m other.map --keep "my dir/hot.align" -c 1K:1:32 -o other.lds other other.hot 2> other.err || :
testrun_compare grep -A1 'another program' other.err <<'EOF'
cachepin: warning: 'my dir/hot.align': 4 of its 5 hot functions are not in 'other': a plan of another program?
hint: --keep takes the plan of an earlier build of this binary
EOF

# a '"' in an object's path has no spelling in a linker script: refused,
# nothing written
mkdir 'q"dir'
cp "my dir/a.o" 'q"dir/a.o'
set -- 'q"dir/a.o'
for o in main.o b.o odd.o; do set -- "$@" "my dir/$o"; done
gcc $CF -Wl,-Map=q.map -o q "$@" || fail "linking with a quote in a path failed"
expect_fail "cachepin: 'q\"dir/a.o': a '\"' in an object's path cannot be written in a linker script" \
	$CACHEPIN plan -m q.map -c 1K:1:32 -o q.lds q hot.txt
[ ! -e q.lds ] && [ ! -e q.align ] || fail "plan wrote its outputs for a path ld cannot take"
exit 0
