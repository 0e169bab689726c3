#!/bin/sh
# run-perf-data.sh: the perf.data reader sees every sample, period and callchain as perf script does (file, pipe, stdin, multi-event).
# run alone: perf record -a takes in the processes of tests running beside it
. "$(dirname "$0")/test-subr.sh"
. "$srcdir/perf-data-subr.sh"

build_perfwork

# file mode
perf_record file.data ./perfwork
check_same file.data
n=$(wc -l < perf.ip)
[ "$(meta_field file.data samples)" = "$n" ] || fail "meta nr_samples is not $n"
sum=$(awk '{ s += $1 } END { print s }' perf.ip)
[ "$(meta_field file.data period)" = "$sum" ] || fail "meta period_sum is not $sum"
[ "$(meta_field file.data event)" = cpu-clock ] || fail "meta event is not cpu-clock"
[ "$(meta_field file.data pipe)" = 0 ] || fail "file.data read as pipe mode"
[ "$(meta_field file.data endian)" = little ] || fail "file.data not little-endian"
[ "$(meta_field file.data arch)" = "$(uname -m)" ] || fail "meta arch is not $(uname -m)"
[ "$(meta_field file.data osrelease)" = "$(uname -r)" ] || fail "meta osrelease is not $(uname -r)"
host=$(perf report -i file.data --header-only 2>/dev/null | sed -n 's/^# hostname : //p')
[ "$(meta_field file.data hostname)" = "$host" ] || fail "meta hostname is not '$host'"
"$TOOLS/perf-dump" -q -m file.data | grep -q "^# buildid [0-9a-f]\{40\} $PWD/perfwork\$" ||
	fail "no build-id of perfwork in the meta data"
"$TOOLS/perf-dump" -q -m file.data | grep -q '^# kernel _s\{0,1\}text 0x[0-9a-f]* 1$' ||
	fail "no kernel map reference in the meta data"

# User frames of perfwork carry its path and the file offset that perf
# prints.
"$TOOLS/perf-dump" -f file.data > frames.out
grep -q "^  401[0-9a-f]* u $PWD/perfwork 0x1[0-9a-f]*\$" frames.out ||
	fail "no user frame with dso perfwork and a file offset"

# pipe mode, from a file and from standard input
perf record -q -e cpu-clock -F 4000 -g -o - -- ./perfwork > pipe.data 2> perf.err ||
	{ cat perf.err >&2; fail "perf record -o - failed"; }
check_same pipe.data
check_same pipe.data -
[ "$(meta_field pipe.data pipe)" = 1 ] || fail "pipe.data not read as pipe mode"
[ "$(meta_field pipe.data event)" = cpu-clock ] || fail "pipe mode event is not cpu-clock"
[ "$(meta_field pipe.data samples)" = "$(wc -l < perf.ip)" ] || fail "pipe mode sample count"

# two events: each sample's own period
perf record -q -e cpu-clock,task-clock -F 4000 -g -o multi.data -- ./perfwork > /dev/null 2> perf.err ||
	{ cat perf.err >&2; fail "perf record with two events failed"; }
check_same multi.data
[ "$(meta_field multi.data samples)" = "$(wc -l < perf.ip)" ] || fail "two-event sample count"
# JIT code: frames in anonymous executable memory have no file behind
# them; perf prints their runtime address, and so does the reader (no
# file offset, dso //anon)
if [ "$(uname -m)" = x86_64 ]; then
	gcc -O2 -fno-omit-frame-pointer -o jitwork "$srcdir/src/jitwork.c" || fail "cannot build jitwork"
	perf record -q -e cpu-clock -F 4000 -g -o jit.data -- ./jitwork > /dev/null 2> perf.err ||
		{ cat perf.err >&2; fail "perf record of jitwork failed"; }
	check_same jit.data
	"$TOOLS/perf-dump" -f jit.data > jit.frames
	n=$(grep -c '^  [0-9a-f]* u //anon$' jit.frames || :)
	[ "$n" -gt 100 ] || { head jit.frames >&2; fail "$n frames in jitwork's anonymous code, not > 100"; }
fi

# system-wide: a dummy:HG event carries the side-band records, per-CPU
# ids pick the attr, synthesized maps and forks of every process
perf record -q -a -e cpu-clock -F 1000 -g -o sys.data -- ./perfwork 30 > /dev/null 2> perf.err ||
	{ cat perf.err >&2; fail "perf record -a failed"; }
perf report -i sys.data --header-only 2>/dev/null | grep -q '^# event : name = dummy' ||
	fail "sys.data has no dummy event"
check_same sys.data
[ "$(meta_field sys.data event)" = cpu-clock ] || fail "system-wide event is not cpu-clock"
exit 0
