#!/bin/sh
# Bad inputs: one clear line naming the file and the problem (and a hint), exit 1, no crash, no partial output.
. "$(dirname "$0")/test-subr.sh"
need_cmd perf gcc readelf dd timeout

gcc -O2 -g -fno-omit-frame-pointer -no-pie -o hotfuncs "$srcdir/src/hotfuncs.c"
# a program that shares no function with hotfuncs: no main, no C start
# files (a sample may land in hotfuncs' main or _start)
cat > other.c <<'SRC'
int unrelated_function(int x) { return x * 3; }
void other_entry(void) { for (;;) unrelated_function(1); }
SRC
gcc -O2 -nostdlib -nostartfiles -static -Wl,-e,other_entry -o other other.c ||
	fail "cannot build the unrelated program"
# user samples only: a busy machine puts a few % of the run in the
# kernel, which every message below would say first
perf record -q -e cpu-clock -F 4000 -g --all-user -o good.data -- ./hotfuncs 2000 > /dev/null 2> perf.err ||
	{ cat perf.err >&2; fail "perf record failed"; }
$CACHEPIN profile -o good.prof hotfuncs good.data || fail "good profile failed"
# an output that is not a regular file (a FIFO here; /dev/null in real
# use) is written in place, not replaced by renaming a temporary file
mkfifo out.fifo
cat out.fifo > fifo.got &
$CACHEPIN profile -o out.fifo hotfuncs good.data || fail "profile into a FIFO failed"
wait
[ -p out.fifo ] || fail "the FIFO was replaced by a regular file"
cmp -s fifo.got good.prof || fail "the profile read from the FIFO differs"

# not an ELF, no symbols
echo "hello" > notelf
expect_fail "'notelf': not an ELF file" $CACHEPIN score notelf good.prof
cp hotfuncs stripped && strip --strip-all stripped
# a stripped dynamic program still has .dynsym; a static one has nothing
gcc -O2 -static -o static "$srcdir/src/hotfuncs.c" 2>/dev/null && strip --strip-all static &&
	expect_fail "'static': no symbol table" $CACHEPIN score static good.prof &&
	grep -q '^hint: ' fail.err || fail "no hint for a binary without symbols"
expect_fail "cannot open 'missing'" $CACHEPIN score missing good.prof

# truncated and garbage perf.data
head -c 3000 good.data > trunc.data
expect_fail "'trunc.data': truncated" $CACHEPIN profile hotfuncs trunc.data
head -c 100 good.data > header.data
expect_fail "'header.data': " $CACHEPIN profile hotfuncs header.data
printf 'PERFILE2' > garbage.data
head -c 20000 /dev/urandom >> garbage.data
expect_fail "'garbage.data': " $CACHEPIN profile hotfuncs garbage.data
[ "$(wc -l < fail.err)" -le 3 ] || { cat fail.err; fail "garbage input: more than a few lines of error"; }

# a profile that matches nothing: say how many samples there were
n=$(sed -n 's/^samples \([0-9]*\) .*/\1/p' good.prof)
expect_fail "'good.data': no sample matched a function of 'other' (0 of $n samples)" \
	$CACHEPIN profile other good.data
grep -q '^hint: ' fail.err || fail "no hint when nothing matched"
expect_fail "'good.prof': none of its [0-9]* hot functions is in 'other'" $CACHEPIN score other good.prof

# malformed profiles name the line
sed '3s/.*/bogus line here/' good.prof > bad1.prof
expect_fail "'bad1.prof':3: unknown line" $CACHEPIN score hotfuncs bad1.prof
sed 's/^f alpha - [0-9]*/f alpha - xyz/' good.prof > bad2.prof
expect_fail "'bad2.prof':[0-9]*: bad number" $CACHEPIN score hotfuncs bad2.prof
printf '# cachepin-profile 1\ng 0x10 5\n' > bad3.prof
expect_fail "'bad3.prof':2: bad 'g' line" $CACHEPIN score hotfuncs bad3.prof

# a text input that is none of the formats
printf '\001\002\003 not a profile\n' > junk.txt
expect_fail "'junk.txt'" $CACHEPIN profile hotfuncs junk.txt

# no partial output: a failing run leaves an existing file untouched and creates none
echo keep > out.prof
$CACHEPIN profile -o out.prof hotfuncs trunc.data 2>/dev/null && fail "truncated input succeeded"
[ "$(cat out.prof)" = keep ] || fail "failed run changed the output file"
$CACHEPIN profile -o new.prof hotfuncs trunc.data 2>/dev/null || true
[ ! -e new.prof ] || fail "failed run left a partial output file"
$CACHEPIN score -o new.txt other good.prof 2>/dev/null || true
[ ! -e new.txt ] || fail "failed score left a partial report"
ls | grep -q 'tmp' && fail "temporary files left behind: $(ls | grep tmp)"

# a pipe-mode perf.data whose first record is an MMAP, before any
# HEADER_ATTR: the pipe header (PERFILE2, size 16), then PERF_RECORD_MMAP
# (type 1, misc 2, size 64: pid 1, tid 1, 0x400000 + 0x1000 at offset 0,
# "/usr/bin/natsim"); nothing to sample, and no attribute looked up
printf 'PERFILE2\020\000\000\000\000\000\000\000\001\000\000\000\002\000\100\000\001\000\000\000\001\000\000\000\000\000\100\000\000\000\000\000\000\020\000\000\000\000\000\000\000\000\000\000\000\000\000\000/usr/bin/natsim\000\000\000\000\000\000\000\000\000' > mmap-first.data
[ "$(wc -c < mmap-first.data)" = 80 ] || fail "mmap-first.data is not 80 bytes"
expect_fail "'mmap-first.data': no sample matched a function of 'hotfuncs' (0 of 0 samples)" \
	$CACHEPIN profile hotfuncs mmap-first.data

# a DW_AT_sibling that points at its own DIE (the first one of
# .debug_info, made to): score -l stops the walk there with a warning
# instead of following the cycle for ever, and scores as without -l
cp hotfuncs loopy
set -- $(readelf --debug-dump=info loopy | awk '
	/^ *<[0-9a-f]+><[0-9a-f]+>: Abbrev Number: [1-9]/ { die = $1; sub(/^<[0-9a-f]+></, "", die); sub(/>:$/, "", die) }
	/DW_AT_sibling/ { at = $1; gsub(/[<>]/, "", at); print at, die; exit }')
[ $# = 2 ] || fail "hotfuncs has no DW_AT_sibling to corrupt"
off=$(readelf -SW loopy | awk '$2 == ".debug_info" { print $5; exit } $3 == ".debug_info" { print $6; exit }')
d=$((0x$2))
printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $((d & 255)) $((d >> 8 & 255)) $((d >> 16 & 255)) $((d >> 24 & 255)))" |
	dd of=loopy bs=1 seek=$((0x$off + 0x$1)) conv=notrunc status=none
readelf --debug-dump=info loopy 2>/dev/null | grep -q "DW_AT_sibling *: <0x$2>" || fail "the sibling loop was not made"
timeout 120 $CACHEPIN score -l -c 4K:4:32 loopy good.prof > loopy.score 2> loopy.err ||
	{ cat loopy.err >&2; fail "score -l of a binary with a sibling loop failed or hung"; }
grep -q "^cachepin: 'loopy': bad DWARF: a DIE's child or sibling is not after it (.debug_info corrupt); inlined functions after it are not named$" loopy.err ||
	{ cat loopy.err >&2; fail "the sibling loop is not reported"; }
$CACHEPIN score -c 4K:4:32 loopy good.prof 2>/dev/null | grep "misses LRU" > plain.lru
grep "misses LRU" loopy.score | cmp -s - plain.lru || fail "score -l of the looping DWARF scored otherwise"

# a .debug_rnglists whose first unit length runs far past the section
# (0x9a0003c5): Debian 12's libdwarf frees twice loading it and the run
# aborted; now the section is checked first, and only the source lines
# are lost
cp hotfuncs badranges
off=$(readelf -SW badranges | awk '$2 == ".debug_rnglists" { print $5; exit } $3 == ".debug_rnglists" { print $6; exit }')
[ -n "$off" ] || fail "hotfuncs has no .debug_rnglists (gcc 12 writes DWARF 5)"
printf '\305\003\000\232' | dd of=badranges bs=1 seek=$((0x$off)) conv=notrunc status=none
$CACHEPIN score -l -c 4K:4:32 badranges good.prof > badranges.score 2> badranges.err ||
	{ cat badranges.err >&2; fail "score -l of a corrupt .debug_rnglists failed"; }
# (the share of the recording's samples in the kernel and the loader varies)
testrun_compare grep -v "of the samples are outside 'badranges'" badranges.err <<'EOF'
cachepin: 'badranges': bad DWARF: .debug_rnglists has a unit longer than the section at 0x0; no source lines
EOF
grep "misses LRU" badranges.score | cmp -s - plain.lru || fail "score -l of the corrupt ranges scored otherwise"

# a text input from a pipe or a FIFO is read whole: the bytes read to
# tell its format are not lost (a 31-row hot list gave 19 samples)
awk 'BEGIN { for (i = 0; i < 31; i++) printf "%s %d\n", i % 2 ? "alpha" : "beta", 100 + i }' > hot31.txt
awk 'BEGIN { for (i = 0; i < 20; i++) printf "main;dispatch_a;%s %d\n", i % 2 ? "alpha" : "gamma_", 10 + i }' > folded20.txt
for t in hot31.txt folded20.txt; do
	$CACHEPIN profile hotfuncs $t > file.prof 2>/dev/null || fail "profile of $t failed"
	cat $t | $CACHEPIN profile hotfuncs /dev/stdin > pipe.prof 2>/dev/null || fail "profile of $t from a pipe failed"
	cmp -s file.prof pipe.prof || { diff file.prof pipe.prof >&2; fail "$t from a pipe gives another profile"; }
	rm -f in.fifo; mkfifo in.fifo
	cat $t > in.fifo &
	$CACHEPIN profile hotfuncs in.fifo > fifo.prof 2>/dev/null || fail "profile of $t from a FIFO failed"
	wait
	cmp -s file.prof fifo.prof || fail "$t from a FIFO gives another profile"
done
grep -q "^samples 31 31$" file.prof || grep -q "^samples 20 20$" file.prof || fail "not every row became a sample"
# a profile or a perf.data cannot be read back from a pipe: said, not misread
rm -f in.fifo; mkfifo in.fifo
cat good.prof > in.fifo &
expect_fail "^cachepin: 'in.fifo' is not a regular file: a cachepin profile is read from a file$" \
	$CACHEPIN score hotfuncs in.fifo
wait

# profiles that contradict themselves are refused at their line: weights
# that add up to infinity (0 misses everywhere and '-nan %' before), more
# matched samples than samples, a second 'f' line for one function
hdr='# cachepin-profile 1\nevent cpu-clock\nbinary hotfuncs\ngranule 16\n'
printf "${hdr}samples 40 37\nf alpha - 1e308 1 1e308 64\ng 0x0 1e308\nf beta - 1e308 1 1e308 64\ng 0x0 1e308\n" > inf.prof
expect_fail "^cachepin: 'inf.prof':8: the weights add up to more than a number holds (scale them down)$" \
	$CACHEPIN score hotfuncs inf.prof
printf "${hdr}samples 1 99999\nf alpha - 10 1 10 64\n" > counts.prof
expect_fail "^cachepin: 'counts.prof':5: 'samples' has more matched samples than samples$" $CACHEPIN score hotfuncs counts.prof
printf "${hdr}samples 2 2\nf alpha - 10 1 10 64\nf beta - 5 1 5 64\nf alpha - 10 1 10 64\n" > dupf.prof
expect_fail "^cachepin: 'dupf.prof':8: a second 'f' line for this function$" $CACHEPIN score hotfuncs dupf.prof

# a bad second row of a hot list is named by its line, as a bad row
# further down is; a directory given as the map is said to be one
printf 'alpha 10\nbeta -5\n' > badrow.txt
expect_fail "^cachepin: 'badrow.txt':2: expected 'NAME \[WEIGHT\]'" $CACHEPIN profile hotfuncs badrow.txt
mkdir -p adir
expect_fail "^cachepin: 'adir': cannot read: Is a directory$" $CACHEPIN score -m adir hotfuncs good.prof

# numbers out of bounds: a clear line and exit 129, never a wrap or an
# allocation of what the number says
printf '# cachepin-profile 1\nevent cpu-clock\nbinary hotfuncs\ngranule 16\nsamples 40 37\nperiod 10000000 9250000\nf main - 1000000000000000 1 1000000000000000 64\ng 0x0 999999999999999\ng 0x10 1\n' > huge.prof
for o in "--refs 4611686018427387904:bad --refs '4611686018427387904': give 1 to 134217728" \
	"--refs 18446744073709551615:bad --refs '18446744073709551615': give 1 to 134217728" \
	"--growth 18446744073709551615:bad --growth '18446744073709551615': at most 65536 bytes" \
	"--growth 268435456:bad --growth '268435456': at most 65536 bytes" \
	"--growth 65536:bad --growth '65536': more than the largest way span, 8192 bytes" \
	"--iterations 4294967296000:bad --iterations '4294967296000': give 1 to 100000000" \
	"-c 1024M:1:4:invalid cache geometry '1024M:1:4': SIZE '1024M' is more than 64M" \
	"-c 18014398509482016K:4:32:invalid cache geometry '18014398509482016K:4:32': SIZE '18014398509482016K' is more than 64M" \
	"-c 16M:1:4:invalid cache geometry '16M:1:4': at most 65536 sets" \
	"-c 0:0:0:invalid cache geometry '0:0:0': SIZE is 0" \
	"-c 64:64:1:invalid cache geometry '64:64:1': LINE must be a power of two of at least 4 bytes" \
	"-c ,:empty cache list ','"; do
	opt=${o%%:*} msg=${o#*:}
	# the option's own value may hold colons: the message starts after "OPT VALUE:"
	case $opt in -c*) v=${o#-c } v=${v%%:invalid*} v=${v%%:empty*}; opt="-c $v" msg=${o#"-c $v:"} ;; esac
	rc=0
	# shellcheck disable=SC2086
	$CACHEPIN plan $opt -o huge.lds hotfuncs huge.prof > bound.out 2> bound.err || rc=$?
	[ $rc = 129 ] || [ $rc = 1 ] || { cat bound.err >&2; fail "plan $opt exited $rc"; }
	[ $rc != 0 ] || fail "plan $opt succeeded"
	grep -qF "cachepin: $msg" bound.err || { cat bound.err >&2; fail "plan $opt: not '$msg'"; }
	[ ! -e huge.lds ] || fail "plan $opt wrote its output"
done
# a weight far above what the string can hold is counted, not wrapped
$CACHEPIN score --refs 1048576 -c 4K:4:32 hotfuncs huge.prof > huge.score 2>&1 || { cat huge.score >&2; fail "score of a profile with huge weights failed"; }
grep -q "misses LRU" huge.score || fail "score of huge weights printed no misses"

# every reader of a line format stops at binary data and at a line of
# more than 1 MiB, and says where: /dev/zero is one endless line of NULs
head -c 1100000 /dev/zero | tr '\0' a > long.txt
printf '# cachepin-profile 3\n' | cat - long.txt > long.prof
printf 'main 10\n' | cat - long.txt > long.hot
printf 'swap hot_a hot_b\0 # after a NUL\nswap hot_b hot_c\n' > nul.edits
for input in check:/dev/zero check:long.txt score:long.prof score:long.hot map:/dev/zero map:long.txt \
	whatif:/dev/zero whatif:long.txt whatif:nul.edits; do
	f=${input#*:}
	case $input in
	check:*) set -- check hotfuncs "$f" ;;
	score:*) set -- score -c 4K:4:32 hotfuncs "$f" ;;
	map:*) set -- diff -c 4K:4:32 hotfuncs "$f" good.prof ;;
	whatif:*) set -- whatif -c 4K:4:32 -f "$f" hotfuncs good.prof ;;
	esac
	rc=0
	timeout 60 $CACHEPIN "$@" > reader.out 2> reader.err || rc=$?
	[ $rc = 1 ] || { cat reader.err >&2; fail "'cachepin $*' exited $rc, not 1"; }
	case $f in
	/dev/zero) msg="cachepin: '/dev/zero':1: a line longer than 1048576 bytes: not a text file of ours" ;;
	nul.edits) msg="cachepin: 'nul.edits':1: binary data (a NUL byte): not a text file" ;;
	long.prof) msg="cachepin: 'long.prof':2: a line longer than 1048576 bytes: not a text file of ours" ;;
	long.txt) msg="cachepin: 'long.txt':1: a line longer than 1048576 bytes: not a text file of ours" ;;
	long.hot) msg="cachepin: 'long.hot':2: a line longer than 1 MiB: not a text profile" ;;
	esac
	testrun_compare grep -v '^hint:' reader.err <<EOF
$msg
EOF
	[ ! -s reader.out ] || fail "'cachepin $*' printed a report"
done
# endless noise as a System.map: the first NUL ends it
rc=0
head -c 10000000 /dev/urandom > noise
timeout 60 $CACHEPIN diff -c 4K:4:32 hotfuncs noise good.prof > /dev/null 2> reader.err || rc=$?
[ $rc = 1 ] && grep -q "^cachepin: 'noise':[0-9]*: binary data (a NUL byte): not a text file$" reader.err ||
	{ cat reader.err >&2; fail "a System.map of noise: exit $rc"; }

# a full disk is said as such, for the report and for the picture
for o in "-o /dev/full" "--svg /dev/full"; do
	rc=0
	# shellcheck disable=SC2086
	$CACHEPIN score -c 4K:4:32 $o hotfuncs good.prof > /dev/null 2> full.err || rc=$?
	[ $rc = 1 ] || fail "score $o exited $rc"
	testrun_compare cat full.err <<'EOF'
cachepin: cannot write '/dev/full': No space left on device
EOF
done

# nothing movable (no function sections, no map): said once, exit 1
rc=0
$CACHEPIN plan -c 4K:4:32 -o nomove.lds hotfuncs good.prof > /dev/null 2> nomove.err || rc=$?
[ $rc = 1 ] || { cat nomove.err >&2; fail "plan of nothing movable exited $rc"; }
testrun_compare grep -v '^cachepin: .*samples\|^hint: .*samples' nomove.err <<'EOF'
cachepin: no hot code is movable: nothing to plan
hint: build with -ffunction-sections and pass the link map (--map)
EOF
[ ! -e nomove.lds ] || fail "plan of nothing movable wrote a fragment"

# usage errors exit 129, failures 1
rc=0; $CACHEPIN profile hotfuncs 2>/dev/null || rc=$?
[ $rc = 129 ] || fail "missing argument must exit 129 (got $rc)"
rc=0; $CACHEPIN score -c 1K:1:32,2K:1:32,4K:1:32,8K:1:32,16K:1:32,32K:1:32,64K:1:32,128K:1:32,256K:1:32 \
	hotfuncs good.prof > /dev/null 2> caches.err || rc=$?
[ $rc = 129 ] || fail "nine caches must exit 129 (got $rc)"
testrun_compare cat caches.err <<'EOF'
cachepin: too many caches (at most 8)
EOF
rc=0; $CACHEPIN score notelf good.prof 2>/dev/null || rc=$?
[ $rc = 1 ] || fail "bad input must exit 1 (got $rc)"
# an unknown replacement policy is a usage error, never a default: one
# line naming it, then the policies the table has
for p in bogus fa-random optimal LRU; do
	rc=0; $CACHEPIN simulate -c 4K:4:32 -p lru,$p trace.log > policy.out 2> policy.err || rc=$?
	[ $rc = 129 ] || fail "simulate -p lru,$p must exit 129 (got $rc)"
	testrun_compare cat policy.err <<EOF
cachepin: simulate: unknown policy '$p'
hint: use lru, random, rr (round-robin) or fa-lru, comma-separated
EOF
	[ ! -s policy.out ] || fail "simulate -p lru,$p printed a report"
done
for p in bogus optimal fa-lru; do
	rc=0; $CACHEPIN score -c 4K:4:32:$p hotfuncs good.prof > policy.out 2> policy.err || rc=$?
	[ $rc = 129 ] || fail "score -c 4K:4:32:$p must exit 129 (got $rc)"
	testrun_compare cat policy.err <<EOF
cachepin: invalid cache geometry '4K:4:32:$p': unknown policy '$p'
hint: lru, random or rr (round-robin)
EOF
	[ ! -s policy.out ] || fail "score -c 4K:4:32:$p printed a report"
done
# an unknown plan method: the hint lists every method of the library's table
rc=0; $CACHEPIN plan --method search,bogus hotfuncs good.prof > method.out 2> method.err || rc=$?
[ $rc = 129 ] || fail "plan --method search,bogus must exit 129 (got $rc)"
testrun_compare cat method.err <<EOF
cachepin: --method: unknown method 'bogus'
hint: methods: search, heat, greedy, colour, density, c3, keep, reference, or all
EOF
[ ! -s method.out ] || fail "plan --method search,bogus printed a plan"
# a usage error after options that allocate (--objects, --fixed) frees
# them: under the sanitizers a leak would change the status
for c in "profile --objects hotfuncs.o hotfuncs" "check --fixed main hotfuncs" "score --fixed main hotfuncs" \
	"score --fixed main -c 9K:3:7 hotfuncs good.prof" "plan --fixed main hotfuncs" "diff --fixed main a b" \
	"diff --fixed main -c 9K:3:7 a b c" "simulate --fixed main" "whatif --fixed main hotfuncs"; do
	rc=0; $CACHEPIN $c > /dev/null 2>&1 || rc=$?
	[ $rc = 129 ] || fail "'cachepin $c' must exit 129 (got $rc)"
done
exit 0
