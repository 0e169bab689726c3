#!/bin/sh
# make fuzz: every target in build/fuzz for FUZZ_SECONDS (default 60) on
# its corpus (build/fuzz/corpus/NAME, seeded from tests/fuzz/seeds/NAME,
# a perf.data from perf-synth, an ELF of the tests).  A summary line per
# target (executions, CPU seconds, coverage); crashes, leaks and timeouts
# are written to build/fuzz/crash-NAME-* and fail the run.  FUZZ_TARGETS
# picks targets (default all); FUZZ_SEED fixes libFuzzer's seed (CI does,
# so that a CI failure replays).
#
# An allocation the C library would refuse returns NULL here too
# (allocator_may_return_null), as it does outside the sanitizer: libdwarf
# 0.5 (Debian 12) asks calloc() for a terabyte on a corrupt table
# (seeds/dwarf/huge-calloc.elf), gets NULL and reports an error, which
# the reader turns into no source line; ASan would abort there instead.
# What is wrong with the memory the program does get, ASan still reports.
set -e
export ASAN_OPTIONS="allocator_may_return_null=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
top=$(cd "$(dirname "$0")/../.." && pwd)
B=$top/build/fuzz
S=${FUZZ_SECONDS:-60}
case $S in '' | *[!0-9]*) echo "fuzz: FUZZ_SECONDS='$S' is not a number" >&2; exit 2 ;; esac
case ${FUZZ_SEED:-1} in *[!0-9]*) echo "fuzz: FUZZ_SEED='$FUZZ_SEED' is not a number" >&2; exit 2 ;; esac
targets=${FUZZ_TARGETS:-$(cd "$top/tests/fuzz" && ls fuzz-*.c | sed 's/^fuzz-//; s/\.c$//')}
fail=0
for t in $targets; do
	bin=$B/fuzz-$t
	[ -x "$bin" ] || { echo "fuzz: no '$bin' (make fuzz builds it)" >&2; exit 2; }
	c=$B/corpus/$t
	mkdir -p "$c"
	[ -d "$top/tests/fuzz/seeds/$t" ] && cp -n "$top/tests/fuzz/seeds/$t"/* "$c/" 2>/dev/null || true
	case $t in
	perf-data)
		# perf-synth writes kernel samples: on a small kernel, made here; one file with a CACHE feature
		k=$B/synthkern
		[ -x "$k" ] || ${CC:-cc} -O2 -nostdlib -static -no-pie -Wl,--defsym=_text=0x401000 \
			-Wl,-e,start_kernel -o "$k" "$top/tests/src/synthkern.c" > /dev/null 2>&1 || true
		if [ -x "$top/build/tests/tools/perf-synth" ] && [ -x "$k" ]; then
			"$top/build/tests/tools/perf-synth" -n 50 "$k" "$c/synth.data" > /dev/null 2>&1 || true
			"$top/build/tests/tools/perf-synth" -n 20 -C 64:8:64 "$k" "$c/synth-cache.data" > /dev/null 2>&1 || true
			"$top/build/tests/tools/perf-synth" -n 40 -m m.ko@0x7f000000 "$k" "$c/synth-module.data" > /dev/null 2>&1 || true
		fi ;;
	elf | linkmap)
		[ -x "$top/build/tests/unit/cache" ] && cp -n "$top/build/tests/unit/cache" "$c/unit-cache.elf" 2>/dev/null || true ;;
	dwarf)
		# DWARF 5 and 4 of a small program, inlining on: line tables, inlined subroutines, ranges
		for v in 4 5; do
			[ -f "$c/hotfuncs-dwarf$v" ] || ${CC:-cc} -O2 -g -gdwarf-$v -no-pie -o "$c/hotfuncs-dwarf$v" \
				"$top/tests/src/hotfuncs.c" > /dev/null 2>&1 || true
		done ;;
	whatif)
		# the edits are applied to a relink of this program (fuzz-whatif.c)
		${CC:-cc} -O2 -ffunction-sections -no-pie -Wl,-Map,"$B/whatif.map" -o "$B/whatif.elf" \
			"$top/tests/src/hotfuncs.c" > /dev/null 2>&1 || true ;;
	esac
	rm -f "$B/crash-$t-"*
	CACHEPIN_FUZZ_ELF=$B/whatif.elf CACHEPIN_FUZZ_MAP=$B/whatif.map \
	/usr/bin/time -f '%U %S' -o "$B/fuzz-$t.cpu" \
		"$bin" -max_total_time="$S" -max_len=65536 -timeout=20 -rss_limit_mb=2048 \
		-artifact_prefix="$B/crash-$t-" -print_final_stats=1 ${FUZZ_SEED:+-seed=$FUZZ_SEED} "$c" > "$B/fuzz-$t.log" 2>&1 || true
	cpu=$(awk 'NF == 2 && $1 ~ /^[0-9.]+$/ { printf "%.0f", $1 + $2 }' "$B/fuzz-$t.cpu")
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$B/fuzz-$t.log" | tail -1)
	cov=$(grep -o 'cov: [0-9]*' "$B/fuzz-$t.log" | tail -1 | sed 's/cov: //')
	found=$(ls "$B/crash-$t-"* 2>/dev/null | wc -l)
	echo "fuzz $t: ${runs:-0} runs in $S s (${cpu:-?} CPU s), coverage ${cov:-?}, corpus $(ls "$c" | wc -l), findings $found"
	[ "$found" = 0 ] || { fail=1; ls "$B/crash-$t-"* >&2; grep -m3 'ERROR\|SUMMARY' "$B/fuzz-$t.log" >&2 || true; }
done
exit $fail
