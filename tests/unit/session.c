// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of the session (cachepin/session.h), on this test's own
 * binary and a hot list of its functions: each need opens the steps
 * before it, once; a profile that cannot be split gives one fold, the
 * full model twice; failures are said and leave a session that frees;
 * too many caches are refused.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "cachepin/session.h"
#include "unit.h"

static char hot[256];
static char msg[1024];	/* the last warning */

static int capture(enum cachepin_print_level level, const char *fmt, va_list ap)
{
	if (level == CACHEPIN_WARN)
		vsnprintf(msg, sizeof(msg), fmt, ap);
	return 0;
}

static void write_hot(const char *text)
{
	FILE *f = fopen(hot, "w");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror("session unit: write the hot list");
		exit(1);
	}
}

static struct cachepin_session_opts self_opts(struct cachepin_cache *c)
{
	return (struct cachepin_session_opts){
		.binary = "/proc/self/exe", .mode = 2, .profile = hot,
		.caches = c, .nr_caches = 1, .score_flags = CACHEPIN_SCORE_NO_OPT,
	};
}

static void test_steps(void)
{
	struct cachepin_cache c;
	struct cachepin_session_opts o;
	struct cachepin_session *s;
	int err;

	CHECK(cachepin_cache__parse(&c, "1K:2:32") == 0, "1K:2:32 not parsed");
	o = self_opts(&c);
	write_hot("main 100\nwrite_hot 50\n");
	s = cachepin_session__new(&o);
	CHECK(s && !s->open && !s->bin, "a new session opens nothing");
	if (!s)
		return;
	err = cachepin_session__open(s, CACHEPIN_SESSION_MODEL);
	CHECK(err == 0, "open MODEL gave %d (%s)", err, msg);
	CHECK(s->open == (CACHEPIN_SESSION_BINARY | CACHEPIN_SESSION_PROFILE | CACHEPIN_SESSION_MODEL),
	      "MODEL opened 0x%x", s->open);
	CHECK(s->bin && s->load.profile && s->model && !s->scores, "MODEL gave its steps and no scores");
	CHECK(s->mode == 2, "mode %d", s->mode);
	err = cachepin_session__open(s, CACHEPIN_SESSION_SCORES | CACHEPIN_SESSION_FOLDS);
	CHECK(err == 0, "open SCORES | FOLDS gave %d (%s)", err, msg);
	CHECK(s->nr_scores == 1 && s->scores[0].fetches, "one score with fetches, %zu", s->nr_scores);
	/* a hot list has one sample per function: no halves */
	CHECK(s->nr_folds == 1 && s->folds[0][0] == s->model && s->folds[0][1] == s->model && !s->half[0],
	      "a hot list gave %zu folds", s->nr_folds);
	cachepin_session__free(s);
}

static void test_failures(void)
{
	struct cachepin_cache c[CACHEPIN_SESSION_MAX_CACHES + 1];
	struct cachepin_session_opts o;
	struct cachepin_session *s;
	int err;

	CHECK(cachepin_cache__parse(&c[0], "1K:2:32") == 0, "1K:2:32 not parsed");
	o = self_opts(c);
	o.nr_caches = CACHEPIN_SESSION_MAX_CACHES + 1;
	errno = 0;
	CHECK(!cachepin_session__new(&o) && errno == EINVAL, "too many caches taken");

	/* a profile of none of the binary's functions: said, and the binary stays open */
	o = self_opts(c);
	write_hot("no_such_function_anywhere 100\n");
	s = cachepin_session__new(&o);
	if (!s)
		return;
	msg[0] = '\0';
	err = cachepin_session__open(s, CACHEPIN_SESSION_SCORES);
	CHECK(err < 0 && msg[0], "an unmatched profile gave %d, message '%s'", err, msg);
	CHECK(s->open == CACHEPIN_SESSION_BINARY && s->bin && !s->model, "opened 0x%x", s->open);
	cachepin_session__free(s);

	o.binary = "/nonexistent/binary";
	s = cachepin_session__new(&o);
	if (!s)
		return;
	msg[0] = '\0';
	err = cachepin_session__open(s, CACHEPIN_SESSION_BINARY);
	CHECK(err < 0 && strstr(msg, "/nonexistent/binary"), "a missing binary gave %d, message '%s'",
	      err, msg);
	cachepin_session__free(s);
	cachepin_session__free(NULL);
}

int main(void)
{
	if (unit_tmpfile(hot, sizeof(hot), "session-unit"))
		return 1;
	cachepin_set_print(capture);
	test_steps();
	test_failures();
	unlink(hot);
	UNIT_DONE();
}
