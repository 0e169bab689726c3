#!/bin/sh
# The kernel lab: build Linux 6.1 for an ARM32 router (QEMU vexpress-a9,
# Cortex-A9) with and without the text-layout hook, boot it as a router
# between two guests, profile the NAT path (perf inside the router, and a
# QEMU execution trace of the same workload), plan a layout for a 32 KiB
# 4-way 32 B I-cache, relink, boot again, and compare, also with the stock
# kernel built with -falign-functions=32 (what router developers try
# first); then the stability demo (an unrelated commit, with and without
# the hook), a MIPS32 big-endian kernel (QEMU malta) up to plan, relink,
# check and boot, the router with its netfilter code as modules, and a
# little-endian MIPS router (malta, 74Kf) profiled, planned and booted.
#
# usage: tests/kernel/lab.sh WORKDIR [STAGE...]
#
# Stages, in order (default: all of them):
#   deps       Debian 12 packages (as root): linux-source-6.1, toolchains,
#              QEMU, ccache, and the armhf and mipsel architectures for the
#              guests
#   unpack     unpack linux-source-6.1 into WORKDIR, apply the hook patch
#   config     tinyconfig + tests/kernel/arm-router.config three times
#              (o-arm: no hook; o-arm-hook: CONFIG_TEXT_LAYOUT=y; o-arm-a32:
#              as o-arm), and the MIPS one
#   build      the ARM kernel without the hook (vmlinux, zImage, dtb)
#   initrd     busybox, iproute2, iptables, perf (Debian armhf) + /init
#   before     boot the router and the hosts guests on the stock layout:
#              NAT check, traced window, perf window
#   profile    cachepin profiles of the perf recording and of the trace, and
#              of every N-th instruction of the trace, as many samples as
#              the perf window has
#   hook       cachepin-kbuild on o-arm-hook: build, plan, relink, check
#   after      boot again on the planned layout: NAT check, traced window
#   replan     the plan of the other profile (trace if PLAN_FROM=perf, and
#              the reverse) on o-arm-hook: planned on the unplanned link,
#              relinked and checked; then the tree back on the booted plan.
#              WORKDIR/plan-perf and plan-trace hold both plans' kernels
#   nopatch    cachepin-kbuild -n on o-arm (the route without the patch)
#   align32    o-arm-a32: the stock kernel with every function aligned to
#              32 bytes (the first time a full build: ccache holds no
#              objects made with that flag), booted with the same traced
#              window as the stock one
#   simulate   trace-driven I-cache misses of the traced windows (stock,
#              align32, planned), and of the stock and after runs' traces
#              remapped onto every layout (stock, align32, both plans:
#              cachepin simulate --relink), each plan's alignment file
#              laid out on the stock kernel without a link (--layout),
#              and on the after run's kernel beside the reference
#              colouring of each profile; cachepin score
#   stability  an unrelated commit on both trees: which hot functions move
#              and what the model says of it (cachepin diff)
#   growth     a commit that grows a hot function (nf_conntrack_tcp_packet)
#              on the hook tree: by 8 instructions, which the plan's room
#              absorbs (kbuild's per-link check quiet, no other planned
#              function in another set), and by 48, which it does not (the
#              check names it and what it pushed; TEXT_LAYOUT_CHECK=error
#              fails the make); then cachepin plan --keep: what it keeps,
#              what changes set, against a plan from scratch; relinked and
#              checked; the tree back on the booted plan
#   mips       MIPS32 BE: build, plan, relink, check, boot to /init
#   modbuild   the OpenWrt shape: o-arm-mod, the router with its netfilter
#              code as modules (tests/kernel/arm-router-modules.config
#              over arm-router.config), built with its modules, and
#              initrd-mod.gz: initrd.gz with the modules and their two
#              load orders (dependencies first; the other one as far as
#              the dependencies let it differ)
#   modboot    boot it as the router (NAT check, traced window, perf
#              window, perf's own attribution of it: perf script in the
#              router); then again with the modules loaded in the other
#              order, for where they land
#   modprofile cachepin profile --modules of its perf recording and of
#              perf script's text, each module's samples and every
#              module function's checked against perf script's
#              attribution; and of its QEMU trace (--proc-modules)
#   modplan    cachepin-kbuild -n -M on o-arm-mod from its MOD_PLAN_FROM
#              profile: vmlinux (the modules' hot functions fixed
#              occupants at the profiled run's load addresses), then the
#              modules, linked with their script and checked
#   modafter   boot the planned modules kernel: NAT check, traced window
#   modsimulate the traces of both modules runs on both kernels
#   mrbuild    the MIPS router: o-mipsel, malta with a 74Kf, little-endian
#              (tests/kernel/mips-router.config: the ARM router's NAT
#              path, malta's PCI NIC), and initrd-mipsel.gz of Debian's
#              mipsel packages; o-mipsel-hook and o-mipsel-a32 configured
#   mrbefore   boot it as the router between the ARM hosts guest's two
#              namespaces: NAT check, traced window, perf window
#   mrprofile  cachepin profiles of its perf recording and of its trace
#   mrplan     cachepin-kbuild on o-mipsel-hook from the traced window's
#              log for mips-74k-32k (built, linked, checked); the plans
#              of both profiles and the reference colouring of each as
#              alignment files for 32 and 64 KiB; o-mipsel-a32 built
#   mrafter    boot the planned MIPS router: NAT check, traced window
#   mrsimulate the after run's trace on every layout, at 32 and 64 KiB
#   report     WORKDIR/report.md from everything above, with the issue's
#              Done criteria (each plan on a run its profile did not come
#              from, against stock and align32) as met / not met lines
#
# Every stage checks what it claims and fails the run if it does not hold;
# the Done criteria do not fail it.
# Guests have no network device but the one QEMU socket link between them
# on 127.0.0.1; all traffic stays between the two guests.
#
# Environment: JOBS (make -j, default: nproc), CACHEPIN (the binary,
# default: the project's), LOADS (downloads per traced window, 2), MIB
# (size of each download, 4), PERF_LOADS (downloads in the perf window,
# back to back; it lasts as long as they take: 10), PERF_FREQ
# (its sampling frequency, 1000 Hz with PERF_SAMPLING=insn, else 4000 Hz),
# PERF_SAMPLING (insn: the router's
# QEMU counts time in instructions, -icount shift=auto, and runs one
# instruction per translation block in the perf window, so that a
# cpu-clock sample stands for an executed instruction, as perf record
# -e instructions on a router's PMU; time: host time and whole blocks, as
# before; default insn), PLAN_FROM
# (the profile of the plan that is booted and used by the stability and
# MIPS stages: perf or trace; default perf; replan makes the other),
# MOD_PAGES (the modules router's plan: its modules' lines on the page
# the profiled run had them on, recorded, or on every page of a way span,
# every; default every: the hot modules take the other page in one boot
# of three), MOD_PLAN_FROM (its profile: perf, of the perf.data, or
# trace, the traced window's log itself, the run as the model with its
# modules' fetches, once for each page; default trace: laid on a later
# boot's trace, -58 % LRU misses against -27 % from the perf profile),
# CCACHE_DIR (default WORKDIR/ccache).
set -eu

if [ $# -lt 1 ]; then
	sed -n '2,/^set -eu/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
	exit 2
fi
TOP=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$1"
W=$(cd "$1" && pwd)
shift
ALL="deps unpack config build initrd before profile hook after replan nopatch align32 simulate stability growth mips modbuild modboot modprofile modplan modafter modsimulate mrbuild mrbefore mrprofile mrplan mrafter mrsimulate report"
[ $# -gt 0 ] || set -- $ALL

KVER=6.1
SRC=$W/linux-source-$KVER
OA=$SRC/o-arm
OH=$SRC/o-arm-hook
O32=$SRC/o-arm-a32
OM=$SRC/o-mips
OMOD=$SRC/o-arm-mod
OME=$SRC/o-mipsel
OMEH=$SRC/o-mipsel-hook
OMEA=$SRC/o-mipsel-a32
JOBS=${JOBS:-$(nproc)}
LOADS=${LOADS:-2}
MIB=${MIB:-4}
PERF_LOADS=${PERF_LOADS:-10}
PERF_SAMPLING=${PERF_SAMPLING:-insn}
# one instruction per block makes the window about four times as long in
# the guest's time: a quarter of the rate keeps the recording's samples
# (and the guest's RAM they take) where they were
case $PERF_SAMPLING in
insn) ROUTER_CLOCK="-icount shift=auto" PERF_FREQ=${PERF_FREQ:-1000} ;;
time) ROUTER_CLOCK='' PERF_FREQ=${PERF_FREQ:-4000} ;;
*) echo "kernel-lab: PERF_SAMPLING is '$PERF_SAMPLING'; it must be insn or time" >&2; exit 2 ;;
esac
PLAN_FROM=${PLAN_FROM:-perf}
MOD_PAGES=${MOD_PAGES:-every}
MOD_PLAN_FROM=${MOD_PLAN_FROM:-trace}
ROUTER_ARCH=arm
CACHE=cortex-a9-32k
MIPS_CACHE=mips-74k-32k
ALIGN32=-falign-functions=32
CACHEPIN=${CACHEPIN:-$TOP/cachepin}
KBUILD=$TOP/contrib/kbuild/cachepin-kbuild
ARM=arm-linux-gnueabihf
MIPS=mips-linux-gnu
# reproducible kernels: the same sources give the same System.map
export KBUILD_BUILD_USER=cachepin KBUILD_BUILD_HOST=example \
	KBUILD_BUILD_TIMESTAMP=2026-12-01 KBUILD_BUILD_VERSION=1
export CCACHE_DIR=${CCACHE_DIR:-$W/ccache}
export CACHEPIN

log() { echo "kernel-lab: $*" >&2; }
die() {
	echo "kernel-lab: error: $1" >&2
	[ $# -lt 2 ] || echo "hint: $2" >&2
	exit 1
}
now() { date +%s; }
# record a figure for the report: fact NAME VALUE
fact() { echo "$1	$2" >> "$W/facts"; log "$1 = $2"; }
getfact() { awk -F'\t' -v k="$1" '$1 == k { v = $2 } END { print v }' "$W/facts"; }

# amake OBJDIR MAKE-ARGS...: make in an ARM tree, with function sections;
# o-arm-a32 always with ALIGN32 too, so that no make of it drops the flag.
# The source tree's o-* directories are direct children, so kbuild uses
# srctree=.. and o-arm and o-arm-hook share ccache entries
# (helpers' variables start with _: sh has no locals, and the stages
# keep theirs across the calls)
amake() { xmake arm "$ARM" "$@"; }
# xmake ARCH TRIPLET OBJDIR MAKE-ARGS...: the same for any tree; the
# -falign-functions=32 trees (o-arm-a32, o-mipsel-a32) with ALIGN32
xmake() {
	_xa=$1 _xt=$2 _ad=$3
	shift 3
	_kcflags=-ffunction-sections
	case $_ad in
	"$O32" | "$OMEA") _kcflags="$_kcflags $ALIGN32" ;;
	esac
	make -C "$SRC" O="$_ad" ARCH="$_xa" CROSS_COMPILE="ccache $_xt-" \
		KCFLAGS="$_kcflags" -j"$JOBS" "$@"
}
# kbuild_arm OBJDIR LOG CACHEPIN-KBUILD-OPTIONS...: the cycle on an ARM tree
kbuild_arm() {
	_kd=$1 _klg=$2
	shift 2
	"$KBUILD" "$@" -O "$_kd" -- -C "$SRC" O="$_kd" ARCH=arm CROSS_COMPILE="ccache $ARM-" \
		-j"$JOBS" 2> "$_klg" || { cat "$_klg" >&2; die "cachepin-kbuild $* failed on '$_kd'"; }
	cat "$_klg" >&2
}
# kbuild_plan DIR LOG P ARGS...: kbuild_arm, planned from profile P
# (perf or trace): the perf profile, or the traced window's QEMU log
# itself, recorded on the stock kernel (plan --traced), whose model is
# the run in the order it ran; the log's profile keeps its counts and
# loses the order (planned for the hook tree, on one run's after trace:
# -64.6 % LRU misses from the log, -50.7 % from its profile)
kbuild_plan() {
	_kpd=$1 _kpl=$2 _kpp=$3
	shift 3
	case $_kpp in
	trace)
		kbuild_arm "$_kpd" "$_kpl" "$@" -p "$W/run-before/trace.log" \
			-P "--traced $W/run-before/vmlinux" ;;
	*) kbuild_arm "$_kpd" "$_kpl" "$@" -p "$W/profile/$_kpp.profile" ;;
	esac
}
# orphan-section warnings in the build logs FILE...
orphans() { cat "$@" | grep -c 'orphan section' || true; }

stage_deps() {
	[ "$(id -u)" = 0 ] || die "the 'deps' stage must run as root"
	"$TOP/scripts/install-deps" --kernel
	# the guests' user space: armhf, and mipsel for the MIPS router
	_new=
	for a in armhf mipsel; do
		dpkg --print-foreign-architectures | grep -qx $a && continue
		dpkg --add-architecture $a
		_new=1
	done
	[ -z "$_new" ] || apt-get update -qq || log "apt-get update reported errors; going on"
	[ -x "$CACHEPIN" ] ||
		make -C "$TOP" -j"$JOBS" cachepin test-progs > /dev/null
}

stage_unpack() {
	tarball=/usr/src/linux-source-$KVER.tar.xz
	[ -f "$tarball" ] || die "'$tarball' is missing" "run the 'deps' stage"
	if [ -f "$SRC/Makefile" ]; then
		log "'$SRC' exists, not unpacking again"
	else
		tar -C "$W" -xf "$tarball"
	fi
	if grep -q CONFIG_TEXT_LAYOUT "$SRC/include/asm-generic/vmlinux.lds.h"; then
		log "the hook patch is applied already"
	else
		patch -s -p1 -d "$SRC" < "$TOP/contrib/kbuild/linux-6.1-text-layout.patch"
	fi
	# the hook patch changes nothing when CONFIG_TEXT_LAYOUT is off: o-arm
	# is the stock build
}

config_tree() {
	dir=$1 arch=$2 cross=$3 frag=$4
	mkdir -p "$dir"
	make -C "$SRC" O="$dir" ARCH="$arch" CROSS_COMPILE="$cross" tinyconfig > /dev/null
	"$SRC/scripts/kconfig/merge_config.sh" -m -O "$dir" "$dir/.config" "$frag" > /dev/null
	make -C "$SRC" O="$dir" ARCH="$arch" CROSS_COMPILE="$cross" olddefconfig > /dev/null
	# merge_config drops options whose dependencies are missing: check
	bad=0
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			opt=${line%%=*}
			got=$(grep "^$opt=" "$dir/.config" | cut -d= -f2) || true
			if [ "$got" != "${line#*=}" ]; then
				log "'$dir/.config': $opt is '${got:-unset}', wanted '${line#*=}'"
				bad=1
			fi ;;
		'# CONFIG_'*' is not set')
			opt=${line#\# }; opt=${opt%% *}
			if grep -q "^$opt=" "$dir/.config"; then
				log "'$dir/.config': $opt is set, wanted unset"
				bad=1
			fi ;;
		esac
	done < "$frag"
	[ $bad = 0 ] || die "kernel configuration '$dir/.config' incomplete"
}

stage_config() {
	config_tree "$OA" arm "$ARM-" "$TOP/tests/kernel/arm-router.config"
	{ cat "$TOP/tests/kernel/arm-router.config"; echo CONFIG_TEXT_LAYOUT=y; } > "$W/arm-router-hook.config"
	config_tree "$OH" arm "$ARM-" "$W/arm-router-hook.config"
	config_tree "$O32" arm "$ARM-" "$TOP/tests/kernel/arm-router.config"
	config_tree "$OM" mips "$MIPS-" "$TOP/tests/kernel/mips-malta.config"
	# o-arm and o-arm-hook differ in CONFIG_TEXT_LAYOUT alone, o-arm and
	# o-arm-a32 (whose difference is the compiler flag) in nothing
	d=$(diff "$OA/.config" "$OH/.config" | grep -c '^[<>]') || true
	[ "$d" = 2 ] || die "o-arm and o-arm-hook differ in more than CONFIG_TEXT_LAYOUT ($d lines)"
	cmp -s "$OA/.config" "$O32/.config" || die "o-arm and o-arm-a32 have different configurations"
	log "config ok: ARM $(grep -c '=y$' "$OA/.config") options =y, MIPS $(grep -c '=y$' "$OM/.config")"
}

stage_build() {
	t0=$(now)
	amake "$OA" vmlinux zImage vexpress-v2p-ca9.dtb > "$W/build-arm.log" 2>&1 ||
		{ tail -30 "$W/build-arm.log" >&2; die "kernel build failed, see '$W/build-arm.log'"; }
	fact build_arm_s $(( $(now) - t0 ))
	fact stock_orphan_warnings "$(orphans "$W/build-arm.log")"
	fact stock_text_symbols "$(grep -c ' [tT] ' "$OA/System.map")"
}

# ---------------------------------------------------------------- guests

GUEST_PKGS="busybox-static iproute2 iptables linux-perf"
# Depends that the guest never executes (maintainer-script and scripting
# tools); the ELF closure below decides what is copied.
SKIP_PKGS='cdebconf|dpkg|install-info|tar|perl|perl-base|python3|python3\.11|python3\.11-minimal|libpython3-stdlib|libpython3\.11-stdlib|libpython3\.11-minimal|libcap2-bin|libdebian-installer4|libnewt0\.52|libtextwrap1'

# Copy PKGROOT-relative file $1 into the initramfs, then its DT_NEEDED
# libraries, recursively (from the multiarch directory $_gtri first)
copy_elf() {
	rel=$1
	[ -e "$R/$rel" ] && return 0
	mkdir -p "$R/$(dirname "$rel")"
	cp -L "$P/$rel" "$R/$rel"
	for lib in $(readelf -d "$P/$rel" 2>/dev/null |
			sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		found=
		for dir in lib/$_gtri usr/lib/$_gtri lib usr/lib; do
			if [ -e "$P/$dir/$lib" ]; then
				found=$dir/$lib
				break
			fi
		done
		[ -n "$found" ] || die "'$rel' needs '$lib', which no downloaded package has"
		copy_elf "$found"
	done
}

# guest_initrd DEBARCH TRIPLET LDSO SUFFIX: busybox, iproute2, iptables
# and perf of Debian's DEBARCH packages (their multiarch TRIPLET, the
# dynamic loader LDSO) and the lab's /init, as WORKDIR/initrd$SUFFIX.gz,
# from WORKDIR/debs$SUFFIX, pkgroot$SUFFIX and initramfs$SUFFIX
guest_initrd() {
	_garch=$1 _gtri=$2 _gld=$3 _gsuf=$4
	mkdir -p "$W/debs$_gsuf"
	list=
	for p in $GUEST_PKGS; do list="$list $p:$_garch"; done
	# shellcheck disable=SC2086
	pkgs=$(apt-cache depends --recurse --no-recommends --no-suggests \
		--no-conflicts --no-breaks --no-replaces --no-enhances $list |
		grep -v '^ ' | grep ":$_garch\$" | sort -u |
		grep -vE "^($SKIP_PKGS):$_garch\$")
	# shellcheck disable=SC2086
	(cd "$W/debs$_gsuf" && apt-get download $pkgs > /dev/null 2>&1) ||
		die "apt-get download of the guests' $_garch packages failed" \
			"run the 'deps' stage (it adds the $_garch architecture)"
	P=$W/pkgroot$_gsuf
	rm -rf "$P"
	mkdir -p "$P"
	for d in "$W/debs$_gsuf"/*_"$_garch".deb; do
		dpkg-deb -x "$d" "$P"
	done
	R=$W/initramfs$_gsuf
	rm -rf "$R"
	mkdir -p "$R/bin" "$R/sbin" "$R/usr/bin" "$R/usr/sbin" "$R/proc" \
		"$R/sys" "$R/dev" "$R/lab" "$R/run" "$R/www" "$R/etc"
	cp "$P/bin/busybox" "$R/bin/busybox"
	ln -s busybox "$R/bin/sh"
	copy_elf "$_gld"
	copy_elf bin/ip
	copy_elf usr/sbin/xtables-legacy-multi
	ln -s xtables-legacy-multi "$R/usr/sbin/iptables-legacy"
	copy_elf usr/bin/perf
	for so in "$P/usr/lib/$_gtri/xtables"/libxt_*.so "$P/usr/lib/$_gtri/xtables"/libipt_*.so; do
		copy_elf "usr/lib/$_gtri/xtables/${so##*/}"
	done
	echo "root:x:0:0:root:/lab:/bin/sh" > "$R/etc/passwd"
	echo "root:x:0:" > "$R/etc/group"
	cp "$TOP/tests/kernel/init" "$R/init"
	chmod 755 "$R/init"
	(cd "$R" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0 | gzip -9n) > "$W/initrd$_gsuf.gz"
	log "initrd$_gsuf.gz: $(du -k "$W/initrd$_gsuf.gz" | cut -f1) KiB from $(ls "$W/debs$_gsuf"/*_"$_garch".deb | wc -l) $_garch packages"
}

stage_initrd() {
	guest_initrd armhf "$ARM" lib/ld-linux-armhf.so.3 ''
}

# wait_for FILE PATTERN SECONDS: until a line of FILE matches PATTERN
wait_for() {
	i=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -le $(($3 * 5)) ] || die "'$1': no '$2' after $3 s" "the end of that log shows what the guest did"
		sleep 0.2
	done
}

# exit_within PID SECONDS LOG: wait for the guest PID to power off; one
# that is still running after SECONDS is stopped, and the run fails
exit_within() {
	i=0
	while kill -0 "$1" 2> /dev/null; do
		i=$((i + 1))
		if [ $i -gt $(($2 * 5)) ]; then
			kill "$1" 2> /dev/null || :
			die "'$3': the guest did not power off within $2 s" "its kernel needs a power-off driver"
		fi
		sleep 0.2
	done
	wait "$1" || :
}

free_port() {
	p=$((20000 + $$ % 20000))
	while ss -Hltn "sport = :$p" 2>/dev/null | grep -q .; do p=$((p + 1)); done
	echo $p
}

# boot_pair NAME OBJDIR [trace] [perf]: the router guest (the one that is
# traced and profiled) and the hosts guest (LAN and WAN end points in
# network namespaces), joined by a socket link on 127.0.0.1.  The router
# has LAN and WAN as VLANs 1 and 2 on its one NIC and masquerades.
# ROUTER_ARCH picks its machine: arm (vexpress-a9, OBJDIR's zImage) or
# mips (malta with a 74Kf, OBJDIR's vmlinux).
boot_pair() {
	name=$1 k=$2 trace=${3:-} perf=${4:-}
	D=$W/run-$name
	rm -rf "$D"
	mkdir -p "$D"
	for f in router mon hosts; do mkfifo "$D/$f.in" "$D/$f.out"; done
	# the kernel as booted (later stages rebuild the trees)
	cp "$k/vmlinux" "$k/vmlinux.map" "$k/System.map" "$k/.config" "$D/"
	port=$(free_port)
	# the hosts guest is always ARM: the ARM router's kernel, or for the
	# MIPS router the stock ARM one; and only a zImage made from its
	# vmlinux
	hk=$k hi=${INITRD:-$W/initrd.gz}
	[ "$ROUTER_ARCH" = arm ] || hk=$OA hi=$W/initrd.gz
	[ "$hk/arch/arm/boot/zImage" -nt "$hk/vmlinux" ] ||
		die "'$hk/arch/arm/boot/zImage' is older than its vmlinux"
	common="-M vexpress-a9 -m 256 -smp 1 -kernel $hk/arch/arm/boot/zImage
		-dtb $hk/arch/arm/boot/dts/vexpress-v2p-ca9.dtb -initrd $hi
		-display none -no-reboot -audiodev none,id=snd0"
	case $ROUTER_ARCH in
	arm)
		rq=qemu-system-arm console=ttyAMA0 rnic="-nic socket,listen=127.0.0.1:$port"
		rcommon="-M vexpress-a9 -m 256 -smp 1 -kernel $k/arch/arm/boot/zImage
			-dtb $k/arch/arm/boot/dts/vexpress-v2p-ca9.dtb -initrd ${INITRD:-$W/initrd.gz}
			-display none -no-reboot -audiodev none,id=snd0" ;;
	mips)
		# malta's 74Kf with its PCI NIC (pcnet, without the boot ROM
		# that Linux does not use), the ELF vmlinux
		rq=qemu-system-mipsel console=ttyS0
		rnic="-netdev socket,id=link,listen=127.0.0.1:$port -device pcnet,netdev=link,romfile="
		rcommon="-M malta -cpu 74Kf -m 256 -kernel $k/vmlinux
			-initrd ${INITRD:-$W/initrd-mipsel.gz} -display none -vga none -no-reboot" ;;
	esac
	cat "$D/router.out" > "$D/router.log" &
	cat "$D/mon.out" > "$D/mon.log" &
	cat "$D/hosts.out" > "$D/hosts.log" &
	# in_asm (each block's instructions, once, at translation) from the
	# start, exec (one line per executed block) only in the window;
	# nochain so that every executed block is logged
	# shellcheck disable=SC2086
	$rq $rcommon -append "console=$console rdinit=/init lab=router ${ROUTER_ARGS:-}" \
		-serial pipe:"$D/router" -chardev pipe,id=mon,path="$D/mon" -mon chardev=mon \
		$rnic,mac=52:54:00:00:01:01 $ROUTER_CLOCK \
		${trace:+-D "$D/trace.log" -d in_asm,nochain} 2> "$D/router.err" &
	rpid=$! hpid=
	# a failed check must not leave the guests running
	trap 'kill $rpid $hpid 2> /dev/null' EXIT
	exec 3<> "$D/router.in" 4<> "$D/mon.in"
	wait_for "$D/router.log" "^LAB: router ready" 120
	# shellcheck disable=SC2086
	qemu-system-arm $common -append "console=ttyAMA0 rdinit=/init lab=hosts" \
		-serial pipe:"$D/hosts" -monitor none \
		-nic socket,connect=127.0.0.1:$port,mac=52:54:00:00:02:01 2> "$D/hosts.err" &
	hpid=$!
	exec 5<> "$D/hosts.in"
	wait_for "$D/hosts.log" "^LAB: hosts ready" 120
	echo "check c1" >&5
	wait_for "$D/hosts.log" "^LAB: c1 " 120
	grep -q "^LAB: c1 check: hello" "$D/hosts.log" ||
		die "'$D/hosts.log': the download through the NAT failed"
	fact "${name}_nat_check" ok
	if [ -n "$trace" ]; then
		echo "log in_asm,exec,nochain" >&4
		sleep 1
		echo "load t1 $LOADS $MIB" >&5
		wait_for "$D/hosts.log" "^LAB: t1 done" 1200
		echo "log in_asm,nochain" >&4
		sleep 1
		fact "${name}_trace_window" "$(sed -n 's/^LAB: t1 done //p' "$D/hosts.log" | tr -d '\r')"
	fi
	if [ -n "$perf" ]; then
		# as many downloads in every perf window, however busy the
		# machine is (60 s of downloads in a loop carried 5 in one run
		# and 14 in another, and the plans from them differed by 13
		# points); the recording lasts as long as they take
		echo "perf p1 start $PERF_FREQ" >&3
		wait_for "$D/router.log" "^LAB: p1 perf started" 120
		if [ "$PERF_SAMPLING" = insn ]; then
			# a timer interrupt is taken between blocks only: blocks
			# of one instruction let a sample land on any of them
			# (the trace window's blocks are logged; these are not)
			echo "log none" >&4
			echo "singlestep on" >&4
		fi
		echo "load p1 $PERF_LOADS $MIB" >&5
		wait_for "$D/hosts.log" "^LAB: p1 done" $((PERF_LOADS * 600 + 300))
		[ "$PERF_SAMPLING" = time ] || echo "singlestep off" >&4
		echo "perf p1 stop" >&3
		wait_for "$D/router.log" "^LAB: p1 perf done" 900
		fact "${name}_perf_window" "$(sed -n 's/^LAB: p1 done //p' "$D/hosts.log" | tr -d '\r')"
		sed -n '/^=====BEGIN perf.data=====/,/^=====END perf.data=====/p' "$D/router.log" |
			tr -d '\r' | sed '1d;$d' | base64 -d | gunzip > "$D/perf.data" ||
			die "'$D/router.log': no complete perf.data dump"
	fi
	echo "stats s1" >&3
	wait_for "$D/router.log" "^LAB: s1 done" 60
	echo quit >&5
	echo quit >&3
	exit_within $hpid 60 "$D/hosts.log"
	exit_within $rpid 60 "$D/router.log"
	exec 3>&- 4>&- 5>&-
	wait
	trap - EXIT
}

stage_before() {
	amake "$OA" vmlinux zImage vexpress-v2p-ca9.dtb > "$W/before-make.log" 2>&1 ||
		die "make of the stock kernel failed, see '$W/before-make.log'"
	t0=$(now)
	boot_pair before "$OA" trace perf
	case $PERF_SAMPLING in
	insn) fact perf_sampling_said "cpu-clock with the router's clock counting instructions (QEMU -icount shift=auto) and one instruction per translation block in the window, so that a sample stands for an executed instruction, as \`perf record -e instructions\` on a PMU" ;;
	time) fact perf_sampling_said "cpu-clock in host time, taken between translation blocks only (PERF_SAMPLING=time)" ;;
	esac
	fact before_boot_s $(( $(now) - t0 ))
}

# block_starts PERFDATA TRACE: the share (%) of the kernel samples of
# PERFDATA that are the first instruction of a translation block of the
# QEMU log TRACE (samples of every instruction alike put the window's
# blocks per instruction there, trace_block_share: 23.8 % in one run);
# QEMU takes the timer interrupt only between blocks
block_starts() {
	perf script -i "$1" -F ip -G 2> /dev/null | awk -v tr="$2" '
		function hex(s) { sub(/^0x/, "", s); sub(/^0+/, "", s); return tolower(s) }
		BEGIN {
			while ((getline l < tr) > 0) {
				if (l ~ /^IN:/) { first = 1; continue }
				if (first && l ~ /^0x[0-9a-f]+:/) start[hex(substr(l, 1, index(l, ":") - 1))] = 1
				first = 0
			}
		}
		$1 ~ /^[0-9a-f]+$/ && length($1) >= 8 && $1 >= "c0000000" { n++; if (hex($1) in start) k++ }
		END { printf "%.1f", n ? 100 * k / n : 0 }'
}
stage_profile() {
	mkdir -p "$W/profile"
	t0=$(now)
	B=$W/run-before
	"$CACHEPIN" profile -m "$B/vmlinux.map" -o "$W/profile/perf.profile" \
		"$B/vmlinux" "$B/perf.data" 2> "$W/profile/perf.log" ||
		{ cat "$W/profile/perf.log" >&2; die "cachepin profile of the perf recording failed"; }
	fact profile_perf_s $(( $(now) - t0 ))
	! grep -q 'build-id .* differs' "$W/profile/perf.log" ||
		die "'$B/perf.data' was recorded on another kernel than '$B/vmlinux'"
	t0=$(now)
	"$CACHEPIN" profile -m "$B/vmlinux.map" -o "$W/profile/trace.profile" \
		"$B/vmlinux" "$B/trace.log" 2> "$W/profile/trace.log" ||
		{ cat "$W/profile/trace.log" >&2; die "cachepin profile of the QEMU trace failed"; }
	fact profile_trace_s $(( $(now) - t0 ))
	fact trace_bytes "$(stat -c %s "$W/run-before/trace.log")"
	# samples of the traced window itself, every N-th executed
	# instruction, as many as the perf window has in the kernel: what
	# sampling at that count gives when each sample stands for a fetch
	ns=$(awk '$1 == "samples" { print $3 }' "$W/profile/perf.profile")
	ni=$(awk '$1 == "samples" { print $2 }' "$W/profile/trace.profile")
	every=$(( ni / (ns > 0 ? ns : 1) ))
	[ "$every" -ge 1 ] || every=1
	"$CACHEPIN" profile --every "$every" -m "$B/vmlinux.map" -o "$W/profile/every.profile" \
		"$B/vmlinux" "$B/trace.log" 2> "$W/profile/every.log" ||
		{ cat "$W/profile/every.log" >&2; die "cachepin profile --every $every of the QEMU trace failed"; }
	fact perf_samples "$ns"
	fact trace_samples "$ni"
	fact perf_block_starts "$(block_starts "$B/perf.data" "$B/trace.log")"
	fact every_period "$every"
	fact every_samples "$(awk '$1 == "samples" { print $3 }' "$W/profile/every.profile")"
	cat "$W/profile/perf.log" "$W/profile/trace.log" "$W/profile/every.log" >&2
}

stage_hook() {
	t0=$(now)
	# planned on the link without a plan, also when the tree has one
	# installed from an earlier run (as mrplan does)
	rm -f "$OH/text-layout.lds"
	kbuild_plan "$OH" "$W/hook.log" "$PLAN_FROM" -c "$CACHE"
	fact hook_cycle_s $(( $(now) - t0 ))
	fact hook_profile "$PLAN_FROM"
	fact hook_orphan_warnings "$(orphans "$OH/cachepin/build.log" "$OH/cachepin/relink.log")"
	fact hook_check "$(tail -1 "$OH/cachepin/check.log")"
	t0=$(now)
	amake "$OH" zImage vexpress-v2p-ca9.dtb > "$W/hook-zimage.log" 2>&1 ||
		die "zImage of the planned kernel failed, see '$W/hook-zimage.log'"
	fact hook_zimage_s $(( $(now) - t0 ))
	# the zImage step must not have relinked vmlinux differently
	"$CACHEPIN" check "$OH/System.map" "$OH/cachepin/text-layout.align" > /dev/null ||
		die "'$OH/System.map': planned units moved after make zImage"
}

stage_after() {
	t0=$(now)
	boot_pair after "$OH" trace
	fact after_boot_s $(( $(now) - t0 ))
}

# the profile of the booted plan, and the other one
booted_profile() {
	p=$(getfact hook_profile)
	echo "${p:-$PLAN_FROM}"
}
other_profile() {
	case $(booted_profile) in
	perf) echo trace ;;
	trace) echo perf ;;
	*) die "the 'hook' stage planned from '$(booted_profile)'" "PLAN_FROM is perf or trace" ;;
	esac
}

# o-arm-hook linked with the booted plan again, as the 'after' stage
# booted it
hook_as_booted() {
	amake "$OH" TEXT_LAYOUT_FILE="$OH/cachepin/text-layout.lds" vmlinux zImage vexpress-v2p-ca9.dtb \
		> "$W/replan-restore.log" 2>&1 ||
		die "relink of '$OH' with the booted plan failed, see '$W/replan-restore.log'"
	cmp -s "$OH/System.map" "$W/run-after/System.map" ||
		die "'$OH/System.map': the link with the plan in '$OH/cachepin' is not the kernel the 'after' stage booted" \
			"run the 'hook' and 'after' stages again"
}

stage_replan() {
	used=$(booted_profile) other=$(other_profile)
	A=$W/run-after
	[ -f "$A/System.map" ] || die "'$A/System.map' is missing" "run the 'after' stage"
	# a failed run of this stage leaves the tree on another plan
	cmp -s "$OH/System.map" "$A/System.map" || hook_as_booted
	d=$W/plan-$used
	rm -rf "$d"
	mkdir -p "$d"
	cp "$A/vmlinux" "$A/vmlinux.map" "$A/System.map" "$OH/cachepin/text-layout.lds" \
		"$OH/cachepin/text-layout.align" "$OH/cachepin/plan.log" "$d/"
	# plan on the link without a plan, as the first run of the 'hook'
	# stage does: the plan's block starts where the lowest hot unit is
	: > "$W/empty-layout.lds"
	amake "$OH" TEXT_LAYOUT_FILE="$W/empty-layout.lds" vmlinux > "$W/replan-unplanned.log" 2>&1 ||
		die "relink of '$OH' without a plan failed, see '$W/replan-unplanned.log'"
	d=$W/plan-$other
	rm -rf "$d"
	t0=$(now)
	kbuild_plan "$OH" "$W/replan.log" "$other" -c "$CACHE" -o "$d"
	fact replan_cycle_s $(( $(now) - t0 ))
	fact replan_profile "$other"
	fact replan_orphan_warnings "$(orphans "$d/relink.log")"
	fact replan_check "$(tail -1 "$d/check.log")"
	cp "$OH/vmlinux" "$OH/vmlinux.map" "$OH/System.map" "$d/"
	# back to the booted plan, for the stages after this one
	hook_as_booted
	if cmp -s "$W/plan-perf/System.map" "$W/plan-trace/System.map"; then
		fact replan_same_layout yes
	else
		fact replan_same_layout no
	fi
}

stage_nopatch() {
	t0=$(now)
	kbuild_plan "$OA" "$W/nopatch.log" "$PLAN_FROM" -n -c "$CACHE"
	fact nopatch_cycle_s $(( $(now) - t0 ))
	fact nopatch_orphan_warnings "$(orphans "$OA/cachepin/relink.log")"
	fact nopatch_check "$(tail -1 "$OA/cachepin/check.log")"
	amake "$OA" KBUILD_LDS=cachepin-vmlinux.lds zImage vexpress-v2p-ca9.dtb > "$W/nopatch-zimage.log" 2>&1 ||
		die "zImage of the no-patch kernel failed, see '$W/nopatch-zimage.log'"
	boot_pair nopatch "$OA"
	stock_relink
}

# o-arm back to the stock layout: make alone does not relink after a
# link with another script (vmlinux is newer than its inputs)
stock_relink() {
	cmp -s "$OA/System.map" "$W/run-before/System.map" && return 0
	rm -f "$OA/vmlinux"
	amake "$OA" vmlinux zImage > "$W/stock-relink.log" 2>&1 ||
		die "relink of '$OA' with the stock script failed, see '$W/stock-relink.log'"
	cmp -s "$OA/System.map" "$W/run-before/System.map" ||
		die "'$OA/System.map': the relink is not the stock kernel the 'before' stage booted"
}

# aligned32 SYSTEM.MAP: the share of text symbols at a multiple of 32
# bytes, in % (the low five bits clear: last hex digit 0, the one before
# it even)
aligned32() {
	awk '$2 == "t" || $2 == "T" {
			n++
			if (substr($1, length($1), 1) == "0" && substr($1, length($1) - 1, 1) ~ /[02468ace]/)
				a++
		}
		END { printf "%.1f", n ? a * 100 / n : 0 }' "$1"
}
# text_bytes VMLINUX: the bytes of its .text and .text.* output sections
text_bytes() { "$ARM-size" -A "$1" | awk '$1 ~ /^\.text/ { s += $2 } END { print s + 0 }'; }

stage_align32() {
	B=$W/run-before
	[ -f "$B/vmlinux" ] || die "'$B/vmlinux' is missing" "run the 'before' stage"
	t0=$(now)
	amake "$O32" vmlinux zImage vexpress-v2p-ca9.dtb > "$W/build-align32.log" 2>&1 ||
		{ tail -30 "$W/build-align32.log" >&2; die "build of the $ALIGN32 kernel failed, see '$W/build-align32.log'"; }
	fact build_align32_s $(( $(now) - t0 ))
	fact align32_orphan_warnings "$(orphans "$W/build-align32.log")"
	fact align32_text_symbols "$(grep -c ' [tT] ' "$O32/System.map")"
	# the flag reached the compiler: more functions start on 32 bytes than
	# in the stock kernel (assembly keeps its own alignment)
	fact stock_aligned32 "$(aligned32 "$B/System.map")"
	fact align32_aligned32 "$(aligned32 "$O32/System.map")"
	awk -v s="$(getfact stock_aligned32)" -v a="$(getfact align32_aligned32)" 'BEGIN { exit !(a > s) }' ||
		die "'$O32/System.map': no more text symbols on 32 bytes than in the stock kernel" \
			"the compiler already aligns functions to 32 bytes, or KCFLAGS did not reach it (see '$W/build-align32.log')"
	fact stock_text_bytes "$(text_bytes "$B/vmlinux")"
	fact align32_text_bytes "$(text_bytes "$O32/vmlinux")"
	t0=$(now)
	boot_pair align32 "$O32" trace
	fact align32_boot_s $(( $(now) - t0 ))
}

# misses of a traced window: cachepin simulate over kernel addresses (more
# options, then the log)
simulate() {
	"$CACHEPIN" simulate -c "$CACHE" --range 0xbf000000-0xffffffff "$@"
}

# score_facts PREFIX FILE: the modelled misses of a cachepin score output
score_facts() {
	fact "$1_lru" "$(awk '$1 == "misses" && $2 == "LRU" { print $3; exit }' "$2")"
	fact "$1_random" "$(awk '$1 == "misses" && $2 == "pseudo-random" { print $3; exit }' "$2")"
}

# sim_facts PREFIX FILE: the misses per policy and the instructions of a
# cachepin simulate output as facts PREFIX_lru, PREFIX_random, PREFIX_fa-lru and
# PREFIX_instructions
sim_facts() {
	for pol in lru random fa-lru; do
		fact "$1_$pol" "$(awk -v p=$pol '$2 == p { print $4; exit }' "$2")"
	done
	fact "$1_instructions" "$(awk '$2 == "lru" { print $5; exit }' "$2")"
}

# change_facts NAME OF FROM: facts NAME_lru and NAME_random, the change in %
# of the misses per instruction of sim_facts prefix OF against FROM.  Per
# instruction: two windows run the same downloads, but not exactly the
# same number of instructions
change_facts() {
	for pol in lru random; do
		fact "$1_$pol" "$(awk -v a="$(getfact "$2_$pol")" -v ia="$(getfact "$2_instructions")" \
			-v b="$(getfact "$3_$pol")" -v ib="$(getfact "$3_instructions")" \
			'BEGIN { printf "%+.1f", (a / ia - b / ib) * 100 / (b / ib) }')"
	done
}

# layout_elf LAYOUT: the kernel of stock, align32 or a plan (perf, trace)
layout_elf() {
	case $1 in
	stock) echo "$W/run-before/vmlinux" ;;
	align32) echo "$W/run-align32/vmlinux" ;;
	*) echo "$W/plan-$1/vmlinux" ;;
	esac
}

# remap_sim RUN LAYOUT: the trace of RUN (before, after) fetched on
# LAYOUT's kernel, function by function, as facts sim_RUN_on_LAYOUT_*;
# _kept: the instructions outside functions named once in both kernels,
# which stay where they ran
remap_sim() {
	old=$W/run-$1/vmlinux new=$(layout_elf "$2") out=$W/sim-$1-on-$2.txt
	[ -f "$new" ] || die "'$new' is missing" "run the 'replan' and 'align32' stages"
	simulate "$W/run-$1/trace.log" "$old" --relink "$new" > "$out" 2> "$out.err" ||
		{ cat "$out.err" >&2; die "cachepin simulate --relink '$new' failed on '$W/run-$1/trace.log'"; }
	cat "$out.err" "$out" >&2
	sim_facts "sim_$1_on_$2" "$out"
	kept=$(sed -n 's/^cachepin: warning: .*: \([0-9]* of [0-9]*\) instructions ran outside .*/\1/p' "$out.err")
	fact "sim_$1_on_$2_kept" "${kept:-0 of $(getfact "sim_$1_instructions")}"
	# --range picks instructions by their address in the traced kernel,
	# so these are the instructions of the run's own simulation
	[ "$(getfact "sim_$1_on_$2_instructions")" = "$(getfact "sim_$1_instructions")" ] ||
		die "'$out': not the instructions of '$W/sim-$1.txt'"
}

# layout_sim RUN NAME ALIGN: RUN's trace on RUN's kernel laid out from
# the alignment file ALIGN (simulate --layout), as the facts
# sim_RUN_layout_NAME, and their change against stock on the same trace
layout_sim() {
	out=$W/sim-$1-layout-$2.txt
	simulate "$W/run-$1/trace.log" "$W/run-$1/vmlinux" -m "$W/run-$1/vmlinux.map" \
		--layout "$3" > "$out" 2> "$out.err" ||
		{ cat "$out.err" >&2; die "cachepin simulate --layout '$3' failed on the $1 run's trace"; }
	cat "$out.err" "$out" >&2
	sim_facts "sim_$1_layout_$2" "$out"
	change_facts "sim_change_$1_layout_$2" "sim_$1_layout_$2" "sim_$1_on_stock"
}
stage_simulate() {
	for r in before after align32; do
		[ -f "$W/run-$r/trace.log" ] || die "'$W/run-$r/trace.log' is missing" "run the '$r' stage"
		simulate "$W/run-$r/trace.log" > "$W/sim-$r.txt" ||
			die "cachepin simulate failed on '$W/run-$r/trace.log'"
		cat "$W/sim-$r.txt" >&2
		sim_facts "sim_$r" "$W/sim-$r.txt"
	done
	# the share of the traced window's instructions that start a block:
	# where samples of every instruction alike land on a block's start
	fact trace_block_share "$(sed -n '1s/.*: \([0-9]*\) blocks, \([0-9]*\) instructions.*/\1 \2/p' \
		"$W/sim-before.txt" | awk '{ printf "%.1f", $2 ? 100 * $1 / $2 : 0 }')"
	# each kernel on its own trace
	change_facts sim_change sim_after sim_before
	change_facts sim_change_align32 sim_align32 sim_before
	change_facts sim_vs_align32 sim_after sim_align32
	# every layout on the same fetch stream: the traces of the stock run
	# and of the after run, each on stock, align32 and both plans.  A
	# plan is scored fairly on a run its profile did not come from: the
	# trace profile came from the stock run's traced window, the perf
	# profile from its perf window later in the same boot; the after run
	# is a boot of its own.  Changes are against stock (and align32) on
	# the same trace, so per instruction is the same as per trace.
	used=$(booted_profile)
	for r in before after; do
		for l in stock align32 perf trace; do
			case $r/$l in
			before/stock | after/"$used") sim_facts "sim_${r}_on_$l" "$W/sim-$r.txt" ;;
			*) remap_sim "$r" "$l" ;;
			esac
		done
		for l in align32 perf trace; do
			change_facts "sim_change_${r}_on_$l" "sim_${r}_on_$l" "sim_${r}_on_stock"
		done
		for l in perf trace; do
			change_facts "sim_vs_align32_${r}_on_$l" "sim_${r}_on_$l" "sim_${r}_on_align32"
		done
	done
	# each plan laid out on the stock run's kernel from its alignment
	# file alone (cachepin simulate --layout), beside the relinked
	# kernel's remap above: what the tool predicts without a link; and
	# beside each, the reference colouring of the same profile (cachepin
	# plan --method reference: densest first, each line charged the
	# fewer fetches of itself and the lightest line of a full set, no
	# growth room), the simple rule a plan has to beat
	for p in perf trace; do
		in=$W/profile/$p.profile
		[ "$p" != trace ] || in=$W/run-before/trace.log
		"$CACHEPIN" plan --method reference -c "$CACHE" -m "$W/run-before/vmlinux.map" \
			-o "$W/reference-$p.lds" "$W/run-before/vmlinux" "$in" \
			2> "$W/reference-$p.err" ||
			{ cat "$W/reference-$p.err" >&2; die "cachepin plan --method reference from '$p.profile' failed"; }
		layout_sim before "$p" "$W/plan-$p/text-layout.align"
		layout_sim before "reference_$p" "$W/reference-$p.align"
	done
	# and the four on the after run's trace, each laid out the same way
	# on that run's kernel: a run neither profile came from, one
	# simulator for the plans and the reference colourings alike
	for p in perf trace; do
		layout_sim after "$p" "$W/plan-$p/text-layout.align"
		layout_sim after "reference_$p" "$W/reference-$p.align"
	done
	# the plan from samples of the trace at the perf window's count,
	# laid out the same way; and the share of the perf window's samples
	# that wait in the idle loop (the plans leave them out).  -v: the
	# idle loop's share of an instruction count, which stays heat
	"$CACHEPIN" plan -v -c "$CACHE" -m "$W/run-before/vmlinux.map" -o "$W/plan-every.lds" \
		"$W/run-before/vmlinux" "$W/profile/every.profile" 2> "$W/plan-every.err" ||
		{ cat "$W/plan-every.err" >&2; die "cachepin plan from '$W/profile/every.profile' failed"; }
	layout_sim after every "$W/plan-every.align"
	# the trace's exact counts as a profile (its every instruction, in
	# time slices), planned through the model as a recording is: beside
	# the trace plan what the model's string loses, beside the sampled
	# plans what sampling loses
	"$CACHEPIN" plan -v -c "$CACHE" -m "$W/run-before/vmlinux.map" -o "$W/plan-counts.lds" \
		"$W/run-before/vmlinux" "$W/profile/trace.profile" 2> "$W/plan-counts.err" ||
		{ cat "$W/plan-counts.err" >&2; die "cachepin plan from '$W/profile/trace.profile' failed"; }
	layout_sim after counts "$W/plan-counts.align"
	fact perf_idle_share "$(sed -n 's/.*: \([0-9.]*\) % of the samples wait in the idle loop.*/\1/p' \
		"$W/reference-perf.err")"
	# the idle loop's share of the executed instructions: of every
	# instruction (the trace, its counts) and of every N-th
	for p in every counts; do
		idle=$(sed -n 's/.*: \([0-9.]*\) % of the samples are in the idle loop.*/\1/p' "$W/plan-$p.err" | head -1)
		fact "${p}_idle_share" "${idle:-0.0}"
	done
	for r in before after; do
		for p in perf trace; do
			"$CACHEPIN" score -c "$CACHE" "$W/run-$r/vmlinux" "$W/profile/$p.profile" > "$W/score-$r-$p.txt" ||
				die "cachepin score of '$W/run-$r/vmlinux' failed"
			score_facts "score_${r}_$p" "$W/score-$r-$p.txt"
		done
	done
	# the planned layout must not miss more than the stock one on its own
	# trace (checked last, so that the facts above are there to read)
	for pol in lru random; do
		awk -v c="$(getfact sim_change_$pol)" 'BEGIN { exit !(c <= 0) }' ||
			die "the planned layout misses more than the stock one ($pol: $(getfact sim_before_$pol) -> $(getfact sim_after_$pol))" \
				"'$W/facts' has the other figures; 'report' writes them out"
	done
}

# keep_build TREE DIR: the tree's vmlinux and its map, for cachepin diff
keep_build() {
	mkdir -p "$2"
	cp "$1/vmlinux" "$1/vmlinux.map" "$1/System.map" "$2/"
}

# diff_facts PREFIX OLD NEW: cachepin diff of two kept builds under the
# plan's profile, as facts PREFIX_planned_moved (of the functions the
# plan placed for their hot lines), PREFIX_sampled_moved (of every hot
# function), PREFIX_functions and the modelled misses PREFIX_old_lru,
# PREFIX_new_lru; the text report in WORKDIR/PREFIX.txt
diff_facts() {
	"$CACHEPIN" diff -c "$CACHE" --old-map "$2/vmlinux.map" --new-map "$3/vmlinux.map" \
		"$2/vmlinux" "$3/vmlinux" "$pf" > "$W/$1.txt" 2> "$W/$1.err" &&
	"$CACHEPIN" diff --json -c "$CACHE" --old-map "$2/vmlinux.map" --new-map "$3/vmlinux.map" \
		"$2/vmlinux" "$3/vmlinux" "$pf" > "$W/$1.json" 2>> "$W/$1.err" ||
		{ cat "$W/$1.err" >&2; die "cachepin diff '$2/vmlinux' '$3/vmlinux' failed"; }
	cat "$W/$1.txt" >&2
	fact "$1_functions" "$(jq '.caches[0].hot_functions' "$W/$1.json")"
	fact "$1_sampled_moved" "$(jq '.caches[0].moved' "$W/$1.json")"
	fact "$1_planned_functions" "$(jq --slurpfile p "$W/names-planned.json" \
		'[.caches[0].functions[] | select(.name as $n | $p[0] | index($n))] | length' "$W/$1.json")"
	fact "$1_planned_moved" "$(jq --slurpfile p "$W/names-planned.json" \
		'[.caches[0].functions[] | select(.name as $n | $p[0] | index($n)) | select(.old_set != .new_set)] | length' "$W/$1.json")"
	fact "$1_old_lru" "$(jq '.caches[0].old.lru' "$W/$1.json")"
	fact "$1_new_lru" "$(jq '.caches[0].new.lru' "$W/$1.json")"
	fact "$1_new_pairs" "$(jq '[.caches[0].pairs[] | select(.state == "new")] | length' "$W/$1.json")"
}

stage_stability() {
	pf=$W/profile/$PLAN_FROM.profile
	commit=$TOP/tests/kernel/unrelated-commit.patch
	# the functions the plan placed for their hot lines
	awk '$1 == "hot" { print $2 }' "$OH/cachepin/text-layout.align" | sort -u |
		jq -R . | jq -s . > "$W/names-planned.json"
	# the stock tree as the 'before' stage booted it (not as the
	# no-patch stage left it)
	stock_relink
	keep_build "$OA" "$W/stab-stock-before"
	keep_build "$OH" "$W/stab-hook-before"
	patch -s -p1 -d "$SRC" < "$commit"
	trap 'patch -s -R -p1 -d "$SRC" < "$commit"' EXIT
	amake "$OA" vmlinux > "$W/stability-a.log" 2>&1 || die "build of the changed tree failed"
	amake "$OH" vmlinux > "$W/stability-b.log" 2>&1 || die "build of the changed tree with the hook failed"
	"$CACHEPIN" check "$OH/System.map" "$OH/cachepin/text-layout.align" > "$W/stability-check.txt" ||
		die "'$OH/System.map': planned units moved after the unrelated commit"
	keep_build "$OA" "$W/stab-stock-after"
	keep_build "$OH" "$W/stab-hook-after"
	patch -s -R -p1 -d "$SRC" < "$commit"
	trap - EXIT
	# what the commit moved, by cachepin diff, without and with the hook
	diff_facts stability_stock "$W/stab-stock-before" "$W/stab-stock-after"
	diff_facts stability_hook "$W/stab-hook-before" "$W/stab-hook-after"
	fact stability_planned_functions "$(getfact stability_stock_planned_functions)"
	fact stability_sampled_functions "$(getfact stability_stock_functions)"
	for n in planned sampled; do
		fact stability_${n}_moved_without_hook "$(getfact stability_stock_${n}_moved)"
		fact stability_${n}_moved_with_hook "$(getfact stability_hook_${n}_moved)"
	done
	fact score_commit_stock_lru "$(getfact stability_stock_new_lru)"
	fact score_commit_hook_lru "$(getfact stability_hook_new_lru)"
	amake "$OA" vmlinux zImage > "$W/stability-restore.log" 2>&1
	amake "$OH" vmlinux zImage >> "$W/stability-restore.log" 2>&1
	[ "$(getfact stability_planned_moved_with_hook)" = 0 ] ||
		die "with the hook, $(getfact stability_planned_moved_with_hook) planned hot functions changed sets after an unrelated commit"
	[ "$(getfact stability_planned_moved_without_hook)" -gt 0 ] ||
		die "the unrelated commit moved no hot function in the stock build: the demo shows nothing"
}

# growth_build NOPS LOG [MAKE-ARGS...]: the hook tree with the growth
# commit of NOPS instructions, relinked with its installed plan
growth_build() {
	_n=$1 _lg=$2
	shift 2
	# (called in a || list, where set -e does not hold: every step says so)
	sed "s/NOPS/$_n/" "$TOP/tests/kernel/hot-growth.patch" > "$W/hot-growth-$_n.patch" ||
		die "no '$TOP/tests/kernel/hot-growth.patch'"
	patch -s -p1 -d "$SRC" < "$W/hot-growth-$_n.patch" || die "the growth commit does not apply"
	trap 'patch -s -R -p1 -d "$SRC" < "$W/hot-growth-$_n.patch"' EXIT
	_rc=0
	amake "$OH" CACHEPIN="$CACHEPIN" TEXT_LAYOUT_PROFILE="$pf" "$@" vmlinux > "$_lg" 2>&1 || _rc=$?
	keep_build "$OH" "$W/growth-$_n"
	patch -s -R -p1 -d "$SRC" < "$W/hot-growth-$_n.patch"
	trap - EXIT
	return $_rc
}

# hot units of alignment file A in another first set in B
sets_changed() {
	awk '$1 == "hot" { print $2 "|" $3, $7 }' "$1" | sort > "$W/sets.a"
	awk '$1 == "hot" { print $2 "|" $3, $7 }' "$2" | sort > "$W/sets.b"
	join "$W/sets.a" "$W/sets.b" | awk '$2 != $3 { n++ } END { print n + 0 }'
}

stage_growth() {
	pf=$W/profile/$PLAN_FROM.profile
	al=$OH/cachepin/text-layout.align
	fn=nf_conntrack_tcp_packet
	grep -q "^hot $fn " "$al" || die "'$al': $fn is no hot unit of the plan: the demo shows nothing"
	keep_build "$OH" "$W/growth-0"
	# 8 instructions: the room after it absorbs them
	growth_build 8 "$W/growth-8.log" || die "the build with $fn grown by 8 instructions failed (see '$W/growth-8.log')"
	"$CACHEPIN" check "$W/growth-8/System.map" "$al" > "$W/growth-8.check" ||
		die "$fn grown by 8 instructions moved planned units (see '$W/growth-8.check')"
	! grep -q '^warning: text layout' "$W/growth-8.log" ||
		die "kbuild's per-link check warned for a growth the plan absorbs (see '$W/growth-8.log')"
	fact growth_8_check "$(tail -1 "$W/growth-8.check")"
	fn_size() { nm -S "$1/vmlinux" | awk -v f=$fn '$4 == f { print strtonum("0x" $2) }'; }
	s0=$(fn_size "$W/growth-0") s8=$(fn_size "$W/growth-8")
	[ "$s8" -gt "$s0" ] || die "$fn did not grow with the commit ($s0 -> $s8 bytes)"
	fact growth_fn_size "$s0 $s8"
	# 48 instructions: past its room; the per-link check says so, and fails the make when asked
	growth_build 48 "$W/growth-48.log" || die "the build with $fn grown by 48 instructions failed (see '$W/growth-48.log')"
	s48=$(fn_size "$W/growth-48")
	[ "$s48" -gt "$s8" ] || die "$fn did not grow more with 48 instructions ($s8 -> $s48 bytes)"
	fact growth_48_size "$s48"
	"$CACHEPIN" check "$W/growth-48/System.map" "$al" > "$W/growth-48.check" || :
	moved=$(grep -c '^moved: hot ' "$W/growth-48.check" || true)
	fact growth_48_moved "$moved"
	if [ "$moved" -gt 0 ]; then
		grep -q "^warning: text layout: moved after: hot $fn, " "$W/growth-48.log" ||
			die "kbuild's per-link check did not name $fn (see '$W/growth-48.log')"
		fact growth_48_warning "$(grep -c '^warning: text layout: ' "$W/growth-48.log")"
		fact growth_48_misses "$(sed -n 's/^warning: text layout: modelled misses //p' "$W/growth-48.log")"
		touch "$OH/cachepin/text-layout.align" "$OH/text-layout.align"
		if growth_build 48 "$W/growth-48-error.log" TEXT_LAYOUT_CHECK=error; then
			die "TEXT_LAYOUT_CHECK=error did not fail the link whose planned units moved"
		fi
		fact growth_48_error "$(grep -c '^error: text layout: ' "$W/growth-48-error.log")"
	fi
	# re-planned on that build: with the old plan kept, and from scratch
	"$CACHEPIN" plan --keep "$al" --map "$W/growth-48/vmlinux.map" -c "$CACHE" \
		-o "$W/growth-keep.lds" "$W/growth-48/vmlinux" "$pf" 2> "$W/growth-keep.log" ||
		{ cat "$W/growth-keep.log" >&2; die "plan --keep failed"; }
	fact growth_keep "$(sed -n 's/^cachepin: kept/kept/p' "$W/growth-keep.log")"
	fact growth_keep_sets_changed "$(sets_changed "$al" "$W/growth-keep.align")"
	"$CACHEPIN" plan --map "$W/growth-48/vmlinux.map" -c "$CACHE" \
		-o "$W/growth-scratch.lds" "$W/growth-48/vmlinux" "$pf" 2> "$W/growth-scratch.log" ||
		{ cat "$W/growth-scratch.log" >&2; die "plan from scratch failed"; }
	fact growth_scratch_sets_changed "$(sets_changed "$al" "$W/growth-scratch.align")"
	fact growth_hot_units "$(grep -c '^hot ' "$al")"
	growth_build 48 "$W/growth-48-keep.log" TEXT_LAYOUT_FILE="$W/growth-keep.lds" TEXT_LAYOUT_CHECK=error ||
		die "the relink with the kept plan failed its check (see '$W/growth-48-keep.log')"
	"$CACHEPIN" check "$W/growth-48/System.map" "$W/growth-keep.align" > "$W/growth-keep.check" ||
		die "the relink with the kept plan moved planned units"
	fact growth_keep_check "$(tail -1 "$W/growth-keep.check")"
	# the tree back on the booted plan
	amake "$OH" TEXT_LAYOUT_FILE="$OH/cachepin/text-layout.lds" vmlinux zImage > "$W/growth-restore.log" 2>&1 ||
		die "restoring the hook tree failed"
	"$CACHEPIN" check "$OH/System.map" "$al" > /dev/null || die "the restored hook tree does not follow its plan"
}

stage_mips() {
	t0=$(now)
	"$KBUILD" -k -c "$MIPS_CACHE" -p "$W/profile/$PLAN_FROM.profile" -O "$OM" -- \
		-C "$SRC" O="$OM" ARCH=mips CROSS_COMPILE="ccache $MIPS-" -j"$JOBS" 2> "$W/mips.log" ||
		{ cat "$W/mips.log" >&2; die "cachepin-kbuild failed on MIPS"; }
	cat "$W/mips.log" >&2
	fact mips_cycle_s $(( $(now) - t0 ))
	fact mips_check "$(tail -1 "$OM/cachepin/check.log")"
	fact mips_orphan_warnings "$(orphans "$OM/cachepin/build.log" "$OM/cachepin/relink.log")"
	# head.o's .text, with the entry point, stays first
	stext=$(awk '$3 == "_stext" { print $1 }' "$OM/System.map")
	text=$(awk '$3 == "_text" { print $1 }' "$OM/System.map")
	entry=$(awk '$3 == "__kernel_entry" { print $1 }' "$OM/System.map")
	[ -n "$entry" ] && [ "$stext" = "$entry" ] ||
		die "'$OM/System.map': __kernel_entry ($entry) is not at _stext ($stext)"
	fact mips_text "_text=$text _stext=$stext __kernel_entry=$entry"
	# a static big-endian /init that says it ran, then waits; the kernel
	# has no reboot driver, so the lab stops QEMU once it has seen the
	# line (or after two minutes)
	mkdir -p "$W/mips-initramfs"
	$MIPS-gcc -static -nostdlib -ffreestanding -fno-pic -mno-abicalls -Os \
		-o "$W/mips-initramfs/init" "$TOP/tests/kernel/mips-init.c"
	(cd "$W/mips-initramfs" && echo init | cpio -o -H newc --quiet -R 0:0) > "$W/mips-initrd.cpio"
	: > "$W/mips-console.log"
	qemu-system-mips -M malta -m 256 -kernel "$OM/vmlinux" \
		-initrd "$W/mips-initrd.cpio" -append "console=ttyS0 rdinit=/init" \
		-display none -vga none -serial file:"$W/mips-console.log" -monitor none \
		-nic none -no-reboot < /dev/null 2> "$W/mips-qemu.err" &
	mpid=$!
	trap 'kill $mpid 2> /dev/null' EXIT
	wait_for "$W/mips-console.log" '^LAB: mips init ran' 120
	kill $mpid
	wait $mpid || :
	trap - EXIT
	fact mips_init "$(sed -n 's/^LAB: mips init ran on //p' "$W/mips-console.log" | tr -d '\r')"
	fact mips_boot ok
}

# ------------------------------------------- the OpenWrt shape: modules

MOD_CONFIG=$TOP/tests/kernel/arm-router-modules.config

# mod_info DIR: "MODULE KEY VALUE" for the depends (one a line), the
# softdep pre names and the aliases in the .modinfo of every module of DIR
mod_info() {
	for ko in "$1"/*.ko; do
		"$ARM-objcopy" -O binary -j .modinfo "$ko" /dev/stdout 2> /dev/null | tr '\0' '\n' |
			awk -v m="$(basename "$ko" .ko)" -F= '
				$1 == "depends" { n = split($2, d, ","); for (i = 1; i <= n; i++) if (d[i] != "") print m, "dep", d[i] }
				$1 == "softdep" { n = split($2, d, " "); pre = 0
					for (i = 1; i <= n; i++) { if (d[i] == "pre:") pre = 1; else if (d[i] == "post:") pre = 0; else if (pre) print m, "dep", d[i] } }
				$1 == "alias" { print m, "alias", $2 }
				END { print m, "is", m }'
	done
}

# mod_order DIR [-r]: the modules of DIR (flat), each after those it
# depends on and those its init asks for first (softdep pre, by module
# name or alias: libcrc32c's needs crc32c_generic); tsort, -r taking them
# the other way round where the dependencies leave the order free
mod_order() {
	mod_info "$1" | awk '
		$2 == "is" { mods[$1] = 1; print $1, $1 }
		$2 == "alias" { alias[$3] = $1 }
		$2 == "dep" { dep[++n] = $3; of[n] = $1 }
		END { for (i = 1; i <= n; i++) { d = dep[i]; if (!(d in mods) && (d in alias)) d = alias[d]
			if (d in mods) print d, of[i] } }' | LC_ALL=C sort ${2:-} | tsort | sed 's/$/.ko/'
}

# mod_root DIR: DIR afresh, every module the o-arm-mod tree built in
# DIR/lib/modules
mod_root() {
	rm -rf "$1"
	mkdir -p "$1/lib/modules"
	find "$OMOD" -name '*.ko' -exec cp {} "$1/lib/modules/" \;
}

# mod_initrd DIR OUT: initrd.gz, then DIR (its modules) and this /init
# over it (a later cpio archive's files replace an earlier one's), as OUT
mod_initrd() {
	cp "$TOP/tests/kernel/init" "$1/init"
	chmod 755 "$1/init"
	{ cat "$W/initrd.gz"
	  (cd "$1" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0 | gzip -9n); } > "$2"
}

stage_modbuild() {
	keys=$(sed -n 's/^\(CONFIG_[A-Z0-9_]*\)=.*/\1/p' "$MOD_CONFIG" | paste -sd'|')
	{ grep -vE "^($keys)=|^# ($keys) is not set" "$TOP/tests/kernel/arm-router.config"
	  cat "$MOD_CONFIG"; } > "$W/arm-router-modules.config"
	config_tree "$OMOD" arm "$ARM-" "$W/arm-router-modules.config"
	t0=$(now)
	# the stock link: after modplan, the tree's vmlinux is the plan's,
	# and kbuild relinks for a changed script only by its date
	rm -f "$OMOD/vmlinux"
	amake "$OMOD" vmlinux zImage vexpress-v2p-ca9.dtb modules > "$W/build-mod.log" 2>&1 ||
		{ tail -30 "$W/build-mod.log" >&2; die "modules kernel build failed, see '$W/build-mod.log'"; }
	fact modbuild_s $(( $(now) - t0 ))
	R=$W/modroot
	mod_root "$R"
	n=$(ls "$R/lib/modules" | wc -l)
	[ "$n" -ge 5 ] || die "'$OMOD': $n modules built, not the router's netfilter"
	for m in nf_conntrack nf_nat iptable_nat xt_MASQUERADE; do
		[ -f "$R/lib/modules/$m.ko" ] || die "'$OMOD': no $m.ko"
	done
	mod_order "$R/lib/modules" > "$R/lib/modules/load.order"
	mod_order "$R/lib/modules" -r > "$R/lib/modules/load.order.alt"
	! cmp -s "$R/lib/modules/load.order" "$R/lib/modules/load.order.alt" ||
		die "the modules' two load orders are the same"
	fact mod_modules "$n: $(sed 's/\.ko$//' "$R/lib/modules/load.order" | paste -sd' ')"
	fact mod_modules_alt "$(sed 's/\.ko$//' "$R/lib/modules/load.order.alt" | paste -sd' ')"
	fact mod_text_symbols "$(grep -c ' [tT] ' "$OMOD/System.map")"
	mod_initrd "$R" "$W/initrd-mod.gz"
}

# proc_modules LOG: the router's /proc/modules as LOG has it
proc_modules() {
	tr -d '\r' < "$1" | sed -n '/^LAB: modules$/,/^LAB: modules end/p' | grep -v '^LAB: '
}
# mod_table LOG: the same as "NAME ADDRESS SIZE", by name
mod_table() {
	proc_modules "$1" | awk 'NF >= 6 { print $1, $6, $2 }' | LC_ALL=C sort
}

# boot_router NAME OBJDIR: the router alone, up to "router ready"
boot_router() {
	_bd=$W/run-$1
	rm -rf "$_bd"
	mkdir -p "$_bd"
	: > "$_bd/router.log"
	# shellcheck disable=SC2086
	qemu-system-arm -M vexpress-a9 -m 256 -smp 1 -kernel "$2/arch/arm/boot/zImage" \
		-dtb "$2/arch/arm/boot/dts/vexpress-v2p-ca9.dtb" -initrd "${INITRD:-$W/initrd.gz}" \
		-append "console=ttyAMA0 rdinit=/init lab=router ${ROUTER_ARGS:-}" \
		-display none -no-reboot -audiodev none,id=snd0 -serial file:"$_bd/router.log" \
		-monitor none -nic none < /dev/null 2> "$_bd/router.err" &
	_bp=$!
	trap 'kill $_bp 2> /dev/null' EXIT
	wait_for "$_bd/router.log" "^LAB: router ready" 120
	kill $_bp
	wait $_bp || :
	trap - EXIT
}

stage_modboot() {
	[ -f "$W/initrd-mod.gz" ] || die "'$W/initrd-mod.gz' is missing" "run the 'modbuild' stage"
	t0=$(now)
	INITRD=$W/initrd-mod.gz boot_pair modules "$OMOD" trace perf
	D=$W/run-modules
	! grep -q '^LAB: insmod' "$D/router.log" ||
		die "'$D/router.log': $(grep '^LAB: insmod' "$D/router.log" | head -1)"
	cp -r "$W/modroot/lib/modules" "$D/modules"
	proc_modules "$D/router.log" > "$D/proc-modules"
	mod_table "$D/router.log" > "$D/modules.txt"
	[ "$(wc -l < "$D/modules.txt")" = "$(wc -l < "$D/modules/load.order")" ] ||
		die "'$D/router.log': /proc/modules has $(wc -l < "$D/modules.txt") modules, not $(wc -l < "$D/modules/load.order")"
	sed -n '/^=====BEGIN perf.script=====/,/^=====END perf.script=====/p' "$D/router.log" |
		tr -d '\r' | sed '1d;$d' | base64 -d | gunzip > "$D/perf.script" ||
		die "'$D/router.log': no complete perf script dump"
	fact mod_perf_script "$(sed -n 's/^LAB: p1 perf script //p' "$D/router.log" | tr -d '\r')"
	fact mod_boot_s $(( $(now) - t0 ))
	# loaded the other way round: each module at another page, and
	# nothing below the page moves
	INITRD=$W/initrd-mod.gz ROUTER_ARGS=modorder=alt boot_router modules-alt "$OMOD"
	mod_table "$W/run-modules-alt/router.log" > "$W/run-modules-alt/modules.txt"
	fact mod_bases "$(awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 }' "$D/modules.txt")"
	fact mod_bases_alt "$(awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 }' "$W/run-modules-alt/modules.txt")"
	fact mod_bases_moved "$(LC_ALL=C join "$D/modules.txt" "$W/run-modules-alt/modules.txt" |
		awk '$2 != $4 { n++ } END { print n + 0 " of " NR }')"
	_al=yes
	for a in $(cat "$D/modules.txt" "$W/run-modules-alt/modules.txt" | cut -d' ' -f2); do
		[ $((a % 4096)) = 0 ] || _al="no: $a"
	done
	fact mod_bases_page_aligned "$_al"
}

# perf_mods SCRIPT MODULES: the samples of each module of the table
# MODULES (mod_table) ("module:NAME.ko N") and of each module function
# ("function:NAME.ko:FUNCTION N") as the leaves of perf script -G text
# SCRIPT have them: perf's own attribution, by its symbols (other dsos in
# brackets, such as ARM's [vectors] page, are not modules); prof_mods
# PROFILE: the same of a cachepin profile
perf_mods() {
	awk -v mods="$2" 'BEGIN { while ((getline l < mods) > 0) { split(l, w, " "); known[w[1]] = 1 } }
	{ d = $NF } d ~ /^\(\[.*\]\)$/ {
		gsub(/[()\[\]]/, "", d); gsub(/-/, "_", d)
		if (!(d in known)) next
		s = $(NF - 1); sub(/\+0x[0-9a-f]+$/, "", s)
		m[d ".ko"]++; if (s != "[unknown]") f[d ".ko:" s]++
	} END { for (k in m) print "module:" k, m[k]; for (k in f) print "function:" k, f[k] }' "$1" |
		LC_ALL=C sort
}
prof_mods() {
	awk '$1 == "o" && $2 ~ /\.ko$/ { print "module:" $2, $3 }
		$1 == "f" && $3 ~ /\.ko$/ { print "function:" $3 ":" $2, $5 }' "$1" | LC_ALL=C sort
}

stage_modprofile() {
	D=$W/run-modules
	mkdir -p "$W/profile"
	for src in perf.data perf.script trace.log; do
		out=$W/profile/mod-${src#perf.}.profile
		[ "$src" != trace.log ] || out=$W/profile/mod-trace.profile
		"$CACHEPIN" profile --modules "$D/modules" --proc-modules "$D/proc-modules" \
			-m "$D/vmlinux.map" -o "$out" "$D/vmlinux" "$D/$src" 2> "$out.log" ||
			{ cat "$out.log" >&2; die "cachepin profile --modules of '$D/$src' failed"; }
		cat "$out.log" >&2
	done
	# the modules' share of the traced window's kernel instructions
	fact mod_trace_shares "$(awk -v n="$(awk '$1 == "samples" { print $2 }' "$W/profile/mod-trace.profile")" \
		'$1 == "o" && $2 ~ /\.ko$/ { printf "%s%s %.2f %%", k++ ? ", " : "", $2, 100 * $3 / n }' \
		"$W/profile/mod-trace.profile")"
	perf_mods "$D/perf.script" "$D/modules.txt" > "$W/profile/mod-perf-own.txt"
	for p in data script; do
		prof_mods "$W/profile/mod-$p.profile" > "$W/profile/mod-$p.txt"
		fact "mod_${p}_vs_perf" "$(LC_ALL=C join -a 1 -a 2 -e 0 -o 0,1.2,2.2 \
			"$W/profile/mod-perf-own.txt" "$W/profile/mod-$p.txt" |
			awk '{ n++; if ($2 == $3) same++ } END { print same + 0 " of " n + 0 " agree" }')"
	done
	fact mod_samples "$(awk '$1 == "samples" { print $2 }' "$W/profile/mod-data.profile")"
	fact mod_script_samples "$(grep -c . "$D/perf.script")"
	fact mod_shares "$(awk -v n="$(getfact mod_samples)" '/^module:/ {
		sub(/^module:/, ""); printf "%s%s %.2f %%", k++ ? ", " : "", $1, 100 * $2 / n }' "$W/profile/mod-data.txt")"
	fact mod_functions "$(grep -c '^function:' "$W/profile/mod-data.txt")"
	cmp -s "$W/profile/mod-perf-own.txt" "$W/profile/mod-data.txt" || {
		diff "$W/profile/mod-perf-own.txt" "$W/profile/mod-data.txt" | head -20 >&2
		die "the module samples of '$D/perf.data' differ from perf script's own attribution"
	}
}

# the modules router planned by cachepin-kbuild -M -n on o-arm-mod (the
# route without the patch, so that the tree stays the stock build's):
# vmlinux, with the modules' hot lines fixed occupants where the profiled
# run had them, then the modules against it, linked with their script
# (LDFLAGS_MODULE) and checked (cachepin check --modules)
stage_modplan() {
	D=$W/run-modules
	t0=$(now)
	# trace: the traced window's log, the run itself the model, its
	# modules' fetches where they ran
	case $MOD_PLAN_FROM in
	trace) p=$D/trace.log ;;
	*) p=$W/profile/mod-data.profile ;;
	esac
	# planned on the stock link: a tree last linked with the plan's script
	# keeps that link (kbuild relinks for a script only by its date)
	rm -f "$OMOD/vmlinux"
	kbuild_arm "$OMOD" "$W/modplan.log" -n -M -c "$CACHE" -p "$p" \
		-P "--proc-modules $D/proc-modules --module-pages $MOD_PAGES"
	fact modplan_profile "$MOD_PLAN_FROM"
	fact modplan_module_pages "$MOD_PAGES"
	fact modplan_check "$(tail -1 "$OMOD/cachepin/check.log")"
	fact modplan_modules_check "$(tail -1 "$OMOD/cachepin/check-modules.log")"
	fact modplan_occupants "$(sed -n "s/.*: \([0-9]* hot functions.* of modules\) are fixed occupants.*/\1/p" "$OMOD/cachepin/plan.log" | head -1)"
	fact modplan_modules "$(grep -c '^cachepin: [a-zA-Z0-9_]*\.ko: [0-9]* hot functions' "$OMOD/cachepin/plan.log")"
	fact modplan_modelled "$(sed -n 's/^cachepin: .*: this plan with the modules as built \([0-9]*\), as planned \([0-9]* ([^;]*\);.*/\1 -> \2)/p' "$OMOD/cachepin/plan.log" | head -1)"
	amake "$OMOD" KBUILD_LDS=cachepin-vmlinux.lds LDFLAGS_MODULE="-T $OMOD/cachepin/modules.lds" \
		zImage vexpress-v2p-ca9.dtb > "$W/modplan-make.log" 2>&1 ||
		die "the planned modules kernel's make failed, see '$W/modplan-make.log'"
	fact modplan_cycle_s $(( $(now) - t0 ))
	R=$W/modroot-after
	mod_root "$R"
	cp "$W/modroot/lib/modules/load.order" "$W/modroot/lib/modules/load.order.alt" "$R/lib/modules/"
	mod_initrd "$R" "$W/initrd-mod-after.gz"
}

stage_modafter() {
	t0=$(now)
	INITRD=$W/initrd-mod-after.gz boot_pair modules-after "$OMOD" trace
	D=$W/run-modules-after
	! grep -q '^LAB: insmod' "$D/router.log" ||
		die "'$D/router.log': $(grep '^LAB: insmod' "$D/router.log" | head -1)"
	cp -r "$W/modroot-after/lib/modules" "$D/modules"
	proc_modules "$D/router.log" > "$D/proc-modules"
	mod_table "$D/router.log" > "$D/modules.txt"
	fact mod_after_bases_moved "$(LC_ALL=C join "$W/run-modules/modules.txt" "$D/modules.txt" |
		awk '$2 != $4 { n++ } END { print n + 0 " of " NR }')"
	# the modules whose page within an 8 KiB way span (32K:4:32) changed:
	# each of their lines in the other of its two sets
	fact mod_after_other_page "$(LC_ALL=C join "$W/run-modules/modules.txt" "$D/modules.txt" |
		while read -r _n _a _s _b _t; do
			[ $(((_a >> 12) & 1)) = $(((_b >> 12) & 1)) ] || printf '%s ' "$_n"
		done)"
	fact mod_after_boot_s $(( $(now) - t0 ))
}

# mod_sim NAME RUN ONTO [MODS-ONLY]: RUN's trace with vmlinux and the
# modules remapped to ONTO's (the other run's kernel and modules), or the
# modules only, as the facts sim_NAME_*
mod_sim() {
	out=$W/sim-$1.txt
	_rl="--relink $W/run-$3/vmlinux"
	[ -z "${4:-}" ] || _rl=
	# shellcheck disable=SC2086
	simulate "$W/run-$2/trace.log" "$W/run-$2/vmlinux" $_rl --modules "$W/run-$2/modules" \
		--proc-modules "$W/run-$2/proc-modules" --relink-modules "$W/run-$3/modules" \
		> "$out" 2> "$out.err" || { cat "$out.err" >&2; die "cachepin simulate of the $2 run's trace onto $3's failed"; }
	cat "$out.err" "$out" >&2
	sim_facts "sim_$1" "$out"
}

# the traces of both modules runs on both kernels (each module's code
# remapped by function to the other build of it, where the run had it)
stage_modsimulate() {
	for r in modules modules-after; do
		simulate "$W/run-$r/trace.log" > "$W/sim-$r.txt" ||
			die "cachepin simulate failed on '$W/run-$r/trace.log'"
		sim_facts "sim_${r}" "$W/sim-$r.txt"
	done
	mod_sim modules_after_on_stock modules-after modules
	mod_sim modules_on_plan modules modules-after
	# the planned run with its modules as built, vmlinux planned
	mod_sim modules_after_stock_mods modules-after modules mods-only
	# each plan against stock on the trace its profile did not come from
	change_facts sim_change_modules_plan sim_modules-after sim_modules_after_on_stock
	change_facts sim_change_modules_plan_vmlinux sim_modules_after_stock_mods sim_modules_after_on_stock
	change_facts sim_change_modules_plan_stock_run sim_modules_on_plan sim_modules
}

# ------------------------------------- the MIPS router (malta 74Kf, LE)

MIPSEL=mipsel-linux-gnu
MR_CONFIG=$TOP/tests/kernel/mips-router.config
# the 74K's two L1I sizes: the booted plan is for the first
MR_CACHES="mips-74k-32k mips-74k-64k"

# mmake OBJDIR MAKE-ARGS...: make in a mipsel tree, as amake
mmake() { xmake mips "$MIPSEL" "$@"; }

# msimulate CACHE ARGS...: simulate over the MIPS kernel's addresses
# (kseg0; user space is below 0x80000000)
msimulate() {
	_mc=$1
	shift
	"$CACHEPIN" simulate -c "$_mc" --range 0x80000000-0xbfffffff "$@"
}

# mr_sim NAME CACHE TRACE-RUN [ARGS...]: msimulate of TRACE-RUN's trace
# as it ran, or remapped from its kernel by ARGS, as the facts sim_NAME_*
mr_sim() {
	_mn=$1 _mc=$2 _mr=$3
	shift 3
	out=$W/sim-$_mn.txt
	[ $# = 0 ] || set -- "$W/run-$_mr/vmlinux" "$@"
	msimulate "$_mc" "$W/run-$_mr/trace.log" "$@" > "$out" 2> "$out.err" ||
		{ cat "$out.err" >&2; die "cachepin simulate ($_mn) failed on '$W/run-$_mr/trace.log'"; }
	cat "$out.err" "$out" >&2
	sim_facts "sim_$_mn" "$out"
}

stage_mrbuild() {
	config_tree "$OME" mips "$MIPSEL-" "$MR_CONFIG"
	{ cat "$MR_CONFIG"; echo CONFIG_TEXT_LAYOUT=y; } > "$W/mips-router-hook.config"
	config_tree "$OMEH" mips "$MIPSEL-" "$W/mips-router-hook.config"
	config_tree "$OMEA" mips "$MIPSEL-" "$MR_CONFIG"
	t0=$(now)
	mmake "$OME" vmlinux > "$W/build-mipsel.log" 2>&1 ||
		{ tail -30 "$W/build-mipsel.log" >&2; die "MIPS router build failed, see '$W/build-mipsel.log'"; }
	fact mr_build_s $(( $(now) - t0 ))
	fact mr_text_symbols "$(grep -c ' [tT] ' "$OME/System.map")"
	guest_initrd mipsel "$MIPSEL" lib/ld.so.1 -mipsel
}

stage_mrbefore() {
	[ -f "$W/initrd-mipsel.gz" ] || die "'$W/initrd-mipsel.gz' is missing" "run the 'mrbuild' stage"
	[ -f "$W/initrd.gz" ] || die "'$W/initrd.gz' is missing" "run the 'initrd' stage (the hosts guest is ARM)"
	t0=$(now)
	ROUTER_ARCH=mips boot_pair mrbefore "$OME" trace perf
	fact mr_before_boot_s $(( $(now) - t0 ))
}

stage_mrprofile() {
	B=$W/run-mrbefore
	for p in perf trace; do
		in=$B/perf.data
		[ $p = perf ] || in=$B/trace.log
		"$CACHEPIN" profile -m "$B/vmlinux.map" -o "$W/profile/mr-$p.profile" \
			"$B/vmlinux" "$in" 2> "$W/profile/mr-$p.log" ||
			{ cat "$W/profile/mr-$p.log" >&2; die "cachepin profile of the MIPS router's '$in' failed"; }
		cat "$W/profile/mr-$p.log" >&2
		fact "mr_${p}_samples" "$(awk '$1 == "samples" { print $3; exit }' "$W/profile/mr-$p.profile")"
	done
	! grep -q 'build-id .* differs' "$W/profile/mr-perf.log" ||
		die "'$B/perf.data' was recorded on another kernel than '$B/vmlinux'"
}

# mr_plan CACHE SOURCE OUT: cachepin plan for CACHE from SOURCE (perf,
# trace: the traced window's log itself, in its order; reference-perf,
# reference-trace: the reference colouring) on the stock run's kernel,
# as OUT.lds and OUT.align
mr_plan() {
	B=$W/run-mrbefore
	_meth= _in=$W/profile/mr-perf.profile
	case $2 in
	reference-*) _meth="--method reference" ;;
	esac
	case $2 in
	*trace) _in="--traced $B/vmlinux $B/trace.log" ;;
	esac
	# shellcheck disable=SC2086
	"$CACHEPIN" plan $_meth -c "$1" -m "$B/vmlinux.map" --keep-first arch/mips/kernel/head.o \
		-o "$3.lds" "$B/vmlinux" $_in 2> "$3.err" ||
		{ cat "$3.err" >&2; die "cachepin plan $_meth -c $1 from the MIPS router's $2 failed"; }
}

stage_mrplan() {
	[ -f "$W/run-mrbefore/trace.log" ] || die "'$W/run-mrbefore/trace.log' is missing" "run the 'mrbefore' stage"
	t0=$(now)
	# the plan from the traced window's log, built, linked and checked
	# (-k: head.o's entry code first, as 6.1 needs on MIPS); planned on
	# the tree's link without a plan: the hook keeps the last fragment
	# installed (an empty one is made when there is none), and a link
	# made with it is planned again as it is
	rm -f "$OMEH/vmlinux" "$OMEH/text-layout.lds"
	"$KBUILD" -k -c mips-74k-32k -p "$W/run-mrbefore/trace.log" -P "--traced $W/run-mrbefore/vmlinux" \
		-O "$OMEH" -- -C "$SRC" O="$OMEH" ARCH=mips CROSS_COMPILE="ccache $MIPSEL-" -j"$JOBS" \
		2> "$W/mrplan.log" || { cat "$W/mrplan.log" >&2; die "cachepin-kbuild failed on '$OMEH'"; }
	cat "$W/mrplan.log" >&2
	fact mr_plan_cycle_s $(( $(now) - t0 ))
	fact mr_plan_check "$(tail -1 "$OMEH/cachepin/check.log")"
	fact mr_plan_orphan_warnings "$(orphans "$OMEH/cachepin/build.log" "$OMEH/cachepin/relink.log")"
	# every plan as an alignment file on the stock kernel: both sources
	# and the reference colouring, for both sizes
	mkdir -p "$W/mr-plans"
	for c in $MR_CACHES; do
		for p in trace perf reference-trace reference-perf; do
			mr_plan "$c" "$p" "$W/mr-plans/$c-$p"
		done
	done
	# the stock kernel with every function on 32 bytes, not booted: the
	# runs' traces are remapped onto it
	t0=$(now)
	mmake "$OMEA" vmlinux > "$W/build-mipsel-a32.log" 2>&1 ||
		{ tail -30 "$W/build-mipsel-a32.log" >&2; die "build of the MIPS $ALIGN32 kernel failed, see '$W/build-mipsel-a32.log'"; }
	fact mr_build_align32_s $(( $(now) - t0 ))
	fact mr_stock_aligned32 "$(aligned32 "$OME/System.map")"
	fact mr_align32_aligned32 "$(aligned32 "$OMEA/System.map")"
	mkdir -p "$W/mr-align32"
	cp "$OMEA/vmlinux" "$OMEA/vmlinux.map" "$OMEA/System.map" "$W/mr-align32/"
}

stage_mrafter() {
	t0=$(now)
	ROUTER_ARCH=mips boot_pair mrafter "$OMEH" trace
	"$CACHEPIN" check "$W/run-mrafter/System.map" "$OMEH/cachepin/text-layout.align" > /dev/null ||
		die "'$W/run-mrafter/System.map': the booted kernel is not the plan's link"
	fact mr_after_boot_s $(( $(now) - t0 ))
}

# The after run (the planned kernel, a boot the profiles did not come
# from) on every layout at both sizes: as it ran; remapped function by
# function onto the stock and the align32 kernels; and the stock
# kernel laid out from each plan's alignment file.  And the profiled
# run's own trace on stock and on the planned kernel.
stage_mrsimulate() {
	for f in "$W/run-mrbefore/trace.log" "$W/run-mrafter/trace.log" "$W/mr-align32/vmlinux"; do
		[ -f "$f" ] || die "'$f' is missing" "run the mrbefore, mrplan and mrafter stages"
	done
	for c in $MR_CACHES; do
		k=${c#mips-74k-}
		mr_sim "mr_after_$k" "$c" mrafter
		mr_sim "mr_after_on_stock_$k" "$c" mrafter --relink "$W/run-mrbefore/vmlinux"
		mr_sim "mr_after_on_align32_$k" "$c" mrafter --relink "$W/mr-align32/vmlinux"
		mr_sim "mr_before_$k" "$c" mrbefore
		mr_sim "mr_before_on_plan_$k" "$c" mrbefore --relink "$W/run-mrafter/vmlinux"
		# each plan's alignment file laid out on the after run's kernel
		# (simulate --layout: the functions it names moved, the rest
		# where the booted plan has them), and on the stock run's
		for p in trace perf reference-trace reference-perf; do
			for r in after before; do
				mr_sim "mr_${r}_layout_${p}_$k" "$c" "mr$r" -m "$W/run-mr$r/vmlinux.map" \
					--layout "$W/mr-plans/$c-$p.align"
			done
		done
		change_facts "mr_change_after_$k" "sim_mr_after_$k" "sim_mr_after_on_stock_$k"
		change_facts "mr_change_align32_$k" "sim_mr_after_on_align32_$k" "sim_mr_after_on_stock_$k"
		change_facts "mr_change_before_$k" "sim_mr_before_on_plan_$k" "sim_mr_before_$k"
		for p in trace perf reference-trace reference-perf; do
			change_facts "mr_change_after_layout_${p}_$k" "sim_mr_after_layout_${p}_$k" "sim_mr_after_on_stock_$k"
			change_facts "mr_change_before_layout_${p}_$k" "sim_mr_before_layout_${p}_$k" "sim_mr_before_$k"
		done
	done
}

stage_report() {
	sh "$TOP/tests/kernel/report.sh" "$W" > "$W/report.md"
	cat "$W/report.md"
}

for s in "$@"; do
	case " $ALL " in
	*" $s "*) ;;
	*) die "unknown stage '$s'" "stages are $ALL" ;;
	esac
	log "stage '$s'"
	# a /dev/null replaced by a regular file breaks kbuild's compiler
	# probes (cc-option drops -marm, and Thumb-2 assembly fails)
	[ -c /dev/null ] || die "/dev/null is not a character device (something replaced it)" \
		"as root: rm /dev/null && mknod -m 666 /dev/null c 1 3"
	ts=$(now)
	"stage_$s"
	fact "stage_${s}_s" $(( $(now) - ts ))
done
