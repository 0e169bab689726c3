#!/bin/sh
# A kernel's samples of a time event in its idle loop are not heat: score, plan and whatif leave them out; samples where interrupts come back on are said, plan says what a time event's weights mean, (by name and by the .cpuidle.text section) with the call edges into and out of them, and say so; --keep-idle, a profile of instructions and the profile command keep them.
. "$(dirname "$0")/test-subr.sh"
need_cmd gcc nm awk

# A kernel-like image: two busy functions, the idle loop (arch_cpu_idle
# by name; default_idle_call and wait_here in .cpuidle.text, which only
# the link map shows for wait_here) and start_kernel calling them all.
cat > k.c <<'EOF'
#define BODY(n) __asm__ volatile(".rept " #n "\n\tnop\n\t.endr")
__attribute__((noinline)) int busy_a(int x) { BODY(200); return x + 1; }
__attribute__((noinline)) int busy_b(int x) { BODY(200); return x + 2; }
__attribute__((noinline)) void arch_cpu_idle(void) { BODY(40); }
__attribute__((noinline, section(".cpuidle.text"))) void default_idle_call(void) { arch_cpu_idle(); BODY(40); }
__attribute__((noinline, section(".cpuidle.text"))) void wait_here(void) { BODY(40); }
__attribute__((noinline, used, section(".spinlock.text"))) void _raw_spin_unlock_irqrestore(void) { BODY(16); }
void start_kernel(void)
{
	for (;;) {
		busy_a(1);
		busy_b(2);
		default_idle_call();
		wait_here();
	}
}
EOF
gcc -O2 -ffunction-sections -fno-asynchronous-unwind-tables -nostdlib -static -no-pie \
	-Wl,-e,start_kernel -Wl,-Map=k.map -o k k.c || fail "cannot build k"

# what 'perf script' prints of a cpu-clock recording of it: 60 samples
# where arch_cpu_idle takes the interrupt that ends its wait (called
# from default_idle_call), 10 in wait_here, 15 in each busy function
at() { printf '%x' $((0x$(nm k | awk -v s="$1" '$3 == s { print $1 }') + $2)); }
idle=$(at arch_cpu_idle 16) call=$(at default_idle_call 5) kmain=$(at start_kernel 16)
{
	i=0
	while [ $i -lt 60 ]; do echo "$idle $call $kmain"; i=$((i + 1)); done
	i=0
	while [ $i -lt 10 ]; do echo "$(at wait_here 8) $kmain"; i=$((i + 1)); done
	for f in busy_a busy_b; do
		i=0
		while [ $i -lt 15 ]; do echo "$(at $f $((16 * (i % 12)))) $kmain"; i=$((i + 1)); done
	done
} > samples.addr
script() {	# EVENT PERIOD: samples.addr as perf script's text
	awk -v ev="$1" -v per="$2" '{
		printf "swapper     0 [000]     1.%06d: %10d %s: \n", NR, per, ev
		for (i = 1; i <= NF; i++)
			printf "\t%16s [unknown] ([kernel.kallsyms])\n", $i
		print ""
	}' samples.addr
}
script cpu-clock 250000 > clock.txt
script instructions 1 > insn.txt

hot_lines() { sed -n 's/.*hot lines \([0-9]*\) (.*/\1/p' "$1"; }

# score: the idle loop out, said once
$CACHEPIN score -c 16K:4:32 --map k.map k clock.txt > out.txt 2> err.txt || { cat err.txt >&2; fail "score failed"; }
testrun_compare cat err.txt <<'EOF'
cachepin: 'clock.txt': 70.0 % of the samples wait in the idle loop (arch_cpu_idle and more), not fetch code: they are not heat
hint: --keep-idle counts them as heat
EOF
# the busy functions' lines alone, and start_kernel's call sites of them
testrun_compare sed -n 's/^profile: //p; s/^model: \([0-9]*\) reference string entries over \([0-9]*\) granules.*/granules \2/p; s/.*hot lines \([0-9]*\) (.*/hot lines \1/p' out.txt <<'EOF'
100 samples, 100 matched (100.0 %), event cpu-clock (time), 6 functions, 2 edges
granules 28
hot lines 15
EOF

# without the link map wait_here is not known to wait
$CACHEPIN score -c 16K:4:32 k clock.txt > /dev/null 2> err.txt || fail "score without a map failed"
testrun_compare cat err.txt <<'EOF'
cachepin: 'clock.txt': 60.0 % of the samples wait in the idle loop (arch_cpu_idle), not fetch code: they are not heat
hint: --keep-idle counts them as heat
EOF

# --keep-idle: every sample is heat, nothing said
$CACHEPIN score -c 16K:4:32 --keep-idle --map k.map k clock.txt > keep.txt 2> err.txt || fail "score --keep-idle failed"
testrun_compare cat err.txt < /dev/null
testrun_compare sed -n 's/^profile: //p; s/.*hot lines \([0-9]*\) (.*/hot lines \1/p' keep.txt <<'EOF'
100 samples, 100 matched (100.0 %), event cpu-clock (time), 6 functions, 5 edges
hot lines 19
EOF

# a profile of executed instructions: the idle loop's samples are fetches
$CACHEPIN score -c 16K:4:32 --map k.map k insn.txt > insn.out 2> err.txt || fail "score of instructions failed"
testrun_compare cat err.txt < /dev/null
[ "$(hot_lines insn.out)" = "$(hot_lines keep.txt)" ] || fail "a profile of instructions has $(hot_lines insn.out) hot lines, not $(hot_lines keep.txt)"
# with -v it says what share they are
$CACHEPIN score -v -c 16K:4:32 --map k.map k insn.txt > /dev/null 2> err.txt || fail "score -v of instructions failed"
testrun_compare grep 'idle loop' err.txt <<'EOF'
cachepin: 'insn.txt': 70.0 % of the samples are in the idle loop (arch_cpu_idle and more): they count fetches, so they are heat
EOF

# the profile command keeps every sample; scoring its profile leaves them out
$CACHEPIN profile -o k.prof --map k.map k clock.txt 2> err.txt || { cat err.txt >&2; fail "profile failed"; }
testrun_compare cat err.txt < /dev/null
testrun_compare sed -n 's/^f \([a-z_]*\) - \([0-9]*\) \([0-9]*\) .*/\1 \3/p' k.prof <<'EOF'
arch_cpu_idle 60
busy_a 15
busy_b 15
wait_here 10
default_idle_call 0
start_kernel 0
EOF
$CACHEPIN score -c 16K:4:32 --map k.map k k.prof > prof.out 2> err.txt || fail "score of the profile failed"
testrun_compare cat err.txt <<'EOF'
cachepin: 'k.prof': 70.0 % of the samples wait in the idle loop (arch_cpu_idle and more), not fetch code: they are not heat
hint: --keep-idle counts them as heat
EOF
cmp -s out.txt prof.out || { diff out.txt prof.out | head >&2; fail "the samples and their profile score differently"; }

# plan: no idle function is planned hot; with --keep-idle arch_cpu_idle is
$CACHEPIN plan -c 16K:4:32 --map k.map -o p.lds k clock.txt > /dev/null 2> plan.err || { cat plan.err >&2; fail "plan failed"; }
testrun_compare sed -n 1,2p plan.err <<'EOF'
cachepin: 'clock.txt': 70.0 % of the samples wait in the idle loop (arch_cpu_idle and more), not fetch code: they are not heat
hint: --keep-idle counts them as heat
EOF
testrun_compare sed -n 's/^hot \([^ ]*\) .*/\1/p' p.align <<'EOF'
start_kernel
busy_b
busy_a
EOF
$CACHEPIN plan -c 16K:4:32 --keep-idle --map k.map -o q.lds k clock.txt > /dev/null 2>&1 || fail "plan --keep-idle failed"
grep -q '^hot arch_cpu_idle ' q.align || fail "plan --keep-idle does not plan arch_cpu_idle"

# plan says what a time event's weights mean; of instructions it says nothing
testrun_compare grep 'counts time' plan.err <<'EOF'
cachepin: the samples are cpu-clock, which counts time: a line weighs the time spent on it, so code that stalls (a device's registers, misses) weighs more than its fetches; -e instructions samples fetches
EOF
$CACHEPIN plan -c 16K:4:32 --map k.map -o i.lds k insn.txt > /dev/null 2> insn-plan.err || { cat insn-plan.err >&2; fail "plan of instructions failed"; }
! grep -q 'counts time' insn-plan.err || fail "plan calls samples of instructions time"

# samples where interrupts come back on: code run with them off took
# none, so its samples wait there; said at 5 % of the busy samples or
# more (10 of 40, beside 60 in the idle loop), kept as heat; 1 of 31
# (3.2 %) is not said
restore=$(at _raw_spin_unlock_irqrestore 8)
{ sed -n 1,60p samples.addr; sed -n 71,100p samples.addr; i=0
  while [ $i -lt 10 ]; do echo "$restore $kmain"; i=$((i + 1)); done; } > irq.addr
{ sed -n 1,60p samples.addr; sed -n 71,100p samples.addr; echo "$restore $kmain"; } > few.addr
sed -n 1,90p irq.addr > base.addr
for f in irq few base; do
	awk '{
		printf "swapper     0 [000]     1.%06d: %10d cpu-clock: \n", NR, 250000
		for (i = 1; i <= NF; i++)
			printf "\t%16s [unknown] ([kernel.kallsyms])\n", $i
		print ""
	}' $f.addr > $f.txt
done
$CACHEPIN score -c 16K:4:32 k irq.txt > irq.out 2> err.txt || { cat err.txt >&2; fail "score of irq.txt failed"; }
testrun_compare cat err.txt <<'EOF'
cachepin: 'irq.txt': 60.0 % of the samples wait in the idle loop (arch_cpu_idle), not fetch code: they are not heat
hint: --keep-idle counts them as heat
cachepin: 'irq.txt': 25.0 % of the busy samples are where interrupts come back on (_raw_spin_unlock_irqrestore): code that runs with interrupts off takes no sample, and its samples wait there; they stay that line's heat
EOF
# kept as heat: the function's lines (two: it straddles a line) are hot
# beside those of the same samples without them
$CACHEPIN score -c 16K:4:32 k base.txt > base.out 2> /dev/null || fail "score of base.txt failed"
[ "$(hot_lines irq.out)" = $(( $(hot_lines base.out) + 2 )) ] ||
	fail "the samples where interrupts come back on are no heat: $(hot_lines irq.out) hot lines, $(hot_lines base.out) without them"
$CACHEPIN score -c 16K:4:32 k few.txt > /dev/null 2> err.txt || { cat err.txt >&2; fail "score of few.txt failed"; }
testrun_compare cat err.txt <<'EOF'
cachepin: 'few.txt': 65.9 % of the samples wait in the idle loop (arch_cpu_idle), not fetch code: they are not heat
hint: --keep-idle counts them as heat
EOF
exit 0
