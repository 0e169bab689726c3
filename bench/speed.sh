#!/bin/sh
# bench/speed.sh: tool speed and memory part of the benchmark.
#
# Measures wall time (date +%N) and peak RSS (GNU time) of
#   1. 'perf script' (its default output: callchains, symbolized) against
#      'cachepin profile' on the same large perf.data, recorded here:
#      'perf record -e cpu-clock -g -F FREQ' of COPIES parallel copies of a
#      CPU-bound pure-Python workload (bench/speed/work.py) run by Debian's
#      python3 interpreter, until the file holds at least SAMPLES samples;
#   2. 'cachepin plan' on a real ARM32 kernel: examples/vexpress-arm
#      (Linux 6.1 vexpress_defconfig + NAT, about 30,000 functions) with the
#      NAT profile of examples/router-arm;
#   3. 'cachepin simulate' on a QEMU execution log of at least SIMLOG_MB
#      megabytes, recorded here (qemu-x86_64 -d in_asm,exec,nochain of the
#      program bench/speed/simwork.awk writes), three geometries, all four
#      policies: its rate in instructions per second and its peak RSS,
#      which must not grow with the log.
# Each command runs RUNS times; perf script and cachepin profile alternate
# within each round so their ratio is taken under the same conditions.
# Medians are reported.  perf.data is never kept in the repository: it stays
# in WORKDIR and is reused by later runs while it still has SAMPLES samples.
#
# usage: bench/speed.sh [WORKDIR]        (default: build/bench/speed)
#
# environment:
#   RUNS         timed runs of each command (default 3)
#   SAMPLES      samples the recording must hold at least (default 1000000)
#   FREQ         perf record -F, per copy (default 20000)
#   COPIES       parallel copies of the workload (default 2)
#   RERECORD     1: record a new perf.data even if WORKDIR has one
#   RESULTS      directory for speed.md and speed.csv (default bench/results)
#   CACHEPIN     the cachepin binary (default: the project's ./cachepin)
#   PYTHON       the interpreter to profile (default /usr/bin/python3; its
#                real file is the BINARY given to cachepin profile)
#   VMLINUX, VMLINUX_MAP
#                kernel and link map for the plan timing (default: unpacked
#                from examples/vexpress-arm, else examples/router-arm)
#   KPROFILE     profile for the plan (default examples/router-arm/router.profile)
#   CACHE        cache geometry for the plan (default cortex-a9-32k)
#   SIMLOG_MB    size of the QEMU log for part 3 (default 1024)
#
# Debian packages it needs: linux-perf time python3-minimal xz-utils
#   binutils gawk coreutils qemu-user gcc libc6-dev (and, to build
#   cachepin: make gcc libelf-dev)
set -e

top=$(cd "$(dirname "$0")/.." && pwd)
W=${1:-$top/build/bench/speed}
RUNS=${RUNS:-3}
SAMPLES=${SAMPLES:-1000000}
FREQ=${FREQ:-20000}
COPIES=${COPIES:-2}
RESULTS=${RESULTS:-$top/bench/results}
CACHEPIN=${CACHEPIN:-$top/cachepin}
PYTHON=${PYTHON:-/usr/bin/python3}
KPROFILE=${KPROFILE:-$top/examples/router-arm/router.profile}
CACHE=${CACHE:-cortex-a9-32k}
SIMLOG_MB=${SIMLOG_MB:-1024}

die() {
	echo "error: $1" >&2
	[ -z "$2" ] || echo "hint: $2" >&2
	exit 1
}
log() { echo "speed: $*" >&2; }

need() {	# need COMMAND PACKAGE
	command -v "$1" >/dev/null 2>&1 ||
		die "'$1' not found" "apt-get install $2"
}
need perf linux-perf
need xz xz-utils
need nm binutils
need awk gawk
need qemu-x86_64 qemu-user
need gcc gcc
[ "$(date +%N)" != N ] || die "'date' has no %N (nanoseconds)" "apt-get install coreutils"
[ -x /usr/bin/time ] || die "'/usr/bin/time' not found" "apt-get install time"
/usr/bin/time -f '%e %M' true 2>/dev/null >/dev/null ||
	die "'/usr/bin/time' is not GNU time (-f '%e %M' fails)" "apt-get install time"
[ -x "$PYTHON" ] || die "'$PYTHON' not found" "apt-get install python3-minimal, or set PYTHON"
[ -x "$CACHEPIN" ] || die "'$CACHEPIN': not built" "run 'make -j2' in the project top, or set CACHEPIN"
for v in RUNS SAMPLES FREQ COPIES SIMLOG_MB; do
	x=
	eval "x=\$$v"
	case $x in '' | *[!0-9]*) die "$v='$x': not a positive number" ;; esac
	[ "$x" -gt 0 ] || die "$v='$x': not a positive number"
done

mkdir -p "$W" "$RESULTS"
W=$(cd "$W" && pwd)
RESULTS=$(cd "$RESULTS" && pwd)
PYBIN=$(readlink -f "$PYTHON")
CSV=$W/speed.csv.tmp
echo "command,input,runs,median_wall_s,median_peak_rss_mb,ratio,wall_s_each,peak_rss_mb_each" > "$CSV"
: > "$W/rows.md"

# samples FILE: number of samples in a perf.data (0 if none or unreadable)
samples() {
	[ -s "$1" ] || { echo 0; return; }
	perf report -i "$1" --stats 2>/dev/null |
		awk '/SAMPLE events:/ { print $3; found = 1; exit } END { if (!found) print 0 }'
}

# timed LOG CMD...: run CMD once under GNU time, append "wall_s rss_kb" to
# LOG.  Wall time is taken with date's nanoseconds around it (GNU time's %e
# has only centiseconds, too coarse for a command of a tenth of a second).
timed() {
	tlog=$1; shift
	t0=$(date +%s%N)
	/usr/bin/time -f '%e %M' -o "$W/time.out" "$@" > /dev/null 2> "$W/cmd.err" || {
		cat "$W/cmd.err" >&2
		die "'$1' failed (exit status above); its command: $*"
	}
	t1=$(date +%s%N)
	tail -n 1 "$W/time.out" | awk -v ns=$((t1 - t0)) '{ printf "%.3f %s\n", ns / 1e9, $2 }' >> "$tlog"
}

# median COLUMN LOG: median of a column of numbers
median() {
	awk -v c="$1" '{ print $c }' "$2" | sort -g |
		awk '{ v[NR] = $1 } END {
			if (NR % 2) m = v[(NR + 1) / 2]; else m = (v[NR / 2] + v[NR / 2 + 1]) / 2
			print m }'
}

# row NAME INPUT LOG RATIO: add a table row from a time log (wall s, RSS kB)
row() {
	wall=$(median 1 "$3")
	rss=$(median 2 "$3" | awk '{ printf "%.1f", $1 / 1024 }')
	n=$(wc -l < "$3" | tr -d ' ')
	each_w=$(awk '{ printf "%s%s", s, $1; s = " " }' "$3")
	each_r=$(awk '{ printf "%s%.1f", s, $2 / 1024; s = " " }' "$3")
	# shellcheck disable=SC2016
	printf '| `%s` | %s | %s | %s | %s | %s |\n' "$1" "$2" "$n" "$wall" "$rss" "$4" >> "$W/rows.md"
	printf '"%s","%s",%s,%s,%s,"%s","%s","%s"\n' "$1" "$2" "$n" "$wall" "$rss" "$4" \
		"$each_w" "$each_r" >> "$CSV"
}

# ---- the kernel for part 2, checked before the long part 1 ----------------
if [ -n "$VMLINUX" ]; then
	[ -r "$VMLINUX" ] || die "'$VMLINUX': cannot read (VMLINUX)"
	[ -n "$VMLINUX_MAP" ] || die "VMLINUX is set but VMLINUX_MAP is not" "set VMLINUX_MAP to its vmlinux.map"
	kname=$(basename "$VMLINUX")
else
	ex=vexpress-arm
	[ -f "$top/examples/$ex/vmlinux.xz" ] || {
		ex=router-arm
		log "examples/vexpress-arm/vmlinux.xz is missing: falling back to the smaller examples/router-arm"
	}
	mkdir -p "$W/$ex"
	for f in vmlinux vmlinux.map; do
		# unpack when missing or older than the shipped .xz
		if [ ! -f "$W/$ex/$f" ] ||
			[ -n "$(find "$top/examples/$ex/$f.xz" -newer "$W/$ex/$f")" ]; then
			xz -dc "$top/examples/$ex/$f.xz" > "$W/$ex/$f.tmp"
			mv "$W/$ex/$f.tmp" "$W/$ex/$f"
		fi
	done
	VMLINUX=$W/$ex/vmlinux VMLINUX_MAP=$W/$ex/vmlinux.map
	kname="examples/$ex"
fi
[ -r "$VMLINUX_MAP" ] || die "'$VMLINUX_MAP': cannot read (VMLINUX_MAP)"
[ -r "$KPROFILE" ] || die "'$KPROFILE': cannot read (KPROFILE)"
nmtool="nm"
command -v arm-linux-gnueabihf-nm >/dev/null 2>&1 && nmtool=arm-linux-gnueabihf-nm
nfun=$("$nmtool" "$VMLINUX" | grep -c ' [tT] ' || true)
kinput="$kname vmlinux: $nfun functions (nm t/T), with its map; profile $(basename "$KPROFILE")"

# ---- 1. a large perf.data --------------------------------------------------
DATA=$W/perf.data
have=0
[ "${RERECORD:-0}" = 1 ] || have=$(samples "$DATA")
if [ "$have" -ge "$SAMPLES" ] && [ -f "$W/record.info" ]; then
	log "reusing '$DATA' ($have samples; RERECORD=1 records anew)"
else
	# Per-process cpu-clock samples come at FREQ per copy while it runs, so
	# each copy runs for the CPU time that gives SAMPLES in all, plus 10 %.
	cpu=$(awk -v s="$SAMPLES" -v f="$FREQ" -v c="$COPIES" \
		'BEGIN { printf "%.1f", s / (f * c) * 1.10 + 1 }')
	log "recording $COPIES x '$PYBIN bench/speed/work.py $cpu' with perf record -e cpu-clock -g -F $FREQ"
	rm -f "$DATA" "$W/record.info"
	# shellcheck disable=SC2016
	perf record -q -e cpu-clock -g -F "$FREQ" -m 1024 -o "$DATA.tmp" -- \
		sh -c 'i=0; while [ $i -lt "$1" ]; do "$2" "$3" "$4" $i & i=$((i + 1)); done; wait' \
		sh "$COPIES" "$PYBIN" "$top/bench/speed/work.py" "$cpu" 2> "$W/record.err" || {
		cat "$W/record.err" >&2
		die "perf record failed" "as root, or with kernel.perf_event_paranoid <= 1; FREQ must not exceed kernel.perf_event_max_sample_rate"
	}
	mv "$DATA.tmp" "$DATA"
	have=$(samples "$DATA")
	[ "$have" -ge "$SAMPLES" ] ||
		die "'$DATA': $have samples, fewer than SAMPLES=$SAMPLES" \
			"the kernel may have throttled the rate (see 'dmesg'); raise COPIES or lower FREQ"
	printf '%s copies of %s bench/speed/work.py, perf record -e cpu-clock -g -F %s\n' \
		"$COPIES" "$(basename "$PYBIN")" "$FREQ" > "$W/record.info"
fi
mb=$(du -m "$DATA" | awk '{ print $1 }')
lost=$(perf report -i "$DATA" --stats 2>/dev/null | awk '/LOST events:/ { print $3; exit }')
log "'$DATA': $have samples, $mb MB${lost:+, $lost lost-event records}"
pinput="perf.data: $have samples with callchains, $mb MB ($(cat "$W/record.info"))"

rm -f "$W/script.log" "$W/profile.log"
i=1
while [ "$i" -le "$RUNS" ]; do
	log "run $i/$RUNS: perf script"
	timed "$W/script.log" perf script -i "$DATA"
	log "run $i/$RUNS: cachepin profile"
	timed "$W/profile.log" "$CACHEPIN" profile -o "$W/out.profile" "$PYBIN" "$DATA"
	i=$((i + 1))
done
sw=$(median 1 "$W/script.log"); pw=$(median 1 "$W/profile.log")
sr=$(median 2 "$W/script.log"); pr=$(median 2 "$W/profile.log")
ratio=$(awk -v a="$sw" -v b="$pw" -v c="$sr" -v d="$pr" 'BEGIN {
	if (b > 0) printf "%.1fx faster", a / b; else printf "> %.0fx faster (below 1 ms)", a / 0.001
	if (d > 0) printf ", %.1fx less memory", c / d }')
row "perf script -i perf.data" "$pinput" "$W/script.log" "1 (reference)"
row "cachepin profile -o out.profile $(basename "$PYBIN") perf.data" "same perf.data" "$W/profile.log" "$ratio"
target=$(awk -v a="$sw" -v b="$pw" 'BEGIN { print (b == 0 || a / b >= 10) ? "met" : "NOT met" }')

# ---- 2. cachepin plan on a real ARM32 vmlinux ------------------------------
rm -f "$W/plan.log"
i=1
while [ "$i" -le "$RUNS" ]; do
	log "run $i/$RUNS: cachepin plan ($kname)"
	timed "$W/plan.log" "$CACHEPIN" plan --map "$VMLINUX_MAP" -c "$CACHE" \
		-o "$W/plan.lds" "$VMLINUX" "$KPROFILE"
	i=$((i + 1))
done
row "cachepin plan --map vmlinux.map -c $CACHE -o plan.lds vmlinux $(basename "$KPROFILE")" \
	"$kinput" "$W/plan.log" "-"

# ---- 3. cachepin simulate on a large QEMU log ------------------------------
SLOG=$W/simwork.log
if [ ! -f "$SLOG" ] || [ "$(du -m "$SLOG" | awk '{ print $1 }')" -lt "$SIMLOG_MB" ]; then
	awk -f "$top/bench/speed/simwork.awk" > "$W/simwork.c"
	gcc -O1 -static -o "$W/simwork" "$W/simwork.c" || die "cannot build '$W/simwork.c'"
	# about 1,070 bytes of log per round (measured: 2,142 MB for 2 M rounds)
	rounds=$((SIMLOG_MB * 1000))
	log "recording '$SLOG' (qemu-x86_64 -d in_asm,exec,nochain, $rounds rounds)"
	env -i qemu-x86_64 -d in_asm,exec,nochain -D "$SLOG.tmp" "$W/simwork" "$rounds" ||
		die "qemu-x86_64 failed on '$W/simwork'"
	mv "$SLOG.tmp" "$SLOG"
fi
smb=$(du -m "$SLOG" | awk '{ print $1 }')
rm -f "$W/sim.log"
i=1
while [ "$i" -le "$RUNS" ]; do
	log "run $i/$RUNS: cachepin simulate ($smb MB)"
	timed "$W/sim.log" "$CACHEPIN" simulate -c 16K:4:32,32K:4:32,64K:4:32 "$SLOG"
	i=$((i + 1))
done
"$CACHEPIN" simulate -c 16K:4:32 -p lru "$SLOG" > "$W/sim.out" || die "cachepin simulate failed on '$SLOG'"
sinsns=$(awk '$2 == "lru" { print $5; exit }' "$W/sim.out")
srate=$(awk -v n="$sinsns" -v t="$(median 1 "$W/sim.log")" -v mb="$smb" \
	'BEGIN { printf "%.1f M instructions/s, %.0f MB/s", n / t / 1e6, mb / t }')
row "cachepin simulate -c 16K:4:32,32K:4:32,64K:4:32 simwork.log" \
	"QEMU log: $smb MB, $sinsns instructions (bench/speed/simwork.awk under qemu-x86_64)" "$W/sim.log" "$srate"

# ---- report ----------------------------------------------------------------
{
	echo "# Tool speed and memory"
	echo
	echo "$("$CACHEPIN" version), $(perf --version), $(uname -s) $(uname -m)," \
		"$(getconf _NPROCESSORS_ONLN) CPUs; wall time from date +%N around GNU time, which gives the peak RSS," \
		"median of $RUNS runs (perf script and cachepin profile alternate in each round)."
	echo
	echo "| command | input | runs | median wall s | median peak RSS MB | ratio |"
	echo "| --- | --- | --- | --- | --- | --- |"
	cat "$W/rows.md"
	echo
	echo "Target: \`cachepin profile\` at least 10x faster than \`perf script\` on the same file: $target" \
		"(median wall $pw s against $sw s)."
} > "$RESULTS/speed.md.tmp"
mv "$RESULTS/speed.md.tmp" "$RESULTS/speed.md"
mv "$CSV" "$RESULTS/speed.csv"
rm -f "$W/rows.md" "$W/time.out" "$W/cmd.err"
cat "$RESULTS/speed.md"
