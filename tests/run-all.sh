#!/bin/sh
# Run the unit tests and every tests/run-*.sh; print a summary; fail if any failed.
top=$(cd "$(dirname "$0")/.." && pwd)
pass=0; failn=0; skipn=0; failed=
for t in "$top"/build/tests/unit/* "$top"/tests/run-*.sh; do
	case $t in */run-all.sh) continue ;; esac
	[ -x "$t" ] || continue
	case $t in *.d) continue ;; esac
	n=$(basename "$t")
	"$t" > "$top/tests/out.log.tmp" 2>&1
	rc=$?
	case $rc in
	0) pass=$((pass + 1)); echo "PASS: $n" ;;
	77) skipn=$((skipn + 1)); echo "SKIP: $n"; tail -1 "$top/tests/out.log.tmp" ;;
	*) failn=$((failn + 1)); failed="$failed $n"; echo "FAIL: $n"; tail -20 "$top/tests/out.log.tmp" ;;
	esac
done
rm -f "$top/tests/out.log.tmp"
echo "$pass passed, $failn failed, $skipn skipped"
[ $failn = 0 ] || { echo "# failed:$failed"; exit 1; }
