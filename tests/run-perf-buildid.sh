#!/bin/sh
# run-perf-buildid.sh: samples match the binary by build-id, not only by file name: a copy of the profiled program under another name profiles as the original (BUILD_ID feature, MMAP2 build-ids in file and pipe mode); when no sample matches, the error names the mappings the samples hit, most first, with their build-ids.
. "$(dirname "$0")/test-subr.sh"
. "$srcdir/perf-data-subr.sh"
need_cmd readelf

build_perfwork
bid=$(readelf -n perfwork | sed -n 's/^ *Build ID: //p')
[ -n "$bid" ] || skip "gcc links no build-id"
cp perfwork pwcopy

# the copy profiles and scores as the original, but for its name
same_as_original() {
	$CACHEPIN profile -o orig.prof perfwork "$1" 2> orig.err || { cat orig.err >&2; fail "profile perfwork $1 failed"; }
	$CACHEPIN profile -o copy.prof pwcopy "$1" 2> copy.err || { cat copy.err >&2; fail "profile pwcopy $1 failed"; }
	# nothing said of the copy but what is said of the original (on a
	# busy machine, the kernel's share of the samples, past 1 %)
	grep -v "of the samples are outside 'perfwork'" orig.err > orig.rest.err || :
	testrun_compare cat orig.rest.err < /dev/null
	sed 's/perfwork/pwcopy/g' orig.err > orig.copy.err
	cmp -s orig.copy.err copy.err || { diff orig.copy.err copy.err >&2; fail "the copy of $1 is said more of than the original"; }
	testrun_compare sed -n '/^binary /p' copy.prof <<'EOF'
binary pwcopy
EOF
	sed '/^binary /d' orig.prof > orig.rest
	sed '/^binary /d' copy.prof > copy.rest
	cmp -s orig.rest copy.rest || { diff orig.rest copy.rest | head >&2; fail "the copy's profile of $1 differs"; }
	$CACHEPIN score -c 32K:4:32 perfwork "$1" | sed 1d > orig.score
	$CACHEPIN score -c 32K:4:32 pwcopy "$1" | sed 1d > copy.score
	cmp -s orig.score copy.score || { diff orig.score copy.score | head >&2; fail "the copy scores $1 differently"; }
}

# file mode: the BUILD_ID feature of the DSOs that got samples
perf_record w.data ./perfwork 50
same_as_original w.data
# MMAP2 records with build-ids, in file and pipe mode (perf 6.1 writes
# no build-ids into a pipe otherwise)
perf record -q --buildid-mmap -e cpu-clock -F 4000 -g -o m.data -- ./perfwork 50 > /dev/null 2> perf.err ||
	{ cat perf.err >&2; fail "perf record --buildid-mmap failed"; }
same_as_original m.data
perf record -q --buildid-mmap -e cpu-clock -F 4000 -g -o - -- ./perfwork 50 > pipe.data 2> perf.err ||
	{ cat perf.err >&2; fail "perf record --buildid-mmap -o - failed"; }
same_as_original pipe.data

# another program's samples: the error says where they are
cat > other.c <<'EOF'
static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long churn(unsigned long n)
{
	unsigned long x = 1;

	while (n--)
		x = x * 2862933555777941757UL + 3037000493UL;
	return x;
}

int main(void)
{
	sink = churn(150000000);
	return 0;
}
EOF
gcc -O2 -fno-omit-frame-pointer -o otherwork other.c || fail "cannot build otherwork"
obid=$(readelf -n otherwork | sed -n 's/^ *Build ID: //p')
perf_record o.data ./otherwork
# the samples per mapping of their innermost frame (the reader's own
# view), most first, and the build-ids perf recorded for them
"$TOOLS/perf-dump" -f o.data | awk '/^[0-9]/ { leaf = 1; next }
	leaf { print ($3 == "-" ? "[unknown]" : $3); leaf = 0 }' | LC_ALL=C sort | uniq -c |
	awk '{ print $1, $2 }' | LC_ALL=C sort -k1,1nr -k2,2 > where
"$TOOLS/perf-dump" -q -m o.data | awk '$2 == "buildid" { print $4, $3 }' > bids
grep -q "^$PWD/otherwork $obid\$" bids || fail "perf recorded no build-id $obid of otherwork"
n=$(awk '{ s += $1 } END { print s }' where)
{
	echo "cachepin: 'o.data': no sample matched a function of 'perfwork' (0 of $n samples)"
	echo "hint: 'perfwork' has build-id $bid; the samples are in, most first:"
	head -3 where | while read -r c d; do
		b=$(awk -v d="$d" '$1 == d { print $2; exit }' bids)
		[ "$c" = 1 ] && s=sample || s=samples
		if [ -n "$b" ]; then
			echo "hint:   '$d': $c $s, build-id $b"
		else
			echo "hint:   '$d': $c $s, no build-id recorded"
		fi
	done
	if [ "$(wc -l < where)" -gt 3 ]; then
		m=$(($(wc -l < where) - 3))
		r=$(sed 1,3d where | awk '{ s += $1 } END { print s }')
		[ $m = 1 ] && ms=mapping || ms=mappings
		[ $r = 1 ] && rs=sample || rs=samples
		echo "hint:   $m more $ms: $r $rs"
	fi
	echo "hint: is 'perfwork' the binary that was profiled? for a kernel pass the vmlinux and use --kernel; for a program, --user"
} > expect.err
head -1 where | grep -q "^[0-9]* $PWD/otherwork\$" || fail "otherwork did not get most samples of o.data"
rc=0
$CACHEPIN profile -o o.prof perfwork o.data 2> o.err || rc=$?
[ $rc = 1 ] || fail "profile of another program's samples exited with $rc, not 1"
[ ! -e o.prof ] || fail "a failed profile left o.prof"
testrun_compare cat o.err < expect.err
exit 0
