#!/bin/sh
# The kernel lab's report: WORKDIR's facts and the outputs of its stages,
# as Markdown on standard output.
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

cat <<EOF
# Kernel lab report

Linux 6.1 ($(sed -n 's/^SUBLEVEL = //p' "$W/linux-source-6.1/Makefile" 2>/dev/null || echo '?') sublevel), ARM32 router for QEMU vexpress-a9 and MIPS32 BE malta.

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

Misses per instruction, planned against stock: LRU $(get sim_change_lru) %,
pseudo-random $(get sim_change_random) %; -falign-functions=32 against
stock: LRU $(get sim_change_align32_lru) %, pseudo-random
$(get sim_change_align32_random) %; planned against -falign-functions=32:
LRU $(get sim_vs_align32_lru) %, pseudo-random $(get sim_vs_align32_random) %.

## cachepin score (modelled misses, 32 KiB 4-way 32 B)

| profile | stock LRU | planned LRU | stock pseudo-random | planned pseudo-random |
|---|---:|---:|---:|---:|
| perf (the plan's input) | $(get score_before_perf_lru) | $(get score_after_perf_lru) | $(get score_before_perf_random) | $(get score_after_perf_random) |
| QEMU trace | $(get score_before_trace_lru) | $(get score_after_trace_lru) | $(get score_before_trace_random) | $(get score_after_trace_random) |

After the unrelated commit (the plan's profile): stock LRU $(get score_commit_stock_lru),
pseudo-random $(get score_commit_stock_random); with the hook LRU $(get score_commit_hook_lru),
pseudo-random $(get score_commit_hook_random).

## Stability: an unrelated commit

Functions that change their 32 KiB cache set after the commit:

| functions | how many | without the hook | with the hook |
|---|---:|---:|---:|
| placed by the plan for their hot lines | $(get stability_planned_functions) | $(get stability_planned_moved_without_hook) | $(get stability_planned_moved_with_hook) |
| all with samples in the profile | $(get stability_sampled_functions) | $(get stability_sampled_moved_without_hook) | $(get stability_sampled_moved_with_hook) |
EOF
block "trace-sim, stock layout" "$W/sim-before.txt"
block "trace-sim, planned layout" "$W/sim-after.txt"
block "trace-sim, stock with -falign-functions=32" "$W/sim-align32.txt"
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
