/* Cold code: option checks and messages (pktflow runs none of it). */
#include <stdio.h>
#include <string.h>

int opt_42(const char *arg, int *val)
{
	if (strncmp(arg, "--opt42=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 45 % 139;
	if (*val > 82)
		fprintf(stderr, "pktflow: --opt42: %d is more than 82\n", *val);
	else if (*val < 0)
		fprintf(stderr, "pktflow: --opt42: %d is less than 0\n", *val);
	else
		fprintf(stderr, "pktflow: --opt42 is %d (mark)\n", *val);
	return 1;
}

int opt_43(const char *arg, int *val)
{
	if (strncmp(arg, "--opt43=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 46 % 140;
	if (*val > 83)
		fprintf(stderr, "pktflow: --opt43: %d is more than 83\n", *val);
	else if (*val < 1)
		fprintf(stderr, "pktflow: --opt43: %d is less than 1\n", *val);
	else
		fprintf(stderr, "pktflow: --opt43 is %d (mark)\n", *val);
	return 1;
}

int opt_44(const char *arg, int *val)
{
	if (strncmp(arg, "--opt44=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 47 % 141;
	if (*val > 84)
		fprintf(stderr, "pktflow: --opt44: %d is more than 84\n", *val);
	else if (*val < 2)
		fprintf(stderr, "pktflow: --opt44: %d is less than 2\n", *val);
	else
		fprintf(stderr, "pktflow: --opt44 is %d (mark)\n", *val);
	return 1;
}

int opt_45(const char *arg, int *val)
{
	if (strncmp(arg, "--opt45=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 48 % 142;
	if (*val > 85)
		fprintf(stderr, "pktflow: --opt45: %d is more than 85\n", *val);
	else if (*val < 3)
		fprintf(stderr, "pktflow: --opt45: %d is less than 3\n", *val);
	else
		fprintf(stderr, "pktflow: --opt45 is %d (mark)\n", *val);
	return 1;
}

int opt_46(const char *arg, int *val)
{
	if (strncmp(arg, "--opt46=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 49 % 143;
	if (*val > 86)
		fprintf(stderr, "pktflow: --opt46: %d is more than 86\n", *val);
	else if (*val < 4)
		fprintf(stderr, "pktflow: --opt46: %d is less than 4\n", *val);
	else
		fprintf(stderr, "pktflow: --opt46 is %d (mark)\n", *val);
	return 1;
}

int opt_47(const char *arg, int *val)
{
	if (strncmp(arg, "--opt47=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 50 % 144;
	if (*val > 87)
		fprintf(stderr, "pktflow: --opt47: %d is more than 87\n", *val);
	else if (*val < 5)
		fprintf(stderr, "pktflow: --opt47: %d is less than 5\n", *val);
	else
		fprintf(stderr, "pktflow: --opt47 is %d (mark)\n", *val);
	return 1;
}

int opt_48(const char *arg, int *val)
{
	if (strncmp(arg, "--opt48=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 51 % 145;
	if (*val > 88)
		fprintf(stderr, "pktflow: --opt48: %d is more than 88\n", *val);
	else if (*val < 6)
		fprintf(stderr, "pktflow: --opt48: %d is less than 6\n", *val);
	else
		fprintf(stderr, "pktflow: --opt48 is %d (mark)\n", *val);
	return 1;
}

int opt_49(const char *arg, int *val)
{
	if (strncmp(arg, "--opt49=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 52 % 146;
	if (*val > 89)
		fprintf(stderr, "pktflow: --opt49: %d is more than 89\n", *val);
	else if (*val < 0)
		fprintf(stderr, "pktflow: --opt49: %d is less than 0\n", *val);
	else
		fprintf(stderr, "pktflow: --opt49 is %d (mark)\n", *val);
	return 1;
}

int opt_50(const char *arg, int *val)
{
	if (strncmp(arg, "--opt50=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 53 % 147;
	if (*val > 90)
		fprintf(stderr, "pktflow: --opt50: %d is more than 90\n", *val);
	else if (*val < 1)
		fprintf(stderr, "pktflow: --opt50: %d is less than 1\n", *val);
	else
		fprintf(stderr, "pktflow: --opt50 is %d (mark)\n", *val);
	return 1;
}

int opt_51(const char *arg, int *val)
{
	if (strncmp(arg, "--opt51=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 54 % 148;
	if (*val > 91)
		fprintf(stderr, "pktflow: --opt51: %d is more than 91\n", *val);
	else if (*val < 2)
		fprintf(stderr, "pktflow: --opt51: %d is less than 2\n", *val);
	else
		fprintf(stderr, "pktflow: --opt51 is %d (mark)\n", *val);
	return 1;
}

int opt_52(const char *arg, int *val)
{
	if (strncmp(arg, "--opt52=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 55 % 149;
	if (*val > 92)
		fprintf(stderr, "pktflow: --opt52: %d is more than 92\n", *val);
	else if (*val < 3)
		fprintf(stderr, "pktflow: --opt52: %d is less than 3\n", *val);
	else
		fprintf(stderr, "pktflow: --opt52 is %d (mark)\n", *val);
	return 1;
}

int opt_53(const char *arg, int *val)
{
	if (strncmp(arg, "--opt53=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 56 % 150;
	if (*val > 93)
		fprintf(stderr, "pktflow: --opt53: %d is more than 93\n", *val);
	else if (*val < 4)
		fprintf(stderr, "pktflow: --opt53: %d is less than 4\n", *val);
	else
		fprintf(stderr, "pktflow: --opt53 is %d (mark)\n", *val);
	return 1;
}

int opt_54(const char *arg, int *val)
{
	if (strncmp(arg, "--opt54=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 57 % 151;
	if (*val > 94)
		fprintf(stderr, "pktflow: --opt54: %d is more than 94\n", *val);
	else if (*val < 5)
		fprintf(stderr, "pktflow: --opt54: %d is less than 5\n", *val);
	else
		fprintf(stderr, "pktflow: --opt54 is %d (mark)\n", *val);
	return 1;
}

int opt_55(const char *arg, int *val)
{
	if (strncmp(arg, "--opt55=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 58 % 152;
	if (*val > 95)
		fprintf(stderr, "pktflow: --opt55: %d is more than 95\n", *val);
	else if (*val < 6)
		fprintf(stderr, "pktflow: --opt55: %d is less than 6\n", *val);
	else
		fprintf(stderr, "pktflow: --opt55 is %d (mark)\n", *val);
	return 1;
}

int options_3(int argc, char **argv)
{
	static int (*const opt[])(const char *, int *) = {
		opt_42,
		opt_43,
		opt_44,
		opt_45,
		opt_46,
		opt_47,
		opt_48,
		opt_49,
		opt_50,
		opt_51,
		opt_52,
		opt_53,
		opt_54,
		opt_55
	};
	int i, k, v, n = 0;

	for (i = 2; i < argc; i++)
		for (k = 0; k < (int)(sizeof(opt) / sizeof(opt[0])); k++)
			n += opt[k](argv[i], &v);
	return n;
}
