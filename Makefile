# SPDX-License-Identifier: GPL-2.0-or-later
# cachepin: plain GNU make.  `make V=1` shows the commands.

VERSION := 0.1.0

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share/cachepin
DESTDIR ?=
INSTALL ?= install

# CROSS_COMPILE=arm-linux-gnueabihf- builds with that toolchain (as the
# kernel's and libbpf's Makefiles); CC, AR and PKG_CONFIG from the command
# line or the environment win.
ifeq ($(origin CC),default)
CC = $(CROSS_COMPILE)gcc
endif
ifeq ($(origin AR),default)
AR = $(CROSS_COMPILE)ar
endif
PKG_CONFIG ?= $(CROSS_COMPILE)pkg-config

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

# CFLAGS and LDFLAGS are the user's; what this Makefile needs goes into
# ALL_CFLAGS and ALL_LDFLAGS, so that `make SANITIZE=address CFLAGS=-O1`
# still sanitizes.
CFLAGS ?= -g -O2
WARNINGS := -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
	-Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla -Wformat=2
ifeq ($(DEVELOPER),1)
WARNINGS += -Werror
endif
ifneq ($(SANITIZE),)
SAN_CFLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer
SAN_LDFLAGS := -fsanitize=$(SANITIZE)
endif

# libelf and libzstd ship a .pc; libdwarf (Debian 12) and libbfd do not.
PC_CFLAGS := $(shell $(PKG_CONFIG) --cflags libelf libzstd 2>/dev/null)
PC_LIBS := $(shell $(PKG_CONFIG) --libs libelf libzstd 2>/dev/null || echo -lelf -lzstd)
DWARF_CFLAGS ?= $(shell test -d /usr/include/libdwarf && echo -I/usr/include/libdwarf)
DWARF_LIBS ?= -ldwarf -lz
# A libbfd that knows ARM and MIPS relocations, and its libopcodes (the x86
# decoder of the model's straight-line runs): Debian's binutils-multiarch-dev.
# The probe compiles a program, so it runs when something is first linked,
# and build/bfd-libs keeps its answer until the Makefile changes (`make
# clean` after changing CC).  BFD_LIBS=... skips it.
ifeq ($(origin BFD_LIBS),undefined)
BFD_PROBE := build/bfd-libs
BFD_LIBS = $(file < $(BFD_PROBE))
endif

ALL_CFLAGS := -std=gnu11 $(WARNINGS) -Iinclude -Isrc/lib $(PC_CFLAGS) $(DWARF_CFLAGS) \
	-D_GNU_SOURCE -DCACHEPIN_VERSION='"$(VERSION)"' -D_FILE_OFFSET_BITS=64 -pthread $(CFLAGS) \
	$(SAN_CFLAGS)
ALL_LDFLAGS := $(SAN_LDFLAGS) $(LDFLAGS)
ALL_LDLIBS = $(BFD_LIBS) $(DWARF_LIBS) $(PC_LIBS) -lm -pthread $(LDLIBS)

LIB_SRCS := $(sort $(wildcard src/lib/*.c src/lib/*/*.c))
TOOL_SRCS := $(sort $(wildcard src/tool/*.c))
UNIT_SRCS := $(sort $(wildcard tests/unit/*.c))
TTOOL_SRCS := $(sort $(wildcard tests/tools/*.c))

LIB_OBJS := $(LIB_SRCS:src/%.c=build/%.o)
TOOL_OBJS := $(TOOL_SRCS:src/%.c=build/%.o)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=build/tests/unit/%)
TTOOL_BINS := $(TTOOL_SRCS:tests/tools/%.c=build/tests/tools/%)
BENCH_BINS := build/bench/c3
# programs built from one source file each, linked against the library
PROGS := $(UNIT_BINS) $(TTOOL_BINS) $(BENCH_BINS)
DEPS := $(LIB_OBJS:.o=.d) $(TOOL_OBJS:.o=.d) $(PROGS:=.d)

LIB := build/libcachepin.a
BIN := cachepin
MANS := $(wildcard man/*.1 man/*.5)

.DELETE_ON_ERROR:
.PHONY: all clean check check-kernel test-progs install uninstall demo deps bench bench-quick hdr-check fuzz fuzz-replay

all: $(BIN)

# build/flags holds the flags the objects were built with: when they
# change (SANITIZE=..., DEVELOPER=1, other CFLAGS), everything is built
# again, as git's GIT-CFLAGS does.
BUILD_FLAGS := $(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS)
ifneq ($(filter-out clean,$(MAKECMDGOALS))$(if $(MAKECMDGOALS),,all),)
ifneq ($(BUILD_FLAGS),$(file < build/flags))
$(shell mkdir -p build)
$(file > build/flags,$(BUILD_FLAGS))
endif
endif

$(LIB_OBJS) $(TOOL_OBJS) $(PROGS): build/flags
build/flags: ;

$(BIN): $(TOOL_OBJS) $(LIB) build/flags | $(BFD_PROBE)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $(TOOL_OBJS) $(LIB) $(ALL_LDLIBS)

$(LIB): $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

build/bfd-libs: Makefile
	@mkdir -p $(dir $@)
	$(call msg,PROBE,$@)
	$(Q)for l in -multiarch ''; do \
		if echo 'int main(void){return 0;}' | \
			$(CC) -x c - -o /dev/null -lopcodes$$l -lbfd$$l 2>/dev/null; \
		then echo -lopcodes$$l -lbfd$$l; break; fi; done > $@

build/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

# unit tests (tests/unit), test tools (tests/tools), bench programs (bench)
$(PROGS): build/%: %.c $(LIB) | $(BFD_PROBE)
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -o $@ $< $(LIB) $(ALL_LDLIBS) $(ALL_LDFLAGS)

test-progs: $(BIN) $(PROGS)

# The README's test command.  Installs what the tests need (Debian), checks
# that every public header compiles alone, then runs the unit tests and
# every tests/run-*.sh, as many at a time as make's -j says; each test's
# output is in tests/out/NAME.log.
check:
	$(Q)scripts/install-deps --test
	$(Q)$(MAKE) --no-print-directory test-progs hdr-check
	$(Q)tests/run-all.sh

# The kernel lab (tests/kernel/lab.sh): ARM32 and MIPS kernels built,
# planned, relinked and booted under QEMU; 30 minutes or more, so not part
# of check.  KERNEL_LAB is its work directory.
KERNEL_LAB ?= build/kernel-lab
check-kernel:
	$(Q)scripts/install-deps --kernel
	$(Q)$(MAKE) --no-print-directory test-progs
	$(Q)tests/kernel/lab.sh $(KERNEL_LAB)

# The README's main job: score and plan the shipped example.
demo:
	$(Q)scripts/install-deps
	$(Q)$(MAKE) --no-print-directory $(BIN)
	$(Q)examples/demo.sh

# Layout quality, stability and tool speed against the alternatives
# (bench/): about 60 minutes; results in bench/results.  bench-quick: one
# program, one cache size, a few minutes.
bench: $(BIN) $(TTOOL_BINS) $(BENCH_BINS)
	$(Q)scripts/install-deps --bench
	$(Q)bench/run.sh
	$(Q)bench/run.sh --recordings
	$(Q)bench/speed.sh
	$(Q)bench/synth.sh

bench-quick: $(BIN) $(BENCH_BINS)
	$(Q)scripts/install-deps --bench
	$(Q)bench/run.sh --quick

# Fuzz targets (tests/fuzz): each parser under libFuzzer with ASan and
# UBSan, built with clang into build/fuzz; `make fuzz` runs each for
# FUZZ_SECONDS (default 60) on its corpus in build/fuzz/corpus; findings
# land in build/fuzz/crash-*.  `make fuzz-replay` builds the targets with
# $(CC) and no libFuzzer (tests/fuzz/replay.c) and replays the corpora.
FUZZ_CC ?= clang
FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz-*.c))
FUZZ_NAMES := $(FUZZ_SRCS:tests/fuzz/fuzz-%.c=%)
FUZZ_CFLAGS = -std=gnu11 -g -O1 -Iinclude -Isrc/lib -Itests/fuzz $(PC_CFLAGS) $(DWARF_CFLAGS) \
	-D_GNU_SOURCE -DCACHEPIN_VERSION='"$(VERSION)"' -D_FILE_OFFSET_BITS=64 -pthread \
	-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_LIB_OBJS := $(LIB_SRCS:src/lib/%.c=build/fuzz/lib/%.o)
# the reports' writers, for fuzz-json
FUZZ_TOOL_SRCS := src/tool/json.c src/tool/utf8.c
FUZZ_TOOL_OBJS := $(FUZZ_TOOL_SRCS:src/tool/%.c=build/fuzz/tool/%.o)
.SECONDARY: $(FUZZ_TOOL_OBJS)

build/fuzz/tool/%.o: src/tool/%.c
	@mkdir -p $(dir $@)
	$(call msg,FUZZCC,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -Isrc/tool -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<

build/fuzz/lib/%.o: src/lib/%.c
	@mkdir -p $(dir $@)
	$(call msg,FUZZCC,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<

build/fuzz/libcachepin.a: $(FUZZ_LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

build/fuzz/fuzz-%: tests/fuzz/fuzz-%.c tests/fuzz/fuzz.h build/fuzz/libcachepin.a $(FUZZ_TOOL_OBJS) | $(BFD_PROBE)
	$(call msg,FUZZLD,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -Isrc/tool -fsanitize=fuzzer -o $@ $< $(FUZZ_TOOL_OBJS) \
		build/fuzz/libcachepin.a $(ALL_LDLIBS)

build/fuzz/replay-%: tests/fuzz/fuzz-%.c tests/fuzz/replay.c tests/fuzz/fuzz.h $(FUZZ_TOOL_SRCS) $(LIB) | $(BFD_PROBE)
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -Itests/fuzz -Isrc/tool -o $@ $< tests/fuzz/replay.c $(FUZZ_TOOL_SRCS) $(LIB) \
		$(ALL_LDLIBS) $(ALL_LDFLAGS)

fuzz:
	$(Q)scripts/install-deps --fuzz
	$(Q)$(MAKE) --no-print-directory test-progs $(FUZZ_NAMES:%=build/fuzz/fuzz-%)
	$(Q)tests/fuzz/run.sh

fuzz-replay: $(FUZZ_NAMES:%=build/fuzz/replay-%)
	$(Q)for t in $(FUZZ_NAMES); do \
		c=build/fuzz/corpus/$$t; [ -d $$c ] || c=tests/fuzz/seeds/$$t; [ -d $$c ] || continue; \
		printf '%s: ' $$t; build/fuzz/replay-$$t $$c/* || exit 1; done

deps:
	$(Q)scripts/install-deps --test

hdr-check:
	$(Q)for h in include/cachepin/*.h; do \
		echo "#include \"$${h#include/}\"" | $(CC) $(ALL_CFLAGS) -x c -fsyntax-only - || exit 1; done

install: $(BIN)
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(DATADIR)/examples
	$(INSTALL) -m 755 $(BIN) $(DESTDIR)$(BINDIR)/$(BIN)
	$(INSTALL) -m 755 contrib/kbuild/cachepin-kbuild $(DESTDIR)$(BINDIR)/cachepin-kbuild
	for m in $(MANS); do case $$m in *.1) d=man1;; *.5) d=man5;; esac; \
		$(INSTALL) -m 644 $$m $(DESTDIR)$(MANDIR)/$$d/; done
	cp -R examples/. $(DESTDIR)$(DATADIR)/examples/
	sed 's|^bindir=$$|bindir=$(BINDIR)|' examples/demo.sh > $(DESTDIR)$(DATADIR)/examples/demo.sh
	$(INSTALL) -d $(DESTDIR)$(DATADIR)/kbuild
	cp -R contrib/kbuild/. $(DESTDIR)$(DATADIR)/kbuild/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/$(BIN) $(DESTDIR)$(BINDIR)/cachepin-kbuild
	for m in $(MANS); do case $$m in *.1) d=man1;; *.5) d=man5;; esac; \
		rm -f $(DESTDIR)$(MANDIR)/$$d/$${m#man/}; done
	rm -rf $(DESTDIR)$(DATADIR)

clean:
	rm -rf build $(BIN) tests/out

-include $(DEPS)
