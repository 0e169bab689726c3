/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The cachepin command line: shared declarations of the subcommands. */
#ifndef CACHEPIN_TOOL_H
#define CACHEPIN_TOOL_H

#include <getopt.h>
#include <stdio.h>
#include "cachepin/binary.h"
#include "cachepin/cache.h"
#include "cachepin/objects.h"
#include "cachepin/profile.h"
#include "cachepin/session.h"

#define EXIT_USAGE 129
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* One option: the parser table and the --help text come from it. */
struct tool_opt {
	const char *name;	/* long name */
	int short_name;		/* 0 if none */
	const char *arg;	/* argument name, NULL for flags */
	const char *help;	/* with LIST: its "%s" is what LIST returns */
	int id;			/* value returned by the parser */
	const char *(*list)(void);	/* names the help lists (policies), or NULL */
	const struct tool_opt *include;	/* a shared table's rows, in this row's place */
};

/* A shared option table (terminated by a NULL name) as rows of a command's. */
#define TOOL_OPT_INCLUDE(table) { .include = (table) }

/* What a command's session opens (the command table's needs). */
#define NEED_BINARY CACHEPIN_SESSION_BINARY
#define NEED_PROFILE CACHEPIN_SESSION_PROFILE
#define NEED_MODEL CACHEPIN_SESSION_MODEL
#define NEED_SCORES CACHEPIN_SESSION_SCORES
#define NEED_FOLDS CACHEPIN_SESSION_FOLDS

struct tool_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
	const char *usage;	/* "[options] BINARY PROFILE" */
	const struct tool_opt *opts;	/* terminated by a NULL name and include */
	/*
	 * What the command's session opens (enum cachepin_session_need), as
	 * git's RUN_SETUP: the command asks tool_session() for it, all or a
	 * part at a time.
	 */
	unsigned int needs;
};

extern const struct tool_cmd tool_cmds[];
const struct tool_cmd *tool_find_cmd(const char *name);
extern int tool_verbose;

/* Parse options of CMD; calls ON_OPT(id, optarg, ctx) per option. */
int tool_parse(const struct tool_cmd *cmd, int argc, char **argv,
	       int (*on_opt)(int id, const char *arg, void *ctx), void *ctx);
void tool_usage(const struct tool_cmd *cmd, FILE *f);

/*
 * Progress of the library's long work (cachepin_set_progress()) as one
 * self-overwriting line "NAME: LABEL, N %" on standard error, if that is
 * a terminal; clear erases it (every message does so first), stop
 * erases it and ends it.
 */
void tool_progress_start(const char *name);

/*
 * Where standard output or error is a terminal, control bytes of the
 * data reach it as \xNN (term.c); tool_stderr_raw is standard error as
 * it was, for the progress line's own.
 */
void tool_term_guard(void);
extern FILE *tool_stderr_raw;
void tool_progress_clear(void);
void tool_progress_stop(void);

__attribute__((format(printf, 1, 2))) int tool_error(const char *fmt, ...);
/* "cachepin: warning: MESSAGE": something was lost or ignored, the run goes on. */
__attribute__((format(printf, 1, 2))) void tool_warn(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void tool_hint(const char *fmt, ...);

/* Options shared by the commands that read a binary and a profile. */
struct tool_inputs {
	const char *binary;
	const char *map;
	const char **objects;
	size_t nr_objects;
	const char **fixed;
	size_t nr_fixed;
	int mode;		/* 0 auto, 1 kernel, 2 user */
	struct cachepin_cache caches[8];
	size_t nr_caches;
	bool cache_default;	/* no --cache: the recorded cache may replace the default */
	bool static_cg;
	uint64_t period;	/* QEMU logs: instructions per sample (0 = 1) */
	uint64_t ebase;		/* --ebase (32-bit MIPS kernels) */
	bool has_ebase;
	bool keep_idle;		/* --keep-idle */
	const char *modules;	/* --modules DIR */
	const char *proc_modules;	/* --proc-modules FILE */
	int module_pages;	/* --module-pages: 0 the command's default, 1 recorded, 2 every */
};

#define TOOL_INPUT_OPTS \
	{ "map", 'm', "FILE", "GNU ld link map of the binary (ld -Map, vmlinux.map)", 'm' }, \
	{ "objects", 0, "FILE", "object or archive of the link: the units' alignment, the static call graph (repeatable)", 1001 }, \
	{ "kernel", 0, NULL, "take kernel samples (default when the binary is a kernel)", 1002 }, \
	{ "user", 0, NULL, "take user-space samples of this program", 1003 }, \
	{ "fixed", 0, "PATTERN", "treat matching functions/sections as fixed (repeatable)", 1004 }, \
	{ "ebase", 0, "ADDR", "32-bit MIPS kernels: the exception base, in hex (default 0x80000000)", 1005 }, \
	{ "modules", 0, "DIR", "a kernel's modules (*.ko) by name under DIR (the build tree, /lib/modules/VERSION): their samples by function, placed where the recording loaded them", 1007 }, \
	TOOL_PROC_MODULES_OPT

#define TOOL_PROC_MODULES_OPT \
	{ "proc-modules", 0, "FILE", "a copy of the recording kernel's /proc/modules: where its modules were, for a QEMU log or lackey trace", 1008 }

/* For the commands that model a profile (the profile command keeps it as recorded). */
#define TOOL_MODULE_PAGES_OPT \
	{ "module-pages", 0, "WHICH", "a module's lines on the page the recording had it on (recorded, the default) or a share on every page of a way span it may load on (every)", 1009 }

/* For the commands that model a profile (the profile command keeps every sample). */
#define TOOL_IDLE_OPT \
	{ "keep-idle", 0, NULL, "a kernel's idle loop is heat too (default: its samples of a time event wait, left out)", 1006 }

#define TOOL_CACHE_OPT \
	{ "cache", 'c', "SPEC", "cache geometry SIZE:WAYS:LINE[:%s] or preset; comma list for several (default: the recording machine's L1I from perf.data, else cortex-a9-32k)", 'c', tool_cpu_policies }

/* "lru|random|rr": the policies a cache SPEC may name, as the policy table has them. */
const char *tool_cpu_policies(void);

int tool_inputs_opt(struct tool_inputs *in, int id, const char *arg);

/*
 * Options of the commands that report (score, diff, whatif, simulate):
 * the rows are the commands' own (their help differs), the ids and the
 * parser shared.  tool_report_opt(): 0, an exit code after a message,
 * or -1 for an option not of these.
 */
struct tool_report {
	bool json;		/* --json */
	const char *svg;	/* --svg FILE */
	uint64_t top;		/* --top N, 1 to 1000000 (score bounds its own) */
};
enum { TOOL_OPT_JSON = 1101, TOOL_OPT_SVG, TOOL_OPT_TOP };

#define TOOL_JSON_OPT { "json", 0, NULL, "print JSON instead of text", TOOL_OPT_JSON }

int tool_report_opt(struct tool_report *r, int id, const char *arg);
/* Parse a non-negative number for option WHAT; 0, or EXIT_USAGE after an error. */
int tool_parse_u64(const char *arg, uint64_t *v, const char *what);

/* The same for a count from 1 to MAX. */
int tool_parse_count(const char *arg, uint64_t *v, const char *what, uint64_t max);

/*
 * Without --cache: the default geometry, which the session replaces with
 * the L1 instruction cache of the machine that recorded the profile
 * where it gives one.  0, or nonzero after a message.
 */
int tool_default_cache(struct tool_inputs *in);
void tool_inputs_release(struct tool_inputs *in);

/*
 * The session of IN's inputs and PROFILE (NULL: none), with the
 * command's own options in O (the inputs' fields are filled in here),
 * opened as far as NEEDS: NULL after a message.  tool_session_open()
 * opens more of S: 0, or 1 after a message.  Both leave in IN what the
 * session found (the samples' mode, the recorded cache) for a next one.
 */
struct cachepin_session *tool_session(struct tool_inputs *in, const char *profile,
				      struct cachepin_session_opts *o, unsigned int needs);
int tool_session_open(struct tool_inputs *in, struct cachepin_session *s, unsigned int needs);

/*
 * A write callback's error that it (or the library) has said already:
 * the output is dropped without another message.
 */
#define TOOL_SAID (-ECANCELED)

/* Write atomically: the callback writes to a temporary file renamed on success. */
int tool_write_file(const char *path, int (*fn)(FILE *f, void *ctx), void *ctx);

/*
 * Several outputs of one run, all or nothing (output.c): each is
 * written to a temporary file next to it (through a symbolic link, to its
 * target); tool_outputs_commit() renames them all into place with the old
 * files' modes, with the fatal signals held and the first output's
 * directory locked, tool_outputs_abort() removes them, and so does a
 * fatal signal before the commit.  "-" or NULL is standard output,
 * written at once.  add: 0, or 1 after a message (and the outputs staged
 * so far removed).
 */
struct tool_output {
	const char *path;
	char *target, *tmp;	/* tmp NULL: written in place */
	unsigned int mode;
	bool keep_mode;
};
#define TOOL_MAX_OUTPUTS 8
struct tool_outputs {
	struct tool_output o[TOOL_MAX_OUTPUTS];
	size_t n;
};
int tool_outputs_add(struct tool_outputs *os, const char *path, int (*fn)(FILE *f, void *ctx),
		     void *ctx);
int tool_outputs_commit(struct tool_outputs *os);
void tool_outputs_abort(struct tool_outputs *os);

/*
 * A layout's linker outputs (link-out.c): the alignment file, the lld
 * and GNU ld ordering files and the fragment, each staged in OS when its
 * path is given ("-": standard output), written from L.  0, or 1 after a
 * message.
 */
struct cachepin_plan;
struct cachepin_model;
struct cachepin_emit_info;
enum tool_link_out {		/* in the order they are staged: the fragment last */
	TOOL_OUT_ALIGN, TOOL_OUT_LLD, TOOL_OUT_SECORDER, TOOL_OUT_FRAGMENT,
	TOOL_LINK_NR_OUTPUTS
};
struct tool_link_outputs {
	const char *path[TOOL_LINK_NR_OUTPUTS];	/* NULL: not written */
	bool standalone;	/* the fragment as a whole script for ld -T */
};

/*
 * Their options, one table for the commands that write a layout
 * (TOOL_OPT_INCLUDE), and their parser: 0, or -1 for an option not
 * theirs.
 */
extern const struct tool_opt tool_link_out_opts[];
int tool_link_out_opt(int id, const char *arg, struct tool_link_outputs *lo);

/*
 * The paths given in LO, the fragment first, into PATHS (room for
 * TOOL_LINK_NR_OUTPUTS): how many.
 */
size_t tool_link_outputs_paths(const struct tool_link_outputs *lo, const char **paths);
struct tool_link_layout {
	const struct cachepin_layout *layout;	/* its block is written */
	const struct cachepin_model *m;		/* of the layout's binary: the hot lines */
	const struct cachepin_cache *c;		/* the alignment file's cache */
	const struct cachepin_emit_info *info;
};
int tool_link_outputs_add(struct tool_outputs *os, const struct tool_link_outputs *lo,
			  const struct tool_link_layout *l);

/*
 * No output may be an input or another output (the same file, by device
 * and inode, or the same name in the same directory for files not there
 * yet): 0, or EXIT_USAGE after a message.
 */
int tool_check_outputs(const char *const *inputs, size_t ni, const char *const *outputs, size_t no);
/* The same with IN's binary, map and objects among the inputs, and MORE. */
int tool_check_inputs_outputs(const struct tool_inputs *in, const char *const *more, size_t nm,
			      const char *const *outputs, size_t no);

struct cachepin_score;
struct cachepin_diff;
/*
 * The comparison of two scores of one cache (cmd-diff.c): misses, the
 * hot functions by impact (TOP of them; ALL: also those that kept set
 * and misses), the sets that changed pressure, the pairs new and gone.
 */
void tool_diff_text(const struct cachepin_score *os, const struct cachepin_score *ns,
		    const struct cachepin_diff *d, uint64_t top, bool all);
/* The same as one JSON object of the "caches" array open in J. */
struct tool_json;
void tool_diff_json(struct tool_json *j, const struct cachepin_score *os,
		    const struct cachepin_score *ns, const struct cachepin_diff *d);

/* The alignment file's default name for fragment OUT ("a/hot.lds" -> "a/hot.align"); NULL on ENOMEM. */
char *tool_align_name(const char *out);

/*
 * The picture of the cache (svg.c): a panel per score S[i] of binary
 * BIN[i], titled TITLES[i]; written atomically to PATH.  0 or 1 after a
 * message.
 */
int tool_svg_write(const char *path, const struct cachepin_binary *const *bin,
		   const struct cachepin_score *const *s, const char *const *titles, size_t n);

/*
 * The reports' JSON (json.c): open a container ('{' or '['; LINE: all of
 * it on one line, else one member per line), add members (KEY NULL in an
 * array and for the document itself), close it; end closes what is open
 * and ends the line.  The caller checks the stream.
 */
#define TOOL_JSON_DEPTH 16
struct tool_json {
	FILE *f;
	unsigned int depth, overflow;
	char kind[TOOL_JSON_DEPTH];
	bool line[TOOL_JSON_DEPTH];
	size_t count[TOOL_JSON_DEPTH];
};

void tool_json_init(struct tool_json *j, FILE *f);
void tool_json_open(struct tool_json *j, const char *key, char kind, bool line);
void tool_json_close(struct tool_json *j);
void tool_json_str(struct tool_json *j, const char *key, const char *s);
void tool_json_u64(struct tool_json *j, const char *key, uint64_t v);
void tool_json_i64(struct tool_json *j, const char *key, int64_t v);
/* V with DIGITS decimals (%.Nf), or with -DIGITS significant digits (%.Ng) */
void tool_json_num(struct tool_json *j, const char *key, int digits, double v);
void tool_json_bool(struct tool_json *j, const char *key, bool v);
void tool_json_end(struct tool_json *j);
/* Open a report's object for cache C, with its name and geometry (close it after). */
void tool_json_cache(struct tool_json *j, const struct cachepin_cache *c);

/*
 * The length of the UTF-8 sequence that starts S (1 to 4), or 0 when the
 * byte there starts none (a name need not be UTF-8: JSON and SVG write
 * such a byte as the code point of its number, U+0080 to U+00FF).
 * utf8.c, as is tool_xml_str(): S as XML 1.0 character data.
 */
size_t tool_utf8_len(const char *s);
void tool_xml_str(FILE *f, const char *s);

int cmd_profile(int argc, char **argv);
int cmd_score(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_whatif(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_version(int argc, char **argv);

#include "banned.h"

#endif
