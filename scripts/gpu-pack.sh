#!/usr/bin/env bash
# gpu-pack.sh: builds what scripts/gpu-check.sh needs on a GPU machine that
# has no Go and no internet, into build/gpu-check/: gasp built with -tags xla
# (cgo; stripped) and the Llama 3 tokenizer (fetched by fetch-tokenizer.sh).
# Also writes build/gpu-check.tar.gz (the directory, compressed; < 64 MiB),
# for machines that receive only a file. The repository's tracked files
# (scripts/, data/gad/) travel with the working tree.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
source scripts/goenv.sh
dst=build/gpu-check
mkdir -p "$dst"
bash scripts/fetch-tokenizer.sh >/dev/null
cp .cache/llama3/tokenizer.json "$dst/tokenizer.json"
echo "gpu-pack: go build -tags xla ./cmd/gasp" >&2
CGO_ENABLED=1 go build -tags xla -trimpath -ldflags='-s -w' -o "$dst/gasp" ./cmd/gasp
tar -C build -czf build/gpu-check.tar.gz gpu-check
size=$(stat -c %s build/gpu-check.tar.gz)
echo "gpu-pack: $dst ($(du -sh "$dst" | cut -f1)), build/gpu-check.tar.gz $((size / 1024 / 1024)) MiB" >&2
if ((size >= 64 << 20)); then
	echo "gpu-pack: the archive is over 64 MiB" >&2
	exit 1
fi
