# Shared helpers of the shell tests (sourced).  Each test runs in its own
# directory under tests/out; exit 0 = pass, 77 = skip, anything else = fail.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
srcdir=$top/tests
CACHEPIN="${VALGRIND:+valgrind -q --error-exitcode=99} $top/cachepin"
TOOLS=$top/build/tests/tools
name=$(basename "$0" .sh)
testdir=$top/tests/out/$name.$$
rm -rf "$testdir"
mkdir -p "$testdir"
cd "$testdir"
cleanup() { rc=$?; if [ $rc = 0 ] && [ -z "$KEEP" ]; then cd "$top"; rm -rf "$testdir"; fi; exit $rc; }
trap cleanup EXIT

fail() { echo "FAIL: $name: $*" >&2; exit 1; }
skip() { echo "SKIP: $name: $*" >&2; exit 77; }
need_cmd() { for c; do command -v "$c" >/dev/null 2>&1 || skip "no '$c'"; done; }

# testrun_compare CMD...: run CMD, compare its stdout with stdin.
testrun_compare() {
	cat > expect.out
	"$@" > actual.out || fail "'$*' exited with $?"
	diff -u expect.out actual.out || fail "output of '$*' differs"
}

# expect_fail PATTERN CMD...: CMD must fail and its stderr match PATTERN.
expect_fail() {
	pat=$1; shift
	rc=0
	"$@" > fail.out 2> fail.err || rc=$?
	[ $rc != 0 ] || fail "'$*' succeeded but should have failed"
	[ $rc -lt 128 ] || [ $rc = 129 ] || fail "'$*' died with status $rc"
	grep -q -- "$pat" fail.err || { cat fail.err >&2; fail "stderr of '$*' lacks '$pat'"; }
}

# Record a real profile of PROG (in a neutral directory so that perf.data
# carries no path of the build machine).
perf_record() {
	out=$1; shift
	perf record -q -e cpu-clock -F 4000 -g -o "$out" -- "$@" > /dev/null 2>perf.err ||
		{ cat perf.err >&2; fail "perf record failed"; }
}
