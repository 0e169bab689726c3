#!/bin/sh
# Benchmark (part of make bench): time and peak memory of profile and score
# on a generated vmlinux-sized image.
#
# Builds its inputs under build/bench/: a generated 30000-function ARM
# kernel image with its link map (tests/gen-bigelf.sh, kept between runs)
# and a synthetic perf.data of SAMPLES kernel samples with callchains
# (build/tests/tools/perf-synth), then prints a markdown table of wall
# seconds and peak RSS.  It asserts nothing about speed; it fails only if
# a command fails.
#
#   VMLINUX=path [VMLINUX_MAP=path]  use a real kernel image instead
#   SAMPLES=N                        samples in the perf.data (1000000)
#   TEXT_SAMPLES=N                   samples for the perf script row (200000)
#   RUNS=N                           runs of each command; the fastest counts (1)
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
B=build/bench
CACHEPIN=$top/cachepin
TOOLS=$top/build/tests/tools
SAMPLES=${SAMPLES:-1000000}
TEXT_SAMPLES=${TEXT_SAMPLES:-200000}
RUNS=${RUNS:-1}
CACHES=cortex-a9-16k,cortex-a9-32k,cortex-a9-64k
mkdir -p "$B"

for t in "$CACHEPIN" "$TOOLS/perf-synth" "$TOOLS/perf-dump"; do
	[ -x "$t" ] || { echo "bench: '$t' is missing" >&2; echo "hint: run 'make bench'" >&2; exit 1; }
done

if [ -n "$VMLINUX" ]; then
	vmlinux=$VMLINUX
	map=${VMLINUX_MAP:-}
else
	vmlinux=$B/gen/vmlinux
	map=$B/gen/vmlinux.map
	if [ ! -f "$vmlinux" ] || [ -n "$(find tests/gen-bigelf.sh -newer "$vmlinux")" ]; then
		echo "bench: generating a 30000-function ARM image (about a minute)" >&2
		t0=$(date +%s)
		tests/gen-bigelf.sh "$B/gen" 30000 32
		echo "bench: image built in $(($(date +%s) - t0)) s" >&2
	fi
fi
mapopt=
[ -n "$map" ] && mapopt="--map $map"

if [ -x /usr/bin/time ]; then timer=/usr/bin/time; else timer=; fi
failed=0
rows=

# run LABEL CMD...: time CMD (stdout to $B/LABEL.out, stderr to .err);
# appends a table row
run() {
	label=$1; shift
	slug=$(echo "$label" | tr -cs 'a-z0-9' '-' | sed 's/^-//; s/-$//')
	best='' rss=- i=0
	while [ $i -lt "$RUNS" ]; do
		i=$((i + 1))
		rc=0
		t0=$(date +%s.%N)
		if [ -n "$timer" ]; then
			$timer -f %M -o "$B/$slug.rss" "$@" > "$B/$slug.out" 2> "$B/$slug.err" || rc=$?
		else
			"$@" > "$B/$slug.out" 2> "$B/$slug.err" || rc=$?
		fi
		t1=$(date +%s.%N)
		if [ "$rc" != 0 ]; then
			echo "bench: '$*' failed with status $rc:" >&2
			sed 's/^/  /' "$B/$slug.err" >&2
			failed=1
			rows="$rows| $label | FAILED | - |
"
			return 0
		fi
		s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
		if [ -z "$best" ] || awk -v a="$s" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$s
		fi
		if [ -n "$timer" ]; then
			m=$(tail -1 "$B/$slug.rss" | awk '{ printf "%.0f", $1 / 1024 }')
			if [ "$rss" = - ] || [ "$m" -gt "$rss" ]; then rss=$m; fi
		fi
	done
	rows="$rows| $label | $best | $rss |
"
}

nfuncs=$("$TOOLS/bin-dump" funcs "$vmlinux" 2>/dev/null | wc -l) || nfuncs='?'
data=$B/synth.data
run "perf-synth: write perf.data" "$TOOLS/perf-synth" -v -n "$SAMPLES" "$vmlinux" "$data"
[ -s "$data" ] || { echo "bench: no perf.data" >&2; exit 1; }
mb=$(du -m "$data" | cut -f1)

run "perf.data reader alone (perf-dump -q)" "$TOOLS/perf-dump" -q "$data"
# shellcheck disable=SC2086
run "profile perf.data" "$CACHEPIN" profile -v $mapopt -o "$B/bench.profile" "$vmlinux" "$data"
matched=$(grep 'samples matched' "$B/profile-perf-data.err" || true)
# shellcheck disable=SC2086
run "score profile (default cache)" "$CACHEPIN" score $mapopt "$vmlinux" "$B/bench.profile"
# shellcheck disable=SC2086
run "score perf.data (default cache)" "$CACHEPIN" score $mapopt "$vmlinux" "$data"
# shellcheck disable=SC2086
run "score profile, 3 caches" "$CACHEPIN" score $mapopt --cache $CACHES "$vmlinux" "$B/bench.profile"
# shellcheck disable=SC2086
run "score perf.data, 3 caches" "$CACHEPIN" score $mapopt --cache $CACHES "$vmlinux" "$data"

# perf script text: only if perf can symbolize the file
text_note=
if command -v perf > /dev/null 2>&1; then
	tdata=$B/synth-text.data
	"$TOOLS/perf-synth" -n "$TEXT_SAMPLES" -s 2 "$vmlinux" "$tdata"
	t0=$(date +%s.%N)
	if perf script -i "$tdata" --vmlinux "$vmlinux" > "$B/synth.script" 2> "$B/perf-script.err" &&
	   grep -q '+0x' "$B/synth.script"; then
		t1=$(date +%s.%N)
		ps=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
		tmb=$(du -m "$B/synth.script" | cut -f1)
		rows="$rows| (reference: perf script of $TEXT_SAMPLES samples, $tmb MB of text) | $ps | - |
"
		# shellcheck disable=SC2086
		run "profile perf script text ($TEXT_SAMPLES samples)" \
			"$CACHEPIN" profile -v $mapopt -o "$B/bench-text.profile" "$vmlinux" "$B/synth.script"
	else
		text_note="perf script row skipped: perf could not symbolize the synthetic file"
	fi
else
	text_note="perf script row skipped: no perf"
fi

echo
echo "cachepin bench: $vmlinux ($nfuncs functions), $SAMPLES samples with callchains ($mb MB perf.data)"
echo
echo "| step | wall s | peak RSS MiB |"
echo "|---|---:|---:|"
printf '%s' "$rows"
echo
if [ -n "$matched" ]; then
	echo "profile -v: ${matched#cachepin: }"
	case $matched in
	*" $SAMPLES of $SAMPLES samples matched"*) ;;
	*) echo "NOTE: not every sample matched a function";;
	esac
fi
[ -n "$text_note" ] && echo "$text_note"
[ -z "$timer" ] && echo "peak memory not measured: no /usr/bin/time"
echo "outputs and logs: $B/"
exit $failed
