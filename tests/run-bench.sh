#!/bin/sh
# The layout benchmark's pipeline, smallest run (bench/run.sh --check): real readelf, every step, sane numbers.
. "$(dirname "$0")/test-subr.sh"
need_cmd perf valgrind ld.lld bear jq
[ -r /usr/src/binutils/binutils-2.40.tar.xz ] || skip "no binutils-source"

# The program's builds are kept between runs (build/bench/layout); the
# results go to this test's directory.
R=$testdir/results
RESULTS=$R CACHEPIN=$top/cachepin "$top/bench/run.sh" --check readelf > bench.out 2> bench.err ||
	{ tail -20 bench.err >&2; fail "bench/run.sh --check failed"; }

csv=$R/layouts.csv
[ -s "$csv" ] || fail "no $csv"
# every layout measured, misses >= the fully associative reference > 0
for l in default hotfirst c3 lld cachepin cachepin-r2; do
	row=$(grep "^readelf,$l,32768," "$csv") || fail "no row for layout $l"
	m=$(echo "$row" | cut -d, -f4)
	fa=$(echo "$row" | cut -d, -f5)
	[ "$fa" -gt 0 ] || fail "$l: fully associative misses '$fa'"
	[ "$m" -ge "$fa" ] || fail "$l: $m set-associative misses below the fully associative $fa"
done
# the planned layout beats the default link in the model, on the second
# recording (held out), as the planner promises.  In cachegrind it beats it
# mostly, not always: plans from single recordings of this workload had
# 12,439 to 26,468 misses against the default link's 19,394 in a fresh
# Debian 12 root, 1 of 20 worse, and 13,484 to 26,253 against 25,755
# here, 1 of 8 (the bench's tables are the measure of that, not a test).
def=$(awk -F, '$2 == "default" && $3 == 32768 { print $5 }' "$R/model.csv")
cp=$(awk -F, '$2 == "cachepin" && $3 == 32768 { print $5 }' "$R/model.csv")
[ -n "$def" ] && [ -n "$cp" ] || fail "no held-out model figures for default and cachepin"
[ "$cp" -lt "$def" ] || fail "cachepin layout: $cp held-out modelled misses, default $def"
# one perturbed build per layout and kind of change, measured
n=$(grep -Ec '^readelf,[a-z0-9]+,32768,(pad|pre|grow),1,[0-9]+$' "$R/stability.csv")
[ "$n" -eq 15 ] || fail "stability rows: $n, want 15"
# cachepin check of each kind's build, and the two recordings' plans compared
for k in pad pre grow; do
	grep -Eq "^moved cachepin $k [0-9]+ [0-9]+ 1$" "$R/readelf.info" || fail "no check count of the $k build"
done
grep -Eq '^recordings [0-9]+ [0-9]+ [0-9]+ [0-9]+$' "$R/readelf.info" || fail "the two recordings' plans are not compared"
grep -Eq '^readelf: [0-9]+ of [0-9]+ hot units in both plans in another set; 32768: [0-9]+ and [0-9]+ ' "$R/layouts.md" ||
	fail "layouts.md does not compare the two recordings' plans"
# the model's figure of every layout and of the two random orders, in
# sample and held out, beside cachegrind's
n=$(grep -Ec '^readelf,[a-z0-9-]+,32768,[0-9]+,[0-9]+,[0-9]+$' "$R/model.csv")
[ "$n" -eq 8 ] || fail "model rows: $n, want 8"
for l in default cachepin rand1 rand2; do
	grep -q "^readelf,$l,32768," "$R/model.csv" || fail "no model row for $l"
done
grep -q '^## Model fidelity' "$R/layouts.md" || fail "no model fidelity section"
grep -q '^| cachepin |' "$R/layouts.md" || fail "no cachepin row in layouts.md"
grep -q '^## Stability' "$R/layouts.md" || fail "no stability table"

# --recordings: two new recordings, a plan, the 32K cache's own plan and
# the peers that depend on a recording (C3, hotfirst, lld, the reference
# colouring) from each; the own plans against the best peer of their own
# recording and the links of layouts.csv that need none
R2=$testdir/recordings
mkdir -p "$R2"
cp "$R/layouts.csv" "$R2/"
RESULTS=$R2 RECORDINGS=2 CACHES=32768 SOLE_CACHES=32768 CACHEPIN=$top/cachepin "$top/bench/run.sh" --recordings readelf \
	> rec.out 2> rec.err || { tail -20 rec.err >&2; fail "bench/run.sh --recordings failed"; }
n=$(grep -Ec '^readelf,(cachepin|c3|keep|cachepin32),[12],32768,[1-9][0-9]*$' "$R2/recordings.csv")
[ "$n" -eq 8 ] || fail "recordings rows: $n, want 8"
n=$(grep -Ec '^readelf,(hotfirst|lld|reference32),[12],32768,[1-9][0-9]*$' "$R2/recordings.csv")
[ "$n" -eq 6 ] || fail "peers' rows from the recordings: $n, want 6"
# the second recording re-planned with --keep of the first one's plan:
# recording 1 of that layout is the first plan, and the code did not
# change, so every hot unit both plans have keeps its set
awk -F, '$2 == "cachepin" && $3 == 1 { a = $5 } $2 == "keep" && $3 == 1 { b = $5 }
	END { exit !(a != "" && a == b) }' "$R2/recordings.csv" ||
	fail "the --keep layout's recording 1 is not the first plan"
grep -Eq '^readelf,2,[1-9][0-9]*,0$' "$R2/recordings-keep.csv" ||
	fail "the --keep plan moved hot units of the plan it kept: $(sed -n 2p "$R2/recordings-keep.csv")"
grep -Eq '^readelf,1,2,[1-9][0-9]*,[0-9]+$' "$R2/recordings-sets.csv" || fail "the two plans' sets are not compared"
awk -F, 'NR > 1 && $5 > $4 { exit 1 }' "$R2/recordings-sets.csv" ||
	fail "more hot units in another set than in both plans"
# the table's figures from the rows: min, median, max, the pair's difference
awk -F, 'NR > 1 { m[$2, $3] = $5 }
	function row(l,	a, b, lo, hi) {
		a = m[l, 1]; b = m[l, 2]; lo = a < b ? a : b; hi = a < b ? b : a
		printf "| readelf | 32K | %s | %d | %d | %d | %.1f %% | %.1f %% | %d of 1 |\n",
			l, lo, (a + b) / 2, hi, (hi - lo) / lo * 100, (hi - lo) / lo * 100, (hi - lo) / lo * 100 <= 3
	}
	END { row("cachepin"); row("c3"); row("keep"); row("cachepin32") }' "$R2/recordings.csv" > expect
awk -F, 'FNR == 1 { f++ } f == 1 && FNR > 1 && $1 == "readelf" && $2 ~ /^(default|align32|align64)$/ && $3 == 32768 {
		fixed[$2] = $4 }
	f == 2 && $2 == "cachepin32" { v[$3] = $5 }
	f == 2 && $2 ~ /^(c3|hotfirst|lld|reference32)$/ { l = $2; sub(/32$/, "", l); peer[$3, l] = $5 }
	END {
		for (k = 1; k <= 2; k++) {
			bp = ""
			for (l in fixed)
				if (bp == "" || fixed[l] < pm || (fixed[l] == pm && l < bp)) { bp = l; pm = fixed[l] }
			for (x in peer) {
				split(x, kl, SUBSEP)
				if (kl[1] == k && (peer[x] < pm || (peer[x] == pm && kl[2] < bp))) { bp = kl[2]; pm = peer[x] }
			}
			r[k] = v[k] / pm
			if (v[k] <= pm) at++
			else lost = lost (lost == "" ? "" : ", ") sprintf("%d: %s %.3f", k, bp, r[k])
		}
		lo = v[1] < v[2] ? v[1] : v[2]; hi = v[1] < v[2] ? v[2] : v[1]
		printf "| readelf | 32K | %d | %d | %d | %.3f | %.3f | %d of 2 | %s |\n", lo, (v[1] + v[2]) / 2, hi,
			(r[1] + r[2]) / 2, (r[1] > r[2] ? r[1] : r[2]), at, (lost == "" ? "-" : lost) }' \
	"$R/layouts.csv" "$R2/recordings.csv" >> expect
grep '^| readelf | 32K |' "$R2/recordings.md" > got
testrun_compare cat got < expect
exit 0
