#!/bin/sh
# Command table, --help, --version and the man pages agree; usage errors exit 129.
. "$(dirname "$0")/test-subr.sh"

$CACHEPIN --version | grep -qx "cachepin $(sed -n 's/^VERSION := //p' "$top/Makefile")" ||
	fail "--version does not match the Makefile"
$CACHEPIN --help > main.help
cmds=$(sed -n 's/^   \([a-z-]*\) .*/\1/p' main.help)
[ -n "$cmds" ] || fail "no commands in --help"
for c in $cmds; do
	grep -q "^\.B $c" "$top/man/cachepin.1" || fail "'$c' is not in cachepin(1)"
	$CACHEPIN $c --help > $c.help || fail "'$c --help' failed"
	$CACHEPIN help $c | cmp -s - $c.help || fail "'help $c' differs from '$c --help'"
	man=$top/man/cachepin-$c.1
	[ -f "$man" ] || continue
	# every long option of --help is in the man page, and back
	sed -n 's/^ *\(-., \)\{0,1\}--\([a-z0-9-]*\).*/\2/p' $c.help | sort -u > help.opts
	sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$man" | grep -o '\\-\\-[a-z0-9-]*' |
		sed 's/\\-\\-//' | sort -u > man.opts
	[ -s help.opts ] || fail "no options parsed from '$c --help'"
	diff -u help.opts man.opts || fail "options of '$c --help' and cachepin-$c(1) differ"
	grep -q "^usage: cachepin $c " $c.help || fail "'$c --help' has no usage line"
done
for m in "$top"/man/*.[15]; do
	groff -man -ww -z "$m" 2> groff.err || true
	[ ! -s groff.err ] || { cat groff.err; fail "groff warns about $m"; }
done
expect_fail "did you mean 'score'" $CACHEPIN scroe
[ "$(sh -c "$CACHEPIN scroe 2>/dev/null; echo \$?")" = 129 ] || fail "unknown command must exit 129"
expect_fail "unknown option" $CACHEPIN score --no-such-option a b
[ "$(sh -c "$CACHEPIN score --bogus 2>/dev/null; echo \$?")" = 129 ] || fail "bad option must exit 129"
expect_fail "unknown cache 'cortex-a99'" $CACHEPIN score --cache cortex-a99 a b
expect_fail "hint: use SIZE:WAYS:LINE" $CACHEPIN score --cache 32K:4 a b
$CACHEPIN help caches | grep -q '^cortex-a9-32k *32K:4:32' || fail "presets not listed"
exit 0
