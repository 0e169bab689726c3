# Shared helpers of the run-perf-data*.sh tests (sourced after test-subr.sh).
need_cmd perf gcc awk

# perfwork: the profiled program, built in the scratch directory.
build_perfwork() {
	gcc -O2 -g -fno-omit-frame-pointer -no-pie -fdebug-prefix-map="$PWD"=. \
		-o perfwork "$srcdir/src/perfwork.c" || fail "cannot build perfwork"
}

# one_line: join perf-dump -s style blocks (a "P period" line, then frame
# lines) into one sorted line per sample.  perf script sorts samples by
# time, the reader delivers them in file order; records are not
# time-ordered across CPUs, so compare the sets.
one_line() {
	awk '/^P / { if (l != "") print l; l = $2; next } { l = l " " $1 }
		END { if (l != "") print l }' | LC_ALL=C sort
}

# perf_view FILE OUT: perf script's per-sample view: the period, then the
# address of every frame (sample ip first, callers after).
perf_view() {
	perf script -i "$1" -F period,ip,sym 2> perf-script.err |
		awk '/^\t/ { print $1; next } /^ *[0-9]+ *$/ { print "P", $1 }' | one_line > "$2"
	[ -s "$2" ] || { cat perf-script.err >&2; fail "perf script printed no samples of '$1'"; }
}

# check_same FILE [INPUT]: the reader's view of INPUT (default FILE; "-"
# reads FILE from standard input) equals perf's view of FILE, both the
# callchains and the raw sample ip of each sample.
check_same() {
	cs_f=$1; cs_in=${2:-$1}
	perf_view "$cs_f" perf.view
	if [ "$cs_in" = - ]; then
		"$TOOLS/perf-dump" -s - < "$cs_f" > ours.raw || fail "perf-dump -s - < $cs_f failed"
	else
		"$TOOLS/perf-dump" -s "$cs_in" > ours.raw || fail "perf-dump -s $cs_in failed"
	fi
	one_line < ours.raw > ours.view
	# perf prints no frame at all for a chain with an unknown context
	# marker (the kernel writes -1 after a failed user unwind); the
	# reader keeps the sample ip.  Compare the rest exactly.
	grep -v '^[0-9]*$' perf.view > perf.frames || :
	nempty=$(grep -c '^[0-9]*$' perf.view || :)
	LC_ALL=C comm -23 perf.frames ours.view > only-perf
	LC_ALL=C comm -13 perf.frames ours.view > only-ours
	[ -s only-perf ] && { head -20 only-perf >&2; fail "samples of '$cs_in' that the reader lacks"; }
	[ "$(wc -l < only-ours)" = "$nempty" ] && ! grep -q ' .* ' only-ours ||
		{ head -20 only-ours >&2; fail "callchains of '$cs_in' differ from perf script"; }

	perf script -i "$cs_f" -F period,ip -G 2> perf-script.err | awk '{ print $1, $2 }' | LC_ALL=C sort > perf.ip
	if [ "$cs_in" = - ]; then
		"$TOOLS/perf-dump" - < "$cs_f" | awk '{ print $1, $3 }' | LC_ALL=C sort > ours.ip
	else
		"$TOOLS/perf-dump" "$cs_in" | awk '{ print $1, $3 }' | LC_ALL=C sort > ours.ip
	fi
	diff -u perf.ip ours.ip > ip.diff ||
		{ head -40 ip.diff >&2; fail "sample ips of '$cs_in' differ from perf script"; }
}

# meta_field FILE KEY: a line of perf-dump -m.
meta_field() {
	"$TOOLS/perf-dump" -q -m "$1" | sed -n "s/^# $2 //p"
}
