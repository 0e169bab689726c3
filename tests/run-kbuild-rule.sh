#!/bin/sh
# The kbuild hooks' rule that installs a fragment and its alignment file, taken from each patch as shipped: a misspelled TEXT_LAYOUT_FILE fails make and leaves the installed pair alone; a path with a space, or a dot in a directory, installs the new pair whole; no TEXT_LAYOUT_FILE keeps what is there.
. "$(dirname "$0")/test-subr.sh"
need_cmd make cmp

mkdir v1 "my plans" my.plans
printf '. = ALIGN(0x4000);\n/* v1 */\n' > v1/hot.lds
printf '# cachepin-align 1\n# v1\n' > v1/hot.align
printf '. = ALIGN(0x4000);\n/* v2 */\n' > "my plans/hot.lds"
printf '# cachepin-align 1\n# v2\n' > "my plans/hot.align"
printf '. = ALIGN(0x4000);\n/* v3 */\n' > my.plans/hot
printf '# cachepin-align 1\n# v3\n' > my.plans/hot.align

# installed NAME: the pair in the object tree is NAME's
installed() {
	cmp -s tree/text-layout.lds "$1.lds" && cmp -s tree/text-layout.align "$1.align" ||
		fail "$patch: after $2, the installed pair is not $1's"
}

for patch in linux-6.1-text-layout.patch linux-6.13-text-layout.patch linux-6.19-text-layout.patch \
	openwrt/hack-6.6/950-text-layout.patch; do
	rm -rf tree
	mkdir tree
	{
		echo 'Q = @'
		sed -n 's/^+\(text-layout-src := .*\)/\1/p' "$top/contrib/kbuild/$patch"
		sed -n '/^+text-layout.lds: FORCE$/,/^+	fi$/s/^+//p' "$top/contrib/kbuild/$patch"
		echo 'FORCE:'
	} > tree/Makefile
	grep -q 'cmp -s' tree/Makefile || fail "$patch: no text-layout.lds rule found"
	make -s -C tree TEXT_LAYOUT_FILE="$PWD/v1/hot.lds" > make.out 2>&1 || { cat make.out >&2; fail "$patch: installing v1 failed"; }
	cp v1/hot.lds v1.lds
	cp v1/hot.align v1.align
	installed v1 "installing v1"
	# a misspelled path: make fails, and says which
	rc=0
	make -s -C tree TEXT_LAYOUT_FILE=/nonexistent/typo.lds > make.out 2>&1 || rc=$?
	[ $rc != 0 ] || fail "$patch: a missing TEXT_LAYOUT_FILE does not fail make"
	grep -q "^error: text layout '/nonexistent/typo.lds': no such file$" make.out ||
		{ cat make.out >&2; fail "$patch: make does not say the file is missing"; }
	installed v1 "a misspelled TEXT_LAYOUT_FILE"
	# a directory with a space
	make -s -C tree TEXT_LAYOUT_FILE="$PWD/my plans/hot.lds" > make.out 2>&1 ||
		{ cat make.out >&2; fail "$patch: installing from 'my plans' failed"; }
	cp "my plans/hot.lds" v2.lds
	cp "my plans/hot.align" v2.align
	installed v2 "a path with a space"
	# no TEXT_LAYOUT_FILE: what is installed stays
	make -s -C tree > make.out 2>&1 || { cat make.out >&2; fail "$patch: make without TEXT_LAYOUT_FILE failed"; }
	installed v2 "no TEXT_LAYOUT_FILE"
	# a fragment without a suffix in a directory with a dot: NAME.align
	make -s -C tree TEXT_LAYOUT_FILE="$PWD/my.plans/hot" > make.out 2>&1 ||
		{ cat make.out >&2; fail "$patch: installing from my.plans failed"; }
	cp my.plans/hot v3.lds
	cp my.plans/hot.align v3.align
	installed v3 "a fragment without a suffix"
done
exit 0
