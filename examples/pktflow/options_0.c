/* Cold code: option checks and messages (pktflow runs none of it). */
#include <stdio.h>
#include <string.h>

int opt_00(const char *arg, int *val)
{
	if (strncmp(arg, "--opt00=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 3 % 97;
	if (*val > 40)
		fprintf(stderr, "pktflow: --opt00: %d is more than 40\n", *val);
	else if (*val < 0)
		fprintf(stderr, "pktflow: --opt00: %d is less than 0\n", *val);
	else
		fprintf(stderr, "pktflow: --opt00 is %d (acl)\n", *val);
	return 1;
}

int opt_01(const char *arg, int *val)
{
	if (strncmp(arg, "--opt01=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 4 % 98;
	if (*val > 41)
		fprintf(stderr, "pktflow: --opt01: %d is more than 41\n", *val);
	else if (*val < 1)
		fprintf(stderr, "pktflow: --opt01: %d is less than 1\n", *val);
	else
		fprintf(stderr, "pktflow: --opt01 is %d (acl)\n", *val);
	return 1;
}

int opt_02(const char *arg, int *val)
{
	if (strncmp(arg, "--opt02=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 5 % 99;
	if (*val > 42)
		fprintf(stderr, "pktflow: --opt02: %d is more than 42\n", *val);
	else if (*val < 2)
		fprintf(stderr, "pktflow: --opt02: %d is less than 2\n", *val);
	else
		fprintf(stderr, "pktflow: --opt02 is %d (acl)\n", *val);
	return 1;
}

int opt_03(const char *arg, int *val)
{
	if (strncmp(arg, "--opt03=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 6 % 100;
	if (*val > 43)
		fprintf(stderr, "pktflow: --opt03: %d is more than 43\n", *val);
	else if (*val < 3)
		fprintf(stderr, "pktflow: --opt03: %d is less than 3\n", *val);
	else
		fprintf(stderr, "pktflow: --opt03 is %d (acl)\n", *val);
	return 1;
}

int opt_04(const char *arg, int *val)
{
	if (strncmp(arg, "--opt04=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 7 % 101;
	if (*val > 44)
		fprintf(stderr, "pktflow: --opt04: %d is more than 44\n", *val);
	else if (*val < 4)
		fprintf(stderr, "pktflow: --opt04: %d is less than 4\n", *val);
	else
		fprintf(stderr, "pktflow: --opt04 is %d (acl)\n", *val);
	return 1;
}

int opt_05(const char *arg, int *val)
{
	if (strncmp(arg, "--opt05=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 8 % 102;
	if (*val > 45)
		fprintf(stderr, "pktflow: --opt05: %d is more than 45\n", *val);
	else if (*val < 5)
		fprintf(stderr, "pktflow: --opt05: %d is less than 5\n", *val);
	else
		fprintf(stderr, "pktflow: --opt05 is %d (acl)\n", *val);
	return 1;
}

int opt_06(const char *arg, int *val)
{
	if (strncmp(arg, "--opt06=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 9 % 103;
	if (*val > 46)
		fprintf(stderr, "pktflow: --opt06: %d is more than 46\n", *val);
	else if (*val < 6)
		fprintf(stderr, "pktflow: --opt06: %d is less than 6\n", *val);
	else
		fprintf(stderr, "pktflow: --opt06 is %d (acl)\n", *val);
	return 1;
}

int opt_07(const char *arg, int *val)
{
	if (strncmp(arg, "--opt07=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 10 % 104;
	if (*val > 47)
		fprintf(stderr, "pktflow: --opt07: %d is more than 47\n", *val);
	else if (*val < 0)
		fprintf(stderr, "pktflow: --opt07: %d is less than 0\n", *val);
	else
		fprintf(stderr, "pktflow: --opt07 is %d (acl)\n", *val);
	return 1;
}

int opt_08(const char *arg, int *val)
{
	if (strncmp(arg, "--opt08=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 11 % 105;
	if (*val > 48)
		fprintf(stderr, "pktflow: --opt08: %d is more than 48\n", *val);
	else if (*val < 1)
		fprintf(stderr, "pktflow: --opt08: %d is less than 1\n", *val);
	else
		fprintf(stderr, "pktflow: --opt08 is %d (acl)\n", *val);
	return 1;
}

int opt_09(const char *arg, int *val)
{
	if (strncmp(arg, "--opt09=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 12 % 106;
	if (*val > 49)
		fprintf(stderr, "pktflow: --opt09: %d is more than 49\n", *val);
	else if (*val < 2)
		fprintf(stderr, "pktflow: --opt09: %d is less than 2\n", *val);
	else
		fprintf(stderr, "pktflow: --opt09 is %d (acl)\n", *val);
	return 1;
}

int opt_10(const char *arg, int *val)
{
	if (strncmp(arg, "--opt10=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 13 % 107;
	if (*val > 50)
		fprintf(stderr, "pktflow: --opt10: %d is more than 50\n", *val);
	else if (*val < 3)
		fprintf(stderr, "pktflow: --opt10: %d is less than 3\n", *val);
	else
		fprintf(stderr, "pktflow: --opt10 is %d (acl)\n", *val);
	return 1;
}

int opt_11(const char *arg, int *val)
{
	if (strncmp(arg, "--opt11=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 14 % 108;
	if (*val > 51)
		fprintf(stderr, "pktflow: --opt11: %d is more than 51\n", *val);
	else if (*val < 4)
		fprintf(stderr, "pktflow: --opt11: %d is less than 4\n", *val);
	else
		fprintf(stderr, "pktflow: --opt11 is %d (acl)\n", *val);
	return 1;
}

int opt_12(const char *arg, int *val)
{
	if (strncmp(arg, "--opt12=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 15 % 109;
	if (*val > 52)
		fprintf(stderr, "pktflow: --opt12: %d is more than 52\n", *val);
	else if (*val < 5)
		fprintf(stderr, "pktflow: --opt12: %d is less than 5\n", *val);
	else
		fprintf(stderr, "pktflow: --opt12 is %d (acl)\n", *val);
	return 1;
}

int opt_13(const char *arg, int *val)
{
	if (strncmp(arg, "--opt13=", 8))
		return 0;
	*val = (int)strlen(arg + 8) * 16 % 110;
	if (*val > 53)
		fprintf(stderr, "pktflow: --opt13: %d is more than 53\n", *val);
	else if (*val < 6)
		fprintf(stderr, "pktflow: --opt13: %d is less than 6\n", *val);
	else
		fprintf(stderr, "pktflow: --opt13 is %d (acl)\n", *val);
	return 1;
}

int options_0(int argc, char **argv)
{
	static int (*const opt[])(const char *, int *) = {
		opt_00,
		opt_01,
		opt_02,
		opt_03,
		opt_04,
		opt_05,
		opt_06,
		opt_07,
		opt_08,
		opt_09,
		opt_10,
		opt_11,
		opt_12,
		opt_13
	};
	int i, k, v, n = 0;

	for (i = 2; i < argc; i++)
		for (k = 0; k < (int)(sizeof(opt) / sizeof(opt[0])); k++)
			n += opt[k](argv[i], &v);
	return n;
}
