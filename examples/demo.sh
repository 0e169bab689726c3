#!/bin/sh
# The main job on the shipped examples.
#  1. natsim, a user-space stand-in for a router's NAT path: build with
#     function sections and a link map, score its layout with the shipped
#     profile on the Cortex-A9 L1I sizes, plan a layout for 32 KiB, relink
#     with the fragment, check it, and measure both with cachegrind.
#  2. a real ARM32 router kernel (Linux 6.1, vexpress-a9) and its NAT
#     profile: score, and plan a text layout fragment for the kernel.
# Output goes to build/demo/.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/demo
ex=$top/examples
cp=$top/cachepin
mkdir -p "$out"
cd "$out"
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
echo "reports and outputs: $out"
echo "  natsim-score.txt kernel-score.txt natsim.lds natsim.align text-layout.lds text-layout.align"
