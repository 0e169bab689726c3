#!/bin/sh
# The kernel lab's report: WORKDIR's facts and the outputs of its stages,
# as Markdown on standard output.  The issue's Done criteria (the plans
# against stock and -falign-functions=32 on a trace of a run that no
# profile came from) are lines that say met or not met; they never make
# the report or the lab fail.
#
# usage: tests/kernel/report.sh WORKDIR
set -eu
W=$1
F=$W/facts
[ -f "$F" ] || { echo "report: '$F': no facts; run the lab first" >&2; exit 1; }
get() { awk -F'\t' -v k="$1" '$1 == k { v = $2 } END { print v }' "$F"; }
block() {
	[ -f "$2" ] || return 0
	printf '\n%s\n\n```\n' "$1"
	cat "$2"
	printf '```\n'
}
# cell PREFIX POLICY: the misses of simulate facts PREFIX, with the change
# fact sim_change_PREFIX (PREFIX without its sim_) after them
cell() {
	c=$(get "sim_change_${1#sim_}_$2")
	echo "$(get "$1_$2")${c:+ ($c %)}"
}
# mpki PREFIX POLICY: misses per 1000 instructions
mpki() {
	awk -v m="$(get "$1_$2")" -v i="$(get "$1_instructions")" \
		'BEGIN { if (m != "" && i > 0) printf "%.2f", m * 1000 / i; else printf "?" }'
}
# done_lines WHAT PLAN REF FRACTION: one line per policy, met when the
# misses of simulate facts PLAN are at most FRACTION of REF's (FRACTION
# 1: fewer than REF's; 1.0 or more: at most as many); both on the same
# trace, so the same instructions
done_lines() {
	for pol in lru random; do
		awk -v what="$1" -v pol="$(polname $pol)" -v a="$(get "$2_$pol")" -v b="$(get "$3_$pol")" -v f="$4" 'BEGIN {
			if (a == "" || b == "" || b == 0) {
				printf "- not measured: %s, %s\n", what, pol
				exit
			}
			ok = f != "1" ? a <= f * b : a < b
			printf "- %s: %s, %s: %s misses against %s (%+.1f %%)\n", ok ? "met" : "not met", what, pol, a, b, (a - b) * 100 / b
		}'
	done
}
# points_lines WHAT A B N: the changes A and B (in %) at most N points apart
points_lines() {
	for pol in lru random; do
		awk -v what="$1" -v pol="$(polname $pol)" -v a="$(get "$2_$pol")" -v b="$(get "$3_$pol")" -v n="$4" 'BEGIN {
			if (a == "" || b == "") {
				printf "- not measured: %s, %s\n", what, pol
				exit
			}
			printf "- %s: %s, %s: %s %% against %s %% (%.1f points)\n", a - b <= n ? "met" : "not met", what, pol, a, b, a - b
		}'
	done
}

# pc NAME: a change fact with its unit, or nothing
pc() {
	v=$(get "$1")
	[ -z "$v" ] || echo "$v %"
}
# kept RUN LAYOUT: the instructions a remap of RUN's trace onto LAYOUT
# left where they ran
kept() {
	case $1/$2 in
	before/stock | after/"$used") echo "its own trace" ;;
	*) get "sim_$1_on_$2_kept" ;;
	esac
}
polname() { if [ "$1" = lru ]; then echo LRU; else echo pseudo-random; fi; }

# the booted plan's profile, and how the table names the two plans
used=$(get hook_profile)
used=${used:-perf}
if [ "$used" = trace ]; then
	usedname=QEMU-trace
	perf_note=", relinked, not booted" trace_note=", booted" trace_trace="after run (its own)"
else
	usedname=perf
	perf_note=", booted" trace_note=", relinked, not booted" trace_trace="after run, remapped"
fi

cat <<EOF
# Kernel lab report

Linux 6.1 ($(sed -n 's/^SUBLEVEL = //p' "$W/linux-source-6.1/Makefile" 2>/dev/null || echo '?') sublevel), ARM32 router for QEMU vexpress-a9, MIPS32 BE malta, and a MIPS32 LE router on malta.

## Builds

| step | figure |
|---|---|
| ARM build, stock layout (vmlinux, zImage, dtb) | $(get build_arm_s) s |
| orphan-section warnings, stock link | $(get stock_orphan_warnings) |
| text symbols (System.map) | $(get stock_text_symbols) |
| cachepin-kbuild cycle (build, plan, relink, check) | $(get hook_cycle_s) s |
| orphan-section warnings with the hook | $(get hook_orphan_warnings) |
| check with the hook | $(get hook_check) |
| the booted plan's profile | $(get hook_profile) |
| cachepin-kbuild cycle, plan from the $(get replan_profile) profile (not booted) | $(get replan_cycle_s) s |
| orphan-section warnings, that plan's relink | $(get replan_orphan_warnings) |
| check, that plan | $(get replan_check) |
| both profiles' plans give the same System.map | $(get replan_same_layout) |
| cachepin-kbuild -n cycle (no patch) | $(get nopatch_cycle_s) s |
| orphan-section warnings, no-patch route | $(get nopatch_orphan_warnings) |
| check, no-patch route | $(get nopatch_check) |
| ARM build, stock with -falign-functions=32 (vmlinux, zImage, dtb) | $(get build_align32_s) s |
| orphan-section warnings, -falign-functions=32 | $(get align32_orphan_warnings) |
| text symbols on 32 bytes, stock / -falign-functions=32 | $(get stock_aligned32) % of $(get stock_text_symbols) / $(get align32_aligned32) % of $(get align32_text_symbols) |
| .text bytes, stock / -falign-functions=32 | $(get stock_text_bytes) / $(get align32_text_bytes) |
| MIPS cachepin-kbuild cycle | $(get mips_cycle_s) s |
| MIPS orphan-section warnings | $(get mips_orphan_warnings) |
| MIPS check | $(get mips_check) |
| MIPS entry | $(get mips_text) |
| MIPS boot to /init | $(get mips_boot): $(get mips_init) |

## Router runs

| run | NAT check | traced window | perf window |
|---|---|---|---|
| stock layout | $(get before_nat_check) | $(get before_trace_window) | $(get before_perf_window) |
| planned layout (hook) | $(get after_nat_check) | $(get after_trace_window) | |
| planned layout (no patch) | $(get nopatch_nat_check) | | |
| stock, -falign-functions=32 | $(get align32_nat_check) | $(get align32_trace_window) | |

Profiles: the perf recording in $(get profile_perf_s) s, the QEMU trace
($(get trace_bytes) bytes) in $(get profile_trace_s) s.

## Trace-driven misses (kernel fetches of the traced windows, 32 KiB 4-way 32 B)

| layout | instructions | LRU | pseudo-random | fully associative LRU |
|---|---:|---:|---:|---:|
| stock | $(get sim_before_instructions) | $(get sim_before_lru) | $(get sim_before_random) | $(get sim_before_fa-lru) |
| planned | $(get sim_after_instructions) | $(get sim_after_lru) | $(get sim_after_random) | $(get sim_after_fa-lru) |
| stock, -falign-functions=32 | $(get sim_align32_instructions) | $(get sim_align32_lru) | $(get sim_align32_random) | $(get sim_align32_fa-lru) |

Misses per instruction, planned against stock: LRU $(pc sim_change_lru),
pseudo-random $(pc sim_change_random); -falign-functions=32 against
stock: LRU $(pc sim_change_align32_lru), pseudo-random
$(pc sim_change_align32_random); planned against -falign-functions=32:
LRU $(pc sim_vs_align32_lru), pseudo-random $(pc sim_vs_align32_random).

## Each plan on a run its profile did not come from

Runs: the stock run (its traced window is the QEMU trace the trace plan is
made from, planned for the hook tree's link with \`plan --traced\`; its
perf window, later in the same boot, gave the perf profile), the after run (a
boot of its own, on the plan from the $usedname profile) and the
-falign-functions=32 run.  A trace scored on another kernel than the
one it ran on is remapped function by function (\`cachepin simulate --relink\`):
the same fetches, at the addresses of those functions in that kernel.
Kernel fetches, 32 KiB 4-way 32 B.

| layout | trace | instructions | LRU misses | LRU vs stock | pseudo-random misses | pseudo-random vs stock |
|---|---|---:|---:|---:|---:|---:|
| stock | stock run (its own) | $(get sim_before_instructions) | $(get sim_before_lru) | | $(get sim_before_random) | |
| stock, -falign-functions=32 | -falign-functions=32 run (its own) | $(get sim_align32_instructions) | $(get sim_align32_lru) | $(pc sim_change_align32_lru) ¹ | $(get sim_align32_random) | $(pc sim_change_align32_random) ¹ |
| planned from the $usedname profile, booted | after run (its own) | $(get sim_after_instructions) | $(get sim_after_lru) | $(pc sim_change_lru) ¹ | $(get sim_after_random) | $(pc sim_change_random) ¹ |
| planned from the perf profile$perf_note | stock run, remapped | $(get sim_before_on_perf_instructions) | $(get sim_before_on_perf_lru) | $(pc sim_change_before_on_perf_lru) | $(get sim_before_on_perf_random) | $(pc sim_change_before_on_perf_random) |
| planned from the QEMU trace$trace_note | $trace_trace | $(get sim_after_on_trace_instructions) | $(get sim_after_on_trace_lru) | $(pc sim_change_after_on_trace_lru) ² | $(get sim_after_on_trace_random) | $(pc sim_change_after_on_trace_random) ² |
| stock | after run, remapped | $(get sim_after_on_stock_instructions) | $(get sim_after_on_stock_lru) | | $(get sim_after_on_stock_random) | |

¹ Misses per instruction against the stock run's own trace (two runs of
the same downloads, not of exactly as many instructions).  Otherwise
against stock on the same trace; ² against the last row.

Every layout on the same two traces (misses, and the change against
stock on that trace):

| trace | policy | stock | -falign-functions=32 | perf plan | QEMU-trace plan |
|---|---|---:|---:|---:|---:|
| stock run | LRU | $(get sim_before_on_stock_lru) | $(cell sim_before_on_align32 lru) | $(cell sim_before_on_perf lru) | $(cell sim_before_on_trace lru) ³ |
| stock run | pseudo-random | $(get sim_before_on_stock_random) | $(cell sim_before_on_align32 random) | $(cell sim_before_on_perf random) | $(cell sim_before_on_trace random) ³ |
| after run | LRU | $(get sim_after_on_stock_lru) | $(cell sim_after_on_align32 lru) | $(cell sim_after_on_perf lru) | $(cell sim_after_on_trace lru) |
| after run | pseudo-random | $(get sim_after_on_stock_random) | $(cell sim_after_on_align32 random) | $(cell sim_after_on_perf random) | $(cell sim_after_on_trace random) |

The stock run on stock and the after run on the $usedname plan are those
runs' own traces, the others remapped.  ³ In-sample: the QEMU-trace
profile was made from this trace; not a figure for the criteria below.

Against -falign-functions=32 on the same trace: the perf plan
$(pc sim_vs_align32_before_on_perf_lru) LRU, $(pc sim_vs_align32_before_on_perf_random) pseudo-random on the stock run,
$(pc sim_vs_align32_after_on_perf_lru) and $(pc sim_vs_align32_after_on_perf_random) on the after run; the QEMU-trace plan
$(pc sim_vs_align32_after_on_trace_lru) and $(pc sim_vs_align32_after_on_trace_random) on the after run.

How far a remapped trace is from a kernel's own run (misses per 1000
instructions, LRU / pseudo-random; the runs also differ in their paths):

| layout | its own trace | stock run, remapped | after run, remapped |
|---|---:|---:|---:|
| stock | $(mpki sim_before lru) / $(mpki sim_before random) | | $(mpki sim_after_on_stock lru) / $(mpki sim_after_on_stock random) |
| stock, -falign-functions=32 | $(mpki sim_align32 lru) / $(mpki sim_align32 random) | $(mpki sim_before_on_align32 lru) / $(mpki sim_before_on_align32 random) | $(mpki sim_after_on_align32 lru) / $(mpki sim_after_on_align32 random) |
| planned from the $usedname profile, booted | $(mpki sim_after lru) / $(mpki sim_after random) | $(mpki "sim_before_on_$used" lru) / $(mpki "sim_before_on_$used" random) | |

Instructions that stay where they ran in a remap (outside the functions
named once in both kernels):

| trace | stock | -falign-functions=32 | perf plan | QEMU-trace plan |
|---|---:|---:|---:|---:|
| stock run | $(kept before stock) | $(kept before align32) | $(kept before perf) | $(kept before trace) |
| after run | $(kept after stock) | $(kept after align32) | $(kept after perf) | $(kept after trace) |

### Done criteria (issue 11)

On the after run's trace, the one run no profile came from, with every
layout on the same fetch stream:

$(done_lines "plan from the QEMU trace, at least 50 % fewer misses than stock" sim_after_on_trace sim_after_on_stock 0.5)
$(done_lines "plan from the perf profile, at least 30 % fewer misses than stock" sim_after_on_perf sim_after_on_stock 0.7)
$(done_lines "plan from the QEMU trace, fewer misses than -falign-functions=32" sim_after_on_trace sim_after_on_align32 1)
$(done_lines "plan from the perf profile, fewer misses than -falign-functions=32" sim_after_on_perf sim_after_on_align32 1)

The perf plan on the stock run's trace (another window than its
profile's, in the same boot):

$(done_lines "plan from the perf profile, at least 30 % fewer misses than stock" sim_before_on_perf sim_before_on_stock 0.7)
$(done_lines "plan from the perf profile, fewer misses than -falign-functions=32" sim_before_on_perf sim_before_on_align32 1)

### Done criteria (issue 29)

On the after run's trace, each layout laid out on that run's kernel from
its alignment file (\`cachepin simulate --layout\`), the plans and the
reference colouring of the same profile alike:

| layout | LRU | pseudo-random |
|---|---:|---:|
| plan from the perf profile | $(get sim_after_layout_perf_lru) ($(pc sim_change_after_layout_perf_lru)) | $(get sim_after_layout_perf_random) ($(pc sim_change_after_layout_perf_random)) |
| reference colouring, perf profile | $(get sim_after_layout_reference_perf_lru) ($(pc sim_change_after_layout_reference_perf_lru)) | $(get sim_after_layout_reference_perf_random) ($(pc sim_change_after_layout_reference_perf_random)) |
| plan from the QEMU trace | $(get sim_after_layout_trace_lru) ($(pc sim_change_after_layout_trace_lru)) | $(get sim_after_layout_trace_random) ($(pc sim_change_after_layout_trace_random)) |
| reference colouring, QEMU trace | $(get sim_after_layout_reference_trace_lru) ($(pc sim_change_after_layout_reference_trace_lru)) | $(get sim_after_layout_reference_trace_random) ($(pc sim_change_after_layout_reference_trace_random)) |

(changes against the stock kernel on the same trace)

$(done_lines "plan from the perf profile, no more misses than the reference colouring of it" sim_after_layout_perf sim_after_layout_reference_perf 1.0)
$(done_lines "plan from the QEMU trace, no more misses than the reference colouring of it" sim_after_layout_trace sim_after_layout_reference_trace 1.0)
$(done_lines "plan from the QEMU trace, at least 60 % fewer misses than stock" sim_after_on_trace sim_after_on_stock 0.4)

### Profiles that count fetches (issue 30)

On the after run's trace, laid out as above: the plan from the QEMU
trace (every executed instruction), from the perf window
($(get perf_samples) kernel samples, $(get perf_idle_share) % of them in the idle loop, which
the plan leaves out, $(get perf_block_starts) % on the first instruction of one of the traced
window's translation blocks, where samples of every instruction alike
would put $(get trace_block_share) %: the traced window's blocks per instruction), and from every $(get every_period)th instruction of the traced
window ($(get every_samples) samples, as many as the perf window's).

| plan from | samples | in the idle loop | on a block's first instruction | LRU | pseudo-random |
|---|---:|---:|---:|---:|---:|
| the QEMU trace | $(get trace_samples) | $(get counts_idle_share) % | $(get trace_block_share) % | $(get sim_after_layout_trace_lru) ($(pc sim_change_after_layout_trace_lru)) | $(get sim_after_layout_trace_random) ($(pc sim_change_after_layout_trace_random)) |
| the perf window | $(get perf_samples) | $(get perf_idle_share) % | $(get perf_block_starts) % | $(get sim_after_layout_perf_lru) ($(pc sim_change_after_layout_perf_lru)) | $(get sim_after_layout_perf_random) ($(pc sim_change_after_layout_perf_random)) |
| the trace's instructions, sampled | $(get every_samples) | $(get every_idle_share) % | $(get trace_block_share) % | $(get sim_after_layout_every_lru) ($(pc sim_change_after_layout_every_lru)) | $(get sim_after_layout_every_random) ($(pc sim_change_after_layout_every_random)) |
| the trace's exact counts, as a profile | $(get trace_samples) | $(get counts_idle_share) % | $(get trace_block_share) % | $(get sim_after_layout_counts_lru) ($(pc sim_change_after_layout_counts_lru)) | $(get sim_after_layout_counts_random) ($(pc sim_change_after_layout_counts_random)) |

Samples are executed instructions for the trace's rows (each one a
sample), the perf window's kernel samples for its row.  The idle loop's
share is what the plan leaves out of a time event (the perf window) and
keeps of an instruction count.  The share on a block's first
instruction is the traced window's blocks per instruction for every
instruction and every N-th one alike (uniform samples put it there),
and for the perf window where its samples landed.

The last row is the trace made a profile (\`cachepin profile\` of the
log: every instruction counted, in time slices) and planned through the
model as a recording is: its gap to the trace plan is what the model's
string loses against the run's own order, its gap to the sampled rows
what sampling loses.

The perf window's samples: $(get perf_sampling_said).

$(done_lines "plan from the perf window, at least 45 % fewer misses than stock" sim_after_layout_perf sim_after_on_stock 0.55)
$(points_lines "plan from the perf window, within 10 points of the trace plan's change" sim_change_after_layout_perf sim_change_after_layout_trace 10)

## cachepin score (modelled misses, 32 KiB 4-way 32 B)

| profile | stock LRU | planned LRU | stock pseudo-random | planned pseudo-random |
|---|---:|---:|---:|---:|
| perf (the plan's input) | $(get score_before_perf_lru) | $(get score_after_perf_lru) | $(get score_before_perf_random) | $(get score_after_perf_random) |
| QEMU trace | $(get score_before_trace_lru) | $(get score_after_trace_lru) | $(get score_before_trace_random) | $(get score_after_trace_random) |

## A plan laid out without a link (\`cachepin simulate --layout\`)

Each plan's alignment file laid out on the stock run's kernel, the stock
run's trace remapped onto it, beside the same trace remapped onto the
relinked kernel (\`--relink\`); and the reference colouring of the
same profile (\`cachepin plan --method reference\`: densest first, no
growth room), laid out the same way:

| plan | LRU, --layout | LRU, relinked | pseudo-random, --layout | pseudo-random, relinked |
|---|---:|---:|---:|---:|
| perf profile | $(get sim_before_layout_perf_lru) ($(pc sim_change_before_layout_perf_lru)) | $(get sim_before_on_perf_lru) | $(get sim_before_layout_perf_random) ($(pc sim_change_before_layout_perf_random)) | $(get sim_before_on_perf_random) |
| reference colouring, perf profile | $(get sim_before_layout_reference_perf_lru) ($(pc sim_change_before_layout_reference_perf_lru)) | - | $(get sim_before_layout_reference_perf_random) ($(pc sim_change_before_layout_reference_perf_random)) | - |
| QEMU trace | $(get sim_before_layout_trace_lru) ($(pc sim_change_before_layout_trace_lru)) | $(get sim_before_on_trace_lru) | $(get sim_before_layout_trace_random) ($(pc sim_change_before_layout_trace_random)) | $(get sim_before_on_trace_random) |
| reference colouring, QEMU trace | $(get sim_before_layout_reference_trace_lru) ($(pc sim_change_before_layout_reference_trace_lru)) | - | $(get sim_before_layout_reference_trace_random) ($(pc sim_change_before_layout_reference_trace_random)) | - |

## Stability: an unrelated commit

\`cachepin diff\` of each tree before and after the commit, under the
plan's profile: modelled LRU misses, stock $(get stability_stock_old_lru) ->
$(get stability_stock_new_lru) ($(get stability_stock_new_pairs) pairs of functions newly sharing
over-full sets), with the hook $(get stability_hook_old_lru) -> $(get stability_hook_new_lru)
($(get stability_hook_new_pairs) new pairs).  Functions that change their 32 KiB cache set:

| functions | how many | without the hook | with the hook |
|---|---:|---:|---:|
| placed by the plan for their hot lines | $(get stability_planned_functions) | $(get stability_planned_moved_without_hook) | $(get stability_planned_moved_with_hook) |
| all hot in the profile | $(get stability_sampled_functions) | $(get stability_sampled_moved_without_hook) | $(get stability_sampled_moved_with_hook) |

## Stability: a commit that grows a hot function

nf_conntrack_tcp_packet ($(get growth_fn_size | cut -d' ' -f1) bytes) grown by 8 instructions
($(get growth_fn_size | cut -d' ' -f2) bytes), which its room absorbs: $(get growth_8_check).
By 48 instructions ($(get growth_48_size) bytes): $(get growth_48_moved) hot units off their
slots, named by kbuild's per-link check ($(get growth_48_warning) warning lines; modelled
misses $(get growth_48_misses)); with TEXT_LAYOUT_CHECK=error the make fails.
Re-planned on that build: \`plan --keep\` $(get growth_keep); against the old plan
$(get growth_keep_sets_changed) of $(get growth_hot_units) hot units in another set, from scratch
$(get growth_scratch_sets_changed).  Relinked with the kept plan: $(get growth_keep_check).
EOF
if [ -n "$(get mod_modules)" ]; then
	cat <<EOF

## The OpenWrt shape: netfilter as modules (ARM)

The router with its netfilter code as loadable modules
(tests/kernel/arm-router-modules.config), built with them
($(get modbuild_s) s), $(get mod_text_symbols) text symbols in vmlinux.

| | |
|---|---|
| modules, in load order | $(get mod_modules) |
| the other load order | $(get mod_modules_alt) |
| NAT through the router | $(get modules_nat_check) |
| traced window | $(get modules_trace_window) |
| perf window | $(get modules_perf_window) |
| perf script in the router | $(get mod_perf_script) |
| load addresses | $(get mod_bases) |
| in the other order | $(get mod_bases_alt) |
| modules at another address | $(get mod_bases_moved) |
| every base page-aligned | $(get mod_bases_page_aligned) |
| samples (perf.data; lines of perf script -G) | $(get mod_samples); $(get mod_script_samples) |
| each module's share of the samples | $(get mod_shares) |
| module functions with samples | $(get mod_functions) |
| cachepin profile --modules of perf.data against perf script's attribution (modules and functions, sample counts) | $(get mod_data_vs_perf) |
| the same of perf script's text | $(get mod_script_vs_perf) |
| the traced window's kernel instructions in each module | $(get mod_trace_shares) |
| plan (from the $(get modplan_profile) profile; the modules' lines: --module-pages $(get modplan_module_pages)) | $(get modplan_check); occupants: $(get modplan_occupants) |
| modules planned (plan --modules-lds), modelled misses without and with them | $(get modplan_modules); $(get modplan_modelled) |
| relinked modules checked | $(get modplan_modules_check) |
| the planned run's modules at another address than the profiled run's (the same files in the same order: the module area's holes differ from boot to boot) | $(get mod_after_bases_moved) |
| of them, on the other page of an 8 KiB way span (every line in its other set at 32K:4:32) | $(get mod_after_other_page) |

Trace-driven misses (32 KiB 4-way 32 B, kernel and module fetches; on
the other kernel: vmlinux relinked, each module's code remapped by
function to the other build of it, at the run's load addresses):

| trace | stock kernel and modules | planned vmlinux, stock modules | planned vmlinux and modules |
|---|---:|---:|---:|
| the profiled run's, LRU | $(get sim_modules_lru) | | $(get sim_modules_on_plan_lru) ($(get sim_change_modules_plan_stock_run_lru) %) |
| the profiled run's, pseudo-random | $(get sim_modules_random) | | $(get sim_modules_on_plan_random) ($(get sim_change_modules_plan_stock_run_random) %) |
| the planned run's, LRU | $(get sim_modules_after_on_stock_lru) | $(get sim_modules_after_stock_mods_lru) ($(get sim_change_modules_plan_vmlinux_lru) %) | $(get sim_modules-after_lru) ($(get sim_change_modules_plan_lru) %) |
| the planned run's, pseudo-random | $(get sim_modules_after_on_stock_random) | $(get sim_modules_after_stock_mods_random) ($(get sim_change_modules_plan_vmlinux_random) %) | $(get sim_modules-after_random) ($(get sim_change_modules_plan_random) %) |

The issue's line (the plan at least 30 % under stock on another run's trace):
$(for pol in lru random; do awk -v c="$(get sim_change_modules_plan_$pol)" -v pol=$pol 'BEGIN { if (c == "") print "- not measured: " pol; else printf "- %s: %s, %s %%\n", c <= -30 ? "met" : "not met", pol, c }'; done)
EOF
fi
if [ -n "$(get mrbefore_nat_check)" ]; then
	# mr_cell NAME SIZE POLICY: misses of sim_NAME_SIZE, with the change fact
	mr_cell() {
		_v=$(get "sim_$1_$2_$3") _c=
		[ -z "${4:-}" ] || _c=$(get "$4_$2_$3")
		echo "${_v:-?}${_c:+ ($_c %)}"
	}
	cat <<EOF

## A MIPS router (malta, 74Kf, little-endian)

The ARM router's NAT path built for QEMU malta with a 74Kf core
(tests/kernel/mips-router.config: malta's PCI NIC, AMD PCnet; $(get mr_text_symbols)
text symbols; its last make $(get mr_build_s) s), Debian's mipsel user space. It
forwards between the ARM hosts guest's two namespaces as the ARM router
does. The plan booted is the one from the traced window's QEMU log
(\`plan --traced\`, for mips-74k-32k); the others are alignment files on
the booted kernels (\`simulate --layout\`).

| | |
|---|---|
| NAT through the stock router | $(get mrbefore_nat_check) |
| traced window, perf window | $(get mrbefore_trace_window); $(get mrbefore_perf_window) |
| samples (perf; trace instructions) | $(get mr_perf_samples); $(get mr_trace_samples) |
| plan, built, linked and checked | $(get mr_plan_check) |
| NAT through the planned router | $(get mrafter_nat_check) |
| its traced window | $(get mrafter_trace_window) |
| functions on 32 bytes, stock and -falign-functions=32 | $(get mr_stock_aligned32) %, $(get mr_align32_aligned32) % |

Trace-driven misses of the planned run's kernel fetches (a run no
profile came from), by kernel; changes against stock on the same trace:

| layout | 32K:4:32 LRU | pseudo-random | 64K:4:32 LRU | pseudo-random |
|---|---:|---:|---:|---:|
| stock | $(mr_cell mr_after_on_stock 32k lru) | $(mr_cell mr_after_on_stock 32k random) | $(mr_cell mr_after_on_stock 64k lru) | $(mr_cell mr_after_on_stock 64k random) |
| -falign-functions=32 | $(mr_cell mr_after_on_align32 32k lru mr_change_align32) | $(mr_cell mr_after_on_align32 32k random mr_change_align32) | $(mr_cell mr_after_on_align32 64k lru mr_change_align32) | $(mr_cell mr_after_on_align32 64k random mr_change_align32) |
| the booted plan (QEMU trace, 32 KiB) | $(mr_cell mr_after 32k lru mr_change_after) | $(mr_cell mr_after 32k random mr_change_after) | $(mr_cell mr_after 64k lru mr_change_after) | $(mr_cell mr_after 64k random mr_change_after) |
$(for p in trace perf reference-trace reference-perf; do
	case $p in
	trace) n="QEMU-trace plan for the size" ;;
	perf) n="perf plan for the size" ;;
	reference-trace) n="reference colouring of the QEMU trace" ;;
	*) n="reference colouring of the perf profile" ;;
	esac
	printf '| %s, laid out | %s | %s | %s | %s |\n' "$n" \
		"$(mr_cell "mr_after_layout_$p" 32k lru mr_change_after_layout_$p)" \
		"$(mr_cell "mr_after_layout_$p" 32k random mr_change_after_layout_$p)" \
		"$(mr_cell "mr_after_layout_$p" 64k lru mr_change_after_layout_$p)" \
		"$(mr_cell "mr_after_layout_$p" 64k random mr_change_after_layout_$p)"
done)

The profiled run's own trace (the stock kernel's), for comparison:
on the booted plan $(get mr_change_before_32k_lru) % LRU, $(get mr_change_before_32k_random) % pseudo-random at
32 KiB; $(get mr_change_before_64k_lru) % and $(get mr_change_before_64k_random) % at 64 KiB.

The issue's lines (on the planned run's trace, 32K:4:32; the 74K's L1I
replaces LRU, which the plan was made for):
$(awk -v c="$(get mr_change_after_32k_lru)" 'BEGIN { if (c == "") print "- not measured: the QEMU-trace plan, LRU"; else printf "- %s: the QEMU-trace plan at least 50 %% under stock, LRU: %s %%\n", c <= -50 ? "met" : "not met", c }')
- reported: the same plan under pseudo-random replacement, $(get mr_change_after_32k_random) %
- reported: the perf plan, laid out, $(get mr_change_after_layout_perf_32k_lru) % LRU, $(get mr_change_after_layout_perf_32k_random) % pseudo-random
EOF
fi
block "cachepin diff, stock tree, before and after the unrelated commit" "$W/stability_stock.txt"
block "cachepin diff, hook tree, before and after the unrelated commit" "$W/stability_hook.txt"
block "cachepin simulate, stock layout" "$W/sim-before.txt"
block "cachepin simulate, planned layout" "$W/sim-after.txt"
block "cachepin simulate, stock with -falign-functions=32" "$W/sim-align32.txt"
for r in before after; do
	for l in stock align32 perf trace; do
		case $r in before) rn=stock ;; *) rn=after ;; esac
		case $l in
		stock) ln="the stock kernel" ;;
		align32) ln="the -falign-functions=32 kernel" ;;
		perf) ln="the perf plan's kernel" ;;
		*) ln="the QEMU-trace plan's kernel" ;;
		esac
		block "cachepin simulate, the $rn run's trace remapped onto $ln" "$W/sim-$r-on-$l.txt"
	done
done
for p in perf trace; do
	block "cachepin score of the $p profile, stock layout" "$W/score-before-$p.txt"
	block "cachepin score of the $p profile, planned layout" "$W/score-after-$p.txt"
done
block "cachepin score after the unrelated commit, stock" "$W/score-before-commit.txt"
block "cachepin score after the unrelated commit, hook" "$W/score-after-commit.txt"
block "plan (ARM)" "$W/linux-source-6.1/o-arm-hook/cachepin/plan.log"
block "plan from the $(get replan_profile) profile (ARM, relinked, not booted)" "$W/plan-$(get replan_profile)/plan.log"
printf '\n## Stage times\n\n| stage | seconds |\n|---|---:|\n'
awk -F'\t' '$1 ~ /^stage_.*_s$/ { s = $1; sub(/^stage_/, "", s); sub(/_s$/, "", s); t[s] = $2; if (!(s in o)) { o[s] = ++n; k[n] = s } }
	END { for (i = 1; i <= n; i++) print "| " k[i] " | " t[k[i]] " |" }' "$F"
