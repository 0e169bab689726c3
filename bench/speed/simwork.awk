# bench/speed.sh: the C source of the workload whose QEMU log cachepin
# simulate reads: 256 small functions, called in a pseudo-random order
# (a hot 32 of them every round, one of the other 224 besides), for as
# many rounds as the first argument says.
BEGIN {
	print "#include <stdlib.h>"
	print "volatile unsigned sink;"
	for (i = 0; i < 256; i++)
		printf "__attribute__((noinline)) static unsigned f%d(unsigned x)\n{\n\tfor (int i = 0; i < 4; i++)\n\t\tx = x * 1103515245u + %du + (x >> 7);\n\treturn x ^ %du;\n}\n", i, i, i * 2654435761 % 4294967296
	printf "static unsigned (*const fn[256])(unsigned) = {"
	for (i = 0; i < 256; i++) printf "%sf%d", i ? ", " : " ", i
	print " };"
	print "int main(int argc, char **argv)\n{\n\tlong rounds = argc > 1 ? atol(argv[1]) : 1000, r;\n\tunsigned x = 1, k = 12345;\n"
	print "\tfor (r = 0; r < rounds; r++) {\n\t\tk = k * 1664525u + 1013904223u;\n\t\tx = fn[(k >> 24) & 31](x);\n\t\tx = fn[32 + ((k >> 16) & 223)](x);\n\t}\n\tsink = x;\n\treturn 0;\n}"
}
