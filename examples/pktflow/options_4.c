/* Cold code: option checks and messages (pktflow runs none of it). */
#include <stdio.h>
#include <string.h>

int opt_56(const char *arg, int *val)
{
	if (strncmp(arg, "--opt56=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 59 % 153;
	if (*val > 96)
		fprintf(stderr, "pktflow: --opt56: %d is more than 96\n", *val);
	else if (*val < 0)
		fprintf(stderr, "pktflow: --opt56: %d is less than 0\n", *val);
	else
		fprintf(stderr, "pktflow: --opt56 is %d (log)\n", *val);
	return 1;
}

int opt_57(const char *arg, int *val)
{
	if (strncmp(arg, "--opt57=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 60 % 154;
	if (*val > 97)
		fprintf(stderr, "pktflow: --opt57: %d is more than 97\n", *val);
	else if (*val < 1)
		fprintf(stderr, "pktflow: --opt57: %d is less than 1\n", *val);
	else
		fprintf(stderr, "pktflow: --opt57 is %d (log)\n", *val);
	return 1;
}

int opt_58(const char *arg, int *val)
{
	if (strncmp(arg, "--opt58=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 61 % 155;
	if (*val > 98)
		fprintf(stderr, "pktflow: --opt58: %d is more than 98\n", *val);
	else if (*val < 2)
		fprintf(stderr, "pktflow: --opt58: %d is less than 2\n", *val);
	else
		fprintf(stderr, "pktflow: --opt58 is %d (log)\n", *val);
	return 1;
}

int opt_59(const char *arg, int *val)
{
	if (strncmp(arg, "--opt59=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 62 % 156;
	if (*val > 99)
		fprintf(stderr, "pktflow: --opt59: %d is more than 99\n", *val);
	else if (*val < 3)
		fprintf(stderr, "pktflow: --opt59: %d is less than 3\n", *val);
	else
		fprintf(stderr, "pktflow: --opt59 is %d (log)\n", *val);
	return 1;
}

int opt_60(const char *arg, int *val)
{
	if (strncmp(arg, "--opt60=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 63 % 157;
	if (*val > 100)
		fprintf(stderr, "pktflow: --opt60: %d is more than 100\n", *val);
	else if (*val < 4)
		fprintf(stderr, "pktflow: --opt60: %d is less than 4\n", *val);
	else
		fprintf(stderr, "pktflow: --opt60 is %d (log)\n", *val);
	return 1;
}

int opt_61(const char *arg, int *val)
{
	if (strncmp(arg, "--opt61=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 64 % 158;
	if (*val > 101)
		fprintf(stderr, "pktflow: --opt61: %d is more than 101\n", *val);
	else if (*val < 5)
		fprintf(stderr, "pktflow: --opt61: %d is less than 5\n", *val);
	else
		fprintf(stderr, "pktflow: --opt61 is %d (log)\n", *val);
	return 1;
}

int opt_62(const char *arg, int *val)
{
	if (strncmp(arg, "--opt62=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 65 % 159;
	if (*val > 102)
		fprintf(stderr, "pktflow: --opt62: %d is more than 102\n", *val);
	else if (*val < 6)
		fprintf(stderr, "pktflow: --opt62: %d is less than 6\n", *val);
	else
		fprintf(stderr, "pktflow: --opt62 is %d (log)\n", *val);
	return 1;
}

int opt_63(const char *arg, int *val)
{
	if (strncmp(arg, "--opt63=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 66 % 160;
	if (*val > 103)
		fprintf(stderr, "pktflow: --opt63: %d is more than 103\n", *val);
	else if (*val < 0)
		fprintf(stderr, "pktflow: --opt63: %d is less than 0\n", *val);
	else
		fprintf(stderr, "pktflow: --opt63 is %d (log)\n", *val);
	return 1;
}

int opt_64(const char *arg, int *val)
{
	if (strncmp(arg, "--opt64=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 67 % 161;
	if (*val > 104)
		fprintf(stderr, "pktflow: --opt64: %d is more than 104\n", *val);
	else if (*val < 1)
		fprintf(stderr, "pktflow: --opt64: %d is less than 1\n", *val);
	else
		fprintf(stderr, "pktflow: --opt64 is %d (log)\n", *val);
	return 1;
}

int opt_65(const char *arg, int *val)
{
	if (strncmp(arg, "--opt65=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 68 % 162;
	if (*val > 105)
		fprintf(stderr, "pktflow: --opt65: %d is more than 105\n", *val);
	else if (*val < 2)
		fprintf(stderr, "pktflow: --opt65: %d is less than 2\n", *val);
	else
		fprintf(stderr, "pktflow: --opt65 is %d (log)\n", *val);
	return 1;
}

int opt_66(const char *arg, int *val)
{
	if (strncmp(arg, "--opt66=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 69 % 163;
	if (*val > 106)
		fprintf(stderr, "pktflow: --opt66: %d is more than 106\n", *val);
	else if (*val < 3)
		fprintf(stderr, "pktflow: --opt66: %d is less than 3\n", *val);
	else
		fprintf(stderr, "pktflow: --opt66 is %d (log)\n", *val);
	return 1;
}

int opt_67(const char *arg, int *val)
{
	if (strncmp(arg, "--opt67=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 70 % 164;
	if (*val > 107)
		fprintf(stderr, "pktflow: --opt67: %d is more than 107\n", *val);
	else if (*val < 4)
		fprintf(stderr, "pktflow: --opt67: %d is less than 4\n", *val);
	else
		fprintf(stderr, "pktflow: --opt67 is %d (log)\n", *val);
	return 1;
}

int opt_68(const char *arg, int *val)
{
	if (strncmp(arg, "--opt68=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 71 % 165;
	if (*val > 108)
		fprintf(stderr, "pktflow: --opt68: %d is more than 108\n", *val);
	else if (*val < 5)
		fprintf(stderr, "pktflow: --opt68: %d is less than 5\n", *val);
	else
		fprintf(stderr, "pktflow: --opt68 is %d (log)\n", *val);
	return 1;
}

int opt_69(const char *arg, int *val)
{
	if (strncmp(arg, "--opt69=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 72 % 166;
	if (*val > 109)
		fprintf(stderr, "pktflow: --opt69: %d is more than 109\n", *val);
	else if (*val < 6)
		fprintf(stderr, "pktflow: --opt69: %d is less than 6\n", *val);
	else
		fprintf(stderr, "pktflow: --opt69 is %d (log)\n", *val);
	return 1;
}

int options_4(int argc, char **argv)
{
	static int (*const opt[])(const char *, int *) = {
		opt_56,
		opt_57,
		opt_58,
		opt_59,
		opt_60,
		opt_61,
		opt_62,
		opt_63,
		opt_64,
		opt_65,
		opt_66,
		opt_67,
		opt_68,
		opt_69
	};
	int i, k, v, n = 0;

	for (i = 2; i < argc; i++)
		for (k = 0; k < (int)(sizeof(opt) / sizeof(opt[0])); k++)
			n += opt[k](argv[i], &v);
	return n;
}
