#!/bin/sh
# make install puts the binary, every man page and the examples under DESTDIR/PREFIX; uninstall removes them.
. "$(dirname "$0")/test-subr.sh"

make -s -C "$top" install DESTDIR="$testdir/root" PREFIX=/usr > install.log 2>&1 || { cat install.log; fail "make install failed"; }
r=$testdir/root/usr
[ -x "$r/bin/cachepin" ] || fail "no binary installed"
"$r/bin/cachepin" --version | grep -q '^cachepin ' || fail "installed binary does not run"
for m in "$top"/man/*.1; do [ -f "$r/share/man/man1/$(basename "$m")" ] || fail "$(basename "$m") not installed"; done
for m in "$top"/man/*.5; do [ -f "$r/share/man/man5/$(basename "$m")" ] || fail "$(basename "$m") not installed"; done
[ -f "$r/share/cachepin/examples/natsim/natsim.profile" ] || fail "examples not installed"
[ -f "$r/share/cachepin/kbuild/linux-6.1-text-layout.patch" ] || fail "kbuild hook not installed"
for p in linux-6.13-text-layout.patch linux-6.19-text-layout.patch \
	openwrt/hack-6.6/950-text-layout.patch openwrt/hack-6.12/950-text-layout.patch; do
	cmp -s "$top/contrib/kbuild/$p" "$r/share/cachepin/kbuild/$p" || fail "kbuild hook $p not installed"
done
[ -x "$r/bin/cachepin-kbuild" ] || fail "cachepin-kbuild not installed"
make -s -C "$top" uninstall DESTDIR="$testdir/root" PREFIX=/usr > uninstall.log 2>&1 || fail "make uninstall failed"
left=$(find "$testdir/root" -type f | wc -l)
[ "$left" = 0 ] || fail "uninstall left $left files"
exit 0
