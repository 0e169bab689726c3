#!/bin/sh
# Tables and plot of the layout benchmark (called by bench/run.sh).
#
# usage: bench/report.sh [--recordings] RESULTS PROGRAM...
#
# Reads RESULTS/layouts.csv, stability.csv, PROGRAM.info and, if there,
# model.csv; writes RESULTS/layouts.md and, if gnuplot is installed,
# RESULTS/layouts.svg.
#
# bench/report.sh --recordings RESULTS PROGRAM... reads recordings.csv and
# recordings-sets.csv (bench/run.sh --recordings) and writes recordings.md.
set -e
mode=layouts
[ "$1" != --recordings ] || { mode=recordings; shift; }
[ $# -ge 2 ] || { echo "usage: bench/report.sh [--recordings] RESULTS PROGRAM..." >&2; exit 129; }
R=$1
shift
CSV=$R/layouts.csv
STAB=$R/stability.csv
MODEL=$R/model.csv
[ $mode = recordings ] || [ -r "$CSV" ] ||
	{ echo "error: '$CSV': not readable" >&2; echo "hint: run bench/run.sh" >&2; exit 1; }

ksize() { echo "$(($1 / 1024))K"; }
# table_head "LEAD COLUMNS" "SIZES" FIRST OTHER...: a Markdown table head,
# the columns FIRST (after the size) and OTHER... repeated for each size
table_head() {
	_lead=$1 _sizes=$2 _first=$3
	shift 3
	printf '|'
	for _c in $_lead; do printf ' %s |' "$_c"; done
	for _s in $_sizes; do
		printf ' %s %s |' "$(ksize $_s)" "$_first"
		for _c; do printf ' %s |' "$_c"; done
	done
	echo
	printf '|'
	for _c in $_lead; do printf -- '---|'; done
	for _s in $_sizes; do
		printf -- '---:|'
		for _c; do printf -- '---:|'; done
	done
	echo
}
# awk functions: sort(V, N) sorts V[1..N]; median(V, N) sorts them and
# gives their median; ranks(V, N, R) gives R[i] the
# rank of V[i], ties the average of their ranks; spearman(A, B, N) is the
# rank correlation of A[1..N] and B[1..N] ("-" if one of them is constant);
# best_peer(M, L, S) is the layout of L that is not cachepin's with the
# fewest misses M[layout, S] at size S (the first by name of equals)
AWKLIB='
function sort(v, n,   i, j, t) {
	for (i = 2; i <= n; i++) {
		t = v[i]
		for (j = i - 1; j >= 1 && v[j] > t; j--)
			v[j + 1] = v[j]
		v[j + 1] = t
	}
}
function median(v, n) {
	sort(v, n)
	return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
function ranks(v, n, r,   i, j, k, x, t) {
	for (i = 1; i <= n; i++)
		x[i] = i
	for (i = 2; i <= n; i++) {
		t = x[i]
		for (j = i - 1; j >= 1 && v[x[j]] > v[t]; j--)
			x[j + 1] = x[j]
		x[j + 1] = t
	}
	for (i = 1; i <= n; i = j + 1) {
		for (j = i; j < n && v[x[j + 1]] == v[x[i]]; j++)
			;
		for (k = i; k <= j; k++)
			r[x[k]] = (i + j) / 2
	}
}
function best_peer(m, L, s,   bp, l) {
	bp = ""
	for (l in L)
		if (l !~ /^cachepin/ && (bp == "" || m[l, s] < m[bp, s] || (m[l, s] == m[bp, s] && l < bp)))
			bp = l
	return bp
}
function spearman(a, b, n,   ra, rb, i, ma, mb, sab, saa, sbb) {
	if (n < 2)
		return "-"
	ranks(a, n, ra)
	ranks(b, n, rb)
	for (i = 1; i <= n; i++) {
		ma += ra[i]
		mb += rb[i]
	}
	ma /= n
	mb /= n
	for (i = 1; i <= n; i++) {
		sab += (ra[i] - ma) * (rb[i] - mb)
		saa += (ra[i] - ma) ^ 2
		sbb += (rb[i] - mb) ^ 2
	}
	return saa > 0 && sbb > 0 ? sprintf("%.2f", sab / sqrt(saa * sbb)) : "-"
}
'

# other_sets_table CSV PROGRAM...: the table of hot units in another
# first set, from rows whose last two fields are the hot units both plans
# have and how many of them moved
other_sets_table() {
	_csv=$1
	shift
	echo "| program | pairs | median | fewest | most |"
	echo "|---|---:|---:|---:|---:|"
	awk -F, -v progs="$*" '
	NR > 1 { k = $1; n[k]++; f = $NF / ($(NF - 1) ? $(NF - 1) : 1) * 100; v[k, n[k]] = f; c[k, n[k]] = $NF "/" $(NF - 1) }
	END {
		np = split(progs, P, " ")
		for (i = 1; i <= np; i++) {
			k = P[i]; t = n[k]
			if (!t) continue
			for (a = 1; a <= t; a++) { o[a] = v[k, a]; lab[a] = c[k, a] }
			for (a = 2; a <= t; a++)
				for (b = a; b > 1 && o[b - 1] > o[b]; b--) {
					x = o[b]; o[b] = o[b - 1]; o[b - 1] = x
					x = lab[b]; lab[b] = lab[b - 1]; lab[b - 1] = x
				}
			printf "| %s | %d | %.0f %% | %s | %s |\n", k, t, t % 2 ? o[(t + 1) / 2] : (o[t / 2] + o[t / 2 + 1]) / 2, lab[1], lab[t]
		}
	}' "$_csv"
}

# --recordings: the plans and C3 orders of several recordings
if [ $mode = recordings ]; then
	[ -r "$R/recordings.csv" ] || { echo "error: '$R/recordings.csv': not readable" >&2
		echo "hint: run bench/run.sh --recordings" >&2; exit 1; }
	{
	echo "# Plans from $RECORDINGS recordings of each workload"
	echo
	echo "\`bench/run.sh --recordings\`: the same workload recorded $RECORDINGS times (\`perf"
	echo "record -e cpu-clock -g\`), cachepin's plan for $PLAN_CACHES, each cache's own"
	echo "plan (cachepin16, cachepin32, cachepin64: measured at their size only) and"
	echo "C3's order made from each, cachegrind's I1 misses (4 ways, 32-byte lines).  A pair's"
	echo "difference is |a - b| / min(a, b), over every pair of recordings.  Layout"
	echo "keep: each recording after the first re-planned with \`cachepin plan --keep\`"
	echo "of the first one's plan, as a user re-plans after profiling again (its"
	echo "recording 1 is that plan)."
	echo
	echo "| program | cache | layout | min | median | max | median pair difference | largest | pairs within 3 % |"
	echo "|---|---:|---|---:|---:|---:|---:|---:|---:|"
	awk -F, -v progs="$*" "$AWKLIB"'
	NR > 1 { k = $1 SUBSEP $4 SUBSEP $2; n[k]++; m[k, n[k]] = $5; sizes[$4] = 1 }
	END {
		np = split(progs, P, " ")
		ns = 0
		for (s in sizes) S[++ns] = s + 0
		sort(S, ns)
		for (i = 1; i <= np; i++)
			for (j = 1; j <= ns; j++)
				for (l = 1; l <= 4; l++) {
					lay = l == 1 ? "cachepin" : l == 2 ? "c3" : l == 3 ? "keep" : "cachepin" S[j] / 1024
					k = P[i] SUBSEP S[j] SUBSEP lay
					c = n[k]
					if (c < 2)
						continue
					for (a = 1; a <= c; a++) v[a] = m[k, a]
					np2 = 0; in3 = 0
					for (a = 1; a <= c; a++)
						for (b = a + 1; b <= c; b++) {
							x = m[k, a]; y = m[k, b]
							d = (x > y ? x - y : y - x) / (x < y ? x : y) * 100
							pd[++np2] = d
							if (d <= 3) in3++
						}
					med = median(pd, np2)
					mx = pd[np2]
					printf "| %s | %dK | %s | %d | %d | %d | %.1f %% | %.1f %% | %d of %d |\n",
						P[i], S[j] / 1024, lay, min(v, c), median(v, c), max(v, c),
						med, mx, in3, np2
				}
	}
	function min(v, c,	a, r) { r = v[1]; for (a = 2; a <= c; a++) if (v[a] < r) r = v[a]; return r }
	function max(v, c,	a, r) { r = v[1]; for (a = 2; a <= c; a++) if (v[a] > r) r = v[a]; return r }
	' "$R/recordings.csv"
	echo
	echo "Each cache's own plan (cachepin16, cachepin32, cachepin64) from each"
	echo "recording against the best peer made from the same recording (hotfirst,"
	echo "c3, lld, and the reference colouring for that cache alone) and the links"
	echo "that need no recording (default, align32, align64 of \`layouts.csv\`, when"
	echo "there): ratio = plan / best peer, one per recording; the median over the"
	echo "recordings is the cell's verdict."
	echo
	echo "| program | cache | plan min | median | max | ratio median | ratio worst | recordings at or below their peer | lost to (recording: peer ratio) |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---|"
	for p; do
		{ [ -r "$CSV" ] && cat "$CSV" || echo; echo "--"; cat "$R/recordings.csv"; } |
		awk -F, -v p="$p" "$AWKLIB"'
			$0 == "--" { f = 2; next }
			f != 2 && $1 == p && $2 ~ /^(default|align32|align64)$/ { fixed[$2, $3] = $4; FL[$2] = 1 }
			f == 2 && $1 == p {
				if ($2 == "cachepin" $4 / 1024) { plan[$4, $3] = $5; sz[$4] = 1; if ($3 > nk[$4]) nk[$4] = $3 }
				else if ($2 ~ /^(c3|hotfirst|lld)$/ || $2 == "reference" $4 / 1024) {
					lab = $2 ~ /^reference/ ? "reference" : $2
					peer[$4, $3, lab] = $5; PL[lab] = 1
				}
			}
			END {
				for (s in sz) {
					c = 0; lo = 0; worst = 0; lost = ""
					for (k = 1; k <= nk[s]; k++) {
						if (!((s, k) in plan))
							continue
						# the peers of recording K and the links that need none
						delete m
						delete L
						for (l in FL)
							if ((l, s) in fixed) { m[l, s] = fixed[l, s]; L[l] = 1 }
						for (l in PL)
							if ((s, k, l) in peer) { m[l, s] = peer[s, k, l]; L[l] = 1 }
						bp = best_peer(m, L, s)
						if (bp == "" || !(m[bp, s] > 0))
							continue
						bv = m[bp, s]
						x[++c] = plan[s, k]
						r[c] = plan[s, k] / bv
						if (r[c] > worst)
							worst = r[c]
						if (plan[s, k] <= bv)
							lo++
						else
							lost = lost (lost == "" ? "" : ", ") sprintf("%d: %s %.3f", k, bp, r[c])
					}
					if (c < 1)
						continue
					sort(x, c)
					printf "%d| %s | %dK | %d | %d | %d | %.3f | %.3f | %d of %d | %s |\n", s, p, s / 1024, x[1], median(x, c), x[c], median(r, c), worst, lo, c, lost == "" ? "-" : lost
				}
			}' | sort -n | cut -d'|' -f2- | sed 's/^/|/'
	done
	echo
	echo "Hot units of two plans in another first set (of the hot units both plans"
	echo "have), over every pair of recordings:"
	echo
	other_sets_table "$R/recordings-sets.csv" "$@"
	echo
	echo "Hot units of a --keep plan in another first set than in the plan it kept"
	echo "(of the hot units both have), over the recordings after the first:"
	echo
	other_sets_table "$R/recordings-keep.csv" "$@"
	} > "$R/recordings.md.tmp"
	mv "$R/recordings.md.tmp" "$R/recordings.md"
	exit 0
fi
caches=$(awk -F, 'NR > 1 { if (!($3 in s)) { s[$3] = 1; print $3 } }' "$CSV" | sort -n)
stabc=$(awk -F, 'NR > 1 { if (!($3 in s)) { s[$3] = 1; print $3 } }' "$STAB" | sort -n)

{
echo "# Layout benchmark"
echo
echo "L1I misses counted by \`valgrind --tool=cachegrind\` (4 ways, 32-byte lines)"
echo "for each layout of the same objects and the same workload.  *FA* is the"
echo "same run with a fully associative cache of the same size: what is left"
echo "with no conflict misses at all.  *conflict* = misses - FA."
for p; do
	echo
	echo "## $p"
	echo
	awk '{ if ($1 == "samples") printf "Profile: %d samples, ", $2;
	       else if ($1 == "functions") printf "%d functions with samples. ", $2;
	       else if ($1 == "text") printf "Text: %d bytes. ", $2;
	       else if ($1 == "args") { $1 = ""; printf "Measured run: `%s`.\n", substr($0, 2) }
	       else if (NR == 1 && NF > 1) { v = $0; sub(/^[^ ]* /, "", v); printf "Version: %s. ", v } }' "$R/$p.info"
	echo
	table_head layout "$caches" misses FA "x FA" conflict
	awk -F, -v p="$p" -v caches="$caches" '
		NR > 1 && $1 == p { m[$2, $3] = $4; fa[$2, $3] = $5; if (!($2 in seen)) { seen[$2] = 1; order[n++] = $2 } }
		END {
			nc = split(caches, c, /[ \n]+/)
			for (j = 1; j <= nc; j++) {
				best[c[j]] = -1
				for (i = 0; i < n; i++) if (best[c[j]] < 0 || m[order[i], c[j]] < best[c[j]]) best[c[j]] = m[order[i], c[j]]
			}
			for (i = 0; i < n; i++) {
				l = order[i]; printf "| %s |", l
				for (j = 1; j <= nc; j++) {
					s = c[j]; x = m[l, s]
					b = (x == best[s]) ? "**" : ""
					printf " %s%d%s | %d | %.2f | %d |", b, x, b, fa[l, s], fa[l, s] ? x / fa[l, s] : 0, x - fa[l, s]
				}
				print ""
			}
		}' "$CSV"
	# the random orders in one row (model.csv has their misses)
	[ -r "$MODEL" ] || continue
	awk -F, -v p="$p" -v caches="$caches" "$AWKLIB"'
		NR > 1 && $1 == p && $2 ~ /^rand[0-9]+$/ { v[$3, ++k[$3]] = $6 + 0 }
		END {
			nc = split(caches, c, /[ \n]+/)
			if (!k[c[1]])
				exit
			printf "| random (%d): min / median / max |", k[c[1]]
			for (j = 1; j <= nc; j++) {
				m = k[c[j]]
				for (i = 1; i <= m; i++)
					x[i] = v[c[j], i]
				sort(x, m)
				med = (m % 2) ? x[(m + 1) / 2] : (x[m / 2] + x[m / 2 + 1]) / 2
				printf " %d / %d / %d | - | - | - |", x[1], med, x[m]
			}
			print ""
		}' "$MODEL"
done

echo
echo "## Summary"
echo
echo "Each cache's own plan (cachepin16, cachepin32, cachepin64) against the best"
echo "of the layouts that are not cachepin's (conflict = misses - FA; ratio ="
echo "plan / peer):"
echo
echo "| program | cache | plan | its misses | best peer | its misses | ratio | plan conflict | peer conflict | conflict ratio |"
echo "|---|---:|---|---:|---|---:|---:|---:|---:|---:|"
for p; do
	awk -F, -v p="$p" "$AWKLIB"'
		NR > 1 && $1 == p { m[$2, $3] = $4; fa[$2, $3] = $5; L[$2] = 1; C[$3] = 1 }
		END {
			for (s in C) {
				y = "cachepin" s / 1024
				if (!(y in L))
					continue
				bp = best_peer(m, L, s)
				cc = m[y, s] - fa[y, s]; pc = m[bp, s] - fa[bp, s]
				printf "%d| %s | %dK | %s | %d | %s | %d | %.3f | %d | %d | %s |\n", s, p, s / 1024, y, m[y, s], bp, m[bp, s], m[bp, s] ? m[y, s] / m[bp, s] : 0, cc, pc, (pc > 0 ? sprintf("%.2f", cc / pc) : "-")
			}
		}' "$CSV" | sort -n | cut -d'|' -f2- | sed 's/^/|/'
done
# the sizes cachepin's multi-geometry plan is for
plan_sizes=$(echo "${PLAN_CACHES:-32K:4:32,64K:4:32}" | tr ',' '\n' |
	awk -F: '{ v = $1; m = 1; if (v ~ /K$/) m = 1024; else if (v ~ /M$/) m = 1048576; sub(/[KM]$/, "", v); print v * m }')
echo
echo "cachepin, the plan for ${PLAN_CACHES:-32K:4:32,64K:4:32}, at each of its geometries against the"
echo "default link and the best of the layouts that are not cachepin's:"
echo
echo "| program | cache | cachepin misses | default | change | best peer | its misses | ratio |"
echo "|---|---:|---:|---:|---:|---|---:|---:|"
for p; do
	awk -F, -v p="$p" -v sizes="$plan_sizes" "$AWKLIB"'
		BEGIN { n = split(sizes, z, /[ \n]+/); for (i = 1; i <= n; i++) P[z[i]] = 1 }
		NR > 1 && $1 == p { m[$2, $3] = $4; L[$2] = 1; C[$3] = 1 }
		END {
			if (!("cachepin" in L))
				exit
			for (s in C) {
				if (!(s in P))
					continue
				bp = best_peer(m, L, s)
				d = m["default", s]
				printf "%d| %s | %dK | %d | %d | %s | %s | %d | %.3f |\n", s, p, s / 1024, m["cachepin", s], d, d ? sprintf("%+.1f %%", (m["cachepin", s] - d) * 100 / d) : "-", bp, m[bp, s], m[bp, s] ? m["cachepin", s] / m[bp, s] : 0
			}
		}' "$CSV" | sort -n | cut -d'|' -f2- | sed 's/^/|/'
done

echo
echo "## Stability"
echo
echo "Misses over the perturbed builds of each layout, one kind of change a"
echo "build: pad, a pad section of random size at a random place in the link"
echo "order; pre, the code before the hot block grown; grow, one hot function"
echo "grown by 4 to 64 bytes (the same changes for every layout).  spread ="
echo "(max - min) / median."
echo
table_head "program layout kind" "$stabc" min median max spread
for p; do
	awk -F, -v p="$p" -v caches="$stabc" '
		NR > 1 && $1 == p {
			r = $2 SUBSEP $4; v[r, $3, ++k[r, $3]] = $6
			if (!(r in seen)) { seen[r] = 1; order[n++] = r }
		}
		END {
			nc = split(caches, c, /[ \n]+/)
			for (i = 0; i < n; i++) {
				r = order[i]; split(r, lk, SUBSEP); printf "| %s | %s | %s |", p, lk[1], lk[2]
				for (j = 1; j <= nc; j++) {
					s = c[j]; m = k[r, s]
					for (a = 1; a <= m; a++) x[a] = v[r, s, a]
					for (a = 2; a <= m; a++) { t = x[a]; for (b = a - 1; b >= 1 && x[b] > t; b--) x[b + 1] = x[b]; x[b + 1] = t }
					med = (m % 2) ? x[(m + 1) / 2] : (x[m / 2] + x[m / 2 + 1]) / 2
					printf " %d | %d | %d | %.1f %% |", x[1], med, x[m], med ? (x[m] - x[1]) * 100 / med : 0
				}
				print ""
			}
		}' "$STAB"
done
echo
for p; do
	awk -v p="$p" '$1 == "moved" { printf "%s, %s, %s: cachepin check of the %d perturbed builds: %d hot units off their planned offsets (in %d builds).\n", p, $2, $3, $6, $4, $5 }' "$R/$p.info"
done
echo
echo "Two recordings of one workload, a plan from each (cachepin and"
echo "cachepin-r2, for $PLAN_CACHES): hot units of both plans in another first set,"
echo "and the cachegrind misses of the two plans' links."
echo
for p; do
	awk -F, -v p="$p" 'NR == FNR { if ($1 == "recordings") { both = $2; moved = $3 } next }
		$1 == p && $2 == "cachepin" { a[$3] = $4 } $1 == p && $2 == "cachepin-r2" { b[$3] = $4 }
		END {
			if (both == "") exit
			printf "%s: %d of %d hot units in both plans in another set;", p, moved, both
			for (s in a) if (s in b) ks[++nk] = s + 0
			for (i = 2; i <= nk; i++) { t = ks[i]; for (j = i - 1; j >= 1 && ks[j] > t; j--) ks[j + 1] = ks[j]; ks[j + 1] = t }
			for (i = 1; i <= nk; i++) { s = ks[i]; printf " %s: %d and %d (%+.1f %%);", s, a[s], b[s], a[s] ? (b[s] - a[s]) * 100 / a[s] : 0 }
			print ""
		}' FS=' ' "$R/$p.info" FS=, "$CSV"
done

if [ -r "$MODEL" ]; then
echo
echo "## Model fidelity"
echo
echo "How well the model that cachepin's plans are searched on ranks layouts:"
echo "\`cachepin score\`'s LRU misses of each layout at the same geometry as"
echo "cachegrind's (4 ways, 32-byte lines), with the profile the plans were made"
echo "from (*in sample*) and with a second recording of the same workload (*held"
echo "out*), against cachegrind's misses.  The model replays the profiled run and"
echo "cachegrind counts a shorter one, so their absolute figures differ: ranks and"
echo "changes are what compare.  *Spearman*: rank correlation over all layouts of"
echo "the program, random orders included (ties take their average rank; 1 = the"
echo "model orders the layouts as cachegrind does).  ld.lld writes no GNU ld map:"
echo "its layout is scored on the binary's symbols."
echo
echo "| program | cache | layouts | Spearman in sample | Spearman held out |"
echo "|---|---:|---:|---:|---:|"
for p; do
	awk -F, -v p="$p" -v caches="$caches" "$AWKLIB"'
		NR > 1 && $1 == p { n = ++k[$3]; mi[$3, n] = $4 + 0; mh[$3, n] = $5 + 0; cg[$3, n] = $6 + 0 }
		END {
			nc = split(caches, c, /[ \n]+/)
			for (j = 1; j <= nc; j++) {
				s = c[j]; n = k[s]
				for (i = 1; i <= n; i++) {
					a[i] = mi[s, i]; b[i] = mh[s, i]; x[i] = cg[s, i]
				}
				printf "| %s | %dK | %d | %s | %s |\n", p, s / 1024, n, spearman(a, x, n), spearman(b, x, n)
			}
		}' "$MODEL"
done
echo
echo "Change from the default layout, modelled and counted by cachegrind:"
echo
echo "| program | cache | layout | model in sample | model held out | cachegrind |"
echo "|---|---:|---|---:|---:|---:|"
for p; do
	awk -F, -v p="$p" -v caches="$caches" '
		function pct(x, d) { return d > 0 ? sprintf("%+.1f %%", (x - d) * 100 / d) : "-" }
		NR > 1 && $1 == p { mi[$2, $3] = $4; mh[$2, $3] = $5; cg[$2, $3] = $6 }
		END {
			nc = split(caches, c, /[ \n]+/)
			for (j = 1; j <= nc; j++) {
				s = c[j]
				if (!(("default", s) in cg))
					continue
				ny = split("cachepin cachepin16 cachepin32 cachepin64", ys, " ")
				for (l = 1; l <= ny; l++) {
					y = ys[l]
					if (!((y, s) in cg))
						continue
					printf "| %s | %dK | %s | %s | %s | %s |\n", p, s / 1024, y,
						pct(mi[y, s], mi["default", s]), pct(mh[y, s], mh["default", s]),
						pct(cg[y, s], cg["default", s])
				}
			}
		}' "$MODEL"
done
fi
} > "$R/layouts.md.tmp"
mv "$R/layouts.md.tmp" "$R/layouts.md"

if command -v gnuplot > /dev/null; then
	# misses / FA per layout, one cluster per program, one panel per size
	n=$(echo "$caches" | wc -w)
	for s in $caches; do
		awk -F, -v s="$s" 'NR > 1 && $3 == s { r[$1, $2] = $5 ? $4 / $5 : 0; if (!($1 in P)) { P[$1] = 1; pr[np++] = $1 }
			if (!($2 in L)) { L[$2] = 1; ly[nl++] = $2 } }
			END { printf "program"; for (j = 0; j < nl; j++) printf " %s", ly[j]; print ""
			      for (i = 0; i < np; i++) { printf "%s", pr[i]; for (j = 0; j < nl; j++) printf " %.4f", r[pr[i], ly[j]]; print "" } }' \
			"$CSV" > "$R/plot.$s.dat"
	done
	{
		echo "set terminal svg size 1000,$((300 * n)) dynamic font 'sans,11'"
		echo "set output '$R/layouts.svg.tmp'"
		echo "set multiplot layout $n,1"
		echo "set style data histograms; set style histogram clustered gap 1"
		echo "set style fill solid 0.85 border -1; set boxwidth 0.9"
		echo "set logscale y; set yrange [0.9:*]; set grid ytics"
		echo "set key outside right top; set ylabel 'I1 misses / fully associative'"
		for s in $caches; do
			echo "set title 'L1I $(ksize $s), 4 ways, 32 B lines (lower is better; 1 = no conflict misses)'"
			echo "plot for [i=2:$(($(head -1 "$R/plot.$s.dat" | wc -w)))] '$R/plot.$s.dat' using i:xtic(1) title columnhead"
		done
		echo "unset multiplot"
	} > "$R/plot.gp"
	gnuplot "$R/plot.gp" && mv "$R/layouts.svg.tmp" "$R/layouts.svg"
	rm -f "$R"/plot.*.dat "$R/plot.gp"
fi
cat "$R/layouts.md"
