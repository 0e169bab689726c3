#!/bin/sh
# Code in shared libraries: the share of the samples other objects took, their hot pages as fixed occupants of their cache sets, and score's misses per library.
. "$(dirname "$0")/test-subr.sh"
need_cmd perf gcc jq awk

# most of the time in libc (qsort's merge sort, memmove), the rest here
cat > d.c <<'EOF2'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
__attribute__((noinline)) long crunch(const int *v, int n)
{
	long s = 0;

	for (int i = 0; i < n; i++)
		s += v[i] * (i & 7);
	return s;
}
int main(void)
{
	static int v[4096];
	char buf[256];
	long t = 0;

	for (int r = 0; r < 3000; r++) {
		for (int i = 0; i < 4096; i++)
			v[i] = (i * 7919 + r) % 10007;
		qsort(v, 4096, sizeof(int), cmp);
		t += crunch(v, 4096);
		snprintf(buf, sizeof(buf), "%ld %d", t, r);
		t += strlen(buf);
	}
	printf("%ld\n", t);
	return 0;
}
EOF2
gcc -O2 -fno-omit-frame-pointer -ffunction-sections -Wl,-Map=d.map -o d d.c || fail "compiling d.c failed"
# and other processes in libc (sort's), whose libraries are not d's
perf_record d.data sh -c './d; seq 200000 | sort -rn | sort -n > /dev/null'
$CACHEPIN profile -m d.map -o d.profile d d.data 2> profile.err || { cat profile.err >&2; fail "profile failed"; }

# what perf itself says: the innermost frame's object, address and period
# of every sample, and where each object's file was mapped; a forked
# child starts with its parent's mappings (a sample between sh's fork
# and its exec of ./d is in dash, mapped in the parent)
perf script -i d.data --show-mmap-events --show-task-events -F pid,ip,dso,period -G > script.txt 2> /dev/null ||
	fail "perf script failed"
# the processes with a sample in d
awk 'NF == 4 && $4 ~ /^\(.*\/d\)$/ { print $1 }' script.txt | sort -u > d.pids
[ "$(wc -l < d.pids)" = 1 ] || fail "d ran in $(wc -l < d.pids) processes"
awk -v dpid="$(cat d.pids)" '/PERF_RECORD_FORK\(/ {
		split($0, f, /[():]+/); c = f[2]; p = f[4]
		for (k = 1; k <= nm[p]; k++) { nm[c]++; for (x = 1; x <= 4; x++) m[c, nm[c], x] = m[p, k, x] }
		next
	}
	/PERF_RECORD_MMAP2? / {
		if (!match($0, /\[0x[0-9a-f]+\(0x[0-9a-f]+\) @ 0x[0-9a-f]+/)) next
		split(substr($0, RSTART + 1, RLENGTH - 1), w, /[()@ ]+/)
		path = $NF; n = split(path, pp, "/"); p = $1; k = ++nm[p]
		m[p, k, 1] = strtonum(w[1]); m[p, k, 2] = m[p, k, 1] + strtonum(w[2]); m[p, k, 3] = strtonum(w[3]); m[p, k, 4] = pp[n]
		next
	}
	NF == 4 && $4 ~ /^\(/ {
		dso = substr($4, 2, length($4) - 2); n = split(dso, pp, "/"); base = dso ~ /^\[/ ? dso : pp[n]
		total++
		if (base == "d" || $1 != dpid) next
		obj[base]++
		if (base ~ /^\[/) next
		ip = strtonum("0x" $3)
		for (k = nm[dpid]; k > 0; k--)
			if (m[dpid, k, 4] == base && ip >= m[dpid, k, 1] && ip < m[dpid, k, 2]) break
		if (!k) next
		off = ip - m[dpid, k, 1] + m[dpid, k, 3]
		g[base, off - off % 4096, (off % 4096) - (off % 16)] += $2
	}
	END {
		printf "samples %d\n", total
		for (o in obj) printf "o %s %d\n", o, obj[o]
		for (k in g) { split(k, kk, SUBSEP); printf "g %s+0x%x 0x%x %d\n", kk[1], kk[2], kk[3], g[k] }
	}' script.txt | LC_ALL=C sort > perf.expect
grep -q '^o libc.so.6 ' perf.expect || { cat perf.expect >&2; fail "the recording has no sample in libc"; }
# the profile's objects and libraries' pages, in the same form
awk '$1 == "samples" { printf "samples %d\n", $2 }
	$1 == "o" { printf "o %s %d\n", $2, $3 }
	$1 == "f" { pg = ($2 ~ /^\[.*\+0x[0-9a-f]+\]$/) ? substr($2, 2, length($2) - 2) : "" }
	$1 == "g" && pg != "" { printf "g %s %s %d\n", pg, $2, $3 }' d.profile | LC_ALL=C sort > profile.got
diff -u perf.expect profile.got || fail "the profile's other objects and pages are not perf script's"
# the base of libc's file offset 0 where it was mapped
base=$(awk -v dpid="$(cat d.pids)" '$1 == dpid && /PERF_RECORD_MMAP2? .*libc\.so\.6$/ && match($0, /\[0x[0-9a-f]+\(0x[0-9a-f]+\) @ 0x[0-9a-f]+/) {
		split(substr($0, RSTART + 1, RLENGTH - 1), w, /[()@ ]+/)
		printf "0x%x\n", strtonum(w[1]) - strtonum(w[3]); exit }' script.txt)
[ "$(awk '$1 == "o" && $2 == "libc.so.6" { print $5 }' d.profile)" = "$base" ] ||
	fail "libc's base in the profile is not $base"

# the share, said on every load: profile, score and plan alike
share() {
	awk -v src="$1" '$1 == "samples" { all = $2 } $1 == "o" { n[++k] = $2; s[k] = $3; t += $3 }
		END { printf "cachepin: '\''%s'\'': %.1f %% of the samples are outside '\''d'\'': ", src, 100 * t / all
		      for (i = 1; i <= k && i <= 6; i++) printf "%s%s %.1f %%", (i > 1 ? ", " : ""), n[i], 100 * s[i] / all
		      if (k > 6) printf ", %d more", k - 6
		      printf "\n" }' d.profile
}
share d.data > share.expect
head -1 profile.err > share.got
diff -u share.expect share.got || fail "profile's share line differs"
$CACHEPIN score -m d.map -c 4K:1:16 --json d d.profile > with.json 2> score.err || { cat score.err >&2; fail "score failed"; }
share d.profile > share.expect
head -1 score.err > share.got
diff -u share.expect share.got || fail "score's share line differs"
sed -n 3p score.err > hint.got
testrun_compare cat hint.got <<'EOF2'
hint: a shared library's code cannot move; link the program statically (-static) for the plan to place it
EOF2

# a 4 KiB direct-mapped cache has its sets below the page: every sampled
# granule of libc is a hot line in its set, whatever the load address
awk '$1 == "g" && $2 ~ /^libc/ { print strtonum($3) / 16 }' profile.got | LC_ALL=C sort -u > libc.sets
jq -r '.caches[0].sets_detail[] | .set' with.json | LC_ALL=C sort -u > hot.sets
[ -s libc.sets ] || fail "no libc granules"
[ -z "$(comm -23 libc.sets hot.sets)" ] || fail "sets of libc's sampled granules without a hot line: $(comm -23 libc.sets hot.sets | head -5 | tr '\n' ' ')"
# without them the model has fewer hot lines, at least one per sampled granule fewer
awk '$1 == "o" || ($1 == "f" && $2 ~ /^\[/) { skip = ($1 == "f"); next } $1 == "f" { skip = 0 } !skip' d.profile > own.profile
$CACHEPIN score -m d.map -c 4K:1:16 --json d own.profile > own.json 2> own.err || { cat own.err >&2; fail "score without the libraries failed"; }
[ -s own.err ] && { cat own.err >&2; fail "a profile without other objects reports a share"; }
with=$(jq '.caches[0].hot_lines' with.json) own=$(jq '.caches[0].hot_lines' own.json)
ng=$(awk '$1 == "g" { n++ } END { print n }' profile.got)
[ $((with - own)) -ge "$ng" ] || fail "hot lines $with with the libraries, $own without: fewer than their $ng sampled granules apart"

# the misses in each library's pages
[ "$(jq '.caches[0] | has("objects")' own.json)" = false ] || fail "a profile without libraries reports their misses"
# In a cache that holds every hot line each misses once, cold: a
# library's misses are its hot lines, its sampled 16-byte granules and
# holes of at most two between them in its pages, counted by 64-byte line
$CACHEPIN score -m d.map -c 32K:8:64 --json d d.profile > big.json 2> /dev/null || fail "score at 32K:8:64 failed"
[ "$(jq '.caches[0].misses.lru' big.json)" = "$(jq '.caches[0].hot_lines' big.json)" ] ||
	fail "32K:8:64 misses more than once per hot line"
awk 'function flush(   k, t) { for (k = 1; k <= n; k++) { line[page " " obj " " int(g[k] / 64)] = 1
		if (k > 1 && g[k] - g[k - 1] > 16 && g[k] - g[k - 1] <= 48)
			for (t = g[k - 1] + 16; t < g[k]; t += 16) line[page " " obj " " int(t / 64)] = 1 }
		if (n && 4096 - 16 - g[n] <= 32) for (t = g[n] + 16; t < 4096; t += 16) line[page " " obj " " int(t / 64)] = 1
		n = 0 }
	$1 == "f" { flush(); obj = ""; if ($2 ~ /^\[/) { page = $2; obj = $2; sub(/^\[/, "", obj); sub(/\+0x[0-9a-f]+\]$/, "", obj) } next }
	$1 == "g" && obj != "" { g[++n] = strtonum($2) }
	END { flush(); for (l in line) { split(l, w, " "); c[w[2]]++ } for (o in c) print o, c[o] }' d.profile |
	LC_ALL=C sort > lines.expect
jq -r '.caches[0].objects[] | "\(.name) \(.lru)"' big.json | LC_ALL=C sort > lines.got
diff -u lines.expect lines.got || fail "a library's misses are not its hot lines in a cache that holds them all"
# with d's own code, less than all; pages and samples as the profile has them
lru=$(jq '.caches[0].misses.lru' with.json)
[ "$(jq '[.caches[0].objects[].lru] | add' with.json)" -lt "$lru" ] || fail "d's own functions have no misses"
jq -r '.caches[0].objects[] | "\(.name) \(.pages) \(.samples)"' with.json > objs.got
awk '$1 == "o" { s[$2] = $3; o[++n] = $2 } $1 == "f" && $2 ~ /^\[/ { sub(/^\[/, "", $2); sub(/\+0x[0-9a-f]+\]$/, "", $2); p[$2]++ }
	END { for (i = 1; i <= n; i++) if (p[o[i]]) print o[i], p[o[i]], s[o[i]] }' d.profile > objs.expect
diff -u objs.expect objs.got || fail "the libraries' pages or samples in score's JSON differ from the profile's"
# the text says what the JSON does
$CACHEPIN score -m d.map -c 4K:1:16 d d.profile > with.txt 2> /dev/null || fail "score (text) failed"
jq -r --argjson all "$(jq '.samples' with.json)" '.caches[0] as $c | [$c.objects | to_entries[] |
	"\(.value.name) \(.value.lru)\(if .key == 0 then " LRU misses" else "" end), \(100 * .value.lru / $c.misses.lru * 10 | round / 10 | tostring | if test("\\.") then . else . + ".0" end) %\(if .key == 0 then " of all" else "" end) (\(100 * .value.samples / $all * 10 | round / 10 | tostring | if test("\\.") then . else . + ".0" end) %\(if .key == 0 then " of the samples" else "" end))"] |
	"  shared libraries (fixed): " + join("; ")' with.json > line.expect
grep '^  shared libraries' with.txt > line.got
diff -u line.expect line.got || fail "score's text line of the libraries differs from its JSON"

# plan: the libraries' pages stay where they are and are never emitted
$CACHEPIN plan -m d.map -c 4K:1:16 -o d.lds -a d.align d d.profile 2> plan.err ||
	{ cat plan.err >&2; fail "plan failed"; }
grep -q '\[' d.lds d.align && fail "a library page in the plan's outputs"
# a profile read back loads as the recording did
$CACHEPIN score -m d.map -c 4K:1:16 --json d d.data > rec.json 2> /dev/null || fail "score of d.data failed"
cmp -s with.json rec.json || fail "score of the recording differs from score of its profile"

# bad 'o' lines
ln=$(grep -n '^o ' d.profile | head -1 | cut -d: -f1)
sed 's/^o libc.so.6 \([0-9]*\) /o libc.so.6 x /' d.profile > bad1.profile
ln1=$(grep -n '^o libc.so.6 x ' bad1.profile | cut -d: -f1)
expect_fail "bad1.profile':$ln1: bad number in 'o' line" $CACHEPIN score -m d.map d bad1.profile
awk '/^o / && !d { print; d = 1 } { print }' d.profile > bad2.profile
expect_fail "bad2.profile':$((ln + 1)): a second 'o' line for this object" $CACHEPIN score -m d.map d bad2.profile
# the first 'o' line moved after the first 'f' line
awk '/^o / && !held { held = $0; next } { print } /^f / && held != "" { print held; held = "" }' d.profile > bad3.profile
ln3=$(grep -n '^f ' bad3.profile | head -1 | cut -d: -f1)
expect_fail "bad3.profile':$((ln3 + 1)): 'o' after the first 'f' line" $CACHEPIN score -m d.map d bad3.profile

exit 0
