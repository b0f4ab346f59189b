#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The tree's static checks, as `make lint` and scripts/check.sh run them;
# TAP, one assertion per check, its findings as "#   " lines under it:
#
#   1. cppcheck --enable=warning,style,performance on all userspace C and
#      C++ (probe/, tests/, selftests/, demo/, sim/)
#   2. checkpatch.pl (default) on the tools code: probe/, selftests/ and
#      demo/ C files and headers, tests/lib/tap.h
#   3. checkpatch.pl --strict on the module: tcp_hpcc.c and hpcc_*.h. The
#      headers userspace shares (hpcc_law.h, hpcc_ctl.h, hpcc_wire.h,
#      hpcc_maps.h, hpcc_stamp.h: the unit tests, hpcc-probe, the BPF
#      programs and the ns-3 model compile them too) keep the <stdint.h>
#      types, so PREFER_KERNEL_TYPES is not checked in them.
#   4. no function over 80 lines outside the tests: the module, probe/,
#      bpf/, sim/ and demo/ (C, C++ and Python; a C function from its
#      opening brace in column 0 to its closing one)
#   5. every module parameter of tcp_hpcc.c (HPCC_PARAM, module_param*) has
#      an entry in man/tcp_hpcc.7 (a .TP item's .B/.BR line) and a row in
#      Documentation/tcp_hpcc.rst's parameter table
#
# usage: scripts/lint.sh [-v]   (-v: list every function's length too)
# Needs cppcheck and perl (scripts/deps.sh build); checkpatch.pl is taken
# from CHECKPATCH, else from Debian's linux-source-6.1 tarball (deps.sh
# build installs it) into build/checkpatch/ once. Exit status 1 on any
# finding. Installs nothing.
# The lists of files are split into words on purpose: the tree's names
# have no spaces.
# shellcheck disable=SC2046,SC2086
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
. tests/lib/tap.sh

verbose=
[ "${1:-}" = -v ] && verbose=1
MAX_LINES=80
KSRC_TAR=/usr/src/linux-source-6.1.tar.xz

# The files, tracked or not (not ignored); skeletons and vmlinux.h are
# generated, megabytes of bytes cppcheck would take minutes over.
files() {
	local globs=() g
	for g; do
		globs+=(":(glob)$g")
	done
	git ls-files -co --exclude-standard -- "${globs[@]}" |
		grep -v -e '\.skel\.h$' -e 'vmlinux\.h$' | sort -u
}

# A copy of the sources without the generated headers, where the checks
# run: cppcheck finds a header next to the file that includes it however
# it is told, and checkpatch leaves a cache file in a git tree's top.
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
files '**/*.c' '**/*.h' '**/*.cc' '**/*.py' probe/cppcheck.cfg | tar -cf - -T - | tar -xf - -C "$tree"
mkdir "$tree/include"	# what checkpatch's CamelCase check reads, empty

# 1. cppcheck: C and C++ apart (the model is C++17 against ns-3's headers,
# which cppcheck is not shown). The module's headers the model includes
# are C, where a cast from void * is how it is done: no cstyleCast there.
lint_cppcheck() {
	local c cc

	c=$(files 'probe/*.c' 'tests/*/*.c' 'selftests/*.c' 'demo/*.c' | grep -v '\.bpf\.c$')
	cc=$(files 'sim/*.cc')
	(cd "$tree" &&
	 cppcheck --enable=warning,style,performance --inline-suppr -q \
		--template='{file}:{line}: {severity}: {message} [{id}]' \
		--library=probe/cppcheck.cfg -I. -Itests/lib -Itests/bpf \
		-Iselftests -Idemo $c 2>&1 &&
	 cppcheck --enable=warning,style,performance --inline-suppr -q \
		--template='{file}:{line}: {severity}: {message} [{id}]' \
		--language=c++ --std=c++17 --suppress='cstyleCast:hpcc_*.h' \
		-I. -Idemo -Itests/lib $cc 2>&1)
}

checkpatch_path() {
	local dir=build/checkpatch
	if [ -n "${CHECKPATCH:-}" ]; then
		echo "$CHECKPATCH"
		return
	fi
	if [ ! -x $dir/scripts/checkpatch.pl ] && [ -r $KSRC_TAR ]; then
		mkdir -p $dir &&
		tar -xf $KSRC_TAR -C $dir --strip-components=1 \
			linux-source-6.1/scripts/checkpatch.pl \
			linux-source-6.1/scripts/spelling.txt \
			linux-source-6.1/scripts/const_structs.checkpatch >&2
	fi
	[ -x $dir/scripts/checkpatch.pl ] && echo "$PWD/$dir/scripts/checkpatch.pl"
}

# checkpatch [OPTION...] -- FILE...: its findings, one line each
checkpatch() {
	local opts=()
	while [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	shift
	(cd "$tree" && for f in "$@"; do
		perl "$CP" --no-tree --root=. --quiet --show-types --emacs "${opts[@]}" -f "$f" |
			grep -E '^[^ ]+:[0-9]+: (ERROR|WARNING|CHECK):'
	done) || true
}

# 4. The functions: C and C++ from a line "{" to its "}" (kernel and ns-3
# style both put them in column 0) after a line with ")", named after what
# precedes the "(" of the last line that starts in column 0 with a name;
# Python from "def" to the next line indented as far.
funclen() {
	awk -v max=$MAX_LINES -v all="$verbose" '
	function report(name, start, end,   n) {
		n = end - start + 1
		if (n > max)
			printf "%s:%d: %s() is %d lines (at most %d)\n", FILENAME, start, name, n, max
		else if (all)
			printf "%s:%d: %s() %d lines\n", FILENAME, start, name, n
	}
	function py_close(ind) {
		while (depth > 0 && ind <= pind[depth]) {
			report(pname[depth], pstart[depth], pend[depth])
			depth--
		}
	}
	FNR == 1 { py_close(-1); p1 = p2 = sig = ""; infn = 0; py = FILENAME ~ /\.py$/ }
	py {
		if ($0 ~ /^[ \t]*$/ || $0 ~ /^[ \t]*#/)
			next
		match($0, /^[ \t]*/)
		py_close(RLENGTH)
		for (i = 1; i <= depth; i++)
			pend[i] = FNR
		if ($0 ~ /^[ \t]*(async[ \t]+)?def[ \t]/) {
			depth++
			pind[depth] = RLENGTH
			pstart[depth] = pend[depth] = FNR
			s = $0
			sub(/^[ \t]*(async[ \t]+)?def[ \t]+/, "", s)
			sub(/\(.*/, "", s)
			pname[depth] = s
		}
		next
	}
	!infn && /^\{/ && (p1 ~ /\)/ || p2 ~ /\)/) {
		s = sig
		sub(/\(.*/, "", s)
		n = split(s, w, /[ \t*&]+/)
		name = w[n]
		start = FNR
		infn = 1
	}
	infn && /^\}/ { report(name, start, FNR); infn = 0 }
	!/^[ \t]*$/ { p2 = p1; p1 = $0 }
	/^[A-Za-z_]/ { sig = $0 }
	END { py_close(-1) }
	' "$@"
}

# cppcheck beside checkpatch: each takes one core for most of the time
have_cppcheck=
if command -v cppcheck >/dev/null; then
	have_cppcheck=1
	lint_cppcheck >"$tree/cppcheck.out" &
	cppcheck_pid=$!
fi
CP=$(checkpatch_path)
if [ -n "$CP" ]; then
	tools=$(checkpatch -- $(files 'probe/*.[ch]' 'selftests/*.[ch]' 'demo/*.[ch]' tests/lib/tap.h))
	shared="hpcc_law.h hpcc_ctl.h hpcc_wire.h hpcc_maps.h hpcc_stamp.h"
	# _Static_assert is C11's keyword (hpcc_maps.h, shared with BPF and
	# C++), not a name of ours in CamelCase
	module=$(checkpatch --strict -- tcp_hpcc.c $(files 'hpcc_*.h' | grep -vxF -f <(tr ' ' '\n' <<<"$shared"))
		 checkpatch --strict --ignore PREFER_KERNEL_TYPES -- $shared |
			grep -v 'CAMELCASE: Avoid CamelCase: <_Static_assert>')
fi

if [ -n "$have_cppcheck" ]; then
	wait $cppcheck_pid
	out=$(cat "$tree/cppcheck.out")
	[ -z "$out" ]
	tap_result $? "cppcheck: userspace C and C++ ($(cppcheck --version))"
	[ -z "$out" ] || tap_diag "$out"
else
	tap_skip "cppcheck: userspace C and C++" "no cppcheck (scripts/deps.sh build)"
fi

if [ -n "$CP" ]; then
	[ -z "$tools" ]
	tap_result $? "checkpatch: tools code (probe/, selftests/, demo/, tests/lib/tap.h)"
	[ -z "$tools" ] || tap_diag "$tools"
	[ -z "$module" ]
	tap_result $? "checkpatch --strict: the module (tcp_hpcc.c, hpcc_*.h)"
	[ -z "$module" ] || tap_diag "$module"
else
	for what in "tools code" "--strict: the module"; do
		tap_skip "checkpatch $what" "no checkpatch.pl (CHECKPATCH=, or scripts/deps.sh build)"
	done
fi

list=$(files tcp_hpcc.c 'hpcc_*.h' 'probe/*.[ch]' 'bpf/*.bpf.c' 'bpf/*.h' \
	'sim/*.cc' 'sim/*.h' 'sim/*.py' 'demo/*.[ch]' 'demo/*.py' | grep -vx 'sim/test_model.cc')
out=$(cd "$tree" && funclen $list)
if [ -n "$verbose" ]; then
	printf '%s\n' "$out" | grep -v 'is [0-9]* lines (at most' | sed 's/^/# /'
	out=$(printf '%s\n' "$out" | grep 'is [0-9]* lines (at most')
fi
[ -z "$out" ]
tap_result $? "no function over $MAX_LINES lines outside the tests (module, probe/, bpf/, sim/, demo/)"
[ -z "$out" ] || tap_diag "$out"

# 5. the module's parameters, each documented where an operator looks
params=$(sed -n -e 's/^HPCC_PARAM(\([a-z_0-9]*\),.*/\1/p' \
	-e 's/^module_param[a-z_]*(\([a-z_0-9]*\),.*/\1/p' tcp_hpcc.c)
out=
for p in $params; do
	awk -v p="$p" 'prev == ".TP" && ($1 == ".B" || $1 == ".BR") && $2 == p { f = 1 }
		{ prev = $0 } END { exit !f }' man/tcp_hpcc.7 ||
		out+="man/tcp_hpcc.7: no entry for $p"$'\n'
	grep -q "^$p  " Documentation/tcp_hpcc.rst ||
		out+="Documentation/tcp_hpcc.rst: no row for $p in the parameter table"$'\n'
done
[ -n "$params" ] && [ -z "$out" ]
tap_result $? "every module parameter in tcp_hpcc.7 and tcp_hpcc.rst ($(echo $params | wc -w) parameters)"
[ -z "$out" ] || tap_diag "${out%$'\n'}"

tap_done
