# SPDX-License-Identifier: GPL-2.0-only
#
# ringcap build. Every artefact goes under $(O) (default build/).
#   make            build build/ringcap
#   make check      build with ASan+UBSan in $(O)-san and run every test
#   make vmtest     the kernel matrix: the guest tests on Debian's kernels, under qemu
#   make ARCH=arm64 a static arm64 cross build in build-arm64 (vmtest too)
#   make static     static ringcaps: x86-64 in build-static, arm64 in build-arm64
#   make install    PREFIX=/usr/local DESTDIR= (and make uninstall)
#   make V=1        show the commands

HOST_ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' \
	-e 's/ppc64le/powerpc/' -e 's/s390x/s390/' -e 's/riscv64/riscv/')
# ARCH=arm64 on an x86 host cross-builds, statically, into build-arm64/,
# against a vmlinux.h made from Debian's arm64 kernel package.
ARCH ?= $(HOST_ARCH)
CROSS := $(if $(filter $(HOST_ARCH),$(ARCH)),,$(ARCH))
MULTIARCH_arm64 := aarch64-linux-gnu
MULTIARCH_x86 := x86_64-linux-gnu
MULTIARCH := $(or $(MULTIARCH_$(ARCH)),$(shell uname -m)-linux-gnu)

O ?= $(if $(CROSS),build-$(ARCH),build)
OUTPUT := $(abspath $(O))
PREFIX ?= /usr/local
DESTDIR ?=
# The one version: --version, the man pages, the package (NEWS says what each added)
VERSION := 0.4.1
# git describe of the source tree when it is a git checkout of its own
# (not a tarball unpacked inside another repository); RINGCAP_GIT= leaves it out
ifeq ($(origin RINGCAP_GIT),undefined)
RINGCAP_GIT := $(shell [ "$$(git -C '$(CURDIR)' rev-parse --show-toplevel 2>/dev/null)" = \
	'$(CURDIR)' ] && git -C '$(CURDIR)' describe --tags --always --dirty 2>/dev/null)
endif
# the capture format's major.minor (lib/format/format.h), for --version
RC_FORMAT := $(shell sed -n 's/^\#define RC_VERSION_MAJOR[ \t]*\([0-9]*\).*/\1/p' lib/format/format.h).$(shell \
	sed -n 's/^\#define RC_VERSION_MINOR[ \t]*\([0-9]*\).*/\1/p' lib/format/format.h)

ifneq ($(CROSS),)
CROSS_COMPILE ?= $(MULTIARCH)-
CC := $(CROSS_COMPILE)gcc
STATIC ?= 1
export PKG_CONFIG_LIBDIR ?= /usr/lib/$(MULTIARCH)/pkgconfig:/usr/share/pkgconfig
VMLINUX_H ?= $(OUTPUT)/vmlinux-$(ARCH).h
endif
CC ?= cc
CLANG ?= clang
BPFTOOL ?= bpftool
PKG_CONFIG ?= pkg-config
RST2MAN ?= rst2man

# VMLINUX_H: a vmlinux.h to use instead of dumping the running kernel's BTF.
VMLINUX_H ?=

SAN ?= 0
STATIC ?= 0
WERROR ?= 1
CFLAGS ?= -g -O2
WARNINGS := -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror) -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wno-unused-parameter -Wno-missing-field-initializers
comma := ,
SAN_FLAGS := $(if $(filter 1,$(SAN)),-fsanitize=address$(comma)undefined \
	-fno-sanitize-recover=all -fno-omit-frame-pointer)
PC_STATIC := $(if $(filter 1,$(STATIC)),--static)
ALL_CFLAGS := $(CFLAGS) $(WARNINGS) $(SAN_FLAGS) -std=gnu11 -D_GNU_SOURCE -pthread \
	-DRINGCAP_VERSION='"$(VERSION)"' -I$(OUTPUT) -Ilib -Ibpf \
	$(if $(filter 1,$(STATIC)),-DRC_NO_DLOPEN) \
	$(shell $(PKG_CONFIG) --cflags libbpf libdw libzstd zlib libxxhash 2>/dev/null) -MMD -MP
ALL_LDFLAGS := $(LDFLAGS) $(SAN_FLAGS) -pthread $(if $(filter 1,$(STATIC)),-static)
LIBS := $(shell $(PKG_CONFIG) $(PC_STATIC) --libs libbpf libdw libzstd zlib libxxhash 2>/dev/null || \
	echo -lbpf -ldw -lzstd -lz -lxxhash) -lelf -lpthread -lm

# libipt (Intel PT packets, lib/decode/ipt.c): Debian has it for x86 only
# (no libipt-dev:arm64), as a shared library only (no libipt.a for
# STATIC=1), and with no pkg-config file. HAVE_LIBIPT=1 when a program
# that uses it links with this build's compiler and flags; HAVE_LIBIPT=0
# builds the stub, whose rc_ipt__summarize() returns -EOPNOTSUPP.
hash := \#
ifeq ($(origin HAVE_LIBIPT),undefined)
HAVE_LIBIPT := $(shell printf '%s\n' '$(hash)include <intel-pt.h>' \
	'int main(void) { pt_pkt_free_decoder(0); return 0; }' | \
	$(CC) -x c - $(if $(filter 1,$(STATIC)),-static) -lipt -o /dev/null >/dev/null 2>&1 && \
	echo 1 || echo 0)
endif
ifeq ($(HAVE_LIBIPT),1)
ALL_CFLAGS += -DHAVE_LIBIPT
LIBS += -lipt
endif

# libcurl (ringcap export: ClickHouse's HTTP interface, lib/output/
# clickhouse_http.c): compiled against Debian's libcurl4-openssl-dev, for
# its types and constants, but not linked: export loads libcurl.so.4 with
# dlopen() when it first talks to a server, so that no other command pays
# 6-8 ms of CPU a start to link libcurl and its dependencies (make
# bench-start). NO_CURL=1 builds without it: export then prints --schema
# only. A static build (STATIC=1: make static, the arm64 cross build) has
# no dlopen() and is always without it; --version says so.
NO_CURL ?= 0
ifeq ($(STATIC),1)
override NO_CURL := 1
endif
ifeq ($(NO_CURL),1)
ALL_CFLAGS += -DRC_NO_CURL
else
ALL_CFLAGS += $(shell $(PKG_CONFIG) --cflags libcurl 2>/dev/null)
endif

# libtraceevent (report --format perf-script renders tracepoints by the
# kernel's print format, lib/output/tepfmt.c): Debian's libtraceevent-dev,
# which ships libtraceevent.a too (static and arm64 builds take it).
# NO_LIBTRACEEVENT=1, or no pkg-config file for it, builds without it:
# those tracepoints show field=value; --version says so.
NO_LIBTRACEEVENT ?= $(if $(shell $(PKG_CONFIG) --exists libtraceevent 2>/dev/null && echo y),0,1)
ifeq ($(NO_LIBTRACEEVENT),0)
TEP_CFLAGS := -DHAVE_LIBTRACEEVENT $(shell $(PKG_CONFIG) --cflags libtraceevent)
ALL_CFLAGS += $(TEP_CFLAGS)
LIBS += $(shell $(PKG_CONFIG) $(PC_STATIC) --libs libtraceevent)
endif

BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -I$(OUTPUT) -Ibpf -Ilib \
	-Wall -Werror -MMD -MP
# BPF_EXTRA_CFLAGS: for the BPF objects only (debian/rules maps the build's
# path away, which their BTF line info would otherwise name)
BPF_CFLAGS += $(BPF_EXTRA_CFLAGS)

BPF_NAMES := syscalls sched follow dyn profile offcpu
# each also as a compat object, for kernels without what the default one
# uses (bpf/common.bpf.h, RC_COMPAT; lib/capture/bpf/compat.c)
SKELS := $(patsubst %,$(OUTPUT)/%.skel.h,$(BPF_NAMES)) \
	$(patsubst %,$(OUTPUT)/%.compat.skel.h,$(BPF_NAMES))
# lib/ in layers, a folder each (README, Layout); sources by folder.
LIB_DIRS := util format decode tracefs symbol output capture capture/perf capture/bpf capture/ftrace
LIB_SRCS := $(foreach d,$(LIB_DIRS),$(wildcard lib/$(d)/*.c))
LIB_OBJS := $(patsubst lib/%.c,$(OUTPUT)/lib/%.o,$(LIB_SRCS)) $(OUTPUT)/lib/syscall_names.o
# only the files that include a BPF skeleton wait for them
SKEL_USERS := $(patsubst lib/%.c,$(OUTPUT)/lib/%.o,$(shell grep -l '\.skel\.h"' $(LIB_SRCS)))
CMD_OBJS := $(patsubst cmd/%.c,$(OUTPUT)/cmd/%.o,$(wildcard cmd/*.c))
TEST_OBJS := $(patsubst tests/%.c,$(OUTPUT)/tests/%.o,$(filter-out tests/workload.c tests/profwork.c tests/profdl.c tests/entrylib.c,$(wildcard tests/*.c)))
MAN_SRCS := $(wildcard man/*.rst)
MANS := $(patsubst man/%.rst,$(OUTPUT)/man/%,$(MAN_SRCS))

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(patsubst $(OUTPUT)/%,%,$(2))";
endif

.DELETE_ON_ERROR:
.SECONDARY:
.PHONY: FORCE static all check test clean install uninstall man demo fuzz fuzz-reader fuzz-ipt fuzz-long valgrind mutate bench bench-burst bench-profile bench-range bench-start bench-decode bench-export vmtest vmtest-all vmtest-ci

# BPF objects of users' kind: the examples, and the tests' own (record --bpf)
USER_BPF := $(patsubst examples/%.bpf.c,$(OUTPUT)/examples/%.bpf.o,$(wildcard examples/*.bpf.c)) \
	$(patsubst tests/bpf/%.bpf.c,$(OUTPUT)/tests/bpf/%.bpf.o,$(wildcard tests/bpf/*.bpf.c))

all: $(OUTPUT)/ringcap $(OUTPUT)/test_progs $(OUTPUT)/rc_workload $(OUTPUT)/rc_prof $(OUTPUT)/rc_prof_nofp $(OUTPUT)/librc_prof_dl.so $(OUTPUT)/librc_entry.so \
	$(OUTPUT)/rc_load $(OUTPUT)/rc_floor $(OUTPUT)/rc_wbench man $(USER_BPF)

$(OUTPUT) $(OUTPUT)/lib $(OUTPUT)/cmd $(OUTPUT)/tests $(OUTPUT)/man:
	$(Q)mkdir -p $@

# SKEL_FROM: another build directory of this tree whose BPF skeletons and
# vmlinux.h this one copies rather than makes again (make check's sanitizer
# build takes $(O)'s, just built: BPF_CFLAGS have no CFLAGS or SAN, so the
# bytes are the same; some 30 s of CPU in CI). Each skeleton's .d comes
# along, renamed, so that a later build here without SKEL_FROM remakes it
# when a header it was made from changes.
# Copied as they are: build SKEL_FROM first (make check does). A tree not
# built yet: nothing copied, everything made here.
ifneq ($(wildcard $(SKEL_FROM)/vmlinux.h),)
SKEL_FROM_DIR := $(abspath $(SKEL_FROM))
VMLINUX_H := $(or $(VMLINUX_H),$(SKEL_FROM_DIR)/vmlinux.h)
define copy_skel
	$(call msg,CP,$@)
	$(Q)mkdir -p $(@D) && cp $< $@
	$(Q)d=$(patsubst $(OUTPUT)/%,$(SKEL_FROM_DIR)/%,$(@:.skel.h=.tmp.bpf.d)); \
		if [ -f $$d ]; then \
		sed 's|$(SKEL_FROM_DIR)/|$(OUTPUT)/|g' $$d > $(@:.skel.h=.tmp.bpf.d); fi
endef
$(OUTPUT)/%.compat.skel.h: $(SKEL_FROM_DIR)/%.compat.skel.h $(OUTPUT)/vmlinux.h
	$(copy_skel)
$(OUTPUT)/%.skel.h: $(SKEL_FROM_DIR)/%.skel.h $(OUTPUT)/vmlinux.h
	$(copy_skel)
endif

ifeq ($(VMLINUX_H),)
$(OUTPUT)/vmlinux.h: | $(OUTPUT)
	$(call msg,GEN,$@)
	$(Q)$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@
else
ifneq ($(CROSS),)
$(OUTPUT)/vmlinux-$(ARCH).h: scripts/vmlinux-h.sh | $(OUTPUT)
	$(call msg,GEN,$@)
	$(Q)scripts/vmlinux-h.sh $(ARCH) $@
endif
$(OUTPUT)/vmlinux.h: $(VMLINUX_H) | $(OUTPUT)
	$(call msg,CP,$@)
	$(Q)cp $< $@
endif

$(OUTPUT)/%.tmp.bpf.o: bpf/%.bpf.c $(OUTPUT)/vmlinux.h | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUTPUT)/%.bpf.o: $(OUTPUT)/%.tmp.bpf.o
	$(call msg,GEN-OBJ,$@)
	$(Q)$(BPFTOOL) gen object $@ $<

$(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $*_bpf > $@

$(OUTPUT)/%.compat.tmp.bpf.o: bpf/%.bpf.c $(OUTPUT)/vmlinux.h | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -DRC_COMPAT -c $< -o $@

# The compat skeleton has the default one's name and struct, so the loader
# opens either into one pointer (compat.c): refused here if they differ.
$(OUTPUT)/%.compat.skel.h: $(OUTPUT)/%.compat.bpf.o $(OUTPUT)/%.skel.h
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $*_bpf > $@.tmp
	$(Q)sed -n '/^struct $*_bpf {/,/^};/p' $(OUTPUT)/$*.skel.h > $@.a
	$(Q)sed -n '/^struct $*_bpf {/,/^};/p' $@.tmp > $@.b
	$(Q)if ! cmp -s $@.a $@.b; then \
		echo "$@: the compat object's maps, programs or globals differ from $*.bpf.o's:" >&2; \
		diff $@.a $@.b >&2; rm -f $@.a $@.b $@.tmp; exit 1; fi
	$(Q)rm -f $@.a $@.b && mv $@.tmp $@

# As the README tells users to build theirs: UAPI headers only, -g for BTF.
# Debian keeps <asm/types.h> under the multiarch directory.
UAPI_ASM := -I/usr/include/$(MULTIARCH)
$(OUTPUT)/examples/%.bpf.o: examples/%.bpf.c
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) -g -O2 -target bpf $(UAPI_ASM) -Wall -Werror -MMD -MP -c $< -o $@

# the tests' own: some use vmlinux.h
$(OUTPUT)/tests/bpf/%.bpf.o: tests/bpf/%.bpf.c $(OUTPUT)/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) $(UAPI_ASM) -I$(OUTPUT) -Wall \
		-Werror -MMD -MP -c $< -o $@

# The syscall names of the build machine, stored into every capture so that
# report decodes them anywhere.
$(OUTPUT)/lib/syscall_names.c: scripts/gen-syscalls.sh | $(OUTPUT)/lib
	$(call msg,GEN,$@)
	$(Q)CC="$(CC)" sh scripts/gen-syscalls.sh > $@

$(SKEL_USERS): | $(SKELS)

$(OUTPUT)/lib/%.o: lib/%.c | $(OUTPUT)/lib
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

$(OUTPUT)/lib/syscall_names.o: $(OUTPUT)/lib/syscall_names.c
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

$(OUTPUT)/libringcap.a: $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(OUTPUT)/cmd/%.o: cmd/%.c | $(OUTPUT)/cmd
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

# What --version says of this build: rewritten only when it changes, so
# that a new commit rebuilds version.o and no more.
$(OUTPUT)/version.h: FORCE | $(OUTPUT)
	$(Q)printf '%s\n' '#define RC_BUILD_VERSION "$(VERSION)"' '#define RC_BUILD_GIT "$(RINGCAP_GIT)"' \
		'#define RC_BUILD_FORMAT "$(RC_FORMAT)"' > $@.tmp
	$(Q)if cmp -s $@ $@.tmp; then rm -f $@.tmp; else mv $@.tmp $@; fi

$(OUTPUT)/cmd/version.o $(OUTPUT)/tests/test_version.o: $(OUTPUT)/version.h

# the version alone, for what shows it but not git describe (the man pages)
$(OUTPUT)/VERSION: FORCE | $(OUTPUT)
	$(Q)echo '$(VERSION)' > $@.tmp
	$(Q)if cmp -s $@ $@.tmp; then rm -f $@.tmp; else mv $@.tmp $@; fi

FORCE:

$(OUTPUT)/ringcap: $(CMD_OBJS) $(OUTPUT)/libringcap.a
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) $^ $(LIBS) -o $@

$(OUTPUT)/tests/%.o: tests/%.c | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -Itests -c $< -o $@

$(OUTPUT)/test_progs: $(TEST_OBJS) $(OUTPUT)/libringcap.a
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) $^ $(LIBS) -o $@

# The test workload is built without sanitizers: it must make exactly the
# syscalls it is asked for, and nothing an ASan runtime adds on its own.
$(OUTPUT)/rc_workload: tests/workload.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(WARNINGS) -std=gnu11 -D_GNU_SOURCE -static -pthread $< -o $@

# The profiling workload: frame pointers, as the sampling tests walk them;
# dynamic, so that its stacks go through libc and the vDSO (static when
# cross-built: the guest has no arm64 libc).
$(OUTPUT)/rc_prof: tests/profwork.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) -g -O1 -fno-omit-frame-pointer -falign-loops=64 \
		$(if $(filter x86,$(ARCH)),-mno-omit-leaf-frame-pointer) \
		$(WARNINGS) -std=gnu11 -D_GNU_SOURCE $(if $(CROSS),-static -DRC_PROF_STATIC) $< -o $@

# What rc_prof dlshort dlopen()s: frame pointers too. A static rc_prof
# (cross-built) cannot dlopen(): it says so, and the test asks no more.
$(OUTPUT)/librc_prof_dl.so: tests/profdl.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) -g -O1 -fno-omit-frame-pointer -fPIC -shared \
		$(if $(filter x86,$(ARCH)),-mno-omit-leaf-frame-pointer) \
		$(WARNINGS) -std=gnu11 -D_GNU_SOURCE $< -o $@

# A library whose entry point has no CFI (test_unwind.c)
$(OUTPUT)/librc_entry.so: tests/entrylib.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -fPIC -shared -fno-asynchronous-unwind-tables -fno-unwind-tables \
		-Wl,-e,rc_entry_nocfi $(WARNINGS) -std=gnu11 $< -o $@

# The same workload without frame pointers, as most of Debian's binaries
# are (.eh_frame kept, as GCC always makes it): what --call-graph=dwarf unwinds
$(OUTPUT)/rc_prof_nofp: tests/profwork.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) -g -O1 -fomit-frame-pointer -falign-loops=64 \
		$(WARNINGS) -std=gnu11 -D_GNU_SOURCE $(if $(CROSS),-static) $< -o $@

# The pages' date: SOURCE_DATE_EPOCH's (dpkg-buildpackage sets it from
# debian/changelog), else the last commit's, so that a build is
# reproducible. :Version: and :Date: are the fourth and third fields of the
# page's .TH line (its footer).
MAN_EPOCH := $(or $(SOURCE_DATE_EPOCH),$(shell git log -1 --format=%ct 2>/dev/null),0)
MAN_DATE := $(shell date -u -d @$(MAN_EPOCH) +%Y-%m-%d)

$(OUTPUT)/man/%: man/%.rst $(OUTPUT)/VERSION | $(OUTPUT)/man
	$(call msg,MAN,$@)
	$(Q)sed '/^:Manual section:/a :Version: ringcap $(VERSION)\n:Date: $(MAN_DATE)' $< > $@.rst
	$(Q)$(RST2MAN) --halt=warning $@.rst > $@ && rm -f $@.rst

man: $(MANS)

# The layers' includes (scripts/check-layers.sh, first: a second), unit and
# integration tests in a sanitizer build of their own, a short fuzz of the
# capture reader (and of the Intel PT summary, with libipt), and the
# integration tests under valgrind.
#
# Its builds, and the two fuzzers, take every CPU (CHECK_J, -j with nproc)
# unless make was run with -j of its own, whose jobserver then shares them:
# CI runs plain make check, whose builds took one CPU of two (the sanitizer
# build 196 s of the test-sanitizers stage). Recursive: MAKEFLAGS shows -j
# only in recipes.
NPROC := $(shell nproc 2>/dev/null || echo 1)
CHECK_J = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(NPROC))
check:
	$(Q)$(MAKE) --no-print-directory $(CHECK_J) all
	$(Q)scripts/check-layers.sh
	$(Q)scripts/timed.sh test-sanitizers $(MAKE) --no-print-directory $(CHECK_J) O=$(O)-san \
		SAN=1 SKEL_FROM=$(O) test
	$(Q)scripts/timed.sh fuzz $(MAKE) --no-print-directory $(CHECK_J) fuzz
	$(Q)scripts/timed.sh valgrind $(MAKE) --no-print-directory valgrind
	$(Q)scripts/timed.sh deb-check $(MAKE) --no-print-directory deb-check

# The fuzzer: libFuzzer + ASan + UBSan over the reader and decoder, from a
# seed corpus the current writer makes. Replays tests/fuzz/regressions/
# first, then fuzzes for FUZZ_SECONDS. New inputs stay in $(O)/fuzz-corpus.
FUZZ_SECONDS ?= 60
# The reader's layers and the outputs only: format/, decode/, util/ and
# output/ never include BPF or capture headers, so the fuzzer links without
# libcurl (RC_NO_CURL: export's transport is its stub) and
# libbpf, and without a file of cmd/; symbol/ksym.c names kernel functions
# for perf-script's print formats (libtraceevent, when built with it).
FUZZ_SRCS := tests/fuzz/fuzz_reader.c \
	$(wildcard lib/format/*.c lib/decode/*.c lib/util/*.c lib/output/*.c) \
	$(OUTPUT)/lib/syscall_names.c lib/symbol/ksym.c
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -DRC_NO_CURL \
	-DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION \
	-std=gnu11 -D_GNU_SOURCE -Ilib -Ibpf -I$(OUTPUT) $(WARNINGS) $(TEP_CFLAGS)

# An object a source (make -j compiles them side by side): $(OUTPUT)/fuzz/
# with the source's path, the generated syscall_names.c's at its top; each
# waits for every header, as the one clang command they replace did.
FUZZ_OBJS := $(patsubst %.c,$(OUTPUT)/fuzz/%.o,$(filter-out $(OUTPUT)/%,$(FUZZ_SRCS))) \
	$(OUTPUT)/fuzz/syscall_names.o
FUZZ_HDRS := $(wildcard lib/*.h lib/*/*.h)

$(OUTPUT)/fuzz/%.o: %.c $(FUZZ_HDRS) | $(OUTPUT)
	$(call msg,FUZZ-CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_FLAGS) -c $< -o $@

$(OUTPUT)/fuzz/syscall_names.o: $(OUTPUT)/lib/syscall_names.c $(FUZZ_HDRS) | $(OUTPUT)
	$(call msg,FUZZ-CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_FLAGS) -c $< -o $@

$(OUTPUT)/fuzz_reader: $(FUZZ_OBJS)
	$(call msg,FUZZ,$@)
	$(Q)$(CLANG) $(FUZZ_FLAGS) $(FUZZ_OBJS) -lzstd -lz -lxxhash $(if $(TEP_CFLAGS),-ltraceevent) -o $@

$(OUTPUT)/gen_seeds: tests/fuzz/gen_seeds.c $(OUTPUT)/libringcap.a
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $< $(OUTPUT)/libringcap.a $(LIBS) -o $@

# make fuzz: the reader's fuzzer, then the Intel PT summary's when libipt is
# there; with -j (make check) side by side, once both are built, each
# single-threaded on a CPU of its own for its seconds.
FUZZ_BINS := $(OUTPUT)/fuzz_reader $(OUTPUT)/gen_seeds \
	$(if $(filter 1,$(HAVE_LIBIPT)),$(OUTPUT)/fuzz_ipt $(OUTPUT)/gen_ipt_seeds)
fuzz: fuzz-reader $(if $(filter 1,$(HAVE_LIBIPT)),fuzz-ipt)

fuzz-reader: $(OUTPUT)/fuzz_reader $(OUTPUT)/gen_seeds | $(FUZZ_BINS)
	$(Q)mkdir -p $(OUTPUT)/fuzz-corpus $(OUTPUT)/fuzz-seeds
	$(Q)$(OUTPUT)/gen_seeds $(OUTPUT)/fuzz-seeds
	$(Q)$(OUTPUT)/fuzz_reader -runs=0 -close_fd_mask=1 -artifact_prefix=$(OUTPUT)/ \
		tests/fuzz/regressions \
		$(OUTPUT)/fuzz-seeds > $(OUTPUT)/fuzz-replay.log 2>&1 || \
		{ tail -n 40 $(OUTPUT)/fuzz-replay.log; echo "fuzz: a regression input fails"; exit 1; }
	$(Q)$(OUTPUT)/fuzz_reader -max_total_time=$(FUZZ_SECONDS) -timeout=10 -close_fd_mask=1 \
		-artifact_prefix=$(OUTPUT)/ \
		$(OUTPUT)/fuzz-corpus $(OUTPUT)/fuzz-seeds tests/fuzz/regressions \
		> $(OUTPUT)/fuzz.log 2>&1 || \
		{ tail -n 40 $(OUTPUT)/fuzz.log; echo "fuzz: crash; the input is in $(OUTPUT)/crash-*:" \
		  "add it to tests/fuzz/regressions/"; exit 1; }
	$(Q)echo "fuzz: replayed $$(ls tests/fuzz/regressions $(OUTPUT)/fuzz-seeds | wc -l) inputs;" \
		"$$(grep -o 'Done [0-9]* runs' $(OUTPUT)/fuzz.log | tail -n 1) in $(FUZZ_SECONDS) s, no crash"

# The Intel PT summary's fuzzer (lib/decode/ipt.c over libipt), when libipt
# is there: FUZZ_IPT_SECONDS after the reader's (beside it under -j), from
# seeds libipt's encoder makes; tests/fuzz/ipt-regressions/ replayed first.
FUZZ_IPT_SECONDS ?= 20
$(OUTPUT)/fuzz_ipt: tests/fuzz/fuzz_ipt.c lib/decode/ipt.c lib/decode/ipt.h | $(OUTPUT)
	$(call msg,FUZZ,$@)
	$(Q)$(CLANG) $(FUZZ_FLAGS) -DHAVE_LIBIPT tests/fuzz/fuzz_ipt.c lib/decode/ipt.c -lipt -o $@

$(OUTPUT)/gen_ipt_seeds: tests/fuzz/gen_ipt_seeds.c | $(OUTPUT)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) $< -lipt -o $@

fuzz-ipt: $(OUTPUT)/fuzz_ipt $(OUTPUT)/gen_ipt_seeds | $(FUZZ_BINS)
	$(Q)mkdir -p $(OUTPUT)/fuzz-ipt-corpus $(OUTPUT)/fuzz-ipt-seeds
	$(Q)$(OUTPUT)/gen_ipt_seeds $(OUTPUT)/fuzz-ipt-seeds
	$(Q)$(OUTPUT)/fuzz_ipt -runs=0 -artifact_prefix=$(OUTPUT)/ipt- tests/fuzz/ipt-regressions \
		$(OUTPUT)/fuzz-ipt-seeds > $(OUTPUT)/fuzz-ipt-replay.log 2>&1 || \
		{ tail -n 40 $(OUTPUT)/fuzz-ipt-replay.log; echo "fuzz-ipt: a regression input fails"; \
		  exit 1; }
	$(Q)$(OUTPUT)/fuzz_ipt -max_total_time=$(FUZZ_IPT_SECONDS) -timeout=10 \
		-artifact_prefix=$(OUTPUT)/ipt- \
		$(OUTPUT)/fuzz-ipt-corpus $(OUTPUT)/fuzz-ipt-seeds tests/fuzz/ipt-regressions \
		> $(OUTPUT)/fuzz-ipt.log 2>&1 || \
		{ tail -n 40 $(OUTPUT)/fuzz-ipt.log; echo "fuzz-ipt: crash; the input is in" \
		  "$(OUTPUT)/ipt-crash-*: add it to tests/fuzz/ipt-regressions/"; exit 1; }
	$(Q)echo "fuzz-ipt: $$(grep -o 'Done [0-9]* runs' $(OUTPUT)/fuzz-ipt.log | tail -n 1)" \
		"in $(FUZZ_IPT_SECONDS) s, no crash"

# The fuzzer for half an hour (FUZZ_LONG_SECONDS): what the minute of make
# check never reaches. Run it before a release, or after touching the reader.
FUZZ_LONG_SECONDS ?= 1800
fuzz-long:
	$(Q)$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=$(FUZZ_LONG_SECONDS) \
		FUZZ_IPT_SECONDS=$(or $(FUZZ_LONG_IPT_SECONDS),300)

# The skips allowed on the machine make check runs on (CI's host): a test
# that skips without a line there fails the run, and a line whose test ran
# is said (tests/skips/README). EXPECTED_SKIPS= allows every skip (another
# machine: a PMU, a tool or a kernel of its own).
EXPECTED_SKIPS ?= $(CURDIR)/tests/skips/host.txt

test: $(OUTPUT)/ringcap $(OUTPUT)/test_progs $(OUTPUT)/rc_workload $(OUTPUT)/rc_prof \
	$(OUTPUT)/rc_prof_nofp $(OUTPUT)/librc_prof_dl.so $(OUTPUT)/librc_entry.so $(OUTPUT)/rc_load \
	$(USER_BPF) $(MANS)
	$(Q)cd $(OUTPUT) && RINGCAP_SRCDIR=$(CURDIR) RINGCAP_EXPECTED_SKIPS=$(EXPECTED_SKIPS) \
		./test_progs $(TESTFLAGS)

# The integration tests with every ringcap they start under valgrind's
# memcheck (normal build: valgrind and ASan do not mix): what only memcheck
# catches (uninitialised bytes read, or written to a file or the kernel)
# on each path once: a command recorded on each BPF transport, -p, stat
# live, every refusal of bad input, tracepoints, uprobes and a user's BPF
# object, and ftrace mapped and spliced. The sanitizer build runs every
# test; memcheck costs about 30 s a ringcap, so not the same paths twice.
# A test that starts ringcap through a shell or exec itself does so with
# ringcap_sh() or run_exec() (tests/run_util.h), under memcheck here:
# record_stdout_stream (-o -, the capture on stdout). Not covered: the
# pipe back-pressure paths (record_backpressure_interrupt,
# stat_backpressure), whose tests need a writer blocked behind a slow
# reader at a given time, which memcheck's slowdown undoes (the drain
# itself becomes the slowest; seen failing under it). --read-inline-info=no
# (VALGRIND_OPTS): memcheck checks the same, its reports name no inlined
# frames (tests/valgrind.supp matches none); each ringcap starts in 18%
# less CPU, the inline tables of the DWARF read at each start (cli_errors'
# 53 runs: 50.3 s -> 41.4 s of CPU here).
VALGRIND_TESTS := =record_command,=record_pid,=stat_live_matches_file,=cli_errors,=dyn_tracepoint,=dyn_uprobe,=dyn_bpf_object,=ftrace_exact,=ftrace_mmap_exact,=record_stdout_stream
valgrind: $(OUTPUT)/ringcap $(OUTPUT)/test_progs $(OUTPUT)/rc_workload $(OUTPUT)/rc_load \
	$(USER_BPF)
	$(Q)cd $(OUTPUT) && RINGCAP_SRCDIR=$(CURDIR) RINGCAP_VALGRIND=1 \
		VALGRIND_OPTS="--read-inline-info=no $$VALGRIND_OPTS" \
		RINGCAP_EXPECTED_SKIPS=$(EXPECTED_SKIPS) ./test_progs -t '$(VALGRIND_TESTS)'

# Known bugs put into a copy of the tree one at a time (scripts/mutate.sh):
# each must make one of its tests fail. MUTANTS="no_wakeup ..." picks some.
mutate:
	$(Q)scripts/mutate.sh $(OUTPUT) $(MUTANTS)

# The kernel matrix (README, Kernels): Debian's kernel packages booted under
# qemu with the build's ringcap and tests in a busybox initramfs.
# VMTEST_KERNELS="6.1 6.1-rt 6.12 6.12-preempt-full" (all by default)
# ARCH=arm64: cross-built, booted under qemu-system-aarch64 on Debian's arm64 6.1.
# VMTEST_SET=smoke (the default) runs arm64's short set, as CI does;
# make vmtest-all runs the whole guest set on every kernel of both.
VMTEST_SET ?= smoke
vmtest: all
	$(Q)VMTEST_ARCH=$(ARCH) VMTEST_SET=$(VMTEST_SET) scripts/vmtest.sh $(OUTPUT) $(VMTEST_KERNELS)

vmtest-all:
	$(Q)$(MAKE) --no-print-directory vmtest VMTEST_SET=full
	$(Q)$(MAKE) --no-print-directory vmtest ARCH=arm64 VMTEST_SET=full

# CI's matrix: the x86 kernels, arm64's smoke set and the static x86
# ringcap on each x86 kernel (static-NAME: nothing but busybox and it) in one pool, two
# guests at a time (scripts/deps.sh --vmtest --arm64 first).
# The arm64 and static builds come before the first guest boots: one job a
# CPU when make was given no -j (as .ci/run calls it), not one in all.
VMTEST_BUILD_J = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc 2>/dev/null || echo 1))
vmtest-ci: all
	$(Q)$(MAKE) --no-print-directory $(VMTEST_BUILD_J) ARCH=arm64 all
	$(Q)$(MAKE) --no-print-directory $(VMTEST_BUILD_J) O=$(STATIC_O) STATIC=1 \
		$(abspath $(STATIC_O))/ringcap
	$(Q)VMTEST_ARM64_BUILD=build-arm64 VMTEST_STATIC=$(STATIC_O)/ringcap VMTEST_SET=smoke \
		scripts/vmtest.sh $(OUTPUT)

$(OUTPUT)/rc_load: tests/bench/load.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(WARNINGS) -std=gnu11 -D_GNU_SOURCE -static -pthread $< -o $@

# The benchmark's reference programs (tests/bench/floor.bpf.c) and their runner
$(OUTPUT)/bench/%.tmp.bpf.o: tests/bench/%.bpf.c $(OUTPUT)/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -Itests/bench -c $< -o $@

$(OUTPUT)/bench/%.skel.h: $(OUTPUT)/bench/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $*_bpf > $@

$(OUTPUT)/rc_floor: tests/bench/floor.c $(OUTPUT)/bench/floor.skel.h
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -Itests/bench -I$(OUTPUT)/bench $(ALL_LDFLAGS) $< $(LIBS) -o $@

# ringcap against perf, trace-cmd and bpftrace (README, Performance).
# RUNS=3 CALLS=2000000 WORKLOADS=storm1,... RECORDERS=ringcap,perf,...
# SUITES=lead,syscalls,tracepoints (all by default; lead: one tracepoint for
# every recorder, beside the floor and a bare reference program (rc_floor),
# with the BPF programs' cost from the kernel's statistics; tracepoints: the
# same tracepoints recorded by trace-cmd and ringcap over ftrace and the ring buffer)
# BASELINE=DIR[,DIR...]: the ringcap of other builds too (before and after a change)
# RT=1: every run under SCHED_RR (recorder 2, workload 1): a storm's threads run together on a loaded machine
bench: $(OUTPUT)/ringcap $(OUTPUT)/rc_load $(OUTPUT)/rc_floor
	$(Q)python3 tests/bench/bench.py $(OUTPUT) --runs $(or $(RUNS),3) \
		--calls $(or $(CALLS),2000000) $(if $(WORKLOADS),--workloads $(WORKLOADS)) \
		$(if $(RECORDERS),--recorders $(RECORDERS)) $(if $(SUITES),--suites $(SUITES)) \
		$(if $(BASELINE),--baseline $(BASELINE)) $(if $(RT),--rt) -o $(OUTPUT)/bench.md
	$(Q)$(MAKE) --no-print-directory bench-profile

# ringcap record -F 999 -g against perf record -g and --call-graph dwarf
# report -j 1 and -j 2 (text, json, csv, --summary) against perf script and trace-cmd report;
# --format folded and --summary at -j 1 and -j 2 on a capture with stacks (record -g)
bench-decode: $(OUTPUT)/ringcap $(OUTPUT)/rc_load
	$(Q)python3 tests/bench/decode.py $(OUTPUT) --runs $(or $(RUNS),3) \
		$(if $(CALLS),-n $(CALLS)) $(if $(PART),--part $(PART)) \
		-o $(OUTPUT)/bench-decode$(if $(PART),-$(PART)).md

# report --since of the last second of a large capture (one file, rotated) against all of it
bench-range: $(OUTPUT)/ringcap $(OUTPUT)/rc_workload
	$(Q)python3 tests/bench/range.py $(OUTPUT) --runs $(or $(RUNS),3) \
		$(if $(BENCH_SECONDS),--seconds $(BENCH_SECONDS)) -o $(OUTPUT)/bench-range.md

bench-profile: $(OUTPUT)/ringcap $(OUTPUT)/rc_prof $(OUTPUT)/rc_prof_nofp
	$(Q)python3 tests/bench/profile.py $(OUTPUT) --runs $(or $(RUNS),3) \
		-o $(OUTPUT)/bench-profile.md

# What a short recording costs (README, Performance): ringcap record and
# perf record on `-- true` under perf stat -r RUNS, and ringcap's peak
# RssAnon on a storm of CALLS calls. BASELINE=DIR[,DIR...]: other builds' too.
bench-start: $(OUTPUT)/ringcap $(OUTPUT)/rc_load
	$(Q)python3 tests/bench/start.py $(OUTPUT) --runs $(or $(RUNS),20) \
		--rounds $(or $(ROUNDS),3) --calls $(or $(CALLS),2000000) \
		$(if $(BASELINE),--baseline $(BASELINE)) -o $(OUTPUT)/bench-start.md

# ringcap export into ClickHouse against report --format json | clickhouse-client
# JSONEachRow (issue 37), and against the floor (the export's rows, encoded
# already, posted by curl): a server of its own on loopback, CALLS events, RUNS rounds
bench-export: $(OUTPUT)/ringcap $(OUTPUT)/rc_workload
	$(Q)sh tests/bench/clickhouse.sh $(OUTPUT) $(or $(CALLS),1000000) $(or $(RUNS),3)

$(OUTPUT)/rc_burst: tests/bench/burst.c $(OUTPUT)/libringcap.a
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) $< $(OUTPUT)/libringcap.a $(LIBS) -o $@

# The writer's cost an event, from a capture's records (tests/bench/wbench.c)
$(OUTPUT)/rc_wbench: tests/bench/wbench.c $(OUTPUT)/libringcap.a
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) $< $(OUTPUT)/libringcap.a $(LIBS) -o $@

# Does emptying the fullest perf ring first lose less? (ringcap-record(1), ORDER)
bench-burst: $(OUTPUT)/rc_burst $(OUTPUT)/rc_workload
	$(Q)$(OUTPUT)/rc_burst $(OUTPUT)/rc_workload $(or $(ROUNDS),5) 2000000 16

# A real capture of this machine for a few seconds, and its report.
demo: $(OUTPUT)/ringcap
	$(OUTPUT)/ringcap record -d 3 -o $(OUTPUT)/demo.rcap
	$(OUTPUT)/ringcap report -i $(OUTPUT)/demo.rcap | head -n 25
	$(OUTPUT)/ringcap report -i $(OUTPUT)/demo.rcap --summary
	$(OUTPUT)/ringcap stat $(OUTPUT)/demo.rcap

# make static: ringcap linked statically (glibc, libbpf, libelf, libdw,
# zstd, zlib, xxhash: Debian's .a files), for the host's architecture in
# STATIC_O and for arm64 in build-arm64 (the kernel matrix's cross build),
# each released as a stripped copy named for its version and machine,
# beside its SHA-256 (sha256sum -c in that directory checks it). What a
# static build lacks (no dlopen() of libdebuginfod, no libipt) --version
# and record --check say.
STATIC_O ?= build-static
static:
	$(Q)$(MAKE) --no-print-directory O=$(STATIC_O) STATIC=1 $(abspath $(STATIC_O))/static-release
	$(Q)$(MAKE) --no-print-directory ARCH=arm64 $(abspath build-arm64)/static-release

MACHINE_x86 := x86_64
MACHINE_arm64 := aarch64
RELEASE := ringcap-$(VERSION)-$(or $(MACHINE_$(ARCH)),$(ARCH))-static
STRIP := $(CROSS_COMPILE)strip
$(OUTPUT)/static-release: $(OUTPUT)/ringcap
	$(Q)file -L $< | grep -q 'statically linked' || \
		{ echo "$<: not statically linked (make STATIC=1)" >&2; exit 1; }
	$(call msg,STRIP,$(OUTPUT)/$(RELEASE))
	$(Q)$(STRIP) -o $(OUTPUT)/$(RELEASE) $<
	$(Q)cd $(OUTPUT) && sha256sum $(RELEASE) > $(RELEASE).sha256
	$(Q)cd $(OUTPUT) && printf '  %-8s %s, %s bytes (%s unstripped)\n' SHA256 \
		"$$(cut -d' ' -f1 $(RELEASE).sha256)" "$$(stat -c %s $(RELEASE))" "$$(stat -c %s ringcap)"
	$(Q)file $(OUTPUT)/$(RELEASE) | sed 's/^/  /'

# bash and zsh completion, where each shell looks for them
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/vendor-completions

install: $(OUTPUT)/ringcap man
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/man/man5
	install -m 0755 $(OUTPUT)/ringcap $(DESTDIR)$(PREFIX)/bin/ringcap
	install -m 0644 $(filter %.1,$(MANS)) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 0644 $(filter %.5,$(MANS)) $(DESTDIR)$(PREFIX)/share/man/man5/
	install -d $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	install -m 0644 completions/ringcap.bash $(DESTDIR)$(BASHCOMPDIR)/ringcap
	install -m 0644 completions/_ringcap $(DESTDIR)$(ZSHCOMPDIR)/_ringcap

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/ringcap $(DESTDIR)$(BASHCOMPDIR)/ringcap \
		$(DESTDIR)$(ZSHCOMPDIR)/_ringcap \
		$(patsubst $(OUTPUT)/man/%.1,$(DESTDIR)$(PREFIX)/share/man/man1/%.1,$(filter %.1,$(MANS))) \
		$(patsubst $(OUTPUT)/man/%.5,$(DESTDIR)$(PREFIX)/share/man/man5/%.5,$(filter %.5,$(MANS)))

# The Debian package (README, Install): dpkg-buildpackage in a copy of the
# tree (the files git knows, committed or not), so that debian/rules' clean
# touches nothing here; the .deb and its -dbgsym in $(O)/deb/, then
# lintian, which must say nothing but what debian/ringcap.lintian-overrides
# overrides. The version is debian/changelog's, which must be VERSION.
.PHONY: deb deb-version deb-check
deb-version:
	$(Q)v=$$(head -n 1 debian/changelog | cut -d ' ' -f 2 | tr -d '()'); \
	if [ "$$v" != "$(VERSION)" ]; then \
		echo "deb: debian/changelog's version is '$$v', the Makefile's VERSION is" \
			"'$(VERSION)': add a debian/changelog entry (dch -v $(VERSION))" >&2; \
		exit 1; fi

deb: deb-version
	$(Q)rm -rf $(OUTPUT)/deb && mkdir -p $(OUTPUT)/deb/ringcap-$(VERSION)
	$(Q)git ls-files -z -c -o --exclude-standard | \
		xargs -0 sh -c 'for f; do [ -e "$$f" ] && printf "%s\0" "$$f"; done' sh | \
		tar -c --null -T - | tar -x -C $(OUTPUT)/deb/ringcap-$(VERSION)
	$(Q)cd $(OUTPUT)/deb/ringcap-$(VERSION) && dpkg-buildpackage -us -uc $(DEB_BUILD_FLAGS) \
		> ../build.log 2>&1 || { tail -n 40 ../build.log; echo "deb: dpkg-buildpackage failed:" \
		"the log is $(OUTPUT)/deb/build.log"; exit 1; }
	$(Q)lintian --fail-on error,warning --info $(OUTPUT)/deb/ringcap_$(VERSION)_*.changes
	$(Q)ls -l $(OUTPUT)/deb/*.deb

# make deb, then the package installed into fresh Debian 12 and 13 chroots
# (debootstrap) and run there; scripts/deps.sh and the build checked in the
# Debian 13 one (scripts/deb-check.sh; root, and Debian's archive). The
# script runs make deb itself (-b) while the debootstraps fetch.
# The package is built with every CPU (dpkg-buildpackage -j: dh's make -j)
# unless DEB_BUILD_FLAGS says otherwise: it took 120 s on one of CI's two.
DEB_CHECK_FLAGS = $(or $(DEB_BUILD_FLAGS),-j$(NPROC))
deb-check: deb-version
	$(Q)scripts/deb-check.sh -b '$(MAKE) --no-print-directory deb DEB_BUILD_FLAGS="$(DEB_CHECK_FLAGS)"' \
		$(OUTPUT)/deb

clean:
	rm -rf $(OUTPUT) $(OUTPUT)-san

-include $(wildcard $(OUTPUT)/*.d $(OUTPUT)/lib/*.d $(OUTPUT)/lib/*/*.d $(OUTPUT)/lib/*/*/*.d \
	$(OUTPUT)/cmd/*.d $(OUTPUT)/tests/*.d $(OUTPUT)/tests/bpf/*.d $(OUTPUT)/examples/*.d \
	$(OUTPUT)/bench/*.d)
