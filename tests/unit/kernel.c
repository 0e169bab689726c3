// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel and architecture rules of kernel.c: dso names, the kernel
 * map's reference symbol, fixed sections, Thumb values, task switchers.
 */
#include <elf.h>
#include <string.h>
#include "kernel.h"
#include "unit.h"

static const struct {
	const char *dso;
	enum cachepin_kernel_dso kind;
} dso_rows[] = {
	{ "[kernel.kallsyms]", KERNEL_DSO_IMAGE },
	{ "[kernel.kallsyms]_text", KERNEL_DSO_IMAGE },
	{ "[kernel]", KERNEL_DSO_IMAGE },
	{ "vmlinux", KERNEL_DSO_IMAGE },
	{ "/boot/vmlinux", KERNEL_DSO_IMAGE },
	{ "/usr/lib/debug/boot/vmlinux-6.1.0-arm", KERNEL_DSO_IMAGE },
	{ "[nf_conntrack]", KERNEL_DSO_MODULE },
	{ "[guest.kernel.kallsyms]", KERNEL_DSO_MODULE },
	{ "/lib/modules/6.1/kernel/foo.ko", KERNEL_DSO_MODULE },
	{ "/lib/modules/6.1/kernel/foo.ko.xz", KERNEL_DSO_MODULE },
	{ "[vdso]", KERNEL_DSO_NONE },
	{ "[heap]", KERNEL_DSO_NONE },
	{ "[stack:1234]", KERNEL_DSO_NONE },
	{ "[anon:dalvik]", KERNEL_DSO_NONE },
	{ "[JIT] tid 99", KERNEL_DSO_NONE },
	{ "[unknown]", KERNEL_DSO_NONE },
	{ "[]", KERNEL_DSO_NONE },
	{ "/usr/bin/natsim", KERNEL_DSO_NONE },
	{ "/opt/x.ko.d/prog", KERNEL_DSO_NONE },
	{ "libc.so.6", KERNEL_DSO_NONE },
	{ "vmlinux.lds", KERNEL_DSO_NONE },
};

static const struct {
	uint16_t machine;
	const char *section, *object, *why;
} fixed_rows[] = {
	{ EM_ARM, ".text.foo", "a.o", NULL },
	{ EM_ARM, ".sched.text", "kernel/sched/core.o", "kernel-bounded section" },
	{ EM_ARM, ".text..ftrace", "x.o", "kernel-bounded section" },
	{ EM_ARM, ".vectors.bhb.loop8", "arch/arm/kernel/entry-armv.o", "exception vectors" },
	{ EM_ARM, ".text", "linker stubs", "linker veneer" },
	{ EM_X86_64, ".plt", NULL, "procedure linkage table" },
	{ EM_MIPS, ".text", "arch/mips/kernel/head.o", "entry code" },
	{ EM_MIPS, ".text", "vmlinux.a(head.o)", "entry code" },
	{ EM_MIPS, ".text", "arch/mips/kernel/nothead.o", NULL },
	{ EM_ARM, ".text", "arch/arm/kernel/head.o", NULL },
	{ EM_ARM, NULL, "a.o", NULL },
};

int main(void)
{
	const char *const *sw;
	size_t i, n;
	uint64_t v;

	for (i = 0; i < sizeof(dso_rows) / sizeof(dso_rows[0]); i++) {
		const char *d = dso_rows[i].dso;
		enum cachepin_kernel_dso k = cachepin_kernel_dso(d, strlen(d));

		CHECK(k == dso_rows[i].kind, "'%s': %d, expected %d", d, k, dso_rows[i].kind);
		CHECK(cachepin_kernel_dso_is_image(d) == (dso_rows[i].kind == KERNEL_DSO_IMAGE),
		      "'%s'", d);
	}
	CHECK(cachepin_kernel_dso_is_image(NULL), "a kernel frame without dso");
	/* the length bounds the name: "[kernel]x" cut to 8 bytes */
	CHECK(cachepin_kernel_dso("[kernel]x", 8) == KERNEL_DSO_IMAGE, "slice");

	CHECK(!strcmp(cachepin_kernel_mmap_ref("[kernel.kallsyms]_text"), "_text"), "ref");
	CHECK(!strcmp(cachepin_kernel_mmap_ref("[kernel.kallsyms]"), ""), "ref");
	CHECK(!cachepin_kernel_mmap_ref("/lib/modules/6.1/kernel/foo.ko"), "module map");

	for (i = 0; i < sizeof(fixed_rows) / sizeof(fixed_rows[0]); i++) {
		const char *why = cachepin_kernel_fixed_why(fixed_rows[i].machine,
							     fixed_rows[i].section,
							     fixed_rows[i].object);
		const char *want = fixed_rows[i].why;

		CHECK(why == want || (why && want && !strcmp(why, want)), "%s %s: '%s'",
		      fixed_rows[i].object, fixed_rows[i].section, why ? why : "(movable)");
	}

	v = 0x8001;
	CHECK(cachepin_arch_thumb(EM_ARM, STT_FUNC, &v) && v == 0x8000, "thumb function");
	v = 0x8001;
	CHECK(cachepin_arch_thumb(EM_ARM, STT_GNU_IFUNC, &v) && v == 0x8000, "thumb ifunc");
	v = 0x8001;
	CHECK(!cachepin_arch_thumb(EM_ARM, STT_OBJECT, &v) && v == 0x8001, "data");
	v = 0x8001;
	CHECK(!cachepin_arch_thumb(EM_MIPS, STT_FUNC, &v) && v == 0x8001, "not ARM");

	CHECK(cachepin_arch_mapping_sym("$a") && cachepin_arch_mapping_sym("$x.12") &&
	      !cachepin_arch_mapping_sym("$") && !cachepin_arch_mapping_sym("$ab"), "mapping");
	CHECK(cachepin_kernel_marker_sym("_stext") && cachepin_kernel_marker_sym("__start_x") &&
	      cachepin_kernel_marker_sym("_edata") && !cachepin_kernel_marker_sym("_start") &&
	      !cachepin_kernel_marker_sym("start_kernel"), "markers");

	sw = cachepin_kernel__switchers(&n);
	CHECK(n == 4 && !strcmp(sw[0], "__switch_to") && !strcmp(sw[1], "__switch_to_asm") &&
	      !strcmp(sw[2], "resume") && !strcmp(sw[3], "cpu_switch_to"), "switchers");
	CHECK(!strcmp(cachepin_arch_name(EM_MIPS), "mips") &&
	      !strcmp(cachepin_arch_name(EM_NONE), "unknown"), "arch names");
	UNIT_DONE();
}
