#!/bin/sh
# The README's recipe for a program, on pktflow: build with the recipe's
# flags and a link map, record, profile, plan, relink the same objects
# with the plan, check, and count the I-cache misses of both links with
# cachegrind.  Run it in a copy of this directory:
#   cp -r examples/pktflow DIR && cd DIR && ./recipe.sh
# CACHEPIN (default: cachepin on PATH), CACHE (16K:4:32), PACKETS.
set -e
CACHEPIN=${CACHEPIN:-cachepin}
CACHE=${CACHE:-16K:4:32}
PACKETS=${PACKETS:-2000000}
# function sections: units the plan can place; frame pointers and no
# sibling calls: callers in the callchains; no build path in the DWARF
CF="-O2 -g -ffunction-sections -fno-omit-frame-pointer -fno-optimize-sibling-calls -fdebug-prefix-map=$PWD=."

echo "== build (make, a link map)"
make -s clean
make -s CFLAGS="$CF" LDFLAGS="-Wl,-Map=pktflow.map"

echo "== record"
perf record -q -e cpu-clock -F 10000 -g -o pktflow.data -- ./pktflow "$PACKETS" > /dev/null

echo "== profile, plan for $CACHE"
"$CACHEPIN" profile --user -m pktflow.map -o pktflow.profile pktflow pktflow.data
"$CACHEPIN" plan -m pktflow.map -c "$CACHE" --standalone -o hot.lds pktflow pktflow.profile

echo "== relink the same objects with the plan, check"
mv pktflow pktflow.default
mv pktflow.map pktflow.default.map
# make relinks only: the objects are up to date; the script's path is absolute
make -s CFLAGS="$CF" LDFLAGS="-Wl,-Map=pktflow.map -Wl,-T,$PWD/hot.lds"
"$CACHEPIN" check pktflow hot.align

if command -v valgrind > /dev/null; then
	echo "== cachegrind, L1I $CACHE"
	size=${CACHE%%:*} rest=${CACHE#*:}
	case $size in *K) size=$((${size%K} * 1024)) ;; esac
	geo="$size,${rest%%:*},${rest##*:}"
	for b in pktflow.default pktflow; do
		valgrind --tool=cachegrind --I1="$geo" --cache-sim=yes --cachegrind-out-file="$b.cg" \
			./$b "$((PACKETS / 10))" > /dev/null 2> "$b.cg.log"
		echo "   $b: $(sed -n 's/.*I1  misses: *//p' "$b.cg.log") misses"
	done
fi
