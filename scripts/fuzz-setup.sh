#!/usr/bin/env bash
# fuzz-setup.sh: installs the fuzzing toolchain and builds the fuzz targets
# of pkg/fuzz (gasp fuzz) into .cache/fuzz/. Idempotent: every step is
# skipped when its result is already there.
#
#  1. Debian packages: afl++, clang-14, llvm-14 (llvm-profdata, llvm-cov),
#     libclang-rt-14-dev (profile runtime), tcl-dev, dpkg-dev, bubblewrap.
#  2. Sources of libxml2 and sqlite3 through Debian's package tools, with a
#     private apt configuration holding deb-src lines (nothing in /etc is
#     changed): .cache/fuzz/apt/, unpacked with dpkg-source -x into
#     .cache/fuzz/src/.
#  3. Four static builds (out of tree): xml-afl and xml-cov (xmllint),
#     sql-afl and sql-cov (testfixture), the AFL++ one with afl-clang-fast
#     and the coverage one with clang -fprofile-instr-generate
#     -fcoverage-mapping. A build is done when its .done file exists.
#
# Prints the toolchain directory (absolute) as its last line. Usage:
#
#	bash scripts/fuzz-setup.sh [-j N]
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$root/.cache/fuzz"
jobs="$(nproc)"
if [[ "${1:-}" == "-j" ]]; then jobs="$2"; fi
mkdir -p "$dir"
log() { echo "fuzz-setup: $*" >&2; }

sudo=()
if [[ "$(id -u)" != 0 ]]; then sudo=(sudo -n); fi

# 1. Packages.
pkgs=(afl++ clang-14 llvm-14 libclang-rt-14-dev tcl-dev dpkg-dev bubblewrap make)
missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done
if [[ ${#missing[@]} -gt 0 ]]; then
	log "installing ${missing[*]}"
	"${sudo[@]}" apt-get update -qq
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# 2. Sources, with a private apt configuration: deb-src lines for the deb
# repositories of the system's Debian sources.
src="$dir/src"
if [[ ! -f "$src/.done" ]]; then
	apt="$dir/apt"
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/parts" "$src"
	: >"$apt/sources.list"
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.sources; do
		[[ -f "$f" ]] || continue
		case "$f" in
		*.list)
			grep -E '^deb[[:space:]]' "$f" | grep 'debian' | sed 's/^deb/deb-src/' >>"$apt/sources.list" || true
			;;
		*.sources)
			# deb822: one stanza per paragraph.
			awk 'BEGIN{RS=""} {
				uris=""; suites=""; comps=""; key=""; types=""
				n=split($0, ls, "\n")
				for (i=1;i<=n;i++) {
					l=ls[i]; if (l ~ /^#/) continue
					if (l ~ /^Types:/) {sub(/^Types:[ \t]*/,"",l); types=l}
					if (l ~ /^URIs:/) {sub(/^URIs:[ \t]*/,"",l); uris=l}
					if (l ~ /^Suites:/) {sub(/^Suites:[ \t]*/,"",l); suites=l}
					if (l ~ /^Components:/) {sub(/^Components:[ \t]*/,"",l); comps=l}
					if (l ~ /^Signed-By:/) {sub(/^Signed-By:[ \t]*/,"",l); key=l}
				}
				if (types !~ /deb/ || uris !~ /debian/) next
				nu=split(uris, u, " "); ns=split(suites, s, " ")
				for (a=1;a<=nu;a++) for (b=1;b<=ns;b++) {
					opt=(key != "") ? "[signed-by=" key "] " : ""
					print "deb-src " opt u[a] " " s[b] " " comps
				}
			}' "$f" >>"$apt/sources.list"
			;;
		esac
	done
	aptopts=(-o "Dir::Etc::SourceList=$apt/sources.list" -o "Dir::Etc::SourceParts=$apt/parts"
		-o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache")
	log "apt-get update (private deb-src configuration)"
	apt-get "${aptopts[@]}" update -qq
	rm -rf "$src"/*
	(cd "$src" && apt-get "${aptopts[@]}" source --download-only -qq libxml2 sqlite3)
	(cd "$src" && for d in *.dsc; do dpkg-source -q -x "$d" "${d%%_*}" >/dev/null; done)
	ls "$src"/*.dsc | sed 's,.*/,,' >"$src/versions"
	touch "$src/.done"
fi

# 3. Builds.
build() { # name kind cc cflags ldflags
	local name="$1" kind="$2" cc="$3" cflags="$4" ldflags="$5"
	local b="$dir/build/$name"
	[[ -f "$b/.done" ]] && return 0
	log "building $name"
	local t0=$SECONDS
	rm -rf "$b"
	mkdir -p "$b"
	(
		cd "$b"
		case "$kind" in
		xml)
			# Debian's patches touch Makefile.am: make the generated files newer
			# (in order) so that make does not want automake.
			(cd "$src/libxml2" && touch aclocal.m4 && sleep 1 && touch configure &&
				sleep 1 && find . -name Makefile.in -exec touch {} + && sleep 1 && touch config.h.in)
			CC="$cc" CFLAGS="$cflags" LDFLAGS="$ldflags" "$src/libxml2/configure" --disable-shared \
				--without-python --without-zlib --without-lzma --without-icu --without-http \
				--without-ftp --without-threads >configure.log 2>&1
			make -j"$jobs" xmllint >make.log 2>&1
			test -x xmllint
			;;
		sql)
			CC="$cc" CFLAGS="$cflags" LDFLAGS="$ldflags" "$src/sqlite3/configure" \
				--with-tcl=/usr/lib/tcl8.6 --disable-shared >configure.log 2>&1
			make -j"$jobs" testfixture >make.log 2>&1
			test -x testfixture
			;;
		esac
	) || {
		log "build $name failed; see $b/*.log"
		tail -20 "$b/make.log" "$b/configure.log" >&2 2>/dev/null || true
		return 1
	}
	echo "$((SECONDS - t0))" >"$b/build-seconds"
	touch "$b/.done"
	log "built $name in $((SECONDS - t0)) s"
}

cov="-O1 -g -fprofile-instr-generate -fcoverage-mapping"
build xml-afl xml afl-clang-fast "-O2 -g" ""
build xml-cov xml clang-14 "$cov" "-fprofile-instr-generate"
build sql-afl sql afl-clang-fast "-O2 -g" ""
build sql-cov sql clang-14 "$cov" "-fprofile-instr-generate"

echo "$dir"
