/* Cold code: option checks and messages (pktflow runs none of it). */
#include <stdio.h>
#include <string.h>

int opt_14(const char *arg, int *val)
{
	if (strncmp(arg, "--opt14=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 17 % 111;
	if (*val > 54)
		fprintf(stderr, "pktflow: --opt14: %d is more than 54\n", *val);
	else if (*val < 0)
		fprintf(stderr, "pktflow: --opt14: %d is less than 0\n", *val);
	else
		fprintf(stderr, "pktflow: --opt14 is %d (nat)\n", *val);
	return 1;
}

int opt_15(const char *arg, int *val)
{
	if (strncmp(arg, "--opt15=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 18 % 112;
	if (*val > 55)
		fprintf(stderr, "pktflow: --opt15: %d is more than 55\n", *val);
	else if (*val < 1)
		fprintf(stderr, "pktflow: --opt15: %d is less than 1\n", *val);
	else
		fprintf(stderr, "pktflow: --opt15 is %d (nat)\n", *val);
	return 1;
}

int opt_16(const char *arg, int *val)
{
	if (strncmp(arg, "--opt16=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 19 % 113;
	if (*val > 56)
		fprintf(stderr, "pktflow: --opt16: %d is more than 56\n", *val);
	else if (*val < 2)
		fprintf(stderr, "pktflow: --opt16: %d is less than 2\n", *val);
	else
		fprintf(stderr, "pktflow: --opt16 is %d (nat)\n", *val);
	return 1;
}

int opt_17(const char *arg, int *val)
{
	if (strncmp(arg, "--opt17=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 20 % 114;
	if (*val > 57)
		fprintf(stderr, "pktflow: --opt17: %d is more than 57\n", *val);
	else if (*val < 3)
		fprintf(stderr, "pktflow: --opt17: %d is less than 3\n", *val);
	else
		fprintf(stderr, "pktflow: --opt17 is %d (nat)\n", *val);
	return 1;
}

int opt_18(const char *arg, int *val)
{
	if (strncmp(arg, "--opt18=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 21 % 115;
	if (*val > 58)
		fprintf(stderr, "pktflow: --opt18: %d is more than 58\n", *val);
	else if (*val < 4)
		fprintf(stderr, "pktflow: --opt18: %d is less than 4\n", *val);
	else
		fprintf(stderr, "pktflow: --opt18 is %d (nat)\n", *val);
	return 1;
}

int opt_19(const char *arg, int *val)
{
	if (strncmp(arg, "--opt19=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 22 % 116;
	if (*val > 59)
		fprintf(stderr, "pktflow: --opt19: %d is more than 59\n", *val);
	else if (*val < 5)
		fprintf(stderr, "pktflow: --opt19: %d is less than 5\n", *val);
	else
		fprintf(stderr, "pktflow: --opt19 is %d (nat)\n", *val);
	return 1;
}

int opt_20(const char *arg, int *val)
{
	if (strncmp(arg, "--opt20=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 23 % 117;
	if (*val > 60)
		fprintf(stderr, "pktflow: --opt20: %d is more than 60\n", *val);
	else if (*val < 6)
		fprintf(stderr, "pktflow: --opt20: %d is less than 6\n", *val);
	else
		fprintf(stderr, "pktflow: --opt20 is %d (nat)\n", *val);
	return 1;
}

int opt_21(const char *arg, int *val)
{
	if (strncmp(arg, "--opt21=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 24 % 118;
	if (*val > 61)
		fprintf(stderr, "pktflow: --opt21: %d is more than 61\n", *val);
	else if (*val < 0)
		fprintf(stderr, "pktflow: --opt21: %d is less than 0\n", *val);
	else
		fprintf(stderr, "pktflow: --opt21 is %d (nat)\n", *val);
	return 1;
}

int opt_22(const char *arg, int *val)
{
	if (strncmp(arg, "--opt22=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 25 % 119;
	if (*val > 62)
		fprintf(stderr, "pktflow: --opt22: %d is more than 62\n", *val);
	else if (*val < 1)
		fprintf(stderr, "pktflow: --opt22: %d is less than 1\n", *val);
	else
		fprintf(stderr, "pktflow: --opt22 is %d (nat)\n", *val);
	return 1;
}

int opt_23(const char *arg, int *val)
{
	if (strncmp(arg, "--opt23=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 26 % 120;
	if (*val > 63)
		fprintf(stderr, "pktflow: --opt23: %d is more than 63\n", *val);
	else if (*val < 2)
		fprintf(stderr, "pktflow: --opt23: %d is less than 2\n", *val);
	else
		fprintf(stderr, "pktflow: --opt23 is %d (nat)\n", *val);
	return 1;
}

int opt_24(const char *arg, int *val)
{
	if (strncmp(arg, "--opt24=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 27 % 121;
	if (*val > 64)
		fprintf(stderr, "pktflow: --opt24: %d is more than 64\n", *val);
	else if (*val < 3)
		fprintf(stderr, "pktflow: --opt24: %d is less than 3\n", *val);
	else
		fprintf(stderr, "pktflow: --opt24 is %d (nat)\n", *val);
	return 1;
}

int opt_25(const char *arg, int *val)
{
	if (strncmp(arg, "--opt25=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 28 % 122;
	if (*val > 65)
		fprintf(stderr, "pktflow: --opt25: %d is more than 65\n", *val);
	else if (*val < 4)
		fprintf(stderr, "pktflow: --opt25: %d is less than 4\n", *val);
	else
		fprintf(stderr, "pktflow: --opt25 is %d (nat)\n", *val);
	return 1;
}

int opt_26(const char *arg, int *val)
{
	if (strncmp(arg, "--opt26=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 29 % 123;
	if (*val > 66)
		fprintf(stderr, "pktflow: --opt26: %d is more than 66\n", *val);
	else if (*val < 5)
		fprintf(stderr, "pktflow: --opt26: %d is less than 5\n", *val);
	else
		fprintf(stderr, "pktflow: --opt26 is %d (nat)\n", *val);
	return 1;
}

int opt_27(const char *arg, int *val)
{
	if (strncmp(arg, "--opt27=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 30 % 124;
	if (*val > 67)
		fprintf(stderr, "pktflow: --opt27: %d is more than 67\n", *val);
	else if (*val < 6)
		fprintf(stderr, "pktflow: --opt27: %d is less than 6\n", *val);
	else
		fprintf(stderr, "pktflow: --opt27 is %d (nat)\n", *val);
	return 1;
}

int options_1(int argc, char **argv)
{
	static int (*const opt[])(const char *, int *) = {
		opt_14,
		opt_15,
		opt_16,
		opt_17,
		opt_18,
		opt_19,
		opt_20,
		opt_21,
		opt_22,
		opt_23,
		opt_24,
		opt_25,
		opt_26,
		opt_27
	};
	int i, k, v, n = 0;

	for (i = 2; i < argc; i++)
		for (k = 0; k < (int)(sizeof(opt) / sizeof(opt[0])); k++)
			n += opt[k](argv[i], &v);
	return n;
}
