#!/bin/sh
# Run the unit tests and every tests/run-*.sh; print a summary; fail if any failed.
# Each test's output goes to tests/out/NAME.log.  -j N runs N tests at a
# time; under make the job count of make's -j is taken (1 without it).
# A test that has a line '# run alone: WHY' at its top (one that records
# the whole system) then runs after the others, by itself.
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/tests/out

# --one TEST (TEST relative to the top directory): run it, keep its log and
# exit status, and say how it went in one write, so that the reports of
# tests running side by side do not mix
if [ "$1" = --one ]; then
	n=$(basename "$2" .sh)
	"$top/$2" > "$out/$n.log" 2>&1
	rc=$?
	echo $rc > "$out/$n.rc"
	case $rc in
	0) msg="PASS: $(basename "$2")" ;;
	77) msg="SKIP: $(basename "$2")
$(tail -1 "$out/$n.log")" ;;
	*) msg="FAIL: $(basename "$2")
$(tail -20 "$out/$n.log")" ;;
	esac
	printf '%s\n' "$msg"
	exit 0
fi

jobs=
case $1 in
-j) jobs=$2 ;;
-j*) jobs=${1#-j} ;;
esac
if [ -z "$jobs" ]; then
	jobs=1
	for w in $MAKEFLAGS; do
		case $w in
		--) break ;;
		-j) jobs=$(nproc 2>/dev/null || echo 2) ;;
		-j[0-9]*) jobs=${w#-j} ;;
		esac
	done
fi
case $jobs in ''|*[!0-9]*|0) echo "run-all.sh: bad job count '$jobs'" >&2; exit 2 ;; esac
# the tests run the same under make as from a shell
unset MAKEFLAGS MFLAGS MAKELEVEL

tests= side= alone=
for t in "$top"/build/tests/unit/* "$top"/tests/run-*.sh; do
	case $t in */run-all.sh|*.d) continue ;; esac
	# a test script without its executable bit fails (126), not skipped
	# silently: two went unrun that way
	case $t in *.sh) ;; *) [ -x "$t" ] || continue ;; esac
	r=${t#"$top"/}
	tests="$tests $r"
	if [ $jobs -gt 1 ] && [ "${t%.sh}" != "$t" ] && sed 5q "$t" | grep -q '^# run alone: '; then
		alone="$alone $r"
	else
		side="$side $r"
	fi
	rm -f "$out/$(basename "$t" .sh).rc"
done
mkdir -p "$out"

[ -z "$side" ] || printf '%s\n' $side | xargs -P "$jobs" -n 1 "$top/tests/run-all.sh" --one
[ -z "$alone" ] || printf '%s\n' $alone | xargs -n 1 "$top/tests/run-all.sh" --one

pass=0; failn=0; skipn=0; failed=
for t in $tests; do
	rc=$(cat "$out/$(basename "$t" .sh).rc" 2>/dev/null)
	rm -f "$out/$(basename "$t" .sh).rc"
	case $rc in
	0) pass=$((pass + 1)) ;;
	77) skipn=$((skipn + 1)) ;;
	*) failn=$((failn + 1)); failed="$failed $(basename "$t")" ;;
	esac
done
echo "$pass passed, $failn failed, $skipn skipped"
[ $failn = 0 ] || { echo "# failed:$failed"; exit 1; }
