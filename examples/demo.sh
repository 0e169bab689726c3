#!/bin/sh
# The main job on the shipped examples.
#  1. natsim, a user-space stand-in for a router's NAT path: build with
#     function sections and a link map, score its layout with the shipped
#     profile on the Cortex-A9 L1I sizes, plan a layout for 32 KiB, relink
#     with the fragment, check it, and measure both with cachegrind.
#  2. a real ARM32 router kernel (Linux 6.1, vexpress-a9) and its NAT
#     profile: score, and plan a text layout fragment for the kernel.
#  3. the kernel lab's router kernel with a traced window of its NAT
#     traffic: the window's misses on the stock layout and on a plan's
#     (cachepin simulate --layout), what an unrelated commit moved
#     (cachepin diff), one edit asked of the model (cachepin whatif).
#
# Usage: demo.sh [DIR].  The outputs go to DIR: by default build/demo/ in
# a source tree, ./cachepin-demo where the demo is installed (never the
# tree the demo sits in).  The cachepin it runs is $CACHEPIN if set, else
# the one built next to it in a source tree, else the one `make install`
# put in its bindir, else cachepin on PATH.
set -e
ex=$(cd "$(dirname "$0")" && pwd)
# make install writes its BINDIR here
bindir=
if [ -f "$ex/../src/tool/main.c" ]; then
	top=$(cd "$ex/.." && pwd)
	cp=${CACHEPIN:-$top/cachepin}
	out=${1:-$top/build/demo}
else
	if [ -n "$CACHEPIN" ]; then
		cp=$CACHEPIN
	elif [ -n "$bindir" ] && [ -x "$bindir/cachepin" ]; then
		cp=$bindir/cachepin
	else
		cp=cachepin
	fi
	out=${1:-cachepin-demo}
fi
if ! command -v "$cp" > /dev/null; then
	echo "cachepin: '$cp' not found" >&2
	echo "hint: install cachepin, or set CACHEPIN to its path" >&2
	exit 1
fi
case $cp in
*/*) cp=$(cd "$(dirname "$cp")" && pwd)/$(basename "$cp") ;;
esac
mkdir -p "$out"
cd "$out"
out=$(pwd)
cp "$ex/natsim/natsim.c" .
CF="-O2 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -no-pie -ffunction-sections -fdebug-prefix-map=$PWD=."

echo "== natsim: build (x86-64, -ffunction-sections, link map)"
gcc $CF -Wl,-Map=natsim.map -o natsim natsim.c

echo "== cachepin score natsim (shipped profile; Cortex-A9 16/32/64 KiB)"
"$cp" score --map natsim.map --top 5 --cache cortex-a9-16k,cortex-a9-32k,cortex-a9-64k \
	natsim "$ex/natsim/natsim.profile" > natsim-score.txt
grep -E '^cache|misses (LRU|pseudo)|fully associative LRU|conflict part' natsim-score.txt

echo "== cachepin plan natsim for Cortex-A9 32 and 64 KiB, relink, check"
"$cp" plan --map natsim.map --cache cortex-a9-32k,cortex-a9-64k --standalone -o natsim.lds \
	natsim "$ex/natsim/natsim.profile"
gcc $CF -Wl,-T,natsim.lds -o natsim.planned natsim.c
"$cp" check -q natsim.planned natsim.align
if command -v valgrind > /dev/null; then
	for size in 32768 65536; do
		for b in natsim natsim.planned; do
			m=$(valgrind --tool=cachegrind --I1=$size,4,32 --D1=32768,4,32 --LL=1048576,8,64 \
				--cache-sim=yes --cachegrind-out-file=/dev/null ./$b 100000 2>&1 |
				sed -n 's/.*I1  misses: *//p')
			echo "   cachegrind L1I $((size / 1024))K:4:32, 100000 packets, $b: $m misses"
		done
	done
fi

echo
echo "== a real ARM32 router kernel (Linux 6.1, vexpress-a9, NAT profile)"
xz -dc "$ex/router-arm/vmlinux.xz" > vmlinux
xz -dc "$ex/router-arm/vmlinux.map.xz" > vmlinux.map
"$cp" score --map vmlinux.map --top 8 --cache cortex-a9-16k,cortex-a9-32k,cortex-a9-64k \
	vmlinux "$ex/router-arm/router.profile" > kernel-score.txt
grep -E '^(binary|profile)|^cache|misses (LRU|pseudo)|fully associative LRU|conflict part' kernel-score.txt
sed -n '/^cache cortex-a9-32k/,/^cache cortex-a9-64k/p' kernel-score.txt | sed -n '/functions fighting/,/^$/p' | head -8
"$cp" plan --map vmlinux.map --cache cortex-a9-32k -o text-layout.lds vmlinux "$ex/router-arm/router.profile"

echo
echo "== the lab's router kernel: a traced NAT window, simulated on two layouts"
lab=$ex/router-lab
for f in vmlinux vmlinux.map System.map-unrelated; do
	xz -dc "$lab/$f.xz" > "lab-$f"
done
xz -dc "$lab/trace.log.xz" | "$cp" simulate -c 32K:4:32 -p lru,random --range 0xbf000000-0xffffffff - > lab-stock.sim
"$cp" plan -m lab-vmlinux.map -c cortex-a9-32k -o lab-hot.lds lab-vmlinux "$lab/router.profile" 2> lab-plan.log
xz -dc "$lab/trace.log.xz" | "$cp" simulate -c 32K:4:32 -p lru,random --range 0xbf000000-0xffffffff - \
	lab-vmlinux -m lab-vmlinux.map --layout lab-hot.align > lab-plan.sim 2> lab-plan-sim.log
echo "   stock layout:   $(awk '$2 == "lru" { l = $4 } $2 == "random" { r = $4 } END { print l " LRU, " r " pseudo-random misses" }' lab-stock.sim)"
echo "   plan's layout:  $(awk '$2 == "lru" { l = $4 } $2 == "random" { r = $4 } END { print l " LRU, " r " pseudo-random misses" }' lab-plan.sim)"
echo "== cachepin diff: the stock build against one with an unrelated commit"
"$cp" diff --old-map lab-vmlinux.map --svg lab-diff.svg lab-vmlinux lab-System.map-unrelated \
	"$lab/router.profile" > lab-diff.txt 2> lab-diff.log
sed -n '4,5p' lab-diff.txt
echo "== cachepin whatif: align nf_conntrack_in to 4096"
"$cp" whatif -m lab-vmlinux.map lab-vmlinux "$lab/router.profile" "align nf_conntrack_in 4096" > lab-whatif.txt
sed -n '5p' lab-whatif.txt
echo
echo "reports and outputs: $out"
echo "  natsim-score.txt kernel-score.txt natsim.lds natsim.align text-layout.lds text-layout.align"
echo "  lab-stock.sim lab-plan.sim lab-diff.txt lab-diff.svg lab-whatif.txt"
