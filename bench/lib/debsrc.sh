# Fetch and unpack a Debian source package without touching the system's
# apt state.  Sourced by the benchmark program recipes (POSIX sh).
#
# usage: . bench/lib/debsrc.sh
#        version=$(bench_debsrc PKG DESTDIR)
#
# bench_debsrc derives deb-src entries from the machine's own apt sources
# (one-line "deb ..." entries in sources.list and sources.list.d/*.list,
# deb822 "Types: deb" stanzas in sources.list.d/*.sources; deb-src entries
# already there are kept), writes them
# into a private apt directory, runs "apt-get update" there (private
# source list, lists and cache), and "apt-get source PKG".  The unpacked
# tree (Debian patches applied) ends up exactly at DESTDIR; the downloaded
# files stay in DESTDIR.dl.  It prints the Debian version it got on
# stdout, progress on stderr.  If DESTDIR already exists it only prints
# the version.
#
# Environment:
#   BENCH_APTDIR  the private apt directory (default: DESTDIR.dl/apt; the
#                 update is skipped when it already holds source lists)
#   BENCH_APT_SOURCES  file or directory to read the machine's apt sources
#                 from (default: the apt configuration's Dir::Etc)
#
# Needs apt-get and dpkg-source (Debian package dpkg-dev).

# bench_debsrc_conf OUT: write deb-src entries for the machine's sources
bench_debsrc_conf() {
	_ds_etc=$(apt-config shell x Dir::Etc/d | sed -n "s/^x='\(.*\)'$/\1/p")
	_ds_list=$(apt-config shell x Dir::Etc::sourcelist/f | sed -n "s/^x='\(.*\)'$/\1/p")
	_ds_parts=$(apt-config shell x Dir::Etc::sourceparts/d | sed -n "s/^x='\(.*\)'$/\1/p")
	: "${_ds_etc:=/etc/apt/}" "${_ds_list:=${_ds_etc}sources.list}" "${_ds_parts:=${_ds_etc}sources.list.d/}"
	if [ -n "$BENCH_APT_SOURCES" ]; then
		if [ -d "$BENCH_APT_SOURCES" ]; then
			_ds_list=/dev/null _ds_parts=$BENCH_APT_SOURCES/
		else
			_ds_list=$BENCH_APT_SOURCES _ds_parts=/nonexistent/
		fi
	fi
	: > "$1/sources.list"
	: > "$1/sources.list.d/src.sources"
	for _ds_f in "$_ds_list" "$_ds_parts"*.list; do
		[ -r "$_ds_f" ] || continue
		# "deb [opts] uri suite comp..." -> "deb-src [opts] uri suite comp..."
		sed -n 's/^[[:space:]]*deb\(-src\)\{0,1\}[[:space:]]/deb-src /p' "$_ds_f" \
			>> "$1/sources.list"
	done
	for _ds_f in "$_ds_parts"*.sources; do
		[ -r "$_ds_f" ] || continue
		# keep stanzas whose Types has "deb" or "deb-src"; Types: deb-src
		awk '
		function flush() {
			if (keep > 0) { for (i = 1; i <= n; i++) print s[i]; print "" }
			n = 0; keep = 0
		}
		/^[[:space:]]*$/ { flush(); next }
		/^#/ { next }
		tolower($1) == "types:" {
			for (i = 2; i <= NF; i++) if (($i == "deb" || $i == "deb-src") && !keep) keep = 1
			s[++n] = "Types: deb-src"; next
		}
		tolower($1) == "enabled:" && tolower($2) == "no" { keep = -1 }
		{ s[++n] = $0 }
		END { flush() }' "$_ds_f" >> "$1/sources.list.d/src.sources"
	done
	if [ ! -s "$1/sources.list" ] && [ ! -s "$1/sources.list.d/src.sources" ]; then
		echo "error: '$_ds_list', '$_ds_parts': no deb entries to derive deb-src entries from" >&2
		echo "hint: set BENCH_APT_SOURCES to a sources file or directory" >&2
		return 1
	fi
}

bench_debsrc() {
	_pkg=$1 _dest=$2
	if [ -z "$_pkg" ] || [ -z "$_dest" ]; then
		echo "usage: bench_debsrc PKG DESTDIR" >&2
		return 2
	fi
	_dl=$_dest.dl
	_apt=${BENCH_APTDIR:-$_dl/apt}
	if [ ! -d "$_dest" ]; then
		for _ds_c in apt-get apt-config dpkg-source; do
			command -v $_ds_c > /dev/null || {
				echo "error: '$_ds_c' not found" >&2
				echo "hint: apt-get install dpkg-dev" >&2
				return 1
			}
		done
		mkdir -p "$_dl" "$_apt/sources.list.d" "$_apt/lists/partial" \
			"$_apt/cache/archives/partial"
		_apt=$(cd "$_apt" && pwd)
		: > "$_apt/status"
		set -- -o Dir::Etc::SourceList="$_apt/sources.list" \
			-o Dir::Etc::SourceParts="$_apt/sources.list.d" \
			-o Dir::State::Lists="$_apt/lists" \
			-o Dir::Cache="$_apt/cache" \
			-o Dir::State::status="$_apt/status" \
			-o APT::Sandbox::User=root \
			-o Debug::NoLocking=1
		if ! ls "$_apt/lists/"*Sources* > /dev/null 2>&1; then
			bench_debsrc_conf "$_apt" || return 1
			echo "== apt-get update (deb-src lists in $_apt)" >&2
			# a source without deb-src indexes only warns; apt-get source
			# below tells whether the package was found
			apt-get "$@" update > "$_apt/update.log" 2>&1 || true
		fi
		echo "== apt-get source $_pkg" >&2
		rm -rf "$_dl/tree"
		mkdir -p "$_dl/tree"
		(cd "$_dl/tree" && apt-get "$@" source "$_pkg") > "$_dl/source.log" 2>&1 || {
			echo "error: '$_pkg': apt-get source failed; see $_dl/source.log and $_apt/update.log" >&2
			echo "hint: the machine's apt sources need a matching deb-src archive" >&2
			return 1
		}
		_t=
		for _ds_d in "$_dl/tree"/*; do
			[ -d "$_ds_d" ] && _t=$_ds_d
		done
		[ -n "$_t" ] || {
			echo "error: '$_dl/tree': apt-get source unpacked nothing" >&2
			return 1
		}
		mv "$_dl/tree"/*.dsc "$_dl/tree"/*.tar.* "$_dl/" 2> /dev/null || true
		mv "$_t" "$_dest"
		rmdir "$_dl/tree" 2> /dev/null || true
	fi
	for _ds_f in "$_dl"/*.dsc; do
		[ -r "$_ds_f" ] && sed -n 's/^Version: *//p' "$_ds_f" && return 0
	done
	echo unknown
}
