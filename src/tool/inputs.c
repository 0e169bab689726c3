// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Inputs shared by the commands: their options, the binary (with map
 * and --fixed), the profile (cachepin_profile__load()), atomic output.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tool.h"

static int push(const char ***arr, size_t *n, const char *v)
{
	const char **a = realloc(*arr, (*n + 1) * sizeof(*a));

	if (!a)
		return -ENOMEM;
	a[(*n)++] = v;
	*arr = a;
	return 0;
}

int tool_inputs_opt(struct tool_inputs *in, int id, const char *arg)
{
	switch (id) {
	case 'm':
		in->map = arg;
		return 0;
	case 1001:
		return push(&in->objects, &in->nr_objects, arg) ? 1 : 0;
	case 1002:
		in->mode = 1;
		return 0;
	case 1003:
		in->mode = 2;
		return 0;
	case 1004:
		return push(&in->fixed, &in->nr_fixed, arg) ? 1 : 0;
	case 1005: {
		char *end;

		errno = 0;
		in->ebase = strtoull(arg, &end, 16);
		if (errno || *end || end == arg || *arg == '-')
			return tool_error("bad --ebase '%s': not a hex address", arg) * EXIT_USAGE;
		in->has_ebase = true;
		return 0;
	}
	case 'c': {
		char *dup = strdup(arg), *s, *save = NULL;

		if (!dup)
			return 1;
		if (!arg[strspn(arg, ", ")]) {
			free(dup);
			tool_error("empty cache list '%s'", arg);
			tool_hint("give SIZE:WAYS:LINE (e.g. 32K:4:32) or a preset from 'cachepin help caches'");
			return EXIT_USAGE;
		}
		for (s = strtok_r(dup, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
			if (in->nr_caches == ARRAY_LEN(in->caches)) {
				free(dup);
				return tool_error("too many caches (at most %zu)", ARRAY_LEN(in->caches));
			}
			if (cachepin_cache__parse(&in->caches[in->nr_caches], s)) {
				free(dup);
				return EXIT_USAGE;
			}
			in->nr_caches++;
		}
		free(dup);
		return 0;
	}
	}
	return -1;	/* not ours */
}

void tool_inputs_release(struct tool_inputs *in)
{
	free(in->objects);
	free(in->fixed);
	in->objects = in->fixed = NULL;
	in->nr_objects = in->nr_fixed = 0;
}

int tool_default_cache(struct tool_inputs *in)
{
	if (in->nr_caches)
		return 0;
	return cachepin_cache__parse(&in->caches[in->nr_caches++], "cortex-a9-32k");
}

struct cachepin_binary *tool_open_binary(struct tool_inputs *in)
{
	struct cachepin_binary *bin = cachepin_binary__open(in->binary);
	size_t i;
	int r;

	if (!bin)
		return NULL;
	if (in->map && cachepin_binary__load_map(bin, in->map)) {
		cachepin_binary__free(bin);
		return NULL;
	}
	if (in->has_ebase && (r = cachepin_binary__set_ebase(bin, in->ebase))) {
		if (r > 0) {
			tool_error("'%s': --ebase is for 32-bit MIPS kernels; this is %s ELF%d", bin->path,
				   bin->arch, bin->elf_class);
			tool_hint("leave --ebase out: only a MIPS vmlinux has its exception handlers at ebase");
		}
		cachepin_binary__free(bin);
		return NULL;
	}
	for (i = 0; i < in->nr_fixed; i++) {
		r = cachepin_binary__fix(bin, in->fixed[i], "--fixed");
		if (r < 0) {
			tool_error("out of memory");
			cachepin_binary__free(bin);
			return NULL;
		}
		if (!r)
			tool_warn("--fixed '%s' matches no function, section or object:section of '%s'",
				  in->fixed[i], bin->path);
	}
	if (!in->mode)
		in->mode = cachepin_binary__is_kernel(bin) ? 1 : 2;
	return bin;
}

int tool_load_profile(struct tool_inputs *in, const struct cachepin_binary *bin, const char *path,
		      struct cachepin_load *l)
{
	struct cachepin_load_opts o = {
		.kernel = in->mode == 1, .period = in->period,
		.objects = in->objects, .nr_objects = in->nr_objects,
	};

	return cachepin_profile__load(l, path, bin, &o) ? 1 : 0;
}

int tool_write_file(const char *path, int (*fn)(FILE *f, void *ctx), void *ctx)
{
	struct stat st;
	char *tmp = NULL;
	FILE *f;
	int fd, err;

	if (!path || !strcmp(path, "-")) {
		err = fn(stdout, ctx);
		if (fflush(stdout) || err)
			return tool_error("cannot write output: %s", strerror(err ? -err : errno));
		return 0;
	}
	/*
	 * A device or a pipe (/dev/null, a FIFO) is written in place: renaming
	 * a temporary file over it would replace the device node.  A regular
	 * file is written to a temporary one renamed over it when complete.
	 */
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		f = fopen(path, "w");
		if (!f)
			return tool_error("cannot write '%s': %s", path, strerror(errno));
	} else {
		if (asprintf(&tmp, "%s.tmpXXXXXX", path) < 0)
			return tool_error("out of memory");
		fd = mkstemp(tmp);
		if (fd < 0) {
			err = errno;
			free(tmp);
			return tool_error("cannot create '%s': %s", path, strerror(err));
		}
		f = fdopen(fd, "w");
		if (!f) {
			close(fd);
			unlink(tmp);
			free(tmp);
			return tool_error("cannot write '%s'", path);
		}
	}
	err = fn(f, ctx);
	if (fflush(f) || ferror(f))
		err = err ? err : -errno;
	if (fclose(f) && !err)
		err = -errno;
	if (tmp && !err && rename(tmp, path))
		err = -errno;
	if (tmp && err)
		unlink(tmp);
	if (tmp && !err)
		chmod(path, 0644);
	free(tmp);
	if (err)
		return tool_error("cannot write '%s': %s", path, strerror(-err));
	return 0;
}

void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

char *tool_align_name(const char *out)
{
	const char *dot = strrchr(out, '.'), *slash = strrchr(out, '/');
	size_t base = dot && (!slash || dot > slash) ? (size_t)(dot - out) : strlen(out);
	char *s = malloc(base + sizeof(".align"));

	if (s) {
		memcpy(s, out, base);
		memcpy(s + base, ".align", sizeof(".align"));
	}
	return s;
}

int tool_parse_count(const char *arg, uint64_t *v, const char *what, uint64_t max)
{
	int r = tool_parse_u64(arg, v, what);

	if (r)
		return r;
	if (!*v || *v > max)
		return tool_error("bad %s '%s': give 1 to %" PRIu64, what, arg, max) * EXIT_USAGE;
	return 0;
}
