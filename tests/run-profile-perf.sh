#!/bin/sh
# cachepin profile agrees with perf report per function on real perf.data: file, pipe, -z, big-endian copies.
. "$(dirname "$0")/test-subr.sh"
need_cmd perf gcc

gcc -O2 -g -fno-omit-frame-pointer -no-pie -fdebug-prefix-map="$PWD"=. -o hotfuncs "$srcdir/src/hotfuncs.c"
perf_record file.data ./hotfuncs

# perf's view: percent of all samples per symbol of our program
perf_pct() {
	perf report -i "$1" --no-children --sort dso,sym --stdio -q -g none --percent-limit 0 2>/dev/null |
		awk '$2 == "hotfuncs" && $3 == "[.]" { sub("%", "", $1); print $4, $1 }' | sort > "$2"
	[ -s "$2" ] || fail "perf report printed nothing for $1"
}
# ours: weight / all periods
our_pct() {
	$CACHEPIN profile -o "$2.prof" hotfuncs "$1" || fail "cachepin profile $1 failed"
	awk '$1 == "period" { total = $2 } $1 == "f" && $4 > 0 { printf "%s %.4f\n", $2, 100 * $4 / total }' \
		"$2.prof" | sort > "$2"
}
compare() {
	join "$1" "$2" > joined
	awk -v what="$3" '
		{ d = $2 - $3; if (d < 0) d = -d; if ($2 > 1 && d > 0.5) { bad++; print "  " $1 ": perf " $2 "% cachepin " $3 "%" }
		  if ($2 > 1) n++; if (d > max) max = d }
		END { printf "%s: %d functions above 1%%, max difference %.3f points\n", what, n, max
		      if (n < 5 || bad) exit 1 }' joined || fail "attribution differs from perf report ($3)"
	# every function perf shows above 1 % is in our profile
	awk '$2 > 1 { print $1 }' "$1" | while read -r s; do
		grep -q "^$s " "$2" || fail "'$s' missing from the profile ($3)"
	done
}

perf_pct file.data perf.file
our_pct file.data ours.file
compare perf.file ours.file file

# pipe mode, read from a file and from standard input
perf record -q -e cpu-clock -F 4000 -g -o - -- ./hotfuncs 2>/dev/null > pipe.data
perf_pct pipe.data perf.pipe
our_pct pipe.data ours.pipe
compare perf.pipe ours.pipe pipe
$CACHEPIN profile hotfuncs - < pipe.data > stdin.prof || fail "profile from stdin failed"
cmp -s stdin.prof ours.pipe.prof || fail "stdin and file pipe-mode profiles differ"

# zstd-compressed records
if perf record -q -z -e cpu-clock -F 4000 -g -o z.data -- ./hotfuncs > /dev/null 2>&1; then
	perf_pct z.data perf.z
	our_pct z.data ours.z
	compare perf.z ours.z zstd
else
	echo "perf here cannot record -z" >&2
	exit 1
fi

# big-endian copies (64-bit and 32-bit host bitmaps) made by our converter: the
# profile must be identical to the little-endian original's
for mode in "" --bitmap32; do
	"$TOOLS/perf-to-be" $mode file.data be.data || fail "perf-to-be $mode failed"
	$CACHEPIN profile -o be.prof hotfuncs be.data || fail "profile of BE copy ($mode) failed"
	cmp -s be.prof ours.file.prof || { diff ours.file.prof be.prof | head; fail "BE copy ($mode) gives another profile"; }
	perf_pct be.data perf.be
	compare perf.be ours.file "big-endian $mode"
done

# the profile is byte-reproducible
$CACHEPIN profile -o again.prof hotfuncs file.data
cmp -s again.prof ours.file.prof || fail "profile not reproducible"
exit 0
