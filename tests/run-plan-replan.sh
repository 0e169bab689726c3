#!/bin/sh
# A plan from a profile of a binary a plan made: where no candidate beats that link, its block is planned again as it is (every unit at its offset), not an empty fragment that a relink would undo it with; the relink has every function where it was.
. "$(dirname "$0")/test-subr.sh"
need_cmd gcc nm awk

# natsim as make demo builds it, planned from its shipped profile
cp "$top/examples/natsim/natsim.c" .
CF="-O2 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -no-pie -ffunction-sections -fdebug-prefix-map=$PWD=."
gcc $CF -Wl,-Map=natsim.map -o natsim natsim.c || fail "cannot build natsim"
prof=$top/examples/natsim/natsim.profile
plan="$CACHEPIN plan -c cortex-a9-32k,cortex-a9-64k --standalone"
$plan --map natsim.map -o p1.lds natsim "$prof" 2> p1.err || { cat p1.err >&2; fail "plan failed"; }
gcc $CF -Wl,-T,p1.lds -Wl,-Map=planned.map -o planned natsim.c || fail "relink with the plan failed"
$CACHEPIN check -q planned p1.align || fail "check of the planned link failed"

# the same profile on the planned binary: the link is that plan, and no
# candidate beats it in the halves (each is level with it or worse)
$plan --map planned.map -o p2.lds planned "$prof" 2> p2.err || { cat p2.err >&2; fail "plan of the planned binary failed"; }
testrun_compare sed -n 's/ (in [0-9.]* s)$//; /<- planned/p; /no candidate/p' p2.err <<'EOF'
cachepin:   link               1840           1840             <- planned
cachepin: no candidate beats the link, which a plan made (it has __cachepin_start): its block is planned again as it is, 23 hot and 21 fill units at their offsets
EOF
# the fragment names the block's 44 units (23 hot, 21 cold ones in the
# holes the room for growth left), each pinned where it is
block() { sed -n '/__cachepin_start = /,/__cachepin_end = /p' "$1" | grep -c '(\.text\.'; }
testrun_compare block p2.lds <<'EOF'
44
EOF
testrun_compare $CACHEPIN check planned p2.align <<EOF
block start $(nm planned | awk '$3 == "__cachepin_start" { print "0x" substr($1, match($1, /[1-9a-f]/)) }'), aligned to 16384
ok: 44 of 44 units at their planned offsets; 0 fill units moved (cold code, -v lists them)
EOF

# relinked with it: every function where the planned link had it
gcc $CF -Wl,-T,p2.lds -o replanned natsim.c || fail "relink with the second plan failed"
nm planned | awk '$2 ~ /^[tT]$/' | sort > planned.nm
nm replanned | awk '$2 ~ /^[tT]$/' | sort > replanned.nm
[ -s planned.nm ] || fail "no text symbols in the planned link"
diff -u planned.nm replanned.nm || fail "the relink with the second plan moved functions"
exit 0
