#!/bin/sh
# Layout benchmark: cachepin's plan against the layouts users would
# otherwise get, on real programs, measured with cachegrind's I1 model.
#
# usage: bench/run.sh [--quick|--check|--recordings] [PROGRAM...]
#
# For every program (a recipe in bench/programs/PROGRAM.sh; all by default)
# it builds the program with -O2 -ffunction-sections (and again with
# -falign-functions=32 and =64), profiles a fixed workload with
# perf record -e cpu-clock -g, links these layouts of the same objects:
#
#   default    the link order of the build
#   align32    -falign-functions=32
#   align64    -falign-functions=64
#   hotfirst   profiled functions first, by samples per byte
#   c3         call-chain clustering (Ottoni and Maher, CGO 2017; bench/c3.c)
#   lld        ld.lld --call-graph-ordering-file from the same profile
#   cachepin   cachepin plan for $PLAN_CACHES (both Cortex-A9 sizes)
#   cachepin16, cachepin32, cachepin64
#              cachepin plan for 16K:4:32, 32K:4:32, 64K:4:32 alone
#   reference16, reference32, reference64
#              the reference colouring (cachepin plan --method reference:
#              densest first, each unit at the offset of the next way span
#              that adds the least conflict; no growth room) for each
#              geometry alone, the simple peer the planner must beat
#   randK      the functions with samples first, in random order K of
#              $RANDOM_ORDERS (seeded by the program's name and K)
#
# and counts I1 misses of a shorter run of the same workload under
# valgrind --tool=cachegrind for every size in $CACHES, 4 ways, 32-byte
# lines, and for all but the random orders with a fully associative cache of
# the same size (the reference without conflict misses).  Then it links
# the layouts of $STAB_LAYOUTS again $PERTURB times for each kind of
# change in $KINDS, one change a build: a pad section of random size at
# a random place of the link order (pad), the code before the hot block
# grown (pre), one hot function grown by 4 to 64 bytes (grow); it reports
# min/median/max misses at $STAB_CACHES per kind, and how many hot units
# cachepin check finds off their planned offsets.  Every build of every
# layout must print what the default prints.  The plan of the second
# recording (cachepin-r2) is linked and measured beside the first's, and
# the hot units the two plans put in different sets are counted.
#
# The model is measured too: cachepin score gives its LRU misses of every
# layout at the same geometries, once with the profile the plans were made
# from (in sample) and once with a second recording of the same workload
# (held out), to be ranked against cachegrind's.
#
# Results: $RESULTS/layouts.md (Markdown), layouts.csv, stability.csv,
# model.csv and layouts.svg (gnuplot), and with the full run
# bench/speed.sh's tables.  cachegrind counts are exact and repeatable: the
# same sources, compiler and inputs give the same table (the model's
# figures and the plans vary with the recordings).
#
#   --quick   one program (readelf unless named), 32 KiB only, 2 perturbations
#             of each kind, 3 random orders
#   --check   the smallest run that exercises every step (make check), 2
#             random orders
#   --recordings
#             only the plans' dependence on the recording: $RECORDINGS
#             new recordings of each workload, cachepin's plan for
#             $PLAN_CACHES and C3's order from each, misses at $CACHES
#             (32768 65536); for each: min/median/max, the difference of
#             every pair of recordings, and the hot units two plans put
#             in another first set; and every recording but the first
#             re-planned with --keep of the first one's plan (layout
#             keep), as a user re-plans after profiling again; and from
#             each recording each cache's own plan (for each size of
#             $SOLE_CACHES, measured there), against the best peer made
#             from the same recording (hotfirst, c3, lld, the reference
#             colouring of that size) or needing none (default, align32,
#             align64 of layouts.csv): one recording's plan is one draw,
#             the median over the recordings is the cell's verdict.  Results:
#             $RESULTS/recordings.md, recordings.csv, recordings-sets.csv
#             and recordings-keep.csv
#
# Environment:
#   BENCH_WORK   work directory (build/bench/layout)
#   RESULTS      where the tables go (bench/results; build/bench/check
#                with --check)
#   CACHES       I1 sizes in bytes (16384 32768 65536)
#   STAB_CACHES  sizes of the stability runs (32768 65536)
#   PERTURB      perturbed builds per layout and kind (5)
#   KINDS        the kinds of perturbation (pad pre grow)
#   RANDOM_ORDERS random function orders per program (20)
#   LAYOUTS      the layouts to compare (all of the above but randK;
#                --check: not align32 and align64, which need two more
#                builds)
#   STAB_LAYOUTS the layouts of the perturbed builds ($LAYOUTS but
#                cachepin16, cachepin32 and cachepin-r2)
#   PLAN_CACHES  cachepin plan's -c (32K:4:32,64K:4:32: one layout for both
#                Cortex-A9 sizes)
#   PROFILE_FREQ perf record -F (20000)
#   RECORDINGS   --recordings: recordings per program (6, at least 2)
#   SOLE_CACHES  --recordings: the sizes planned alone (16384 32768 65536)
#   JOBS         parallel cachegrind and score runs (nproc)
#   CACHEPIN     the cachepin binary (./cachepin)
#
# Needs: gcc, lld, valgrind, linux-perf, bear, jq, gnuplot-nox (for the
# plot), and each recipe's prog_deps; scripts/install-deps --bench
# installs them.
set -e

top=$(cd "$(dirname "$0")/.." && pwd)
mode=full
case "$1" in
--quick) mode=quick; shift ;;
--check) mode=check; shift ;;
--recordings) mode=recordings; shift ;;
-*) echo "usage: bench/run.sh [--quick|--check|--recordings] [PROGRAM...]" >&2; exit 129 ;;
esac
CACHEPIN=${CACHEPIN:-$top/cachepin}
JOBS=${JOBS:-$(nproc)}
PLAN_CACHES=${PLAN_CACHES:-32K:4:32,64K:4:32}
PROFILE_FREQ=${PROFILE_FREQ:-20000}
BENCH_WORK=${BENCH_WORK:-$top/build/bench/layout}
case $mode in
full)
	RESULTS=${RESULTS:-$top/bench/results}
	CACHES=${CACHES:-16384 32768 65536}
	STAB_CACHES=${STAB_CACHES:-32768 65536}
	PERTURB=${PERTURB:-5}
	RANDOM_ORDERS=${RANDOM_ORDERS:-20}
	;;
recordings)
	RESULTS=${RESULTS:-$top/bench/results}
	CACHES=${CACHES:-32768 65536}
	RECORDINGS=${RECORDINGS:-6}
	SOLE_CACHES=${SOLE_CACHES:-16384 32768 65536}
	case $RECORDINGS in [2-9]|[1-9][0-9]) ;; *) echo "error: RECORDINGS=$RECORDINGS: not a number from 2 to 99" >&2; exit 1 ;; esac
	LAYOUTS=${LAYOUTS:-default}
	# the peers made from each recording: at every size measured or planned alone
	PEER_SIZES=$(for s in $CACHES $SOLE_CACHES; do echo $s; done | sort -nu | tr '\n' ' ')
	;;
*)
	RESULTS=${RESULTS:-$top/build/bench/$mode}
	CACHES=${CACHES:-32768}
	STAB_CACHES=${STAB_CACHES:-32768}
	case $mode in
	quick) PERTURB=${PERTURB:-2} RANDOM_ORDERS=${RANDOM_ORDERS:-3} ;;
	check) PERTURB=${PERTURB:-1} RANDOM_ORDERS=${RANDOM_ORDERS:-2}
		LAYOUTS=${LAYOUTS:-default hotfirst c3 lld cachepin} ;;
	esac
	[ $# -eq 0 ] && set -- readelf
	;;
esac
LAYOUTS=${LAYOUTS:-default align32 align64 hotfirst c3 lld reference16 reference32 reference64 cachepin cachepin16 cachepin32 cachepin64}
# the plan from the second recording beside the plan from the first
case " $LAYOUTS " in *" cachepin "*) LAYOUTS="$LAYOUTS cachepin-r2" ;; esac
# the perturbed builds: every layout but the plans for one small cache
# and the second recording's
if [ -z "$STAB_LAYOUTS" ]; then
	for l in $LAYOUTS; do
		case $l in cachepin16|cachepin32|cachepin-r2|reference*) ;; *) STAB_LAYOUTS="$STAB_LAYOUTS $l" ;; esac
	done
fi
KINDS=${KINDS:-pad pre grow}
# the model's geometries: the sizes of $CACHES as cachegrind simulates them
MODEL_CACHES=$(for s in $CACHES; do printf '%s:4:32,' $s; done)
MODEL_CACHES=${MODEL_CACHES%,}
BUILDS=build
case " $LAYOUTS " in *" align32 "*) BUILDS="$BUILDS build-a32" ;; esac
case " $LAYOUTS " in *" align64 "*) BUILDS="$BUILDS build-a64" ;; esac
[ $# -eq 0 ] && set -- $(cd "$top/bench/programs" && ls *.sh | sed 's/\.sh$//')
BENCH_CFLAGS="-O2 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -ffunction-sections"
# glibc must pick the same string routines when profiled as under
# valgrind, which offers no AVX-512
TUNABLES=glibc.cpu.hwcaps=-AVX512F,-AVX512VL,-AVX512BW,-AVX512DQ,-AVX512CD,-EVEX
# every run of a program gets the same environment: programs read it, and
# its size moves the stack
ENV="env -i PATH=/usr/bin:/bin LC_ALL=C"
export BENCH_TOP=$top BENCH_CFLAGS JOBS

die() { echo "error: $*" >&2; exit 1; }
# bench_repeat N WORD...: the words N times (for recipes' profile runs)
bench_repeat() {
	_n=$1
	shift
	_r=
	while [ "$_n" -gt 0 ]; do
		_r="$_r $*"
		_n=$((_n - 1))
	done
	echo "${_r# }"
}
log() { echo "bench: $*" >&2; }

for c in gcc ld.lld perf valgrind bear jq awk sort xz; do
	command -v $c > /dev/null || {
		echo "error: '$c' not found" >&2
		echo "hint: run scripts/install-deps --bench" >&2
		exit 1
	}
done
[ -x "$CACHEPIN" ] || { echo "error: '$CACHEPIN' not built" >&2; echo "hint: run make" >&2; exit 1; }
for p; do
	[ -f "$top/bench/programs/$p.sh" ] || die "'bench/programs/$p.sh': no such recipe"
done

mkdir -p "$BENCH_WORK" "$RESULTS"
C3=$top/build/bench/c3
[ -x "$C3" ] || { echo "error: '$C3' not built" >&2; echo "hint: run make test-progs" >&2; exit 1; }

# rand STATE: Park-Miller minimal standard generator, exact in awk's doubles
rand() { awk -v x="$1" 'BEGIN { printf "%d\n", (x * 16807) % 2147483647 }'; }

# link BUILD OUT [FLAGS...]: the final link of the objects of BUILD
link() {
	_b=$1 _o=$2
	shift 2
	gcc $BENCH_CFLAGS -no-pie -static -Wl,-Map="$_o.map" "$@" -o "$_o" \
		$(cat "$_b/link-inputs.use") > "$_o.link.log" 2>&1 ||
		{ cat "$_o.link.log" >&2; die "'$_o': link failed"; }
}

. "$top/bench/lib/order.sh"

# hot_sets ALIGN: "function|object|section first-set" of every hot unit of
# a plan's alignment file, sorted for join
hot_sets() { awk '$1 == "hot" { print $2 "|" $3 "|" $4, $7 }' "$1" | sort; }
# other_sets SETS SETS: "N C", the hot units both plans have and how many
# of them the two put in another first set
other_sets() { join "$1" "$2" | awk '{ n++; if ($2 != $3) c++ } END { printf "%d %d", n, c }'; }

# misses LOG: I1 misses from a cachegrind log
misses() { sed -n 's/.*I1  *misses: *//p' "$1" | tr -d ,; }

# cg_job BIN SIZE WAYS OUT: one cachegrind run (a line of the job list)
cg_job() {
	echo "cd '$IN' && $ENV valgrind --tool=cachegrind --cache-sim=yes --I1=$2,$3,32" \
		"--D1=32768,8,64 --LL=8388608,16,64 --cachegrind-out-file=/dev/null" \
		"'$1' $prog_args_measure < ${prog_stdin:-/dev/null} > /dev/null 2> '$4'"
}

# score_job BIN PROFILE OUT: the model's misses of BIN at $MODEL_CACHES
# (a line of the job list), with BIN's link map if GNU ld wrote it
# (ld.lld's map has another format: its units are then the symbols)
score_job() {
	_m=
	grep -q '^Linker script and memory map' "$1.map" && _m="--map '$1.map'"
	echo "'$CACHEPIN' score --json --top 1 $_m -c $MODEL_CACHES '$1' '$2' > '$3' 2> '$3.log'"
}

# model OUT SIZE: the modelled LRU misses at SIZE from score_job's OUT
model() {
	_v=$(jq -r --argjson s "$2" '.caches[] | select(.size == $s) | .misses.lru' "$1")
	[ -n "$_v" ] || die "'$1': no modelled misses for $2"
	echo "$_v"
}

run_jobs() { # JOBLIST
	[ -s "$1" ] || return 0
	tr '\n' '\0' < "$1" | xargs -0 -P "$JOBS" -n 1 sh -c || die "a cachegrind or score run failed (see $1)"
}

# grow BUILD OBJ FUNC BYTES OUT: OBJ of BUILD recompiled with BYTES of
# never-executed padding at the end of FUNC
grow() {
	_b=$1 _obj=$2 _fn=$3 _by=$4 _out=$5
	_cmd=$(jq -r --arg o "$_obj" '[.[] | select(.output == $o or (.directory + "/" + .output) == $o)][0] |
		.directory + "\n" + ([.arguments[] | @sh] | join(" "))' "$_b/compile_commands.json")
	_dir=$(echo "$_cmd" | sed -n 1p)
	_args=$(echo "$_cmd" | sed -n 2p)
	[ -n "$_args" ] && [ "$_dir" != null ] || die "'$_obj': not in $_b/compile_commands.json"
	(cd "$_dir" && eval "set -- $_args" && {
		_n=$#; _skip=0
		for a; do
			if [ $_skip = 1 ]; then _skip=0; a="$_out.s"
			elif [ "$a" = -o ]; then _skip=1
			elif [ "$a" = -c ]; then a=-S
			fi
			set -- "$@" "$a"
		done
		shift $_n
		"$@"
	}) || die "'$_obj': recompiling with -S failed"
	awk -v fn="$_fn" -v n="$_by" '
		$1 == ".size" && $2 == fn "," && !done { printf "\t.skip %d, 0xcc\n", n; done = 1 }
		{ print }
		END { if (!done) exit 1 }' "$_out.s" > "$_out.grown.s" || die "'$_fn': no .size in $_out.s"
	gcc -c -o "$_out" "$_out.grown.s"
}

# skip_obj NAME BYTES BASE: BASE.o, whose section .text.NAME holds BYTES
# never-executed bytes (an unrelated change to the link)
skip_obj() {
	printf '\t.section .text.%s,"ax",@progbits\n\t.globl %s\n%s:\n\t.skip %d, 0xcc\n' \
		$1 $1 $1 $2 > "$3.s"
	gcc -c -o "$3.o" "$3.s"
}

# rec_link NAME "SIZE..." [LINK-ARG...]: (--recordings) $RD/NAME linked
# with $RD/NAME.lds (or the link arguments given), its output compared
# with the default's, its cachegrind runs queued at each SIZE
rec_link() {
	_n=$1 _sizes=$2
	shift 2
	[ $# -gt 0 ] || set -- -Wl,-T,"$RD/$_n.lds"
	link "$W/build" "$RD/$_n" "$@"
	(cd "$IN" && $ENV "$RD/$_n" $prog_args_measure < ${prog_stdin:-/dev/null} > "$RD/out.$_n")
	cmp -s "$W/out.ref" "$RD/out.$_n" || die "'$p' layout '$_n' prints something else"
	for s in $_sizes; do
		cg_job "$RD/$_n" $s 4 "$RD/$_n.$s" >> "$W/jobs"
	done
}

# rec_plan NAME PROFILE [PLAN-OPTION...]: (--recordings) cachepin's plan
# from PROFILE as $RD/NAME, linked, checked, measured; its hot units'
# first sets in $RD/NAME.sets
rec_plan() {
	_n=$1 _pf=$2
	shift 2
	"$CACHEPIN" plan --map "$L/default.map" -c "$PLAN_CACHES" --standalone "$@" \
		-o "$RD/$_n.lds" "$L/default" "$_pf" > "$RD/$_n.plan.txt" 2>&1 ||
		{ cat "$RD/$_n.plan.txt" >&2; die "'$p': cachepin plan $* failed for $_pf"; }
	rec_link "$_n" "$CACHES"
	"$CACHEPIN" check "$RD/$_n" "$RD/$_n.align" > "$RD/$_n.check" 2>&1 ||
		{ cat "$RD/$_n.check" >&2; die "'$RD/$_n': cachepin check failed"; }
	hot_sets "$RD/$_n.align" > "$RD/$_n.sets"
}

# rec_sole SIZE K PROFILE [LAYOUT PLAN-OPTION...]: (--recordings) the
# plan for SIZE:4:32 alone from PROFILE as $RD/LAYOUTKSIZE_K (LAYOUT
# cachepin by default; cachepin16_3: 16K, recording 3), linked, checked,
# measured at SIZE only
rec_sole() {
	_n=${4:-cachepin}$(($1 / 1024))_$2 _s=$1 _pf=$3
	shift 3
	[ $# -eq 0 ] || shift
	"$CACHEPIN" plan --map "$L/default.map" -c "$((_s / 1024))K:4:32" --standalone "$@" \
		-o "$RD/$_n.lds" "$L/default" "$_pf" > "$RD/$_n.plan.txt" 2>&1 ||
		{ cat "$RD/$_n.plan.txt" >&2; die "'$p': cachepin plan -c $((_s / 1024))K:4:32 $* failed for $_pf"; }
	rec_link "$_n" "$_s"
	"$CACHEPIN" check "$RD/$_n" "$RD/$_n.align" > "$RD/$_n.check" 2>&1 ||
		{ cat "$RD/$_n.check" >&2; die "'$RD/$_n': cachepin check failed"; }
}

# bench_recordings: (--recordings) a plan and a C3 order from each of
# $_RECS, linked, checked, measured; rows of recordings.csv, and of
# recordings-sets.csv the plans' hot units in another first set for
# every pair; the recordings after the first re-planned with --keep of
# its plan, and of recordings-keep.csv their hot units in another first
# set than there
bench_recordings() {
	log "$p: a plan and a C3 order from each of $RECORDINGS recordings"
	RD=$W/recordings
	rm -rf "$RD"
	mkdir -p "$RD"
	sections "$L/default.map" > "$W/sections"
	(cd "$IN" && $ENV "$L/default" $prog_args_measure < ${prog_stdin:-/dev/null} > "$W/out.ref")
	: > "$W/jobs"
	k=1
	for _P in $_RECS; do
		rec_plan cachepin$k "$W/$_P.profile"
		# the peers that depend on the recording, from the same one,
		# at every size a plan is judged at
		"$C3" "$W/$_P.profile" > "$RD/order.c3$k"
		hotfirst_order "$W/$_P.profile" > "$RD/order.hotfirst$k"
		for l in c3 hotfirst; do
			order_lds "$RD/order.$l$k" "$W/sections" > "$RD/$l$k.lds"
			rec_link $l$k "$PEER_SIZES"
		done
		lld_callgraph "$W/$_P.profile" > "$RD/lld$k.cg"
		rec_link lld$k "$PEER_SIZES" -fuse-ld=lld -Wl,--call-graph-ordering-file="$RD/lld$k.cg" \
			-Wl,--no-warn-symbol-ordering
		# re-planned with --keep of the first one's plan, as a user
		# re-plans after profiling again (keep1 is that plan)
		[ $k -eq 1 ] || rec_plan keep$k "$W/$_P.profile" --keep "$RD/cachepin1.align"
		# each geometry's own plan: a bench cell is judged on them
		for s in $SOLE_CACHES; do
			rec_sole $s $k "$W/$_P.profile"
			rec_sole $s $k "$W/$_P.profile" reference --method reference
		done
		k=$((k + 1))
	done
	log "$p: $(wc -l < "$W/jobs") cachegrind runs, $JOBS at a time"
	run_jobs "$W/jobs"
	# rows: program layout recording cache misses
	for l in cachepin c3 hotfirst lld; do
		_sizes=$PEER_SIZES
		[ $l != cachepin ] || _sizes=$CACHES
		k=1
		while [ $k -le "$RECORDINGS" ]; do
			for s in $_sizes; do
				echo "$p,$l,$k,$s,$(misses "$RD/$l$k.$s")"
			done
			k=$((k + 1))
		done
	done >> "$RESULTS/recordings.csv.tmp"
	for l in cachepin reference; do
		for s in $SOLE_CACHES; do
			k=1
			while [ $k -le "$RECORDINGS" ]; do
				_n=$l$((s / 1024))
				echo "$p,$_n,$k,$s,$(misses "$RD/${_n}_$k.$s")"
				k=$((k + 1))
			done
		done
	done >> "$RESULTS/recordings.csv.tmp"
	# the --keep plans: recording 1 is the plan they keep
	k=1
	while [ $k -le "$RECORDINGS" ]; do
		_n=keep$k
		[ $k -gt 1 ] || _n=cachepin1
		for s in $CACHES; do
			echo "$p,keep,$k,$s,$(misses "$RD/$_n.$s")"
		done
		k=$((k + 1))
	done >> "$RESULTS/recordings.csv.tmp"
	# rows: program recording common-hot-units in-another-set, of each
	# --keep plan against the plan it kept
	k=2
	while [ $k -le "$RECORDINGS" ]; do
		echo "$p,$k,$(other_sets "$RD/cachepin1.sets" "$RD/keep$k.sets" | tr ' ' ,)"
		k=$((k + 1))
	done >> "$RESULTS/recordings-keep.csv.tmp"
	# rows: program recording recording common-hot-units in-another-set
	i=1
	while [ $i -le "$RECORDINGS" ]; do
		j=$((i + 1))
		while [ $j -le "$RECORDINGS" ]; do
			echo "$p,$i,$j,$(other_sets "$RD/cachepin$i.sets" "$RD/cachepin$j.sets" | tr ' ' ,)"
			j=$((j + 1))
		done
		i=$((i + 1))
	done >> "$RESULTS/recordings-sets.csv.tmp"
}

bench_program() {
	# the recipe's functions share this shell: the driver's own
	# variables after sourcing it are either set again or upper case
	p=$1
	W=$BENCH_WORK/$p
	export W
	mkdir -p "$W"
	. "$top/bench/programs/$p.sh"
	log "$p: fetch"
	prog_fetch
	for _B in $BUILDS; do
		case $_B in
		build) _X= ;;
		build-a32) _X=-falign-functions=32 ;;
		build-a64) _X=-falign-functions=64 ;;
		esac
		log "$p: build $_B $_X"
		prog_build "$W/$_B" "$_X"
		cp "$W/$_B/link-inputs" "$W/$_B/link-inputs.use"
	done
	L=$W/layouts
	mkdir -p "$L"
	link "$W/build" "$L/default"
	IN=$W/in
	mkdir -p "$IN"
	prog_input "$IN"

	# the profile the plans are made from, and a second recording of the
	# same workload that the model is also judged on (held out)
	# (--recordings: and more of them, $p.r3 ...)
	_RECS="$p $p.holdout"
	if [ $mode = recordings ]; then
		k=3
		while [ $k -le "$RECORDINGS" ]; do
			_RECS="$_RECS $p.r$k"
			k=$((k + 1))
		done
	fi
	for _P in $_RECS; do
		[ ! -s "$W/$_P.profile" ] || [ "$L/default" -nt "$W/$_P.profile" ] || continue
		log "$p: profile $_P (perf record -e cpu-clock -g)"
		(cd "$IN" && $ENV GLIBC_TUNABLES=$TUNABLES perf record -q -e cpu-clock -F $PROFILE_FREQ -g \
			-o "$W/$_P.perf.data" -- "$L/default" $prog_args_profile \
			< ${prog_stdin:-/dev/null} > /dev/null 2> "$W/$_P.perf-record.log") ||
			die "'$p': perf record failed (see $W/$_P.perf-record.log)"
		"$CACHEPIN" profile --map "$L/default.map" -o "$W/$_P.profile" \
			"$L/default" "$W/$_P.perf.data" 2> "$W/$_P.profile.log" ||
			{ cat "$W/$_P.profile.log" >&2; die "'$p': cachepin profile failed"; }
	done
	if [ $mode = recordings ]; then
		bench_recordings
		return
	fi
	awk '$1 == "samples" { print "samples " $2 " " $3 } $1 == "f" && $4 > 0 { n++ }
		END { print "functions " n }' "$W/$p.profile" > "$W/profile.stats"

	log "$p: layouts"
	sections "$L/default.map" > "$W/sections"
	hotfirst_order "$W/$p.profile" > "$W/order.hotfirst"
	"$C3" "$W/$p.profile" > "$W/order.c3"
	for o in hotfirst c3; do
		order_lds "$W/order.$o" "$W/sections" > "$W/$o.lds"
	done
	# random orders: placement without a model, the field against which
	# the model's ranking is measured
	RANDS=
	k=1
	while [ $k -le "$RANDOM_ORDERS" ]; do
		r=$(printf '%s rand%d' "$p" $k | cksum | cut -d' ' -f1)
		random_order "$W/$p.profile" $((r % 2147483646 + 1)) > "$W/order.rand$k"
		order_lds "$W/order.rand$k" "$W/sections" > "$W/rand$k.lds"
		RANDS="$RANDS rand$k"
		k=$((k + 1))
	done
	lld_callgraph "$W/$p.profile" > "$W/lld.cg"
	for l in $LAYOUTS; do
		prof=$W/$p.profile
		case $l in
		cachepin) c=$PLAN_CACHES ;;
		cachepin-r2) c=$PLAN_CACHES prof=$W/$p.holdout.profile ;;
		cachepin16) c=16K:4:32 ;;
		cachepin32) c=32K:4:32 ;;
		cachepin64) c=64K:4:32 ;;
		reference16) c="16K:4:32 --method reference" ;;
		reference32) c="32K:4:32 --method reference" ;;
		reference64) c="64K:4:32 --method reference" ;;
		*) continue ;;
		esac
		# shellcheck disable=SC2086 # c is a geometry and, for the peers, a method
		"$CACHEPIN" plan --map "$L/default.map" -c $c --standalone \
			-o "$W/$l.lds" "$L/default" "$prof" > "$W/$l.plan.txt" 2>&1 ||
			{ cat "$W/$l.plan.txt" >&2; die "'$p': cachepin plan failed"; }
	done

	# link_layout LAYOUT OUT [EXTRA...]
	link_layout() {
		_l=$1 _out=$2
		shift 2
		case $_l in
		default) link "$W/build" "$_out" "$@" ;;
		align32) link "$W/build-a32" "$_out" "$@" ;;
		align64) link "$W/build-a64" "$_out" "$@" ;;
		hotfirst|c3|rand*) link "$W/build" "$_out" -Wl,-T,"$W/$_l.lds" "$@" ;;
		lld) link "$W/build" "$_out" -fuse-ld=lld \
			-Wl,--call-graph-ordering-file="$W/lld.cg" -Wl,--no-warn-symbol-ordering "$@" ;;
		cachepin*|reference*) link "$W/build" "$_out" -Wl,-T,"$W/$_l.lds" "$@"
			# in perturbed builds a grown hot function may push the
			# next one off its slot: counted, not fatal
			if "$CACHEPIN" check "$_out" "$W/$_l.align" > "$_out.check" 2>&1; then
				echo 0 > "$_out.moved"
			elif [ -z "$PERTURBED" ]; then
				cat "$_out.check" >&2; die "'$_out': cachepin check failed"
			else
				grep -c "^moved: hot " "$_out.check" > "$_out.moved" || true
			fi ;;
		esac
	}
	for l in $LAYOUTS $RANDS; do
		[ $l = default ] || link_layout $l "$L/$l"
	done

	log "$p: same output from every layout"
	(cd "$IN" && $ENV "$L/default" $prog_args_measure < ${prog_stdin:-/dev/null} > "$W/out.ref")
	for l in $LAYOUTS $RANDS; do
		(cd "$IN" && $ENV "$L/$l" $prog_args_measure < ${prog_stdin:-/dev/null} > "$W/out.$l")
		cmp -s "$W/out.ref" "$W/out.$l" || die "'$p' layout '$l' prints something else"
	done

	log "$p: perturbed builds"
	S=$W/stab
	rm -rf "$S"
	mkdir -p "$S"
	nobj=$(grep -c '\.o$' "$W/build/link-inputs")
	# the hot functions that can be grown: the ten heaviest defined in a
	# .text.NAME section of one of the program's own objects
	awk 'NR == FNR { if ($3 ~ /^\.text\./) o[$1] = $2; next }
	     $1 == "f" && $4 > 0 && $3 == "-" && ($2 in o) && o[$2] !~ /\(/ { print $2, o[$2]; if (++n == 10) exit }' \
		"$W/sections" "$W/$p.profile" > "$W/growable"
	[ -s "$W/growable" ] || die "'$p': no hot function of its own objects to grow"
	ngrow=$(wc -l < "$W/growable")
	r=$(printf '%s' "$p" | cksum | cut -d' ' -f1)
	r=$((r % 2147483646 + 1))
	k=1
	: > "$S/params"
	# each perturbation kind on its own (KINDS): a pad section of random
	# size at a random place of the link order (pad), the code before the
	# hot block grown (pre), one hot function grown by 4 to 64 bytes
	# (grow); the same random draws as when they were made together
	PERTURBED=1
	while [ $k -le "$PERTURB" ]; do
		r=$(rand $r); padsz=$((16 + r % 8177))
		r=$(rand $r); padpos=$((r % (nobj + 1)))
		r=$(rand $r); presz=$((4 + r % 4093))
		r=$(rand $r); gi=$((1 + r % ngrow))
		r=$(rand $r); gby=$((4 + r % 61))
		gfn=$(sed -n "${gi}p" "$W/growable" | cut -d' ' -f1)
		gobj=$(sed -n "${gi}p" "$W/growable" | cut -d' ' -f2)
		echo "$k pad=$padsz@$padpos pre=$presz grow=$gfn+$gby" >> "$S/params"
		for kind in $KINDS; do
			d=$S/$kind$k
			mkdir -p "$d"
			extra=
			for b in $BUILDS; do
				o=$(echo "$gobj" | sed "s|^$W/build/|$W/$b/|")
				case $kind in
				pad) skip_obj bench_pad $padsz "$d/pad"
					awk -v pos=$padpos -v pad="$d/pad.o" '
						/\.o$/ { if (n++ == pos) print pad }
						{ print }
						END { if (n <= pos) print pad }' "$W/$b/link-inputs" ;;
				pre) skip_obj bench_pre $presz "$d/pre"
					printf 'SECTIONS\n{\n  .text.bench_pre : { *(.text.bench_pre) }\n}\nINSERT AFTER .init;\n' > "$d/pre.lds"
					extra=-Wl,-T,$d/pre.lds
					{ echo "$d/pre.o"; cat "$W/$b/link-inputs"; } ;;
				grow) grow "$W/$b" "$o" "$gfn" $gby "$d/$b.grown.o"
					awk -v o="$o" -v g="$d/$b.grown.o" '$0 == o { print g; next } { print }' \
						"$W/$b/link-inputs" ;;
				esac > "$W/$b/link-inputs.use"
			done
			for l in $STAB_LAYOUTS; do
				link_layout $l "$d/$l" $extra
				(cd "$IN" && $ENV "$d/$l" $prog_args_measure < ${prog_stdin:-/dev/null} > "$d/out.$l")
				cmp -s "$W/out.ref" "$d/out.$l" || die "'$p' perturbed build $kind$k of '$l' prints something else"
			done
		done
		k=$((k + 1))
	done
	PERTURBED=
	for b in $BUILDS; do
		cp "$W/$b/link-inputs" "$W/$b/link-inputs.use"
	done

	log "$p: cachegrind"
	CG=$W/cg
	rm -rf "$CG"
	mkdir -p "$CG"
	: > "$W/jobs"
	for l in $LAYOUTS; do
		for s in $CACHES; do
			cg_job "$L/$l" $s 4 "$CG/$l.$s.sa" >> "$W/jobs"
			cg_job "$L/$l" $s $((s / 32)) "$CG/$l.$s.fa" >> "$W/jobs"
		done
	done
	for l in $STAB_LAYOUTS; do
		for kind in $KINDS; do
			k=1
			while [ $k -le "$PERTURB" ]; do
				for s in $STAB_CACHES; do
					cg_job "$S/$kind$k/$l" $s 4 "$CG/$l.$s.$kind$k" >> "$W/jobs"
				done
				k=$((k + 1))
			done
		done
	done
	for l in $RANDS; do
		for s in $CACHES; do
			cg_job "$L/$l" $s 4 "$CG/$l.$s.sa" >> "$W/jobs"
		done
	done
	# the model on every layout, with the plans' profile and the held-out one
	MD=$W/model
	rm -rf "$MD"
	mkdir -p "$MD"
	for l in $LAYOUTS $RANDS; do
		score_job "$L/$l" "$W/$p.profile" "$MD/$l.in" >> "$W/jobs"
		score_job "$L/$l" "$W/$p.holdout.profile" "$MD/$l.ho" >> "$W/jobs"
	done
	log "$p: $(wc -l < "$W/jobs") cachegrind and score runs, $JOBS at a time"
	run_jobs "$W/jobs"

	# rows: program layout cache misses fa-misses
	for l in $LAYOUTS; do
		for s in $CACHES; do
			echo "$p,$l,$s,$(misses "$CG/$l.$s.sa"),$(misses "$CG/$l.$s.fa")"
		done
	done >> "$RESULTS/layouts.csv.tmp"
	# rows: program layout cache model-in-sample model-held-out misses
	for l in $LAYOUTS $RANDS; do
		for s in $CACHES; do
			mi=$(model "$MD/$l.in" $s)
			mh=$(model "$MD/$l.ho" $s)
			echo "$p,$l,$s,$mi,$mh,$(misses "$CG/$l.$s.sa")"
		done
	done >> "$RESULTS/model.csv.tmp"
	for l in $STAB_LAYOUTS; do
		for s in $STAB_CACHES; do
			for kind in $KINDS; do
				k=1
				while [ $k -le "$PERTURB" ]; do
					echo "$p,$l,$s,$kind,$k,$(misses "$CG/$l.$s.$kind$k")"
					k=$((k + 1))
				done
			done
		done
	done >> "$RESULTS/stability.csv.tmp"
	{
		echo "$p $(cat "$W/version" 2>/dev/null | head -1)"
		cat "$W/profile.stats"
		echo "text $(size -A "$L/default" | awk '$1 == ".text" { print $2 }')"
		echo "args $prog_args_measure"
		for l in $STAB_LAYOUTS; do
			case $l in cachepin*) ;; *) continue ;; esac
			for kind in $KINDS; do
				echo "moved $l $kind $(cat "$S"/$kind*/$l.moved | awk '{ s += $1; if ($1 > 0) b++ } END { printf "%d %d", s, b }') $PERTURB"
			done
		done
		# two recordings of one workload, a plan from each: hot units of
		# both in another first set (the primary cache's)
		if [ -s "$W/cachepin.align" ] && [ -s "$W/cachepin-r2.align" ]; then
			hot_sets "$W/cachepin.align" > "$W/r1.sets"
			hot_sets "$W/cachepin-r2.align" > "$W/r2.sets"
			echo "recordings $(other_sets "$W/r1.sets" "$W/r2.sets") $(wc -l < "$W/r1.sets") $(wc -l < "$W/r2.sets")"
		fi
	} > "$RESULTS/$p.info.tmp"
}

if [ $mode = recordings ]; then
	rm -f "$RESULTS/recordings.csv.tmp" "$RESULTS/recordings-sets.csv.tmp" "$RESULTS/recordings-keep.csv.tmp"
	for p; do
		( bench_program "$p" )
	done
	echo "program,layout,recording,cache,misses" | cat - "$RESULTS/recordings.csv.tmp" > "$RESULTS/recordings.csv"
	echo "program,recording,recording,hot_units,other_set" |
		cat - "$RESULTS/recordings-sets.csv.tmp" > "$RESULTS/recordings-sets.csv"
	echo "program,recording,hot_units,other_set" |
		cat - "$RESULTS/recordings-keep.csv.tmp" > "$RESULTS/recordings-keep.csv"
	rm -f "$RESULTS/recordings.csv.tmp" "$RESULTS/recordings-sets.csv.tmp" "$RESULTS/recordings-keep.csv.tmp"
	PLAN_CACHES=$PLAN_CACHES RECORDINGS=$RECORDINGS "$top/bench/report.sh" --recordings "$RESULTS" "$@"
	exit 0
fi
rm -f "$RESULTS/layouts.csv.tmp" "$RESULTS/stability.csv.tmp" "$RESULTS/model.csv.tmp"
for p; do
	( bench_program "$p" )
done
echo "program,layout,cache,misses,fa_misses" | cat - "$RESULTS/layouts.csv.tmp" > "$RESULTS/layouts.csv"
echo "program,layout,cache,kind,build,misses" | cat - "$RESULTS/stability.csv.tmp" > "$RESULTS/stability.csv"
echo "program,layout,cache,model_insample,model_holdout,misses" | cat - "$RESULTS/model.csv.tmp" > "$RESULTS/model.csv"
rm -f "$RESULTS/layouts.csv.tmp" "$RESULTS/stability.csv.tmp" "$RESULTS/model.csv.tmp"
for p; do mv "$RESULTS/$p.info.tmp" "$RESULTS/$p.info"; done
PLAN_CACHES=$PLAN_CACHES "$top/bench/report.sh" "$RESULTS" "$@"
