/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Functions that must not be used (as git's banned.h): they overflow a
 * buffer on input that is too long, or keep hidden state.  Use snprintf(),
 * a bounded memcpy() of a length you checked, strtok_r() or the field
 * splitter of scan.h instead.  Included last by internal.h and the tool.
 */
#ifndef CACHEPIN_BANNED_H
#define CACHEPIN_BANNED_H

#define BANNED(func) sorry_##func##_is_a_banned_function

#undef strcpy
#define strcpy(x, y) BANNED(strcpy)
#undef strcat
#define strcat(x, y) BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) BANNED(strncpy)
#undef strncat
#define strncat(x, y, n) BANNED(strncat)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef strtok
#define strtok(x, y) BANNED(strtok)
#undef gets
#define gets(x) BANNED(gets)

#endif
