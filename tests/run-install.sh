#!/bin/sh
# make install puts the binary, every man page, the examples and the kernel
# hook under DESTDIR/PREFIX (the hook where the README says); the installed
# binary and man pages work; the installed demo runs the installed
# cachepin on the installed examples, writes only into the directory it
# is run from and prints what the source tree's demo prints; uninstall
# removes everything.
. "$(dirname "$0")/test-subr.sh"
need_cmd man gcc xz

# The default PREFIX, under DESTDIR.
make -s -C "$top" install DESTDIR="$testdir/root" > install.log 2>&1 || { cat install.log; fail "make install failed"; }
r=$testdir/root/usr/local
[ -x "$r/bin/cachepin" ] || fail "no binary installed"
"$top/cachepin" --version > version.expect
testrun_compare "$r/bin/cachepin" --version < version.expect
"$top/cachepin" help > help.expect
testrun_compare "$r/bin/cachepin" help < help.expect
"$top/cachepin" help plan > help-plan.expect
testrun_compare "$r/bin/cachepin" help plan < help-plan.expect
for m in "$top"/man/*.1; do cmp -s "$m" "$r/share/man/man1/$(basename "$m")" || fail "$(basename "$m") not installed"; done
for m in "$top"/man/*.5; do cmp -s "$m" "$r/share/man/man5/$(basename "$m")" || fail "$(basename "$m") not installed"; done
# each installed page renders, without a warning, under the name it has
for m in "$r"/share/man/man1/*.1 "$r"/share/man/man5/*.5; do
	MANWIDTH=80 man -l "$m" > man.out 2> man.err || fail "man -l $(basename "$m") failed"
	[ ! -s man.err ] || { cat man.err >&2; fail "man -l $(basename "$m") warns"; }
	sed -n '/^NAME/{n;s/^ *//;s/ \{1,\}/ /g;s/ -.*//;p;q}' man.out
done > man-names.out
(cd "$r/share/man" && ls man1/*.1 man5/*.5 | sed 's|^man./||;s|\.[15]$||') > man-names.expect
diff -u man-names.expect man-names.out || fail "an installed man page has another name"
[ -f "$r/share/cachepin/examples/natsim/natsim.profile" ] || fail "examples not installed"
# the hook, where the README's kernel section takes it from
K=$(sed -n 's/^    K=\([^ ]*\).*/\1/p' "$top/README.md")
[ "${K#/usr/local/}" != "$K" ] || fail "README's K=$K is not under the default prefix"
sed -n 's/.*\$K\/\([^ ]*\).*/\1/p' "$top/README.md" > readme-hooks
[ -s readme-hooks ] || fail "README names no hook file under \$K"
for p in $(cat readme-hooks) linux-6.13-text-layout.patch linux-6.19-text-layout.patch \
	openwrt/hack-6.6/950-text-layout.patch; do
	cmp -s "$top/contrib/kbuild/$p" "$testdir/root$K/$p" || fail "kbuild hook $p not installed at $K"
done
[ -x "$r/bin/cachepin-kbuild" ] || fail "cachepin-kbuild not installed"
make -s -C "$top" uninstall DESTDIR="$testdir/root" > uninstall.log 2>&1 || fail "make uninstall failed"
left=$(find "$testdir/root" -type f | wc -l)
[ "$left" = 0 ] || fail "uninstall left $left files"

# A real PREFIX: the installed demo finds its cachepin where make install
# put it, with nothing on PATH and no CACHEPIN.
p=$testdir/prefix
make -s -C "$top" install PREFIX="$p" > install2.log 2>&1 || { cat install2.log; fail "make install PREFIX failed"; }
(cd "$p" && find . | sort) > tree.before
# the times of the plans differ from run to run, and so do the directory
# and where the examples are (messages name the profile)
norm() { sed "s/\([ (]\)in [0-9.]* s\()\{0,1\}\)$/\1in T s\2/;/^reports and outputs: /d;s|'[^']*/examples/|'EXAMPLES/|g" "$1"; }
sh "$top/examples/demo.sh" "$testdir/src-demo" > src-demo.out 2>&1 || { cat src-demo.out; fail "the source tree's demo failed"; }
mkdir work
(cd work && env -u CACHEPIN PATH=/usr/bin:/bin sh "$p/share/cachepin/examples/demo.sh") > inst-demo.out 2>&1 ||
	{ cat inst-demo.out; fail "the installed demo failed"; }
norm src-demo.out > src-demo.norm
norm inst-demo.out > inst-demo.norm
diff -u src-demo.norm inst-demo.norm || fail "the installed demo prints other results than the source tree's"
[ "$(sed -n 's/^reports and outputs: //p' inst-demo.out)" = "$testdir/work/cachepin-demo" ] ||
	fail "the installed demo does not name ./cachepin-demo as its output"
[ -s work/cachepin-demo/natsim.lds ] && [ -s work/cachepin-demo/text-layout.lds ] || fail "the installed demo left no plan"
(cd "$p" && find . | sort) > tree.after
diff -u tree.before tree.after || fail "the installed demo wrote into the install tree"
make -s -C "$top" uninstall PREFIX="$p" > uninstall2.log 2>&1 || fail "make uninstall PREFIX failed"
left=$(find "$p" -type f | wc -l)
[ "$left" = 0 ] || fail "uninstall left $left files"
exit 0
