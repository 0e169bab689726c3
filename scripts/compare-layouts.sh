#!/bin/sh
# Compare cachepin's planned layout with the default link,
# -falign-functions=32/64 and a hot-first order on a real C program:
# GNU binutils 2.40 readelf, profiled with perf, measured with cachegrind.
#
# usage: scripts/compare-layouts.sh WORKDIR
#
# Environment:
#   BINUTILS_TAR   the binutils 2.40 source tarball
#                  (default: the one installed by Debian's binutils-source)
#   CACHEPIN       the cachepin binary (default: ./cachepin of this tree)
#   PROFILE_COPIES input copies per readelf run when profiling (default 40)
#   CG_COPIES      input copies per readelf run under cachegrind (default 1)
#   JOBS           parallel make and cachegrind jobs (default: nproc)
#   LDEXTRA        extra flags of every final link (default -static: libc's
#                  hot code, most of readelf's time, is then part of the
#                  binary and of the plan; dynamically linked, libc's lines
#                  are occupants the model does not see)
#   PROFILE_TUNABLES  GLIBC_TUNABLES while profiling (default: hide AVX-512,
#                  so that glibc picks the same string and memory routines as
#                  under valgrind, which offers no AVX-512; otherwise the
#                  profiled code is not the measured code)
#
# Prints a markdown table of cachegrind I1 misses per variant next to the
# misses cachepin's model predicts; everything else lands in WORKDIR.
set -e

if [ $# -ne 1 ]; then
	echo "usage: $0 WORKDIR" >&2
	exit 2
fi
top=$(cd "$(dirname "$0")/.." && pwd)
CACHEPIN=${CACHEPIN:-$top/cachepin}
BINUTILS_TAR=${BINUTILS_TAR:-/usr/src/binutils/binutils-2.40.tar.xz}
PROFILE_COPIES=${PROFILE_COPIES:-40}
CG_COPIES=${CG_COPIES:-1}
JOBS=${JOBS:-$(nproc)}
LDEXTRA=${LDEXTRA--static}
PROFILE_TUNABLES=${PROFILE_TUNABLES-glibc.cpu.hwcaps=-AVX512F,-AVX512VL,-AVX512BW,-AVX512DQ,-AVX512CD,-EVEX}

for c in gcc make perf valgrind cg_annotate cmp awk xz; do
	command -v $c > /dev/null || { echo "error: '$c' not found" >&2; exit 1; }
done
[ -x "$CACHEPIN" ] || { echo "error: '$CACHEPIN' not built" >&2; echo "hint: run make" >&2; exit 1; }
[ -r "$BINUTILS_TAR" ] || {
	echo "error: '$BINUTILS_TAR': not readable" >&2
	echo "hint: apt-get install binutils-source, or set BINUTILS_TAR" >&2
	exit 1
}

mkdir -p "$1"
W=$(cd "$1" && pwd)
cd "$W"
log() { echo "== $*" >&2; }

CF="-O2 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -ffunction-sections"
# Everything the final readelf link takes, relative to build*/binutils.
LINKIN="readelf.o version.o unwind-ia64.o dwarf.o demanguse.o elfcomm.o
 ../libctf/.libs/libctf-nobfd.a -L../libiberty -L../zlib -liberty
 ../libiberty/libiberty.a -lz -lzstd ../libsframe/.libs/libsframe.a"

if [ ! -d binutils-2.40 ]; then
	log "unpack $(basename "$BINUTILS_TAR")"
	xz -dc "$BINUTILS_TAR" | tar xf -
fi

# build DIR EXTRA-CFLAGS: configure minimally and build only readelf
build() {
	[ -f "$1/binutils/readelf.o" ] && return 0
	log "build readelf in $1 (CFLAGS: $CF $2)"
	mkdir -p "$1"
	(cd "$1" && ../binutils-2.40/configure --disable-nls --disable-gdb \
		--disable-gprof --disable-gold --disable-ld --disable-gas \
		--disable-gdbserver --disable-sim --disable-libdecnumber \
		--disable-readline --without-debuginfod --disable-werror \
		CFLAGS="$CF $2" > configure.log 2>&1 &&
	 make -j"$JOBS" configure-binutils all-libiberty all-zlib all-libsframe \
		all-libctf > make.log 2>&1 &&
	 make -C binutils -j"$JOBS" readelf >> make.log 2>&1) || {
		echo "error: build in '$1' failed; see $1/configure.log and $1/make.log" >&2
		exit 1
	}
}

# relink DIR OUT EXTRA-LDFLAGS...: the final link of readelf, by hand
relink() {
	d=$1 out=$2
	shift 2
	(cd "$d/binutils" && gcc $CF -no-pie $LDEXTRA -Wl,-Map="$W/$out.map" "$@" \
		-o "$W/$out" $LINKIN)
}

build build ""
build build-a32 "-falign-functions=32"
build build-a64 "-falign-functions=64"

log "link the default readelf with a map"
relink build readelf
size readelf >&2

# The input is a fixed copy of the default binary, so every variant reads
# the same bytes and must print the same.
cp readelf input.elf
args="-a -W --debug-dump=info,line"
inputs() { i=0; while [ $i -lt "$1" ]; do printf ' input.elf'; i=$((i + 1)); done; }
PIN=$(inputs "$PROFILE_COPIES")
CGIN=$(inputs "$CG_COPIES")

log "profile: perf record readelf $args x$PROFILE_COPIES"
GLIBC_TUNABLES=$PROFILE_TUNABLES perf record -q -e cpu-clock -F 4000 -g -o perf.data -- \
	./readelf $args $PIN > /dev/null 2> perf-record.log
"$CACHEPIN" profile -v --map readelf.map -o readelf.profile readelf perf.data

log "variants"
relink build-a32 readelf.align32
relink build-a64 readelf.align64

# hot-first: profiled functions by density (weight / size), no alignment
awk '$1 == "f" && $4 > 0 && $7 > 0 { printf "%.6f %s %s\n", $4 / $7, $2, $3 }' \
	readelf.profile | sort -k1,1gr |
	awk 'BEGIN { print "SECTIONS\n{\n  .text.hot :\n  {" }
	     { if ($3 == "-" || index($3, "(")) printf "    *(.text.%s)\n", $2
	       else printf "    *%s(.text.%s)\n", $3, $2 }
	     END { print "  }\n}\nINSERT BEFORE .text;" }' > hotfirst.lds
relink build readelf.hotfirst -Wl,-T,"$W/hotfirst.lds"

plan() { # NAME CACHES
	"$CACHEPIN" plan --map readelf.map -c "$2" --standalone -o "$1.lds" \
		readelf readelf.profile > "$1.plan.txt"
	relink build "readelf.$1" -Wl,-T,"$W/$1.lds"
	"$CACHEPIN" check "readelf.$1" "$1.align" >&2
}
plan plan32 32K:4:32
plan plan64 64K:4:32
plan plan32-64 32K:4:32,64K:4:32

VARIANTS="readelf readelf.align32 readelf.align64 readelf.hotfirst readelf.plan32 readelf.plan64 readelf.plan32-64"

log "same output as the default"
./readelf $args $CGIN > out.readelf
for v in $VARIANTS; do
	[ "$v" = readelf ] && continue
	./$v $args $CGIN > "out.$v"
	cmp out.readelf "out.$v" || { echo "error: '$v' prints something else" >&2; exit 1; }
done

log "cachegrind (I1 32K:4:32 and 64K:4:32; D1 32K:8:64; LL 8M:16:64)"
cg() { # VARIANT I1-SIZE
	valgrind --tool=cachegrind --cache-sim=yes --I1="$2",4,32 \
		--D1=32768,8,64 --LL=8388608,16,64 \
		--cachegrind-out-file="cg.$1.$2.out" ./$1 $args $CGIN \
		> /dev/null 2> "cg.$1.$2.log"
}
n=0
for v in $VARIANTS; do
	for s in 32768 65536; do
		cg $v $s &
		n=$((n + 1))
		if [ $n -ge "$JOBS" ]; then wait; n=0; fi
	done
done
wait
# I1 misses in readelf's own functions and in everything else (libc, ld.so)
nm readelf | awk '$2 ~ /^[tTwW]$/ { print $3 }' | sort -u > prog.syms
split() { # VARIANT I1-SIZE
	awk 'NR == FNR { s[$1] = 1; next }
		/^fn=/ { f = substr($0, 4); sub(/^\([0-9]+\) */, "", f); p = (f in s) }
		/^[0-9]/ { if (p) a += $3; else b += $3 }
		END { printf "%d | %d", a, b }' prog.syms "cg.$1.$2.out"
}
i1() { sed -n 's/.*I1  *misses: *//p' "cg.$1.$2.log" | tr -d ,; }

log "model: cachepin score"
model() { # VARIANT CACHE
	awk -v c="\"$2\"" '$0 ~ "\"cache\": " c { f = 1 }
		f && /"misses"/ { sub(/.*"lru": /, ""); sub(/,.*/, ""); print; exit }' \
		"score.$1.json"
}
for v in $VARIANTS; do
	"$CACHEPIN" score --map "$v.map" -c 32K:4:32,64K:4:32 --json "$v" readelf.profile \
		> "score.$v.json"
done

pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%+.1f %%", (a - b) * 100 / b; else print "-" }'; }
b32=$(i1 readelf 32768)
b64=$(i1 readelf 65536)
echo
echo "readelf $args, input: readelf itself ($(stat -c %s input.elf) bytes) x$CG_COPIES"
echo
echo "| variant | I1 misses 32K | vs default | I1 misses 64K | vs default | model misses 32K | model 64K |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for v in $VARIANTS; do
	m32=$(i1 $v 32768)
	m64=$(i1 $v 65536)
	name=${v#readelf.}
	[ "$v" = readelf ] && name=default
	echo "| $name | $m32 | $(pct $m32 $b32) | $m64 | $(pct $m64 $b64) | $(model $v 32K:4:32) | $(model $v 64K:4:32) |"
done

echo
echo "I1 misses split: readelf's own functions | libraries (libc, ld.so)"
echo
echo "| variant | own 32K | libraries 32K | own 64K | libraries 64K |"
echo "|---|---:|---:|---:|---:|"
for v in $VARIANTS; do
	name=${v#readelf.}
	[ "$v" = readelf ] && name=default
	echo "| $name | $(split $v 32768) | $(split $v 65536) |"
done
