# Function orders as GNU ld scripts, from a link map (sourced by bench/run.sh).

# sections MAP: "name file section" for every function-bearing input section
# of .text in a GNU ld map (.text.NAME sections, and the global symbols of
# plain .text sections such as libc.a members).  A function GCC split into
# a hot and a cold part has .text.NAME (or .text.hot.NAME, .text.startup.NAME)
# and .text.unlikely.NAME in one object; the cold part is NAME.cold, as GCC
# names its symbol, so that an order of NAME places the hot part.
sections() {
	awk '
	/^Linker script and memory map/ { go = 1; next }
	!go { next }
	/^ \.text[^ ]*$/ { pend = $1; next }
	/^ \.text/ && NF >= 4 { sec = $1; file = $4; pend = ""; emit(); next }
	pend != "" && /^ +0x/ && NF >= 3 { sec = pend; file = $3; pend = ""; emit(); next }
	/^ \./ || /^\./ { sec = ""; pend = ""; next }
	sec != "" && /^ +0x[0-9a-f]+ +[^ ]+$/ && $2 !~ /^0x/ {
		if (!((sec, file) in named)) line[n++] = $2 " " file " " sec
		next
	}
	function emit(	f) {
		if (sec ~ /^\.text\./ && sec !~ /^\.text\.(unlikely|hot|startup|exit)$/) {
			f = sec; sub(/^\.text\.(unlikely\.|hot\.|startup\.)?/, "", f)
			if (sec !~ /^\.text\.unlikely\./) body[f, file] = 1
			line[n++] = f " " file " " sec; named[sec, file] = 1
		}
	}
	END {
		for (i = 0; i < n; i++) {
			split(line[i], w, " ")
			if (w[3] ~ /^\.text\.unlikely\./ && (w[1], w[2]) in body)
				line[i] = w[1] ".cold " w[2] " " w[3]
			print line[i]
		}
	}' "$1"
}

# order_lds ORDER SECTIONS > LDS: a linker script placing the input
# sections of the functions of ORDER ("name object" lines) first, in order
order_lds() {
	awk 'NR == FNR { if (!($1 in f)) { f[$1] = $2; s[$1] = $3 } else dup[$1] = 1
			 all[$1, $2] = $3; next }
	     { file = ""; sec = ""
	       if ($2 != "-") { for (k in all) { split(k, kk, SUBSEP)
			if (kk[1] == $1 && index(kk[2], $2)) { file = kk[2]; sec = all[k] } } }
	       else if ($1 in f) { file = f[$1]; sec = s[$1] }
	       if (file == "") next
	       spec = file "(" sec ")"
	       if (spec in done) next
	       done[spec] = 1
	       sub(/\(/, ":", file); sub(/\)$/, "", file)
	       printf "    *%s(%s)\n", file, sec }
	     BEGIN { print "SECTIONS\n{\n  .text.hot :\n  {" }
	     END { print "  }\n}\nINSERT BEFORE .text;" }' "$2" "$1"
}

# random_order PROFILE SEED > ORDER: the functions with samples of PROFILE
# ("name object" lines) in a random order, Fisher-Yates with the
# Park-Miller generator from SEED (1 to 2147483646): the same seed and
# functions give the same order with any awk
random_order() {
	awk '$1 == "f" && $4 > 0 { print $2, $3 }' "$1" | LC_ALL=C sort |
	awk -v x="$2" '{ f[n++] = $0 }
	     END { for (i = n - 1; i > 0; i--) {
			x = (x * 16807) % 2147483647
			j = x % (i + 1); t = f[i]; f[i] = f[j]; f[j] = t
		   }
		   for (i = 0; i < n; i++) print f[i] }'
}

# hotfirst_order PROFILE > ORDER: the functions with samples of PROFILE
# ("name object" lines), densest first (samples per byte)
hotfirst_order() {
	awk '$1 == "f" && $4 > 0 && $7 > 0 { printf "%.9g %s %s\n", $4 / $7, $2, $3 }' "$1" |
		sort -k1,1gr -k2,2 | awk '{ print $2, $3 }'
}

# lld_callgraph PROFILE > FILE: ld.lld's --call-graph-ordering-file
# ("caller callee weight") from the callchain edges of PROFILE
lld_callgraph() {
	awk '$1 == "e" && $8 ~ /d/ && $2 != $4 { w[$2 " " $4] += $7 / 1000 }
		END { for (k in w) printf "%s %d\n", k, w[k] }' "$1" | sort
}
