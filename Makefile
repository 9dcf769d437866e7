# softoffload — GNU make build.  All outputs go under $(BUILD) (default build/),
# so several builds (e.g. sanitizer, clang) can coexist: make BUILD=build-san SAN=1
#
#   make                 library (static + shared), CLI, tests, benchmarks
#   make check           install missing Debian packages (as root), run every test
#   make examples        the example programs of examples/ (examples/README.md)
#   make check-sanitize  the unit tests under -fsanitize=address,undefined
#   make coverage        line coverage of src/ by the unit tests (gcovr), in
#                        build-cov/; fails below COVERAGE_MIN
#   make lint            static analysis: cppcheck over src/ and tools/
#   make bench           run the benchmarks
#   make demo            live traffic before/after, tables + JSON + plots (scripts/demo.sh, < 4 min)
#   make demo-long       the same with 5 x 10 s per row and every row (docs/demo.md)
#   make install PREFIX=/usr/local [DESTDIR=...]   (also MANDIR, default PREFIX/share/man;
#                        man3 gets one page per header and a .so link per call)
#   make uninstall PREFIX=... [DESTDIR=...]   removes what install put there
#   make clean

# The version is defined once, in include/softoffload/version.h.
# SOVERSION (the shared library's SONAME, libsoftoffload.so.N) is bumped on
# every ABI change: a public struct's size, layout or alignment, an enum
# value, a call removed or its signature changed.  New calls alone keep it.
# 1: sofl_gro_config grew max_segs and hash_key, struct sofl_rss changed
# alignment, the port API (port.h) was added.
# 2: one checksum-state and one GSO-type enum (values changed), error codes
# renamed and split per cause, sofl_gro_config.size, sofl_gro_get_stats()
# takes a size, sofl_pkt is 192 bytes, struct sofl_rss is opaque.
# 3: the issue-20 API shape (0.4.0): one constructor shape (sized configs,
# *out NULL on error, sofl_rss_create takes a config), one statistics shape
# (get_stats/reset_stats with a size), "_batch" names, "_F_" flags, "_MAX"
# limits, enum-typed fields, the byte accessors in bytes.h; the exported
# symbols are listed, versioned, in softoffload.map.
# make check compares the built library with the last release's ABI
# (abi/libsoftoffload.so.N.abi, tests/abi_check.sh): an incompatible change
# with an unchanged SOVERSION fails.
ver_part   = $(shell sed -n 's/^#define SOFL_VERSION_$(1) *\([0-9]*\)$$/\1/p' include/softoffload/version.h)
VERSION   := $(call ver_part,MAJOR).$(call ver_part,MINOR).$(call ver_part,PATCH)
SOVERSION := 3
BUILD     ?= build
PREFIX    ?= /usr/local
LIBDIR    ?= $(PREFIX)/lib
INCDIR    ?= $(PREFIX)/include
BINDIR    ?= $(PREFIX)/bin
MANDIR    ?= $(PREFIX)/share/man

CC        ?= cc
OPT       ?= -O2
CFLAGS    ?= $(OPT) -g
WARN      := -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CPPFLAGS  += -D_GNU_SOURCE -Iinclude -Isrc
ifeq ($(SAN),1)
CFLAGS    += -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
LDFLAGS   += -fsanitize=address,undefined
endif
ALL_CFLAGS = $(WARN) $(CFLAGS) $(CPPFLAGS) -fPIC -fvisibility=hidden

# Per-ISA files are compiled with their ISA enabled and only called after a
# run-time CPUID check (see src/base/cpu.c).
ARCH := $(shell $(CC) -dumpmachine)
ifneq (,$(findstring x86_64,$(ARCH)))
ISA_avx2   := -mavx2 -mbmi2
ISA_avx512 := -mavx512f -mavx512bw -mavx512vl -mbmi2
ISA_gfni   := -mgfni -mavx512f -mavx512bw -mavx512vl
endif

LIB_SRC   := $(wildcard src/*/*.c)
LIB_OBJ   := $(LIB_SRC:%.c=$(BUILD)/%.o)
TOOL_SRC  := $(wildcard tools/*.c)
TOOL_OBJ  := $(TOOL_SRC:%.c=$(BUILD)/%.o)
TEST_SRC  := $(wildcard tests/test_*.c)
TEST_BIN  := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
TEST_LIB  := $(filter-out $(TEST_SRC),$(wildcard tests/*.c))
TEST_LOBJ := $(TEST_LIB:%.c=$(BUILD)/%.o)
BENCH_SRC := $(wildcard bench/bench_*.c)
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)
BENCH_LIB := $(filter-out $(BENCH_SRC),$(wildcard bench/*.c))
BENCH_LOBJ:= $(BENCH_LIB:%.c=$(BUILD)/%.o)

STATIC    := $(BUILD)/libsoftoffload.a
SHARED    := $(BUILD)/libsoftoffload.so.$(VERSION)
CLI       := $(BUILD)/softoffload

PCAP_LIBS := -lpcap
CMOCKA    := -lcmocka

.PHONY: all lib cli tests benches examples check check-sanitize coverage lint bench demo demo-long install uninstall clean deps deps-demo fuzz
all: lib cli tests benches

lib: $(STATIC) $(SHARED) $(BUILD)/softoffload.pc
cli: $(CLI)
tests: $(TEST_BIN)
benches: $(BENCH_BIN)

# The library's functions and loops start on a 64-byte line: without it a
# change to one function moves the others' hot loops across fetch and
# cache-line boundaries, and rows of bench_vs_dpdk whose code did not
# change moved by up to 15% between builds (docs/benchmarks.md, session 17)
$(LIB_OBJ): ALIGN := -falign-functions=64 -falign-loops=64

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALIGN) $(ISA_$(lastword $(subst _, ,$(basename $(notdir $<))))) -MMD -MP -c $< -o $@

$(STATIC): $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

# softoffload.map: the linker version script, every exported symbol in a
# versioned node (tests/abi_symbols.sh checks it against what SOFL_API marks)
$(SHARED): $(LIB_OBJ) softoffload.map
	$(CC) -shared -Wl,-soname,libsoftoffload.so.$(SOVERSION) \
	    -Wl,--version-script=softoffload.map $(LDFLAGS) -o $@ $(LIB_OBJ)
	ln -sf libsoftoffload.so.$(VERSION) $(BUILD)/libsoftoffload.so.$(SOVERSION)
	ln -sf libsoftoffload.so.$(VERSION) $(BUILD)/libsoftoffload.so

# always regenerated: PREFIX/LIBDIR given on the install command line must
# reach the installed .pc even when the build directory already has one
.PHONY: $(BUILD)/softoffload.pc
$(BUILD)/softoffload.pc: softoffload.pc.in Makefile
	@mkdir -p $(BUILD)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCDIR@|$(INCDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|' $< > $@

$(CLI): $(TOOL_OBJ) $(STATIC)
	$(CC) $(LDFLAGS) -o $@ $(TOOL_OBJ) $(STATIC) $(PCAP_LIBS) -lpthread

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(TEST_LOBJ) $(STATIC)
	$(CC) $(LDFLAGS) -o $@ $< $(TEST_LOBJ) $(STATIC) $(CMOCKA) $(PCAP_LIBS)

# Kernel-oracle programs (tests/kernel/, docs/kernel-oracle.md), driven by
# tests/gro_kernel.sh and tests/gso_kernel.sh: each tests/kernel/<name>.c is
# one binary, linked with kutil.c, the test helpers, the library and libpcap.
KTEST_SRC := $(filter-out tests/kernel/kutil.c,$(wildcard tests/kernel/*.c))
KTEST_BIN := $(KTEST_SRC:tests/kernel/%.c=$(BUILD)/tests/kernel/%)
KTEST_LOBJ:= $(BUILD)/tests/kernel/kutil.o $(BUILD)/tests/helpers.o
tests: $(KTEST_BIN)

$(KTEST_BIN): $(BUILD)/tests/kernel/%: $(BUILD)/tests/kernel/%.o $(KTEST_LOBJ) $(STATIC)
	$(CC) $(LDFLAGS) -o $@ $< $(KTEST_LOBJ) $(STATIC) $(PCAP_LIBS)

$(BUILD)/bench/%: $(BUILD)/bench/%.o $(BENCH_LOBJ) $(STATIC)
	$(CC) $(LDFLAGS) -o $@ $< $(BENCH_LOBJ) $(STATIC) -lm

# The naive one-packet-per-call tunnel make demo's small-packets experiment
# compares the tunnel with (bench/tunnel/: no library, not run by make bench)
PLAIN_TUN := $(BUILD)/bench/plain_tun
benches: $(PLAIN_TUN)
$(PLAIN_TUN): $(BUILD)/bench/tunnel/plain_tun.o
	$(CC) $(LDFLAGS) -o $@ $<

# Side-by-side benchmark against DPDK 22.11 (bench/dpdk/): `make bench-dpdk`,
# built only when pkg-config finds libdpdk (scripts/deps.sh bench installs it);
# `make bench` then runs it with the others.  The DPDK-side files get DPDK's
# own flags (its headers as system headers, so they don't trip -Werror), and
# the header-inline kernels are compiled twice: Debian's -march=corei7 and
# -march=native, because their speed is set by the caller's flags.
HAVE_DPDK := $(shell pkg-config --exists libdpdk 2>/dev/null && echo 1)
DPDK_BIN  := $(BUILD)/bench/bench_vs_dpdk
.PHONY: bench-dpdk
ifeq ($(HAVE_DPDK),1)
DPDK_CFLAGS := $(WARN) -O3 -g -D_GNU_SOURCE -DALLOW_EXPERIMENTAL_API \
	$(patsubst -I%,-isystem %,$(shell pkg-config --cflags libdpdk))
DPDK_LIBS   := $(shell pkg-config --libs libdpdk)
DPDK_OBJ    := $(BUILD)/bench/dpdk/bench_vs_dpdk.o $(BUILD)/bench/dpdk/dpdk_side.o \
	$(BUILD)/bench/dpdk/dpdk_kern_generic.o $(BUILD)/bench/dpdk/dpdk_kern_native.o \
	$(patsubst %.c,$(BUILD)/%.o,$(wildcard bench/dpdk/vs_*.c))

$(BUILD)/bench/dpdk/dpdk_side.o: bench/dpdk/dpdk_side.c
	@mkdir -p $(dir $@)
	$(CC) $(DPDK_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/bench/dpdk/dpdk_kern_generic.o: bench/dpdk/dpdk_kern.c
	@mkdir -p $(dir $@)
	$(CC) $(DPDK_CFLAGS) -DDK_SFX=generic -MMD -MP -c $< -o $@

$(BUILD)/bench/dpdk/dpdk_kern_native.o: bench/dpdk/dpdk_kern.c
	@mkdir -p $(dir $@)
	$(CC) $(DPDK_CFLAGS) -march=native -DDK_NATIVE -DDK_SFX=native -MMD -MP -c $< -o $@

$(DPDK_BIN): $(DPDK_OBJ) $(BENCH_LOBJ) $(BUILD)/tests/helpers.o $(STATIC)
	$(CC) $(LDFLAGS) -o $@ $(DPDK_OBJ) $(BENCH_LOBJ) $(BUILD)/tests/helpers.o $(STATIC) \
	    $(DPDK_LIBS) -lm

bench-dpdk: $(DPDK_BIN)
bench: bench-dpdk
# make all (and so make check) builds it too: tests/bench_smoke.sh runs it
benches: $(DPDK_BIN)
else
bench-dpdk:
	@echo "bench-dpdk: libdpdk not found by pkg-config (scripts/deps.sh bench installs it)"
endif

# examples/ (examples/README.md): one program per file, built as a user
# would build it (-std=c11 -Wall -Wextra -Werror, the installed headers, the
# static library).  Only examples link OpenSSL (vpn: libcrypto, libssl-dev)
# or ipsec-mb, never the library.  make check builds them; tests/vpn.sh runs vpn.
EX_SRC    := $(wildcard examples/*.c)
EX_BIN    := $(EX_SRC:examples/%.c=$(BUILD)/examples/%)
EX_LIBS_vpn := -lcrypto
# vpn's AEAD goes through Intel's ipsec-mb where its header is found
# (Debian's libipsec-mb-dev, amd64 only; scripts/deps.sh installs it there)
EX_IPSEC_MB := $(shell printf '\043include <intel-ipsec-mb.h>\n' | $(CC) -E -x c - >/dev/null 2>&1 && echo 1)
ifeq ($(EX_IPSEC_MB),1)
EX_CFLAGS_vpn := -DHAVE_IPSEC_MB
EX_LIBS_vpn   += -lIPSec_MB
endif
examples: $(EX_BIN)
$(BUILD)/examples/vpn: examples/vpn_aead.h

$(BUILD)/examples/%: examples/%.c $(STATIC)
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -Wall -Wextra -Werror $(CFLAGS) $(EX_CFLAGS_$*) -Iinclude $(LDFLAGS) \
	    -o $@ $< $(STATIC) \
	    $(EX_LIBS_$*) -lpthread

deps:
	@scripts/deps.sh check

deps-demo:
	@scripts/deps.sh demo

check: deps
	$(MAKE) all examples
	BUILD=$(BUILD) scripts/run-tests.sh

check-sanitize: deps
	$(MAKE) BUILD=$(BUILD)-san SAN=1 OPT=-O1 lib tests cli
	BUILD=$(BUILD)-san SANITIZE=1 scripts/run-tests.sh

bench: all
	BUILD=$(BUILD) scripts/run-bench.sh

# Line coverage of src/ (the library only) by the unit tests, built with
# --coverage at -O0 in its own COV_BUILD (scripts/coverage.sh: gcovr's table
# in $(COV_BUILD)/coverage.txt).  Fails when the total is below COVERAGE_MIN,
# the figure README.md states: raise both together when the tests grow.
COVERAGE_MIN := 88.0
COV_BUILD    ?= build-cov
coverage: deps
	$(MAKE) BUILD=$(COV_BUILD) CFLAGS="-O0 -g --coverage" LDFLAGS=--coverage lib cli tests
	COV_BUILD=$(COV_BUILD) COVERAGE_MIN=$(COVERAGE_MIN) scripts/coverage.sh

# Static analysis of the library and the CLI: warnings, portability and
# performance findings fail.  A false positive is suppressed where it is,
# with the reason: /* cppcheck-suppress <id> ; why */ on the line before.
lint: deps
	cppcheck -q --std=c11 -D_GNU_SOURCE -D__GNUC__ -Iinclude -Isrc \
	    --enable=warning,portability,performance --inline-suppr --error-exitcode=1 -j2 src tools
	@echo "lint: cppcheck clean over src/ and tools/"

# 10-minute soak of softoffload tunnel (make check runs the 60-second one)
.PHONY: soak
soak: cli
	SOAK_TIME=$${SOAK_TIME:-600} BUILD=$(BUILD) sh tests/soak.sh

# the build is part of the demo's 4 minutes: two jobs (the machine class
# has 2 vCPUs)
demo: deps-demo
	$(MAKE) -j2 lib cli benches examples
	BUILD=$(BUILD) scripts/demo.sh

demo-long: deps-demo
	$(MAKE) -j2 lib cli benches examples
	DEMO_LONG=1 BUILD=$(BUILD) scripts/demo.sh

install: lib cli
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCDIR)/softoffload $(DESTDIR)$(BINDIR)
	install -m 644 include/softoffload/*.h $(DESTDIR)$(INCDIR)/softoffload/
	install -m 644 $(STATIC) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(SHARED) $(DESTDIR)$(LIBDIR)/
	ln -sf libsoftoffload.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libsoftoffload.so.$(SOVERSION)
	ln -sf libsoftoffload.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libsoftoffload.so
	install -m 644 $(BUILD)/softoffload.pc $(DESTDIR)$(LIBDIR)/pkgconfig/
	install -m 755 $(CLI) $(DESTDIR)$(BINDIR)/
	install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3
	install -m 644 man/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 man/*.3 $(DESTDIR)$(MANDIR)/man3/
	sh docs/gen-api.sh --man-links $(DESTDIR)$(MANDIR)/man3

# removes every file install put there (directories shared with other
# software, such as lib/pkgconfig or share/man/man3, stay)
uninstall:
	rm -f $(addprefix $(DESTDIR)$(INCDIR)/softoffload/,$(notdir $(wildcard include/softoffload/*.h)))
	-rmdir $(DESTDIR)$(INCDIR)/softoffload
	rm -f $(DESTDIR)$(LIBDIR)/libsoftoffload.a $(DESTDIR)$(LIBDIR)/libsoftoffload.so.$(VERSION) \
	      $(DESTDIR)$(LIBDIR)/libsoftoffload.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libsoftoffload.so \
	      $(DESTDIR)$(LIBDIR)/pkgconfig/softoffload.pc $(DESTDIR)$(BINDIR)/softoffload
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(wildcard man/*.1))) \
	      $(addprefix $(DESTDIR)$(MANDIR)/man3/,$(notdir $(wildcard man/*.3)))
	sh docs/gen-api.sh --links | while read -r call page; do \
	    rm -f "$(DESTDIR)$(MANDIR)/man3/$$call.3"; done

# ---- fuzzing: clang libFuzzer harnesses fuzz/fuzz_*.c (not part of make check) ----
#   make fuzz                  build build-fuzz/fuzz/fuzz_* (library instrumented too)
#   make fuzz-run FUZZ_TIME=60 run each harness FUZZ_TIME seconds (fuzz/run.sh)
FUZZ_BUILD ?= build-fuzz
FUZZ_TIME  ?= 60
FUZZ_CC    ?= clang
FUZZ_SAN   := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_BIN    = $(patsubst fuzz/%.c,$(BUILD)/fuzz/%,$(wildcard fuzz/fuzz_*.c))

.PHONY: fuzz-bins fuzz-run
fuzz:
	$(MAKE) BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) CFLAGS="$(FUZZ_SAN) -fsanitize=fuzzer-no-link" \
		LDFLAGS="-fsanitize=address,undefined" fuzz-bins

fuzz-bins: $(FUZZ_BIN) $(BUILD)/fuzz/seeds

$(BUILD)/fuzz/fuzz_%: $(BUILD)/fuzz/fuzz_%.o $(STATIC)
	$(CC) $(LDFLAGS) -fsanitize=fuzzer -o $@ $< $(STATIC)

# the tunnel's receive checks live in tools/ (tunnel_hdr.c)
$(BUILD)/fuzz/fuzz_tunnel_rx: $(BUILD)/fuzz/fuzz_tunnel_rx.o $(BUILD)/tools/tunnel_hdr.o $(STATIC)
	$(CC) $(LDFLAGS) -fsanitize=fuzzer -o $@ $^

$(BUILD)/fuzz/seeds: $(BUILD)/fuzz/seeds.o $(BUILD)/tests/helpers.o $(BUILD)/tests/encap_build.o \
	$(BUILD)/tests/helpers_encap.o $(STATIC)
	$(CC) $(LDFLAGS) -o $@ $^

fuzz-run: fuzz
	FUZZ_BUILD=$(FUZZ_BUILD) FUZZ_TIME=$(FUZZ_TIME) fuzz/run.sh

clean:
	rm -rf build build-*

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
