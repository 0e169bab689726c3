#!/bin/sh
# A run's outputs are all old or all new: a signal before the commit removes the temporary files and leaves the old outputs; a signal during the renames waits until both are new; two runs that write the same pair commit one at a time, so the pair on disk is one run's.
. "$(dirname "$0")/test-subr.sh"
need_cmd gcc strace timeout

cat > p.c <<'X'
__attribute__((noinline)) int f1(int x) { return x * 3 + 1; }
__attribute__((noinline)) int f2(int x) { return x ^ 0x55; }
__attribute__((noinline)) int f3(int x) { return x - 7; }
int main(int c, char **v) { (void)v; return f1(c) + f2(c) + f3(c); }
X
gcc -O2 -ffunction-sections -fno-inline -Wl,-Map=p.map -o p p.c || fail "compiling failed"
printf 'f1 100\nf2 50\nf3 10\n' > a.hot
printf 'f3 100\nf2 60\nf1 5\n' > b.hot
old() { echo OLD > s.lds; echo OLD > s.align; }
no_tmp() { ! ls s.*.tmp* > /dev/null 2>&1 || fail "$1 left temporary files: $(ls s.*.tmp*)"; }
# the profile digest a plan's fragment and alignment file name
digest() { sed -n 's/.*; profile \([0-9a-f]*\)$/\1/p' "$1" | head -1; }

# wait_tmp PREFIX PID: until PID has made its temporary file PREFIX.tmp*
# (30 s at most, then PID is killed and the test fails)
wait_tmp() {
	n=0
	while ! ls "$1".tmp* > /dev/null 2>&1; do
		n=$((n + 1))
		[ $n -lt 300 ] || { kill "$2"; fail "plan made no temporary file $1.tmp*"; }
		sleep 0.1
	done
}

# 1. a signal before the commit: the third output is a FIFO nobody reads,
# so plan waits there with the first one's temporary file made
old
mkfifo s.ord
$CACHEPIN plan -c 1K:1:32 -m p.map -o s.lds -a s.align --lld-order s.ord p a.hot 2> /dev/null &
pid=$!
wait_tmp s.align $pid
kill -TERM $pid
rc=0
wait $pid || rc=$?
[ $rc = 143 ] || fail "plan ended with $rc after SIGTERM, not 143"
[ "$(cat s.lds s.align)" = "OLD
OLD" ] || fail "a signal before the commit changed the old outputs"
no_tmp "a signal before the commit"
rm -f s.ord

# slow_plan HOTLIST: plan in the background under strace, each rename
# delayed by a second; returns once its temporary files exist ($spid)
slow_plan() {
	# (LeakSanitizer cannot run under ptrace: a sanitized build would
	# fail at exit for that alone)
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	strace -f -o /dev/null -e trace=rename,renameat,renameat2 \
		-e inject=rename,renameat,renameat2:delay_enter=1000000 \
		$CACHEPIN plan -c 1K:1:32 -m p.map -o s.lds -a s.align p "$1" 2> /dev/null &
	spid=$!
	wait_tmp s.lds $spid
}

# 2. a signal during the renames: it waits until both are renamed
old
slow_plan a.hot
sleep 0.5
# the traced plan is strace's child
kill -TERM "$(pgrep -P $spid)"
wait $spid || :
[ "$(head -c 3 s.lds)" != OLD ] && [ "$(head -c 3 s.align)" != OLD ] ||
	fail "a signal during the renames left an old output: $(head -c 3 s.lds) $(head -c 3 s.align)"
[ "$(digest s.lds)" = "$(digest s.align)" ] || fail "a signal during the renames left a mismatched pair"
no_tmp "a signal during the renames"

# 3. two runs on one pair: a (renames delayed) commits while b runs; the
# pair on disk is one run's
old
slow_plan a.hot
timeout 60 $CACHEPIN plan -c 1K:1:32 -m p.map -o s.lds -a s.align p b.hot 2> /dev/null || fail "plan b failed"
wait $spid || fail "plan a failed"
[ -n "$(digest s.lds)" ] && [ "$(digest s.lds)" = "$(digest s.align)" ] ||
	fail "two runs left a mismatched pair: fragment $(digest s.lds), alignment file $(digest s.align)"
no_tmp "two runs"
exit 0
