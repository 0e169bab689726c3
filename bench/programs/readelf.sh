# Benchmark recipe: GNU readelf from binutils 2.40 (Debian's binutils-source),
# dumping an ELF file with its DWARF information.  Sourced by bench/run.sh;
# see bench/programs/README for the interface.

prog_name=readelf
prog_deps="binutils-source bear libzstd-dev zlib1g-dev"

BINUTILS_TAR=${BINUTILS_TAR:-/usr/src/binutils/binutils-2.40.tar.xz}

prog_fetch()
{
	[ -d "$W/src/binutils-2.40" ] && return 0
	[ -r "$BINUTILS_TAR" ] || {
		echo "error: '$BINUTILS_TAR': not readable" >&2
		echo "hint: apt-get install binutils-source, or set BINUTILS_TAR" >&2
		return 1
	}
	mkdir -p "$W/src"
	xz -dc "$BINUTILS_TAR" | (cd "$W/src" && tar xf -)
	echo "binutils $(dpkg-query -W -f '${Version}' binutils-source 2>/dev/null)" > "$W/version"
}

prog_build()
{
	b=$1
	[ -f "$b/link-inputs" ] && return 0
	mkdir -p "$b"
	(cd "$b" && "$W/src/binutils-2.40/configure" --disable-nls --disable-gdb \
		--disable-gprof --disable-gold --disable-ld --disable-gas \
		--disable-gdbserver --disable-sim --disable-libdecnumber \
		--disable-readline --without-debuginfod --disable-werror \
		CFLAGS="$BENCH_CFLAGS $2" > configure.log 2>&1 &&
	 make -j"$JOBS" configure-binutils all-libiberty all-zlib all-libsframe \
		all-libctf > make.log 2>&1 &&
	 bear --output "$b/compile_commands.json" -- \
		make -C binutils -j"$JOBS" readelf >> make.log 2>&1) || {
		echo "error: build in '$b' failed; see $b/configure.log and $b/make.log" >&2
		return 1
	}
	d=$b/binutils
	for f in readelf.o version.o unwind-ia64.o dwarf.o demanguse.o elfcomm.o; do
		echo "$d/$f"
	done > "$b/link-inputs.tmp"
	printf '%s\n' "$b/libctf/.libs/libctf-nobfd.a" "$b/libiberty/libiberty.a" \
		"$b/libsframe/.libs/libsframe.a" -lz -lzstd >> "$b/link-inputs.tmp"
	mv "$b/link-inputs.tmp" "$b/link-inputs"
}

# The inputs are three objects of the build's own libiberty: ELF headers,
# sections, symbols, relocations and all of their DWARF.
prog_input()
{
	for f in regex.o hashtab.o floatformat.o; do
		cp "$W/build/libiberty/$f" "$1/$f"
	done
}

prog_args_measure="-a -W --debug-dump=info,abbrev,line,frames,aranges,str,loc,Ranges regex.o hashtab.o floatformat.o"
# 400 rounds: about 7 s, 140,000 samples at perf record -F 20000
prog_args_profile="-a -W --debug-dump=info,abbrev,line,frames,aranges,str,loc,Ranges $(bench_repeat 400 regex.o hashtab.o floatformat.o)"
