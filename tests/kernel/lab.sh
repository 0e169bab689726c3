#!/bin/sh
# Build an ARM32 Linux 6.1 kernel for a NAT router, boot it under QEMU
# (vexpress-a9) with an initramfs that forwards TCP traffic between two
# network namespaces through MASQUERADE, record a kernel profile there with
# 'perf record -e cpu-clock -a -g', and copy the results out of the guest.
#
# usage: scripts/kernel-lab.sh WORKDIR [STAGE...]
#
# Stages, in order (default: all of them):
#   deps       install the Debian 12 packages it needs (as root)
#   unpack     unpack /usr/src/linux-source-6.1.tar.xz into WORKDIR/src
#   config     tinyconfig + the router fragment into WORKDIR/build-nat
#   build      vmlinux, zImage, vexpress-v2p-ca9.dtb
#   userspace  apt-get download the armhf packages, unpack into WORKDIR/pkgroot
#   initrd     WORKDIR/initramfs (files + library closure + /init) -> initrd.gz
#   boot       run the guest; serial output goes to WORKDIR/nat/console.log
#   extract    decode perf.data and kallsyms.txt from the console log
#   report     copy vmlinux & co. into WORKDIR/nat and run perf report
#
# Everything is written below WORKDIR.  The guest has no network device
# (-nic none); all traffic stays inside its own namespaces.
set -eu

if [ $# -lt 1 ]; then
	sed -n '2,/^set -eu/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
	exit 2
fi
mkdir -p "$1"
W=$(cd "$1" && pwd)
shift
[ $# -gt 0 ] || set -- deps unpack config build userspace initrd boot extract report

KVER=6.1
SRC=$W/src/linux-source-$KVER
O=$W/build-nat
NAT=$W/nat
JOBS=${JOBS:-$(nproc)}
SECONDS_RECORD=${SECONDS_RECORD:-20}
KMAKE="make -C $SRC ARCH=arm O=$O"
KBUILD_ENV="KBUILD_BUILD_USER=cachepin KBUILD_BUILD_HOST=example KBUILD_BUILD_TIMESTAMP=2026-12-01 KBUILD_BUILD_VERSION=1"
TRIPLET=arm-linux-gnueabihf

log() { echo "kernel-lab: $*" >&2; }
die() { echo "kernel-lab: error: $*" >&2; exit 1; }

now() { date +%s; }

stage_deps() {
	[ "$(id -u)" = 0 ] || die "the 'deps' stage must run as root"
	export DEBIAN_FRONTEND=noninteractive
	dpkg --add-architecture armhf
	apt-get update -qq || log "apt-get update reported errors; going on"
	apt-get install -y -qq --no-install-recommends \
		linux-source-$KVER xz-utils make gcc bc bison flex cpio gzip \
		ccache binutils gcc-$TRIPLET qemu-system-arm linux-perf >/dev/null
}

stage_unpack() {
	[ -f /usr/src/linux-source-$KVER.tar.xz ] ||
		die "'/usr/src/linux-source-$KVER.tar.xz' is missing
hint: run the 'deps' stage, or 'apt-get install linux-source-$KVER'"
	if [ -f "$SRC/Makefile" ]; then
		log "'$SRC' exists, not unpacking again"
		return
	fi
	mkdir -p "$W/src"
	tar -C "$W/src" -xf /usr/src/linux-source-$KVER.tar.xz
}

write_fragment() {
	cat <<'EOF'
CONFIG_MMU=y
CONFIG_ARCH_MULTI_V7=y
CONFIG_ARCH_VEXPRESS=y
# tinyconfig starts from a !MMU (v7-M) base where Thumb-2 is forced on and
# the value survives the merge; routers run ARM-mode kernels
# CONFIG_THUMB2_KERNEL is not set
CONFIG_SMP=y
CONFIG_NR_CPUS=4
CONFIG_AEABI=y
CONFIG_ARM_THUMB=y
CONFIG_KUSER_HELPERS=y
CONFIG_VFP=y
CONFIG_NEON=y
CONFIG_STRICT_KERNEL_RWX=y
CONFIG_DEBUG_ALIGN_RODATA=y
CONFIG_CC_OPTIMIZE_FOR_PERFORMANCE=y
CONFIG_SLUB=y
CONFIG_KERNEL_GZIP=y
CONFIG_CLK_SP810=y
CONFIG_CLK_VEXPRESS_OSC=y
CONFIG_VEXPRESS_CONFIG=y
CONFIG_POWER_RESET=y
CONFIG_POWER_RESET_VEXPRESS=y
CONFIG_PRINTK=y
CONFIG_BUG=y
CONFIG_MULTIUSER=y
CONFIG_POSIX_TIMERS=y
CONFIG_COMPAT_32BIT_TIME=y
CONFIG_FUTEX=y
CONFIG_EPOLL=y
CONFIG_SIGNALFD=y
CONFIG_TIMERFD=y
CONFIG_EVENTFD=y
CONFIG_SHMEM=y
CONFIG_AIO=y
CONFIG_FILE_LOCKING=y
CONFIG_ADVISE_SYSCALLS=y
CONFIG_MEMBARRIER=y
CONFIG_RSEQ=y
CONFIG_HIGH_RES_TIMERS=y
CONFIG_NO_HZ_IDLE=y
CONFIG_PERF_EVENTS=y
CONFIG_HW_PERF_EVENTS=y
CONFIG_KALLSYMS=y
CONFIG_KALLSYMS_ALL=y
CONFIG_VMLINUX_MAP=y
CONFIG_UNWINDER_ARM=y
CONFIG_TTY=y
CONFIG_SERIAL_AMBA_PL011=y
CONFIG_SERIAL_AMBA_PL011_CONSOLE=y
CONFIG_BLK_DEV_INITRD=y
CONFIG_RD_GZIP=y
CONFIG_BINFMT_ELF=y
CONFIG_BINFMT_SCRIPT=y
CONFIG_PROC_FS=y
CONFIG_PROC_SYSCTL=y
CONFIG_SYSFS=y
CONFIG_DEVTMPFS=y
CONFIG_DEVTMPFS_MOUNT=y
CONFIG_TMPFS=y
CONFIG_NAMESPACES=y
CONFIG_NET_NS=y
CONFIG_NET=y
CONFIG_INET=y
CONFIG_PACKET=y
CONFIG_UNIX=y
CONFIG_IP_ADVANCED_ROUTER=y
CONFIG_NETDEVICES=y
CONFIG_NET_CORE=y
CONFIG_VETH=y
CONFIG_NETFILTER=y
CONFIG_NETFILTER_ADVANCED=y
CONFIG_NF_CONNTRACK=y
CONFIG_NF_NAT=y
CONFIG_NF_TABLES=y
CONFIG_NF_TABLES_INET=y
CONFIG_NF_TABLES_IPV4=y
CONFIG_NFT_NAT=y
CONFIG_NFT_MASQ=y
CONFIG_NFT_CT=y
CONFIG_NETFILTER_XTABLES=y
CONFIG_NETFILTER_XT_NAT=y
CONFIG_NETFILTER_XT_TARGET_MASQUERADE=y
CONFIG_IP_NF_IPTABLES=y
CONFIG_IP_NF_FILTER=y
CONFIG_IP_NF_NAT=y
CONFIG_IP_NF_TARGET_MASQUERADE=y
# CONFIG_MODULES is not set
EOF
}

stage_config() {
	mkdir -p "$O"
	write_fragment > "$W/nat-frag.config"
	$KMAKE tinyconfig >/dev/null
	"$SRC/scripts/kconfig/merge_config.sh" -m -O "$O" "$O/.config" \
		"$W/nat-frag.config" >/dev/null
	$KMAKE olddefconfig >/dev/null
	# merge_config drops options whose dependencies are missing: check
	bad=0
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			opt=${line%%=*}
			got=$(grep "^$opt=" "$O/.config" | cut -d= -f2) || true
			if [ "$got" != "${line#*=}" ]; then
				log "'$O/.config': $opt is '${got:-unset}', wanted '${line#*=}'"
				bad=1
			fi ;;
		'# CONFIG_'*' is not set')
			opt=${line#\# }; opt=${opt%% *}
			if grep -q "^$opt=" "$O/.config"; then
				log "'$O/.config': $opt is set, wanted unset"
				bad=1
			fi ;;
		esac
	done < "$W/nat-frag.config"
	[ $bad = 0 ] || die "kernel configuration incomplete"
	log "config ok: $(grep -c '=y$' "$O/.config") options =y"
}

stage_build() {
	t0=$(now)
	# shellcheck disable=SC2086
	env $KBUILD_ENV $KMAKE CROSS_COMPILE="ccache $TRIPLET-" \
		KCFLAGS=-ffunction-sections -j"$JOBS" \
		vmlinux zImage vexpress-v2p-ca9.dtb > "$W/build-nat.log" 2>&1 ||
		{ tail -30 "$W/build-nat.log" >&2; die "kernel build failed, see '$W/build-nat.log'"; }
	log "kernel built in $(( $(now) - t0 )) s ($(grep -c 'orphan section' "$W/build-nat.log" || true) orphan-section warnings)"
}

GUEST_PKGS="busybox-static iproute2 iptables linux-perf"
# Depends that the guest never executes (maintainer-script and scripting
# tools); the ELF closure computed in 'initrd' decides what is copied.
SKIP_PKGS='cdebconf|dpkg|install-info|tar|perl|perl-base|python3|python3\.11|python3\.11-minimal|libpython3-stdlib|libpython3\.11-stdlib|libpython3\.11-minimal|libcap2-bin|libdebian-installer4|libnewt0\.52|libtextwrap1'

stage_userspace() {
	mkdir -p "$W/debs"
	list=
	for p in $GUEST_PKGS; do list="$list $p:armhf"; done
	# shellcheck disable=SC2086
	pkgs=$(apt-cache depends --recurse --no-recommends --no-suggests \
		--no-conflicts --no-breaks --no-replaces --no-enhances $list |
		grep -v '^ ' | grep ':armhf$' | sort -u |
		grep -vE "^($SKIP_PKGS):armhf\$")
	# shellcheck disable=SC2086
	(cd "$W/debs" && apt-get download $pkgs >/dev/null 2>&1) ||
		die "apt-get download failed
hint: run the 'deps' stage (it adds the armhf architecture)"
	rm -rf "$W/pkgroot"
	mkdir -p "$W/pkgroot"
	for d in "$W"/debs/*_armhf.deb; do
		dpkg-deb -x "$d" "$W/pkgroot"
	done
	log "$(ls "$W"/debs/*_armhf.deb | wc -l) armhf packages unpacked"
}

# Copy PKGROOT-relative file $1 into the initramfs, then its DT_NEEDED
# libraries, recursively.
copy_elf() {
	rel=$1
	[ -e "$R/$rel" ] && return 0
	mkdir -p "$R/$(dirname "$rel")"
	cp -L "$W/pkgroot/$rel" "$R/$rel"
	for lib in $(readelf -d "$W/pkgroot/$rel" 2>/dev/null |
			sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		found=
		for dir in lib/$TRIPLET usr/lib/$TRIPLET lib usr/lib; do
			if [ -e "$W/pkgroot/$dir/$lib" ]; then
				found=$dir/$lib
				break
			fi
		done
		[ -n "$found" ] || die "'$rel' needs '$lib', which no downloaded package has"
		copy_elf "$found"
	done
}

write_init() {
	cat <<EOF
#!/bin/busybox sh
# NAT router lab: lan (192.168.1.2) -> router (root namespace) -> wan
# (198.51.100.2), MASQUERADE on the wan side, TCP downloads from lan.
SECONDS_RECORD=$SECONDS_RECORD
EOF
	cat <<'EOF'
bb=/bin/busybox
export PATH=/bin:/sbin:/usr/bin:/usr/sbin HOME=/lab
$bb mkdir -p /proc /sys /dev /lab /run /www
$bb mount -t proc proc /proc
$bb mount -t sysfs sysfs /sys
$bb mount -t devtmpfs devtmpfs /dev 2>/dev/null
$bb mount -t tmpfs tmpfs /lab
$bb mount -t tmpfs tmpfs /run
$bb mount -t tmpfs tmpfs /www
echo "LAB: userspace at $($bb cut -d' ' -f1 /proc/uptime) s uptime"
echo 1 > /proc/sys/kernel/printk

IP=/bin/ip
IPT=/usr/sbin/iptables-legacy
$IP link set lo up
$IP netns add lan
$IP netns add wan
$IP link add veth-lan type veth peer name eth0 netns lan
$IP link add veth-wan type veth peer name eth0 netns wan
$IP addr add 192.168.1.1/24 dev veth-lan
$IP addr add 198.51.100.1/24 dev veth-wan
$IP link set veth-lan up
$IP link set veth-wan up
$IP netns exec lan $IP link set lo up
$IP netns exec lan $IP addr add 192.168.1.2/24 dev eth0
$IP netns exec lan $IP link set eth0 up
$IP netns exec lan $IP route add default via 192.168.1.1
$IP netns exec wan $IP link set lo up
$IP netns exec wan $IP addr add 198.51.100.2/24 dev eth0
$IP netns exec wan $IP link set eth0 up
# no route back to 192.168.1.0/24 in wan: replies only work through NAT
# veth hands 64 KiB GSO packets to the router; a router's NIC sees
# MTU-sized frames, so limit every end to one segment per packet
$IP link set dev veth-lan gso_max_segs 1
$IP link set dev veth-wan gso_max_segs 1
$IP netns exec lan $IP link set dev eth0 gso_max_segs 1
$IP netns exec wan $IP link set dev eth0 gso_max_segs 1
echo 1 > /proc/sys/net/ipv4/ip_forward
$IPT -t nat -A POSTROUTING -o veth-wan -j MASQUERADE

$bb dd if=/dev/zero of=/www/big bs=1M count=16 2>/dev/null
echo hello > /www/small
$IP netns exec wan $bb httpd -p 8080 -h /www
$bb sleep 1
echo "LAB: check: $($IP netns exec lan $bb wget -q -O - http://198.51.100.2:8080/small)"
$IP netns exec lan $bb ping -c 2 198.51.100.2 | $bb tail -2

echo -1 > /proc/sys/kernel/perf_event_paranoid
echo 0 > /proc/sys/kernel/kptr_restrict
$bb cat /proc/kallsyms > /lab/kallsyms.txt

$IP netns exec lan $bb sh -c 'n=0; while :; do $0 wget -q -O /dev/null http://198.51.100.2:8080/big && n=$((n+1)); echo $n > /lab/downloads; done' $bb &
loop=$!
$bb sleep 2
$bb cat /proc/net/dev > /lab/netdev.before
t0=$($bb cut -d' ' -f1 /proc/uptime)
echo "LAB: perf record start at $t0 s"
/usr/bin/perf record -e cpu-clock -a -g -F 1000 -N -o /lab/perf.data -- $bb sleep $SECONDS_RECORD > /lab/perf.log 2>&1
echo "LAB: perf record exit $? at $($bb cut -d' ' -f1 /proc/uptime) s"
$bb cat /proc/net/dev > /lab/netdev.after
$bb kill $loop
$bb killall wget 2>/dev/null
$bb cat /lab/perf.log
echo "LAB: downloads completed: $($bb cat /lab/downloads 2>/dev/null)"
echo "LAB: /proc/net/dev before:"; $bb grep veth /lab/netdev.before
echo "LAB: /proc/net/dev after:"; $bb grep veth /lab/netdev.after
$IPT -t nat -L POSTROUTING -n -v
$bb ls -l /lab/perf.data /lab/kallsyms.txt

dump() {
	echo "=====BEGIN $2====="
	$bb gzip -c "$1" | $bb base64
	echo "=====END $2====="
}
dump /lab/perf.data perf.data
dump /lab/kallsyms.txt kallsyms.txt
echo "LAB: done at $($bb cut -d' ' -f1 /proc/uptime) s"
$bb sync
$bb poweroff -f
EOF
}

stage_initrd() {
	R=$W/initramfs
	rm -rf "$R"
	mkdir -p "$R/bin" "$R/sbin" "$R/usr/bin" "$R/usr/sbin" "$R/proc" \
		"$R/sys" "$R/dev" "$R/lab" "$R/run" "$R/www" "$R/etc"
	cp "$W/pkgroot/bin/busybox" "$R/bin/busybox"
	ln -s busybox "$R/bin/sh"
	copy_elf lib/ld-linux-armhf.so.3
	copy_elf bin/ip
	copy_elf usr/sbin/xtables-legacy-multi
	ln -s xtables-legacy-multi "$R/usr/sbin/iptables-legacy"
	copy_elf usr/bin/perf
	for so in "$W/pkgroot/usr/lib/$TRIPLET/xtables"/libxt_*.so \
			"$W/pkgroot/usr/lib/$TRIPLET/xtables"/libipt_*.so; do
		copy_elf "usr/lib/$TRIPLET/xtables/${so##*/}"
	done
	echo "root:x:0:0:root:/lab:/bin/sh" > "$R/etc/passwd"
	echo "root:x:0:" > "$R/etc/group"
	write_init > "$R/init"
	chmod 755 "$R/init"
	(cd "$R" && find . | cpio -o -H newc --quiet | gzip -9) > "$W/initrd.gz"
	log "initrd.gz: $(du -k "$W/initrd.gz" | cut -f1) KiB"
}

stage_boot() {
	mkdir -p "$NAT"
	t0=$(now)
	timeout 1800 qemu-system-arm -M vexpress-a9 -m 512 -smp 1 \
		-kernel "$O/arch/arm/boot/zImage" \
		-dtb "$O/arch/arm/boot/dts/vexpress-v2p-ca9.dtb" \
		-initrd "$W/initrd.gz" \
		-append "console=ttyAMA0 rdinit=/init" \
		-nographic -no-reboot -nic none -audiodev none,id=snd0 \
		< /dev/null > "$NAT/console.log" 2>"$W/qemu.err" ||
		log "qemu exited with status $? (see '$W/qemu.err')"
	log "guest ran $(( $(now) - t0 )) s wall"
}

decode() {
	sed -n "/^=====BEGIN $1=====/,/^=====END $1=====/p" "$NAT/console.log" |
		tr -d '\r' | sed '1d;$d' | base64 -d | gunzip > "$2"
}

stage_extract() {
	grep -q "^=====END kallsyms.txt=====" "$NAT/console.log" ||
		die "'$NAT/console.log': no complete kallsyms.txt dump
hint: look at the end of the log for the guest's last messages"
	decode perf.data "$NAT/perf.data"
	decode kallsyms.txt "$NAT/kallsyms.txt"
	ls -l "$NAT/perf.data" "$NAT/kallsyms.txt" >&2
}

stage_report() {
	cp "$O/vmlinux" "$O/vmlinux.map" "$O/System.map" "$O/.config" "$NAT/"
	perf report -i "$NAT/perf.data" --vmlinux "$NAT/vmlinux" --no-children \
		--sort sym --stdio 2>/dev/null | head -40
}

for s in "$@"; do
	case $s in
	deps|unpack|config|build|userspace|initrd|boot|extract|report)
		log "stage '$s'"
		"stage_$s" ;;
	*) die "unknown stage '$s'
hint: stages are deps unpack config build userspace initrd boot extract report" ;;
	esac
done
