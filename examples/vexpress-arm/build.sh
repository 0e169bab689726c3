#!/bin/sh
# Rebuild this example: Linux 6.1 (Debian's linux-source-6.1) for QEMU
# vexpress-a9, vexpress_defconfig + router.config, functions in their own
# sections, with the GNU ld link map; then strip the debug info and pack
# vmlinux.xz, vmlinux.map.xz and config.xz into this directory.
#
# usage: examples/vexpress-arm/build.sh SRC BUILD
#   SRC    an unpacked, clean linux-source-6.1 tree
#          (tar -xf /usr/src/linux-source-6.1.tar.xz)
#   BUILD  build directory (out of tree, O=BUILD), created if missing
# environment:
#   JOBS   parallel make jobs (default 2)
#   CROSS_COMPILE  default "ccache arm-linux-gnueabihf-" when ccache exists
# needs: linux-source-6.1 gcc-arm-linux-gnueabihf binutils-arm-linux-gnueabihf
#        make bc bison flex libssl-dev xz-utils (ccache optional)
set -e

here=$(cd "$(dirname "$0")" && pwd)
[ $# -eq 2 ] || { echo "usage: $0 SRC BUILD" >&2; exit 2; }
src=$1 out=$2
[ -f "$src/Makefile" ] || {
	echo "error: '$src': not a kernel source tree" >&2
	echo "hint: tar -xf /usr/src/linux-source-6.1.tar.xz" >&2
	exit 1
}
for c in arm-linux-gnueabihf-gcc arm-linux-gnueabihf-strip make bc bison flex xz; do
	command -v "$c" >/dev/null 2>&1 || {
		echo "error: '$c' not found" >&2
		echo "hint: apt-get install gcc-arm-linux-gnueabihf make bc bison flex xz-utils" >&2
		exit 1
	}
done
if [ -z "${CROSS_COMPILE+x}" ]; then
	CROSS_COMPILE=arm-linux-gnueabihf-
	command -v ccache >/dev/null 2>&1 && CROSS_COMPILE="ccache arm-linux-gnueabihf-"
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)

export KBUILD_BUILD_USER=cachepin KBUILD_BUILD_HOST=example \
	KBUILD_BUILD_TIMESTAMP=2026-12-01 KBUILD_BUILD_VERSION=1
kmake() {
	make -C "$src" O="$out" ARCH=arm CROSS_COMPILE="$CROSS_COMPILE" "$@"
}
kmake vexpress_defconfig
"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$here/router.config"
kmake olddefconfig
# every option of router.config must have survived olddefconfig
grep '^CONFIG_' "$here/router.config" | while read -r opt; do
	grep -qx "$opt" "$out/.config" || echo "warning: '$opt' not set in .config" >&2
done
nice -n 10 make -C "$src" O="$out" ARCH=arm CROSS_COMPILE="$CROSS_COMPILE" \
	-j"${JOBS:-2}" KCFLAGS=-ffunction-sections vmlinux

arm-linux-gnueabihf-strip --strip-debug -o "$out/vmlinux.stripped" "$out/vmlinux"
# the ARM branch filter (undone by any xz -d) saves about 4 % on the code
xz --arm --lzma2=preset=9e -T1 -c "$out/vmlinux.stripped" > "$here/vmlinux.xz"
xz -9e -T1 -c "$out/vmlinux.map" > "$here/vmlinux.map.xz"
xz -9e -T1 -c "$out/.config" > "$here/config.xz"
echo "functions: $(nm "$out/vmlinux" | grep -c ' [tT] ')"
