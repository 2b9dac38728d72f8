#!/usr/bin/env bash
# gpu-pack.sh: builds what scripts/gpu-check.sh needs on a GPU machine that
# has no Go and no internet, as one archive to carry, build/gpu-check.tar.gz:
#
#   gasp           built with -tags xla (cgo; stripped)
#   gasp-patched   the same with go-xla patched (scripts/gpu/go-xla-memstats.patch):
#                  the check falls back to it when the plugin refuses go-xla's
#                  GetCompiledMemoryStats, which v0.4.0 treats as fatal on every compile
#   tokenizer.json the Llama 3 tokenizer (fetch-tokenizer.sh)
#
# and prints the size of what travels to the GPU machine: the working tree
# (tracked and untracked-not-ignored files) plus the archive, which must stay
# under 64 MiB. The check unpacks the archive itself.
#
# gpu-pack.sh --ab REF instead writes build/gpu-ab.tar.gz for scripts/gpu-ab.sh:
# gasp-a built from the commit REF (in a temporary git worktree), gasp-b from
# the working tree, and the tokenizer.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
source scripts/goenv.sh
build() { CGO_ENABLED=1 go build -tags xla -trimpath -ldflags='-s -w' "$@"; }

if [[ "${1:-}" == "--ab" ]]; then
	ref="${2:?gpu-pack.sh --ab REF: the commit to build as A}"
	dst=build/gpu-ab
	rm -rf "$dst" && mkdir -p "$dst"
	bash scripts/fetch-tokenizer.sh >/dev/null
	cp .cache/llama3/tokenizer.json "$dst/"
	tree="$(mktemp -d)/a"
	git worktree add --detach "$tree" "$ref" >/dev/null
	echo "gpu-pack: gasp-a from $ref, gasp-b from the working tree" >&2
	(cd "$tree" && build -o "$root/$dst/gasp-a" ./cmd/gasp) && build -o "$dst/gasp-b" ./cmd/gasp
	rc=$?
	git worktree remove --force "$tree"
	((rc == 0)) || exit $rc
	tar -C build -czf build/gpu-ab.tar.gz gpu-ab
	bash scripts/gpu-size.sh build/gpu-ab.tar.gz
	exit
fi
dst=build/gpu-check
rm -rf "$dst" && mkdir -p "$dst"
bash scripts/fetch-tokenizer.sh >/dev/null
cp .cache/llama3/tokenizer.json "$dst/tokenizer.json"
echo "gpu-pack: go build -tags xla ./cmd/gasp" >&2
build -o "$dst/gasp" ./cmd/gasp

# The fallback: a patched copy of go-xla, through a go.mod of its own (-modfile) with a replace.
version=$(go list -m -f '{{.Version}}' github.com/gomlx/go-xla)
src=$(go list -m -f '{{.Dir}}' github.com/gomlx/go-xla)
patched=build/go-xla-patched
rm -rf "$patched" && cp -r "$src" "$patched" && chmod -R u+w "$patched"
patch -s -d "$patched" -p1 <scripts/gpu/go-xla-memstats.patch
cp go.mod build/gpu-patched.mod
cp go.sum build/gpu-patched.sum
echo "replace github.com/gomlx/go-xla $version => ./$patched" >>build/gpu-patched.mod
echo "gpu-pack: go build -tags xla ./cmd/gasp (go-xla $version patched)" >&2
build -modfile build/gpu-patched.mod -o "$dst/gasp-patched" ./cmd/gasp

tar -C build -czf build/gpu-check.tar.gz gpu-check
bash scripts/gpu-size.sh build/gpu-check.tar.gz
