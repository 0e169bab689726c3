# cachepin-profile 3
event cpu-clock
binary d
build-id -
granule 16
samples 20 8
period 5000000 2000000
o libc.so.6 10 2500000 0x7f435d054000
o [kernel.kallsyms] 2 500000 -
f crunch - 2000000 8 2000000 96
g 0x10 1500000
g 0x20 500000
f [libc.so.6+0x3f000] - 2500000 10 2500000 4096
g 0x960 2000000
g 0x970 500000
