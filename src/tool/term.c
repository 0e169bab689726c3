// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A terminal gets no control bytes from the data: a symbol name may hold
 * an escape sequence, and printed raw it would drive the terminal.  Where
 * standard output or standard error is a terminal, the stream is replaced
 * by one that writes a control byte (but a newline or a tab) and DEL as
 * \xNN.  Files and pipes get the bytes as they are, so reports and tests
 * stay byte for byte.  The progress line writes its own control bytes
 * through the stream standard error was (tool_stderr_raw).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
#include "tool.h"

FILE *tool_stderr_raw;

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static ssize_t tty_write(void *cookie, const char *buf, size_t n)
{
	int fd = (int)(intptr_t)cookie;
	size_t i, from = 0;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)buf[i];
		char esc[5];

		if ((c >= 0x20 && c != 0x7f) || c == '\n' || c == '\t')
			continue;
		snprintf(esc, sizeof(esc), "\\x%02x", c);
		if (write_all(fd, buf + from, i - from) || write_all(fd, esc, 4))
			return -1;
		from = i + 1;
	}
	if (write_all(fd, buf + from, n - from))
		return -1;
	return (ssize_t)n;
}

static FILE *tty_stream(int fd, int mode)
{
	cookie_io_functions_t io = { .write = tty_write };
	FILE *f = fopencookie((void *)(intptr_t)fd, "w", io);

	if (f)
		setvbuf(f, NULL, mode, 0);
	return f;
}

void tool_term_guard(void)
{
	FILE *f;

	tool_stderr_raw = stderr;
	if (isatty(STDOUT_FILENO) && (f = tty_stream(STDOUT_FILENO, _IOLBF)))
		stdout = f;
	if (isatty(STDERR_FILENO) && (f = tty_stream(STDERR_FILENO, _IONBF)))
		stderr = f;
}
