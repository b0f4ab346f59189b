#!/bin/bash
# deb.sh - the Debian packages (debian/): tcp-hpcc-dkms and hpcc-probe,
# built with dpkg-buildpackage -us -uc -b from a copy of the tree (its
# tracked files and new ones not ignored, as they are now) into build/deb/,
# then checked with lintian. Installs missing build dependencies (root).
set -euo pipefail
cd "$(dirname "$0")/.."
me=deb.sh
start=$(date +%s)

scripts/deps.sh build deb

out=build/deb
ver=$(dpkg-parsechangelog -SVersion)
# dpkg-buildpackage writes the packages beside the source directory.
src=$out/tcp-hpcc-$ver
rm -rf "$out"
mkdir -p "$src"
if git rev-parse --git-dir >/dev/null 2>&1; then
	git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
		xargs -0 cp -a --parents -t "$src"
else
	tar -C . --exclude=./build --exclude=./out -cf - . | tar -C "$src" -xf -
fi

echo "$me: dpkg-buildpackage in $src (log: $out/build.log)"
if ! (cd "$src" && dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1; then
	tail -n 30 "$out/build.log" >&2
	echo "$me: dpkg-buildpackage failed; see $out/build.log" >&2
	exit 1
fi
rm -rf "$src"
echo "$me: built in $(( $(date +%s) - start )) s:"
ls -l "$out"/*.deb

# Lintian: what is left and why is in debian/README.source.
echo "$me: lintian"
lintian --info --display-info --tag-display-limit 0 "$out"/*.changes | tee "$out/lintian.txt"
if grep -q '^E: ' "$out/lintian.txt"; then
	echo "$me: lintian reports errors" >&2
	exit 1
fi
echo "$me: done in $(( $(date +%s) - start )) s; packages in $out/"
