#!/bin/sh
# The main job on the shipped example: build natsim (a user-space stand-in
# for a router's NAT path) with function sections and a link map, then
# score its layout with the shipped profile on the three Cortex-A9 L1I
# sizes.  Output goes to build/demo/.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/demo
ex=$top/examples
mkdir -p "$out"
cd "$out"
cp "$ex/natsim/natsim.c" .

echo "== building natsim (x86-64, -ffunction-sections, link map)"
gcc -O2 -g -fno-omit-frame-pointer -no-pie -ffunction-sections -fdebug-prefix-map="$PWD"=. \
	-Wl,-Map=natsim.map -o natsim natsim.c

echo "== cachepin score natsim examples/natsim/natsim.profile (Cortex-A9 16/32/64 KiB)"
"$top/cachepin" score --map natsim.map --top 5 \
	--cache cortex-a9-16k,cortex-a9-32k,cortex-a9-64k \
	natsim "$ex/natsim/natsim.profile" | tee score.txt

if [ -f "$ex/router-arm/vmlinux.xz" ]; then
	echo
	echo "== a real ARM32 router kernel (Linux 6.1, vexpress-a9 NAT profile)"
	xz -dc "$ex/router-arm/vmlinux.xz" > vmlinux
	xz -dc "$ex/router-arm/vmlinux.map.xz" > vmlinux.map
	"$top/cachepin" score --map vmlinux.map --top 8 --cache cortex-a9-32k \
		vmlinux "$ex/router-arm/router.profile" | tee kernel-score.txt
fi
echo
echo "reports: $out"
