# tcp_hpcc: HPCC++ congestion control module for Linux TCP (target: Debian 6.1).
#
#   make            build tcp_hpcc.ko with module BTF (needed for its kfuncs)
#   make module KSERIES=6.12   build/KVER/tcp_hpcc.ko for Debian's 6.12 kernel
#   make deps       install missing Debian build packages (scripts/deps.sh build)
#   make vmlinux.h  bpf/vmlinux.h from the target kernel's BTF
#   make clean      remove build outputs, including the build/ cache
#   make kver       print the kernel this tree builds against
#   make debug-kernel   build (once, cached outside the clone) the debug kernel
#   make module-debug   build/debug/tcp_hpcc.ko against the debug kernel
#
# Overridable: KVER (default: newest installed Debian KSERIES kernel with
# headers), KSERIES (6.1; or 6.12), KDIR, PAHOLE, PAHOLE_FLAGS, OBJCOPY.

# Kernel discovery: the ABI number (6.1.0-NN, 6.12.NN+deb12) moves with
# Debian updates.
KSERIES ?= 6.1
ifeq ($(origin KVER),undefined)
KVER := $(shell printf '%s\n' \
	$(patsubst /usr/src/linux-headers-%/Makefile,%,$(wildcard /usr/src/linux-headers-$(KSERIES).*-amd64/Makefile)) \
	$(patsubst /lib/modules/%/build/Makefile,%,$(wildcard /lib/modules/$(KSERIES).*/build/Makefile)) \
	| sort -uV | tail -n1)
endif
KDIR ?= /lib/modules/$(KVER)/build

BUILDDIR := build
# Per-kernel cache from scripts/kbtf.sh: BTF base, resolve_btfids, vmlinux.h.
KBTF := $(BUILDDIR)/kbtf/$(KVER)
BTF_BASE := $(KBTF)/vmlinux
RESOLVE_BTFIDS := $(KBTF)/resolve_btfids

MODULE := tcp_hpcc.ko
# Newer than $(MODULE) once BTF has been added, so a re-run does not redo it.
BTF_STAMP := $(BUILDDIR)/$(MODULE).btf-stamp

PAHOLE ?= pahole
OBJCOPY ?= objcopy
# Same pahole options the Debian kernel used for its own modules (1.24: --btf_gen_floats -j --lang_exclude=rust).
PAHOLE_FLAGS ?= $(shell PAHOLE=$(PAHOLE) $(KDIR)/scripts/pahole-flags.sh 2>/dev/null)

# Goals that must work without kernel headers (lead: add e.g. unit tests here).
NOKERNEL_GOALS := deps clean kver unit lint bench-law check check-quick demo bench sim sim-bench \
	debug-kernel module-debug deb install-setup bench-rx sim-flows-n
ifneq ($(filter-out $(NOKERNEL_GOALS),$(or $(MAKECMDGOALS),all)),)
ifeq ($(KVER),)
$(error no Debian $(KSERIES) kernel headers (/usr/src/linux-headers-$(KSERIES).*-amd64): run 'make deps' or set KVER=/KDIR=)
endif
ifeq ($(wildcard $(KDIR)/Makefile),)
$(error no kernel headers at KDIR=$(KDIR): install linux-headers-$(KVER) or set KDIR=)
endif
endif

.DELETE_ON_ERROR:
.PHONY: all module deps vmlinux.h clean kver bpf probe selftests tests unit lint \
	check check-quick install bench-law bench-bpf demo-tools demo bench \
	debug-kernel module-debug sim sim-bench deb install-setup bench-rx sim-flows-n

all: module bpf probe

# $(call ko_btf_check,DIR): fail unless DIR/tcp_hpcc.ko has .BTF and a
# filled .BTF_ids (all zeros until resolve_btfids has run): without them
# the kernel only logs "missing module BTF, cannot register kfuncs".
define ko_btf_check
	@readelf -S --wide $(1)/$(MODULE) | grep -q ' \.BTF ' \
	    || { echo "Makefile: ERROR: $(1)/$(MODULE) has no .BTF section" >&2; exit 1; }
	@$(OBJCOPY) -O binary --only-section=.BTF_ids $(1)/$(MODULE) $(1)/btf_ids.bin
	@od -An -tx1 -v $(1)/btf_ids.bin | grep -q '[1-9a-f]' \
	    || { echo "Makefile: ERROR: $(1)/$(MODULE) .BTF_ids missing or unresolved" >&2; exit 1; }
endef

# Every top-level header, so a new one tcp_hpcc.c includes needs no edit
# where the module is built out of the tree (build/KVER/, build/debug/).
KBUILD_SRCS := Kbuild tcp_hpcc.c $(notdir $(wildcard $(CURDIR)/*.h)) scripts

ifneq ($(wildcard $(KDIR)/vmlinux),)
# Headers that ship vmlinux (Debian's 6.12; 6.1's do not): kbuild adds the
# module BTF itself, as for Debian's own modules. The .ko goes to
# build/KVER/, beside the 6.1 one: kbuild writes objects next to the
# sources, so that directory holds links to them.
MODULE_DIR := $(BUILDDIR)/$(KVER)
module:
	@mkdir -p $(MODULE_DIR)
	@for f in $(KBUILD_SRCS); do ln -sfn ../../$$f $(MODULE_DIR)/$$f; done
	$(MAKE) -C $(KDIR) M=$(CURDIR)/$(MODULE_DIR) modules
	$(call ko_btf_check,$(MODULE_DIR))
else
MODULE_DIR := .
# kbuild prints "Skipping BTF generation ... unavailability of vmlinux" when it
# links the .ko (Debian headers ship no vmlinux): expected, we add BTF below.
module: $(BTF_BASE) $(RESOLVE_BTFIDS)
	$(MAKE) -C $(KDIR) M=$(CURDIR) HPCC_BTF_BASE=$(abspath $(BTF_BASE)) modules
	@mkdir -p $(BUILDDIR)
	@if [ ! -e $(BTF_STAMP) ] || [ $(MODULE) -nt $(BTF_STAMP) ]; then \
	    echo "  BTF     $(MODULE) (base $(BTF_BASE))"; \
	    LLVM_OBJCOPY=$(OBJCOPY) $(PAHOLE) -J $(PAHOLE_FLAGS) --btf_base $(BTF_BASE) $(MODULE) \
	    && $(RESOLVE_BTFIDS) -b $(BTF_BASE) $(MODULE) \
	    && touch $(BTF_STAMP) \
	    || { echo "Makefile: adding BTF to $(MODULE) failed" >&2; rm -f $(BTF_STAMP); exit 1; }; \
	fi
	@# Without .BTF the kernel only logs "missing module BTF, cannot register kfuncs".
	@readelf -S --wide $(MODULE) | grep -q ' \.BTF ' \
	    || { echo "Makefile: ERROR: $(MODULE) has no .BTF section" >&2; rm -f $(BTF_STAMP); exit 1; }
	@readelf -S --wide $(MODULE) | grep -q ' \.BTF_ids ' \
	    || { echo "Makefile: ERROR: $(MODULE) has no .BTF_ids section (no kfunc set?)" >&2; rm -f $(BTF_STAMP); exit 1; }
	@# .BTF_ids is all zeros until resolve_btfids has filled in the BTF ids.
	@$(OBJCOPY) -O binary --only-section=.BTF_ids $(MODULE) $(BUILDDIR)/btf_ids.bin
	@od -An -tx1 -v $(BUILDDIR)/btf_ids.bin | grep -q '[1-9a-f]' \
	    || { echo "Makefile: ERROR: $(MODULE) .BTF_ids unresolved (all zero)" >&2; rm -f $(BTF_STAMP); exit 1; }
endif

# Grouped target: one kbtf.sh run makes all three (cached; delete to redo).
$(BTF_BASE) $(RESOLVE_BTFIDS) $(KBTF)/vmlinux.h &:
	scripts/kbtf.sh $(KVER) $(KBTF)

# The debug kernel (KASAN, lockdep, kmemleak, UBSAN) for the VM tests:
# about 20 minutes once, then cached by scripts/debug-kernel.sh.
debug-kernel:
	scripts/debug-kernel.sh

# tcp_hpcc.ko for the debug kernel, beside the stock one: kbuild writes
# objects next to the sources, so build/debug/ holds links to them. The
# debug tree has vmlinux and resolve_btfids, so kbuild adds the BTF itself.
DEBUG_DIR := $(BUILDDIR)/debug
module-debug:
	@mkdir -p $(DEBUG_DIR)
	@for f in $(KBUILD_SRCS); do ln -sfn ../../$$f $(DEBUG_DIR)/$$f; done
	scripts/debug-kernel.sh >$(DEBUG_DIR)/kdir
	$(MAKE) -C $$(cat $(DEBUG_DIR)/kdir)/tree M=$(CURDIR)/$(DEBUG_DIR) modules
	$(call ko_btf_check,$(DEBUG_DIR))

vmlinux.h: bpf/vmlinux.h
bpf/vmlinux.h: $(KBTF)/vmlinux.h
	@mkdir -p $(@D)
	cp $< $@

deps:
	scripts/deps.sh build

kver:
	@echo "KVER=$(KVER) KDIR=$(KDIR)"

# BPF objects are CO-RE: built against the target kernel's vmlinux.h, they
# load on 6.1 in the VM and on this machine's kernel alike.
bpf: bpf/vmlinux.h
	$(MAKE) -C bpf

probe: bpf
	$(MAKE) -C probe

selftests: bpf/vmlinux.h
	$(MAKE) -C selftests

UNIT_CFLAGS := -O2 -g -Wall -Wextra -Werror -I. -Itests/lib

tests/unit/test_law: tests/unit/test_law.c tests/lib/tap.h hpcc_law.h
	$(CC) $(UNIT_CFLAGS) -o $@ $< -lm

tests/unit/test_ctl: tests/unit/test_ctl.c tests/lib/tap.h hpcc_ctl.h hpcc_law.h hpcc_wire.h hpcc_flowcount.h hpcc_stamp.h hpcc_siphash.h
	$(CC) $(UNIT_CFLAGS) -o $@ $<

tests/unit/test_siphash: tests/unit/test_siphash.c tests/lib/tap.h hpcc_wire.h hpcc_siphash.h
	$(CC) $(UNIT_CFLAGS) -o $@ $<

tests/unit/bench_law: tests/unit/bench_law.c hpcc_law.h
	$(CC) $(UNIT_CFLAGS) -o $@ $<

# The demo's in-VM flow generator and queue sampler.
demo-tools:
	$(MAKE) -C demo

# Everything the test suite runs.
tests: tests/unit/test_law tests/unit/test_ctl tests/unit/test_siphash selftests bpf demo-tools
	$(MAKE) -C tests/bpf

unit: tests/unit/test_law tests/unit/test_ctl tests/unit/test_siphash
	tests/unit/test_law
	tests/unit/test_ctl
	tests/unit/test_siphash

# cppcheck on all userspace C and C++, checkpatch (--strict on the module),
# no function over 80 lines outside the tests: TAP, non-zero on a finding.
lint:
	scripts/lint.sh

# Instructions per window-law update, by callgrind.
bench-law: tests/unit/bench_law
	scripts/bench-law.sh

# ns per packet of the switch program against a no-op tc program
# (BPF_PROG_TEST_RUN on this machine's kernel; root), and of the MAC
# chain's verification (the kfunc's code, in userspace).
bench-bpf: bpf tests/unit/test_siphash
	$(MAKE) -C tests/bpf
	tests/bpf/bpf_test --bench
	tests/unit/test_siphash --bench

# The README's test command: installs what is missing, builds, runs the
# unit, BPF and probe tests on this machine and the selftests in the VM
# on Debian's 6.1 and 6.12 and on the debug kernel (built once, cached).
check:
	scripts/check.sh

# check with the VM on Debian's 6.1 only, for iteration.
check-quick:
	scripts/check.sh --quick

# The README's main command: hpcc against cubic, dctcp and bbr on an
# emulated datacenter topology, one VM run; table, CSV and plots in out/.
demo:
	scripts/demo.sh

# Longer runs and more repetitions; writes Documentation/bench-results.md.
bench:
	scripts/demo.sh --long

# The ns-3 model running the module's controller (sim/): a quick run with
# the cross-check table and plots; the full set writes Documentation/sim-results.md.
sim:
	sim/run.sh

sim-bench:
	sim/run.sh --bench

# Receiver-based HPCC against sender-based, both on wire version 2, beside
# dctcp: the long and incast scenarios, 5 repetitions (tcp_hpcc.rst,
# "Receiver-based HPCC").
bench-rx:
	scripts/demo.sh --scenarios "long incast" --ccs "dctcp hpcc" --reps 5 \
		--hpcc-settings "wire_version=2 wire_version=2+rx_window=1"

# Receiver-measured N against the fixed expected_flows in the model, 2, 8
# and 32 flows (tcp_hpcc.rst, "Receiver-measured N").
sim-flows-n:
	$(MAKE) -C sim
	python3 sim/flows_n.py --profile long --seeds 3 --flows "2 8 32"

install: all install-setup
	$(MAKE) -C $(KDIR) M=$(abspath $(MODULE_DIR)) INSTALL_MOD_DIR=extra modules_install
	$(MAKE) -C probe install

# The boot-time setup (deploy/) and the man pages (man/): hpcc-setup, its
# systemd units and generator, modules-load.d; hpcc.conf, sysctl.d and
# modprobe.d files only where absent. debian/rules runs it into DESTDIR.
PREFIX ?= /usr/local
SYSCONFDIR ?= /etc
UNITDIR ?= $(PREFIX)/lib/systemd/system
MODULESLOADDIR ?= $(PREFIX)/lib/modules-load.d
MANDIR ?= $(PREFIX)/share/man
install-setup:
	install -D -m 0755 deploy/hpcc-setup $(DESTDIR)$(PREFIX)/sbin/hpcc-setup
	install -D -m 0644 -t $(DESTDIR)$(UNITDIR) deploy/hpcc.service deploy/hpcc-attach@.service
	install -d $(DESTDIR)$(dir $(UNITDIR))system-generators
	ln -sf $(PREFIX)/sbin/hpcc-setup $(DESTDIR)$(dir $(UNITDIR))system-generators/hpcc-generator
	install -D -m 0644 deploy/tcp_hpcc.modules-load.conf $(DESTDIR)$(MODULESLOADDIR)/tcp_hpcc.conf
	@set -e; for f in hpcc.conf:hpcc/hpcc.conf tcp_hpcc.sysctl.conf:sysctl.d/tcp_hpcc.conf \
	    tcp_hpcc.modprobe.conf:modprobe.d/tcp_hpcc.conf; do \
	    d=$(DESTDIR)$(SYSCONFDIR)/$${f#*:}; \
	    if [ -e $$d ]; then echo "  kept $$d"; \
	    else echo "  install deploy/$${f%%:*} $$d"; install -D -m 0644 deploy/$${f%%:*} $$d; fi; \
	done
	for s in 5 7 8; do install -D -m 0644 -t $(DESTDIR)$(MANDIR)/man$$s man/*.$$s; done

# Debian packages into build/deb/, and lintian (scripts/deb.sh).
deb:
	scripts/deb.sh

clean:
	$(if $(wildcard $(KDIR)/Makefile),$(MAKE) -C $(KDIR) M=$(CURDIR) clean)
	rm -rf $(BUILDDIR) bpf/vmlinux.h tests/unit/test_law tests/unit/test_ctl tests/unit/bench_law
	$(MAKE) -C bpf clean
	$(MAKE) -C selftests clean
	$(MAKE) -C tests/bpf clean
	$(MAKE) -C probe clean
	$(MAKE) -C demo clean
