/* Cold code: option checks and messages (pktflow runs none of it). */
#include <stdio.h>
#include <string.h>

int opt_28(const char *arg, int *val)
{
	if (strncmp(arg, "--opt28=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 31 % 125;
	if (*val > 68)
		fprintf(stderr, "pktflow: --opt28: %d is more than 68\n", *val);
	else if (*val < 0)
		fprintf(stderr, "pktflow: --opt28: %d is less than 0\n", *val);
	else
		fprintf(stderr, "pktflow: --opt28 is %d (qos)\n", *val);
	return 1;
}

int opt_29(const char *arg, int *val)
{
	if (strncmp(arg, "--opt29=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 32 % 126;
	if (*val > 69)
		fprintf(stderr, "pktflow: --opt29: %d is more than 69\n", *val);
	else if (*val < 1)
		fprintf(stderr, "pktflow: --opt29: %d is less than 1\n", *val);
	else
		fprintf(stderr, "pktflow: --opt29 is %d (qos)\n", *val);
	return 1;
}

int opt_30(const char *arg, int *val)
{
	if (strncmp(arg, "--opt30=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 33 % 127;
	if (*val > 70)
		fprintf(stderr, "pktflow: --opt30: %d is more than 70\n", *val);
	else if (*val < 2)
		fprintf(stderr, "pktflow: --opt30: %d is less than 2\n", *val);
	else
		fprintf(stderr, "pktflow: --opt30 is %d (qos)\n", *val);
	return 1;
}

int opt_31(const char *arg, int *val)
{
	if (strncmp(arg, "--opt31=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 34 % 128;
	if (*val > 71)
		fprintf(stderr, "pktflow: --opt31: %d is more than 71\n", *val);
	else if (*val < 3)
		fprintf(stderr, "pktflow: --opt31: %d is less than 3\n", *val);
	else
		fprintf(stderr, "pktflow: --opt31 is %d (qos)\n", *val);
	return 1;
}

int opt_32(const char *arg, int *val)
{
	if (strncmp(arg, "--opt32=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 35 % 129;
	if (*val > 72)
		fprintf(stderr, "pktflow: --opt32: %d is more than 72\n", *val);
	else if (*val < 4)
		fprintf(stderr, "pktflow: --opt32: %d is less than 4\n", *val);
	else
		fprintf(stderr, "pktflow: --opt32 is %d (qos)\n", *val);
	return 1;
}

int opt_33(const char *arg, int *val)
{
	if (strncmp(arg, "--opt33=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 36 % 130;
	if (*val > 73)
		fprintf(stderr, "pktflow: --opt33: %d is more than 73\n", *val);
	else if (*val < 5)
		fprintf(stderr, "pktflow: --opt33: %d is less than 5\n", *val);
	else
		fprintf(stderr, "pktflow: --opt33 is %d (qos)\n", *val);
	return 1;
}

int opt_34(const char *arg, int *val)
{
	if (strncmp(arg, "--opt34=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 37 % 131;
	if (*val > 74)
		fprintf(stderr, "pktflow: --opt34: %d is more than 74\n", *val);
	else if (*val < 6)
		fprintf(stderr, "pktflow: --opt34: %d is less than 6\n", *val);
	else
		fprintf(stderr, "pktflow: --opt34 is %d (qos)\n", *val);
	return 1;
}

int opt_35(const char *arg, int *val)
{
	if (strncmp(arg, "--opt35=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 38 % 132;
	if (*val > 75)
		fprintf(stderr, "pktflow: --opt35: %d is more than 75\n", *val);
	else if (*val < 0)
		fprintf(stderr, "pktflow: --opt35: %d is less than 0\n", *val);
	else
		fprintf(stderr, "pktflow: --opt35 is %d (qos)\n", *val);
	return 1;
}

int opt_36(const char *arg, int *val)
{
	if (strncmp(arg, "--opt36=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 39 % 133;
	if (*val > 76)
		fprintf(stderr, "pktflow: --opt36: %d is more than 76\n", *val);
	else if (*val < 1)
		fprintf(stderr, "pktflow: --opt36: %d is less than 1\n", *val);
	else
		fprintf(stderr, "pktflow: --opt36 is %d (qos)\n", *val);
	return 1;
}

int opt_37(const char *arg, int *val)
{
	if (strncmp(arg, "--opt37=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 40 % 134;
	if (*val > 77)
		fprintf(stderr, "pktflow: --opt37: %d is more than 77\n", *val);
	else if (*val < 2)
		fprintf(stderr, "pktflow: --opt37: %d is less than 2\n", *val);
	else
		fprintf(stderr, "pktflow: --opt37 is %d (qos)\n", *val);
	return 1;
}

int opt_38(const char *arg, int *val)
{
	if (strncmp(arg, "--opt38=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 41 % 135;
	if (*val > 78)
		fprintf(stderr, "pktflow: --opt38: %d is more than 78\n", *val);
	else if (*val < 3)
		fprintf(stderr, "pktflow: --opt38: %d is less than 3\n", *val);
	else
		fprintf(stderr, "pktflow: --opt38 is %d (qos)\n", *val);
	return 1;
}

int opt_39(const char *arg, int *val)
{
	if (strncmp(arg, "--opt39=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 42 % 136;
	if (*val > 79)
		fprintf(stderr, "pktflow: --opt39: %d is more than 79\n", *val);
	else if (*val < 4)
		fprintf(stderr, "pktflow: --opt39: %d is less than 4\n", *val);
	else
		fprintf(stderr, "pktflow: --opt39 is %d (qos)\n", *val);
	return 1;
}

int opt_40(const char *arg, int *val)
{
	if (strncmp(arg, "--opt40=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 43 % 137;
	if (*val > 80)
		fprintf(stderr, "pktflow: --opt40: %d is more than 80\n", *val);
	else if (*val < 5)
		fprintf(stderr, "pktflow: --opt40: %d is less than 5\n", *val);
	else
		fprintf(stderr, "pktflow: --opt40 is %d (qos)\n", *val);
	return 1;
}

int opt_41(const char *arg, int *val)
{
	if (strncmp(arg, "--opt41=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 44 % 138;
	if (*val > 81)
		fprintf(stderr, "pktflow: --opt41: %d is more than 81\n", *val);
	else if (*val < 6)
		fprintf(stderr, "pktflow: --opt41: %d is less than 6\n", *val);
	else
		fprintf(stderr, "pktflow: --opt41 is %d (qos)\n", *val);
	return 1;
}

int options_2(int argc, char **argv)
{
	static int (*const opt[])(const char *, int *) = {
		opt_28,
		opt_29,
		opt_30,
		opt_31,
		opt_32,
		opt_33,
		opt_34,
		opt_35,
		opt_36,
		opt_37,
		opt_38,
		opt_39,
		opt_40,
		opt_41
	};
	int i, k, v, n = 0;

	for (i = 2; i < argc; i++)
		for (k = 0; k < (int)(sizeof(opt) / sizeof(opt[0])); k++)
			n += opt[k](argv[i], &v);
	return n;
}
