#!/bin/sh
# A recording of a program that does three things in turn: the profile's slices are its phases, by what the samples hit, not stretches of its clock.
. "$(dirname "$0")/test-subr.sh"
need_cmd perf gcc

gcc -O2 -g -fno-omit-frame-pointer -no-pie -ffunction-sections -fdebug-prefix-map="$PWD"=. \
	-Wl,-Map,phases.map -o phases "$srcdir/src/phases.c"
# 25 rounds of three phases of about 30 ms of CPU: about 9000 samples at 4000 Hz
perf_record p.data ./phases 25 14000
$CACHEPIN profile -o p.prof phases p.data 2> err.txt || { cat err.txt >&2; fail "profile failed"; }

# version 4, and the slices are phases
testrun_compare sed -n '1p; s/^slices [0-9]*$/slices N/p; /^phases$/p' p.prof <<'P'
# cachepin-profile 4
slices N
phases
P
ns=$(sed -n 's/^slices //p' p.prof)
[ "$ns" -ge 3 ] || fail "$ns slices for three phases"

# each phase's function has most of its weight in slices it dominates (at
# least half of the three's weight there); 16 stretches of 140 ms would
# each hold all three alike
cat > purity.awk <<'A'
$1 == "slices" { ns = $2 }
$1 == "f" { fn = $2 }
$1 == "g" && (fn == "parse" || fn == "optimise" || fn == "emit") {
	for (k = 0; k < ns; k++) { w[fn, k] += $(4 + k); tot[k] += $(4 + k); all[fn] += $(4 + k) }
}
END {
	n = split("parse optimise emit", F, " ")
	for (i = 1; i <= n; i++) {
		f = F[i]; own = 0
		for (k = 0; k < ns; k++)
			if (tot[k] > 0 && w[f, k] >= 0.5 * tot[k])
				own += w[f, k]
		printf "%s %d\n", f, (all[f] > 0 ? 100 * own / all[f] : 0)
	}
}
A
awk -f purity.awk p.prof > purity.txt
cat purity.txt
awk '$2 < 75 { bad = 1; print "  " $1 ": " $2 " % of its weight in slices it dominates" }
     END { exit bad }' purity.txt >&2 || fail "the slices are not the program's phases"

# the slices split each granule's weight and nothing else
awk -v ns="$ns" '$1 == "g" { s = 0; for (k = 0; k < ns; k++) s += $(4 + k)
		 if (s < $3 * 0.999999 || s > $3 * 1.000001) { print; bad = 1 } }
	END { exit bad }' p.prof >&2 || fail "slice weights do not add up to the granules'"

# the same recording, the same phases
$CACHEPIN profile -o again.prof phases p.data 2> /dev/null || fail "second profile failed"
cmp -s p.prof again.prof || fail "two profiles of one recording differ"

# the held-out halves split each line's samples and keep the phases
$CACHEPIN plan -c 4K:4:32 --map phases.map -o p.lds phases p.prof > /dev/null 2> plan.err || { cat plan.err >&2; fail "plan failed"; }
testrun_compare grep '^cachepin: held-out misses' plan.err <<'P'
cachepin: held-out misses (planned on half of each line's samples, scored on the other half, and back):
P

# too short a recording for phases (fewer than 16 x 8 windows of 32
# samples): the time slices stay, version 3 or lower
perf_record short.data ./phases 2 7000
$CACHEPIN profile -o short.prof phases short.data 2> /dev/null || fail "profile of the short recording failed"
if grep -q '^phases$' short.prof; then
	fail "a recording of $(sed -n 's/^samples \([0-9]*\).*/\1/p' short.prof) samples has phases"
fi

# score says what its model replays: the phases, or the short one's time slices
$CACHEPIN score -c 4K:4:32 --map phases.map phases p.prof > score.txt 2> /dev/null || fail "score failed"
$CACHEPIN score -c 4K:4:32 --map phases.map phases short.prof > short-score.txt 2> /dev/null ||
	fail "score of the short recording failed"
testrun_compare sed -n 's/^model: .* granules in [0-9]* \(phases\|time slices\), .*/\1/p' score.txt short-score.txt <<'P'
phases
time slices
P
$CACHEPIN score -c 4K:4:32 --json --map phases.map phases p.prof > score.json 2> /dev/null ||
	fail "score --json failed"
testrun_compare sed -n 's/.*"slices": \([0-9]*\), "phases": \([a-z]*\) }.*/slices \1 phases \2/p' score.json <<P
slices $ns phases true
P
exit 0
