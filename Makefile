# nodescope build.
#   make            release binary: build/nodescope
#   make test       ASan+UBSan build, then every test (tests/run.sh)
#   make fuzz       libFuzzer targets (clang): build/fuzz/fuzz_*
#   make check-layers  the includes in src/ against the layer table in docs/design.md
#   make man        manual pages: build/man/nodescope.1, nodescope-CMD.1 (scripts/mkman.sh)
#   make install    the binary, the manual pages and the pages' text under $(DESTDIR)$(PREFIX)
#   make install-caps  the binary for group GROUP (nodescope): root's, mode 0750, with the
#                   capabilities to read every process on the machine (docs/security.md)
# Sources are found by wildcard: a new module file needs no edit here.

CC       ?= cc
PKGS     := libdw libelf zlib libedit
# Cross builds (issue 44): `make CROSS=aarch64-linux-gnu-` makes this Makefile's goals
# CROSS_GOALS (default: all) in build/aarch64/, a tree of links to this one (src, tests, fuzz,
# scripts, docs, Makefile), with CC=$(CROSS)gcc, AR=$(CROSS)ar and pkg-config reading the arm64
# multiarch .pc files (Debian: gcc-aarch64-linux-gnu, libdw-dev:arm64 ...: scripts/setup.sh
# --arm64): build/aarch64/build/nodescope, its objects and unit tests there, the host's build/
# untouched (make CROSS=aarch64-linux-gnu- CROSS_GOALS=build/tst/unit/test_options). A goal given
# the usual way is refused rather than made for the host. Run what it makes with qemu-aarch64
# -L /usr/aarch64-linux-gnu (Debian's qemu-user, libc6-arm64-cross). Inside the tree CROSS_TREE=1
# and this block does nothing.
ifneq ($(CROSS),)
ifeq ($(CROSS_TREE),)
CROSS_DIR  := build/$(firstword $(subst -, ,$(CROSS)))
ifneq ($(filter-out cross,$(MAKECMDGOALS)),)
$(error with CROSS=$(CROSS), goals go in CROSS_GOALS='...': '$(filter-out cross,$(MAKECMDGOALS))' would be the host's)
endif
.DEFAULT_GOAL := cross
.PHONY: cross
cross:
	@mkdir -p $(CROSS_DIR)
	@for f in src tests fuzz scripts docs Makefile; do ln -sfn ../../$$f $(CROSS_DIR)/$$f; done
	PKG_CONFIG_LIBDIR=/usr/lib/$(patsubst %-,%,$(CROSS))/pkgconfig:/usr/share/pkgconfig \
	    $(MAKE) -C $(CROSS_DIR) CROSS_TREE=1 CC=$(CROSS)gcc AR=$(CROSS)ar OBJCOPY=$(CROSS)objcopy $(or $(CROSS_GOALS),all)
endif
endif
# Loaded on first use (src/util/lazylib.c), not linked: only some commands need them.
LAZY_PKGS := libdw libelf libedit
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(filter-out $(LAZY_PKGS),$(PKGS)) 2>/dev/null) -ldl
WARN     := -Wall -Wextra -Werror -Wno-unused-parameter -Wshadow -Wvla
CSTD     := -std=c11 -D_GNU_SOURCE
INCS     := -Isrc -Ibuild/gen
LIBS     := $(PKG_LIBS) -liberty -lm

RELEASE_FLAGS := -O2 -g -DNDEBUG   # assert() checks internal invariants in the test build only
TEST_FLAGS    := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

# The library: every module but cli/, archived (libnodescope.a) for the binary, the unit tests and
# the fuzzers; the commands (cli/) and main.c link only into the binary.
CLI_SRC  := $(sort $(wildcard src/cli/*.c))
LIB_SRC  := $(filter-out $(CLI_SRC),$(sort $(wildcard src/*/*.c)))
MAIN_SRC := src/main.c
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
FUZZ_SRC := $(sort $(wildcard fuzz/fuzz_*.c))
# Browser scripts embedded in output (src/formats/*.js) become C string literals.
GEN_JS   := $(patsubst src/formats/%.js,build/gen/%_js.inc,$(wildcard src/formats/*.js))
# Each compile writes its own header dependencies (-MMD -MP) next to its output, as .d files
# included below: touching a header rebuilds only what includes it. The generated JS includes are
# made before any compile (order-only): the first build has no .d files to name them yet.
DEPFLAGS  = -MMD -MP -MF $@.d -MT $@

REL_OBJ  := $(patsubst src/%.c,build/rel/%.o,$(LIB_SRC))
TST_OBJ  := $(patsubst src/%.c,build/tst/%.o,$(LIB_SRC))
REL_CLI  := $(patsubst src/%.c,build/rel/%.o,$(CLI_SRC) $(MAIN_SRC))
TST_CLI  := $(patsubst src/%.c,build/tst/%.o,$(CLI_SRC) $(MAIN_SRC))
UNIT_BIN := $(patsubst tests/unit/%.c,build/tst/unit/%,$(UNIT_SRC))
FUZZ_BIN := $(patsubst fuzz/%.c,build/fuzz/%,$(FUZZ_SRC))

.PHONY: all test test-build fuzz clean bench example check-layers man install install-caps uninstall
all: build/nodescope

build/nodescope: $(REL_CLI) build/rel/libnodescope.a
	$(CC) $(RELEASE_FLAGS) -o $@ $^ $(LIBS)

# Rebuilt whole (rm first): an object whose source is gone leaves no stale member behind.
%/libnodescope.a:
	rm -f $@
	ar rcs $@ $^
build/rel/libnodescope.a: $(REL_OBJ)
build/tst/libnodescope.a: $(TST_OBJ)

# A static pattern rule, not an implicit one: the empty rules -MP writes for every header would
# otherwise stand in for it, and a deleted include would never be made again.
$(GEN_JS): build/gen/%_js.inc: src/formats/%.js
	@mkdir -p $(dir $@)
	sed 's/\\/\\\\/g; s/"/\\"/g; s/^/"/; s/$$/\\n"/' $< > $@

# Every object depends on the Makefile too: a change of flags rebuilds everything (and the move
# to -MMD did: objects built before it had no dependency files and knew none of their headers).
build/rel/%.o: src/%.c Makefile | $(GEN_JS)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(RELEASE_FLAGS) $(DEPFLAGS) $(INCS) $(PKG_CFLAGS) -c -o $@ $<

build/tst/%.o: src/%.c Makefile | $(GEN_JS)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(TEST_FLAGS) $(DEPFLAGS) $(INCS) $(PKG_CFLAGS) -c -o $@ $<

build/tst/nodescope: $(TST_CLI) build/tst/libnodescope.a
	$(CC) $(TEST_FLAGS) -o $@ $^ $(LIBS)

build/tst/unit/%: tests/unit/%.c build/tst/libnodescope.a | $(GEN_JS)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(TEST_FLAGS) $(DEPFLAGS) $(INCS) -Itests/unit $(PKG_CFLAGS) -o $@ $< build/tst/libnodescope.a $(LIBS)

test-build: build/nodescope build/tst/nodescope $(UNIT_BIN) fuzz

test: test-build
	tests/run.sh

# The live paths on arm64 (issue 45): scripts/arm64-vm.sh builds once, under build/arm64-vm/, an
# emulated arm64 machine (mmdebstrap root, Debian's arm64 kernel, qemu-system-aarch64 TCG), boots
# it with the static aarch64 nodescope and the official arm64 node, and runs the live checks
# there (docs/arm64.md, "The emulated arm64 machine"). Root; slow: not part of `make test`.
.PHONY: test-arm64
test-arm64:
	scripts/arm64-vm.sh

# Fuzz targets link the library objects built with the fuzzer's sanitizers. Undefined behaviour
# stops a target, as in the test build: a fuzz run fails on it instead of printing it and going on.
FUZZ_FLAGS := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
FUZZ_OBJ   := $(patsubst src/%.c,build/fuzzobj/%.o,$(LIB_SRC))
build/fuzzobj/libnodescope.a: $(FUZZ_OBJ)
build/fuzzobj/%.o: src/%.c Makefile | $(GEN_JS)
	@mkdir -p $(dir $@)
	clang $(CSTD) $(WARN) $(FUZZ_FLAGS) $(DEPFLAGS) $(INCS) $(PKG_CFLAGS) -c -o $@ $<
build/fuzz/%: fuzz/%.c build/fuzzobj/libnodescope.a | $(GEN_JS)
	@mkdir -p $(dir $@)
	clang $(CSTD) $(WARN) -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined $(DEPFLAGS) $(INCS) $(PKG_CFLAGS) -o $@ $< build/fuzzobj/libnodescope.a $(LIBS)
fuzz: $(FUZZ_BIN)

# Objects named only in pattern rules would count as intermediate and be deleted.
.SECONDARY: $(FUZZ_OBJ) $(TST_OBJ) $(TST_CLI) $(REL_OBJ) $(REL_CLI)

clean:
	rm -rf build

# Every #include in src/ against the layer table in docs/design.md; header cycles; included .c files.
check-layers:
	scripts/check-layers.sh

# Manual pages: each docs/commands/NAME.md with `nodescope NAME --help` (SYNOPSIS, OPTIONS)
# becomes build/man/nodescope-NAME.1; docs/commands/nodescope.md with the command table
# nodescope.1. A page added to docs/commands/ needs no edit here.
PAGES_MD  := $(sort $(wildcard docs/commands/*.md))
MAN_PAGES := $(patsubst docs/commands/%.md,build/man/nodescope-%.1,$(filter-out docs/commands/nodescope.md,$(PAGES_MD))) build/man/nodescope.1
man: $(MAN_PAGES)
build/man/nodescope.1: docs/commands/nodescope.md build/nodescope scripts/mkman.sh
	@mkdir -p $(dir $@)
	scripts/mkman.sh build/nodescope nodescope $< > $@.tmp && mv $@.tmp $@
# A command's page names its topic pages (SEE ALSO): it depends on all of them.
build/man/nodescope-%.1: docs/commands/%.md build/nodescope scripts/mkman.sh $(PAGES_MD)
	@mkdir -p $(dir $@)
	scripts/mkman.sh build/nodescope $* $< > $@.tmp && mv $@.tmp $@

PREFIX ?= /usr/local
MANDIR ?= $(PREFIX)/share/man/man1
DOCDIR ?= $(PREFIX)/share/doc/nodescope/commands
install: build/nodescope man
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(MANDIR) $(DESTDIR)$(DOCDIR)
	install -m 755 build/nodescope $(DESTDIR)$(PREFIX)/bin/nodescope
	install -m 644 $(MAN_PAGES) $(DESTDIR)$(MANDIR)/
	install -m 644 $(PAGES_MD) $(DESTDIR)$(DOCDIR)/
# The capabilities for a group, not for everyone (perf's perf_users, the kernel's perf-security.rst):
# a member of GROUP reads the memory of every process on the machine, root's included; nobody
# else may run this copy. chgrp clears file capabilities: setcap comes last. The group is made
# here (groupadd --system) only when installing into the system itself (no DESTDIR).
# CAPS_BIN: the binary installed (tests/e2e/security_caps.sh installs the test build).
GROUP    ?= nodescope
CAPS     := cap_perfmon,cap_sys_ptrace+ep
CAPS_BIN ?= build/nodescope
install-caps: $(CAPS_BIN)
	@if ! getent group '$(GROUP)' > /dev/null; then \
	    if [ -n '$(DESTDIR)' ]; then \
	        echo "install-caps: no group '$(GROUP)' here; on the system the binary goes to, as root:"; \
	        echo "  groupadd --system $(GROUP) && chgrp $(GROUP) $(PREFIX)/bin/nodescope && chmod 0750 $(PREFIX)/bin/nodescope && setcap $(CAPS) $(PREFIX)/bin/nodescope"; \
	    else \
	        groupadd --system '$(GROUP)' && echo "install-caps: made the system group '$(GROUP)'"; \
	    fi; \
	fi
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0750 -o root $(CAPS_BIN) $(DESTDIR)$(PREFIX)/bin/nodescope
	if getent group '$(GROUP)' > /dev/null; then chgrp '$(GROUP)' $(DESTDIR)$(PREFIX)/bin/nodescope; fi
	setcap $(CAPS) $(DESTDIR)$(PREFIX)/bin/nodescope
	@echo "install-caps: $(PREFIX)/bin/nodescope runs with $(CAPS) for the members of '$(GROUP)':"
	@echo "  each reads the memory of every process on this machine, root's included (docs/security.md)."
	@echo "  Add a user with: usermod -aG $(GROUP) USER (it applies at the user's next login)."
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/nodescope $(addprefix $(DESTDIR)$(MANDIR)/,$(notdir $(MAN_PAGES)))
	rm -rf $(DESTDIR)$(DOCDIR)

# ---- Installing where production is (docs/install.md): one static binary, npm packages, a .deb ----
#   make static     build/static/nodescope: glibc, libdw, libelf, zlib, liblzma, libedit linked in;
#                   needs nothing of the machine but the kernel (Linux >= 3.2). The release objects
#                   but util/lazylib.c, built again with -DNODESCOPE_STATIC (no forwarders, no dlopen).
#   make npm        build/npm/nodescope-VERSION.tgz and nodescope-linux-x64-VERSION.tgz (npm pack), and
#                   nodescope-linux-arm64-VERSION.tgz when build/aarch64/build/static/nodescope is there
#   make deb        build/nodescope_VERSION_amd64.deb (dpkg-deb): the static binary for group nodescope
# VERSION is src/cli/cli.h's NODESCOPE_VERSION, what `nodescope --version` says (checked).
# dlopen and the user database are wrapped (util/lazylib.c): libdw's debuginfod client dlopen()s
# libdebuginfod when DEBUGINFOD_URLS is set, libedit asks NSS for ~user; glibc would load the
# host's libraries, built for another libc. In the static binary each call finds nothing instead.
comma := ,
OBJCOPY ?= objcopy
STATIC_WRAP := dlopen getpwnam getpwuid getpwent setpwent endpwent getpwnam_r getpwuid_r
STATIC_LIBS := $(addprefix -Wl$(comma)--wrap=,$(STATIC_WRAP)) $(shell pkg-config --static --libs $(PKGS) liblzma 2>/dev/null) -liberty -lm
.PHONY: static npm deb
static: build/static/nodescope
build/static/util/lazylib.o: src/util/lazylib.c Makefile | $(GEN_JS)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(RELEASE_FLAGS) -DNODESCOPE_STATIC $(DEPFLAGS) $(INCS) $(PKG_CFLAGS) -c -o $@ $<
build/static/libnodescope.a: $(filter-out build/rel/util/lazylib.o,$(REL_OBJ)) build/static/util/lazylib.o
# Debug information stripped: 5.8 MB -> 3.2 MB. The symbols are kept (a crash's backtrace is
# named; strip would save 0.27 MB more).
build/static/nodescope: $(REL_CLI) build/static/libnodescope.a
	$(CC) $(RELEASE_FLAGS) -static -o $@.tmp $^ $(STATIC_LIBS)
	$(OBJCOPY) --strip-debug $@.tmp $@ && rm -f $@.tmp
# with the aarch64 static binary too when it was made (make CROSS=aarch64-linux-gnu- CROSS_GOALS=static)
npm: build/static/nodescope
	scripts/npm-pack.sh build/npm build/static/nodescope $(wildcard build/aarch64/build/static/nodescope)
deb: build/static/nodescope man
	scripts/deb-build.sh build/static/nodescope build/man build
# tests/e2e/install_*.sh test the static binary, and the .deb made from it and the pages.
test-build: build/static/nodescope $(MAN_PAGES)
-include $(wildcard build/static/util/lazylib.o.d)

# The README's first quick-start command: draw the bundled Node profile.
example: build/nodescope
	build/nodescope flame --title "examples/busy.js (perf record -g, node --perf-basic-prof)" examples/node-perf.txt -o build/example.svg
	@echo "wrote build/example.svg: open it in a browser"

# The header dependencies the compiles wrote (none before the first build).
-include $(wildcard $(patsubst %,%.d,$(REL_OBJ) $(TST_OBJ) $(FUZZ_OBJ) $(REL_CLI) $(TST_CLI) $(UNIT_BIN) $(FUZZ_BIN)))
