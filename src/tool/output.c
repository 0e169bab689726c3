// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The commands' outputs: the guard (no output is an input or another
 * output) and the output set of a run, all or nothing.
 *
 * Each file is written to a temporary one beside it and the set is
 * renamed into place at the end.  A signal that ends the run before then
 * removes the temporary files (the old outputs stay); during the renames
 * the signals wait, so a run leaves its outputs all old or all new.  Two
 * runs that write the same outputs rename them one run at a time (a lock
 * on the first output's directory), so the pair on disk is one run's.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tool.h"

/* The temporary files not yet renamed, for the signal handler. */
static char *volatile pending[TOOL_MAX_OUTPUTS];
static volatile sig_atomic_t nr_pending;
static const int fatal[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE };

static void on_fatal(int sig)
{
	sig_atomic_t i;

	for (i = 0; i < nr_pending; i++)
		if (pending[i])
			unlink(pending[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* The handlers, once: a signal's default action after the cleanup. */
static void catch_fatal(void)
{
	static bool done;
	struct sigaction sa = { .sa_handler = on_fatal };
	size_t i;

	if (done)
		return;
	done = true;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < ARRAY_LEN(fatal); i++) {
		struct sigaction old;

		/* a signal the caller ignores (nohup) stays ignored */
		if (!sigaction(fatal[i], NULL, &old) && old.sa_handler == SIG_IGN)
			continue;
		sigaction(fatal[i], &sa, NULL);
	}
}

static void fatal_set(sigset_t *set)
{
	size_t i;

	sigemptyset(set);
	for (i = 0; i < ARRAY_LEN(fatal); i++)
		sigaddset(set, fatal[i]);
}

/* Forget the temporary files of OS for the handler (signals blocked). */
static void pending_set(const struct tool_outputs *os)
{
	sigset_t set, old;
	size_t i, n = 0;

	fatal_set(&set);
	sigprocmask(SIG_BLOCK, &set, &old);
	for (i = 0; i < os->n; i++)
		if (os->o[i].tmp)
			pending[n++] = os->o[i].tmp;
	nr_pending = (sig_atomic_t)n;
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/*
 * Where PATH really is: a symbolic link's target, so that writing goes
 * through the link and does not replace it.  A copy, NULL on ENOMEM or
 * after a message (a link that leads nowhere).
 */
static char *out_target(const char *path)
{
	char *cur = strdup(path), buf[4096];
	struct stat st;
	int depth;

	/* follow the links, a new target too (a link to a file not there yet) */
	for (depth = 0; cur && !lstat(cur, &st) && S_ISLNK(st.st_mode); depth++) {
		ssize_t n = readlink(cur, buf, sizeof(buf) - 1);
		const char *slash = strrchr(cur, '/');
		char *next;

		if (n < 0 || depth == 40) {
			tool_error("cannot write '%s': %s", path, n < 0 ? strerror(errno) : "too many links");
			free(cur);
			errno = ELOOP;
			return NULL;
		}
		buf[n] = '\0';
		if (buf[0] == '/' || !slash)
			next = strdup(buf);
		else if (asprintf(&next, "%.*s/%s", (int)(slash - cur), cur, buf) < 0)
			next = NULL;
		free(cur);
		cur = next;
	}
	if (!cur)
		errno = ENOMEM;
	return cur;
}

static int outputs_add(struct tool_outputs *os, const char *path, int (*fn)(FILE *f, void *ctx),
		       void *ctx)
{
	struct tool_output *o;
	struct stat st;
	FILE *f;
	int fd, err;

	if (!path || !strcmp(path, "-")) {
		err = fn(stdout, ctx);
		if (fflush(stdout) || err)
			return tool_error("cannot write output: %s", strerror(err ? -err : errno));
		return 0;
	}
	if (os->n == ARRAY_LEN(os->o))
		return tool_error("too many outputs");
	o = &os->o[os->n];
	memset(o, 0, sizeof(*o));
	o->path = path;
	o->target = out_target(path);
	if (!o->target)
		return errno == ENOMEM ? tool_error("out of memory") : 1;
	o->mode = 0666;
	/*
	 * A device or a pipe (/dev/null, a FIFO) is written in place: renaming
	 * a temporary file over it would replace the device node.  A regular
	 * file is written to a temporary one, renamed over it when every
	 * output of the run is complete, with the old file's mode.
	 */
	if (!stat(o->target, &st) && !S_ISREG(st.st_mode)) {
		f = fopen(o->target, "w");
		if (!f) {
			err = errno;
			free(o->target);
			return tool_error("cannot write '%s': %s", path, strerror(err));
		}
	} else {
		if (!stat(o->target, &st)) {
			o->mode = st.st_mode & 07777;
			o->keep_mode = true;
		}
		if (asprintf(&o->tmp, "%s.tmpXXXXXX", o->target) < 0) {
			free(o->target);
			return tool_error("out of memory");
		}
		fd = mkstemp(o->tmp);
		if (fd < 0) {
			err = errno;
			free(o->tmp);
			free(o->target);
			return tool_error("cannot create '%s': %s", path, strerror(err));
		}
		f = fdopen(fd, "w");
		if (!f) {
			close(fd);
			unlink(o->tmp);
			free(o->tmp);
			free(o->target);
			return tool_error("cannot write '%s'", path);
		}
	}
	os->n++;
	if (o->tmp) {
		catch_fatal();
		pending_set(os);
	}
	err = fn(f, ctx);
	if (fflush(f) || ferror(f))
		err = err ? err : -errno;
	if (fclose(f) && !err)
		err = -errno;
	if (err == TOOL_SAID)
		return 1;
	if (err)
		return tool_error("cannot write '%s': %s", path, strerror(err < 0 ? -err : EIO));
	return 0;
}

int tool_outputs_add(struct tool_outputs *os, const char *path, int (*fn)(FILE *f, void *ctx),
		     void *ctx)
{
	/* one output failed: none of the run's is written */
	if (outputs_add(os, path, fn, ctx)) {
		tool_outputs_abort(os);
		return 1;
	}
	return 0;
}

void tool_outputs_abort(struct tool_outputs *os)
{
	size_t i;

	nr_pending = 0;
	for (i = 0; i < os->n; i++) {
		if (os->o[i].tmp)
			unlink(os->o[i].tmp);
		free(os->o[i].tmp);
		free(os->o[i].target);
	}
	os->n = 0;
}

/*
 * The directory of PATH, locked: runs that write the same outputs commit
 * one at a time.  The descriptor (-1: not locked; the renames go on).
 */
static int lock_dir(const char *path)
{
	char *dir = strdup(path), *slash = dir ? strrchr(dir, '/') : NULL;
	int fd;

	if (!dir)
		return -1;
	if (slash == dir)
		slash[1] = '\0';	/* "/name": the root */
	else if (slash)
		*slash = '\0';
	fd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (fd >= 0 && flock(fd, LOCK_EX)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

int tool_outputs_commit(struct tool_outputs *os)
{
	mode_t um = umask(0);
	sigset_t set, old;
	size_t i;
	int rc = 0, lock = -1;

	umask(um);
	/* the renames as one step: no signal between them, no other run's */
	fatal_set(&set);
	sigprocmask(SIG_BLOCK, &set, &old);
	for (i = 0; i < os->n && lock < 0; i++)
		if (os->o[i].tmp)
			lock = lock_dir(os->o[i].target);
	for (i = 0; i < os->n; i++) {
		struct tool_output *o = &os->o[i];

		if (!o->tmp)
			continue;
		/* the old file's mode, or what a new file gets under the umask */
		if (fchmodat(AT_FDCWD, o->tmp, o->keep_mode ? o->mode : (o->mode & ~um), 0) ||
		    rename(o->tmp, o->target)) {
			rc = tool_error("cannot write '%s': %s", o->path, strerror(errno));
			break;
		}
		free(o->tmp);
		o->tmp = NULL;
	}
	tool_outputs_abort(os);
	if (lock >= 0)
		close(lock);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}

int tool_write_file(const char *path, int (*fn)(FILE *f, void *ctx), void *ctx)
{
	struct tool_outputs os = { .n = 0 };

	if (tool_outputs_add(&os, path, fn, ctx))
		return 1;
	return tool_outputs_commit(&os);
}

/* PATH's identity: its device and inode, or for a file not there yet its directory's and name. */
struct file_id {
	dev_t dev;
	ino_t ino;
	const char *name;	/* set when the file does not exist */
	bool known;
};

static struct file_id file_id(const char *path)
{
	struct file_id id = { 0 };
	struct stat st;

	if (!path || !strcmp(path, "-"))
		return id;
	if (!stat(path, &st)) {
		/* devices and pipes are written in place: several may share one */
		if (!S_ISREG(st.st_mode))
			return id;
		id.dev = st.st_dev;
		id.ino = st.st_ino;
		id.known = true;
		return id;
	}
	{
		char *dup = strdup(path), *slash = dup ? strrchr(dup, '/') : NULL;
		const char *dir = slash ? (slash == dup ? "/" : dup) : ".";

		if (slash)
			*slash = '\0';
		if (dup && !stat(dir, &st)) {
			id.dev = st.st_dev;
			id.ino = st.st_ino;
			id.name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
			id.known = true;
		}
		free(dup);
	}
	return id;
}

static bool same_file(const struct file_id *a, const struct file_id *b)
{
	return a->known && b->known && a->dev == b->dev && a->ino == b->ino &&
	       (!a->name) == (!b->name) && (!a->name || !strcmp(a->name, b->name));
}

int tool_check_outputs(const char *const *inputs, size_t ni, const char *const *outputs, size_t no)
{
	size_t i, j;

	for (i = 0; i < no; i++) {
		struct file_id o = file_id(outputs[i]);

		for (j = 0; j < ni; j++) {
			struct file_id in = file_id(inputs[j]);

			if (same_file(&o, &in)) {
				tool_error("'%s' is an input; writing it would lose it", outputs[i]);
				tool_hint("give the output another name");
				return EXIT_USAGE;
			}
		}
		for (j = 0; j < i; j++) {
			struct file_id p = file_id(outputs[j]);

			if (same_file(&o, &p)) {
				tool_error("'%s' and '%s' are one file; one output would be lost", outputs[j],
					   outputs[i]);
				return EXIT_USAGE;
			}
		}
	}
	return 0;
}


int tool_check_inputs_outputs(const struct tool_inputs *in, const char *const *more, size_t nm,
			      const char *const *outputs, size_t no)
{
	const char *list[80];
	size_t n = 0, i;

	if (in->binary)
		list[n++] = in->binary;
	if (in->map)
		list[n++] = in->map;
	if (in->proc_modules)
		list[n++] = in->proc_modules;
	for (i = 0; i < in->nr_objects && n < ARRAY_LEN(list); i++)
		list[n++] = in->objects[i];
	for (i = 0; i < nm && n < ARRAY_LEN(list); i++)
		if (more[i])
			list[n++] = more[i];
	return tool_check_outputs(list, n, outputs, no);
}
