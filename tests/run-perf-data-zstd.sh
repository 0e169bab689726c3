#!/bin/sh
# run-perf-data-zstd.sh: the perf.data reader decodes zstd-compressed recordings (perf record -z) as perf script does.
. "$(dirname "$0")/test-subr.sh"
. "$srcdir/perf-data-subr.sh"

build_perfwork

if ! perf record -q -z -e cpu-clock -F 4000 -g -o z.data -- ./perfwork > /dev/null 2> perf.err; then
	cat perf.err >&2
	skip "perf record -z is not supported by this perf"
fi
check_same z.data
[ "$(meta_field z.data compressed)" = 1 ] || fail "z.data not flagged as compressed"
[ "$(meta_field z.data samples)" = "$(wc -l < perf.ip)" ] || fail "compressed sample count"
[ "$(meta_field z.data event)" = cpu-clock ] || fail "compressed event name"

# compressed pipe mode, read from standard input
perf record -q -z -e cpu-clock -F 4000 -g -o - -- ./perfwork > zpipe.data 2> perf.err ||
	{ cat perf.err >&2; fail "perf record -z -o - failed"; }
check_same zpipe.data -
[ "$(meta_field zpipe.data compressed)" = 1 ] || fail "zpipe.data not flagged as compressed"

# a compressed recording cut short in the middle must fail cleanly
size=$(wc -c < z.data)
head -c $((size / 2)) z.data > cut.data
expect_fail "'cut.data': " "$TOOLS/perf-dump" -q cut.data
exit 0
