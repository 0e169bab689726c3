# Benchmark program recipe: the Tiny C Compiler (Debian source package
# tcc) compiling its own code generator, tccgen.c, to an object file.
# Preprocessing the system headers, parsing, type checking and x86-64 code
# generation spread the time over some 200 functions of tcc and libc.
#
# Sourced by the benchmark driver in a subshell, with BENCH_TOP, W (this
# program's absolute work dir), JOBS and BENCH_CFLAGS set; see
# bench/programs/README for the interface.
#
# Workload files (made by prog_input): src/ holds tcc's sources and a fixed
# config.h, tcclib/include tcc's own headers (stdarg.h, stddef.h...); the
# system headers come from the machine (libc6-dev).  The measure run writes
# the object file to standard output (tcc unlinks its output file first,
# which fails harmlessly on /proc/self/fd/1: never give it /dev/stdout);
# the profile run compiles the same file 240 times, the objects land in
# the input dir.

prog_name=tcc
prog_deps="dpkg-dev bear gcc make libc6-dev"

. "$BENCH_TOP/bench/lib/debsrc.sh"

prog_fetch() {
	bench_debsrc tcc "$W/src" > "$W/version"
}

# prog_build BUILDDIR EXTRA_CFLAGS: out-of-tree configure, tcc and the
# objects of libtcc.a only (libtcc1.a, the run-time library, is not needed
# to compile to an object file).  CONFIG_TCC_STATIC: no dlopen for -run.
prog_build() {
	_b=$1
	[ -f "$_b/link-inputs" ] && return 0
	mkdir -p "$_b"
	(cd "$_b" &&
	 "$W/src/configure" --cc=gcc \
		--extra-cflags="$BENCH_CFLAGS $2 -DCONFIG_TCC_STATIC" > configure.log 2>&1 &&
	 bear --output "$_b/compile_commands.json" -- \
		make -j"$JOBS" ONE_SOURCE=no tcc > make.log 2>&1) || {
		echo "error: '$_b': tcc build failed; see $_b/configure.log and $_b/make.log" >&2
		return 1
	}
	{
		echo "$_b/tcc.o"
		ar t "$_b/libtcc.a" | sed "s|^|$_b/|"
		echo -lm
		echo -lpthread
	} > "$_b/link-inputs.tmp"
	mv "$_b/link-inputs.tmp" "$_b/link-inputs"
}

prog_input() {
	mkdir -p "$1/src" "$1/tcclib"
	cp "$W/src"/*.c "$W/src"/*.h "$W/src"/*.def "$1/src/"
	rm -rf "$1/tcclib/include"
	cp -R "$W/src/include" "$1/tcclib/include"
	# what configure would write, minus anything of this machine
	{
		echo '#define CONFIG_TCCDIR "/usr/local/lib/tcc"'
		echo "#define TCC_VERSION \"$(cat "$W/src/VERSION")\""
		echo '#define CC_NAME CC_gcc'
	} > "$1/src/config.h"
}

prog_args_measure="-Btcclib -DONE_SOURCE=0 -c src/tccgen.c -o /proc/self/fd/1"
prog_args_profile="-Btcclib -DONE_SOURCE=0 -c $(bench_repeat 240 src/tccgen.c)"
