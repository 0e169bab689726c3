// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Inputs shared by the commands: their options (and the reports'), the
 * default cache, the session of those options (cachepin/session.h).
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

const char *tool_cpu_policies(void)
{
	static char buf[256];

	return cachepin_repl__names(buf, sizeof(buf), "|", "|", false, false);
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
	case 1006:
		in->keep_idle = true;
		return 0;
	case 1007:
		in->modules = arg;
		return 0;
	case 1008:
		in->proc_modules = arg;
		return 0;
	case 1009:
		if (!strcmp(arg, "recorded"))
			in->module_pages = 1;
		else if (!strcmp(arg, "every"))
			in->module_pages = 2;
		else
			return tool_error("bad --module-pages '%s': recorded or every", arg) * EXIT_USAGE;
		return 0;
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
				tool_error("too many caches (at most %zu)", ARRAY_LEN(in->caches));
				return EXIT_USAGE;
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

int tool_report_opt(struct tool_report *r, int id, const char *arg)
{
	switch (id) {
	case TOOL_OPT_JSON:
		r->json = true;
		return 0;
	case TOOL_OPT_SVG:
		r->svg = arg;
		return 0;
	case TOOL_OPT_TOP:
		return tool_parse_count(arg, &r->top, "--top", 1000000);
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

#define DEFAULT_CACHE "cortex-a9-32k"

int tool_default_cache(struct tool_inputs *in)
{
	if (in->nr_caches)
		return 0;
	in->cache_default = true;
	return cachepin_cache__parse(&in->caches[in->nr_caches++], DEFAULT_CACHE);
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


int tool_session_open(struct tool_inputs *in, struct cachepin_session *s, unsigned int needs)
{
	int err = cachepin_session__open(s, needs);

	in->mode = s->mode;
	if (s->nr_caches)
		in->caches[0] = s->caches[0];
	in->cache_default = s->cache_default;
	return err ? 1 : 0;
}

struct cachepin_session *tool_session(struct tool_inputs *in, const char *profile,
				      struct cachepin_session_opts *o, unsigned int needs)
{
	struct cachepin_session *s;

	o->binary = in->binary;
	o->map = in->map;
	o->objects = in->objects;
	o->nr_objects = in->nr_objects;
	o->fixed = in->fixed;
	o->nr_fixed = in->nr_fixed;
	o->has_ebase = in->has_ebase;
	o->ebase = in->ebase;
	o->modules = in->modules;
	o->proc_modules = in->proc_modules;
	o->module_pages = in->module_pages == 2;
	o->mode = in->mode;
	o->profile = profile;
	o->period = in->period;
	o->keep_idle = in->keep_idle;
	o->caches = in->caches;
	o->nr_caches = in->nr_caches;
	o->cache_default = in->cache_default;
	s = cachepin_session__new(o);
	if (s && tool_session_open(in, s, needs)) {
		cachepin_session__free(s);
		return NULL;
	}
	return s;
}
