#!/usr/bin/env bash
# gpu-check.sh: proves gasp's Llama stack on a GPU machine in one command
# (issue #11): synthesizes a Llama-3.1-8B-Instruct-shaped checkpoint with
# random bf16 weights (config.json written by hand, as the hub's), computes
# reference logits with transformers' LlamaForCausalLM (float32, TF32 off),
# compares gasp's logits in f32 and bf16, runs "gasp bench lm" at batch 1,
# 16, 64 and 100, a short MCMC run and GCD on a SyGuS task, and writes one report
# (report.json, report.md) with the numbers and the goals.
#
#   bash scripts/gpu-pack.sh           # here: builds the -tags xla binary
#   bash scripts/gpu-check.sh          # there: from the repository root
#
# The GPU machine needs no Go and no internet: gasp (built by gpu-pack.sh,
# build/gpu-check/gasp), the Llama 3 tokenizer (build/gpu-check/), python3
# with numpy, torch and transformers, and jax's CUDA PJRT plugin, loaded by
# its absolute path. Every step's exit status and time go into the report; a
# failed step does not stop the later ones. Sized for ≤ 20 minutes on an
# H100 (most of it: writing 16 GB of weights, loading them three times, and
# XLA compiles).
#
# Settings (environment): GASP, TOKENIZER, PYTHON, WORK (scratch, default
# /tmp/gasp-gpu-check; needs ~17 GB), OUT (default analysis/gpu), and
# GPU_CHECK_TINY=1: a 2-layer model on the pure-Go backend with a numpy
# reference, to test this script on a CPU (go test ./cmd/gasp -run GPUCheck).
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
gasp="${GASP:-build/gpu-check/gasp}"
tok="${TOKENIZER:-build/gpu-check/tokenizer.json}"
py="${PYTHON:-python3}"
work="${WORK:-/tmp/gasp-gpu-check}"
out="${OUT:-analysis/gpu}"
tiny="${GPU_CHECK_TINY:-}"
task=data/gad/BV4/find_inv_bvsge_bvneg_4bit
# The SyGuS task's forced header is ~60 characters: with random weights a
# draw needs up to ~40 tokens, so the runs get 64 (with 32, MCMC found no
# valid first sample in 100 draws on the tiny model).
mkdir -p "$work" "$out"
: >"$work/steps.tsv"

# step NAME CMD...: runs CMD, logging to $work/NAME.log, and records its exit status and time.
step() {
	local name="$1" t0 rc
	shift
	echo "gpu-check: $name" >&2
	t0=$(date +%s.%N)
	"$@" >"$work/$name.log" 2>&1
	rc=$?
	printf '%s\t%d\t%.1f\n' "$name" "$rc" "$(echo "$(date +%s.%N) - $t0" | bc)" >>"$work/steps.tsv"
	if [[ $rc -ne 0 ]]; then
		echo "gpu-check: $name failed (exit $rc); last lines of $work/$name.log:" >&2
		tail -n 5 "$work/$name.log" >&2
	fi
	return $rc
}

if [[ ! -x "$gasp" ]]; then
	echo "gpu-check: no gasp binary at $gasp (run scripts/gpu-pack.sh where Go is, and copy build/gpu-check/)" >&2
	exit 1
fi
export GOMLX_NO_AUTO_INSTALL=1
if [[ -n "$tiny" ]]; then
	size=tiny impl=numpy batches=1,4 steps=4 maxseq=256 chains=4 k=2
	export GOMLX_BACKEND="${GOMLX_BACKEND:-go}"
else
	size=8b impl=transformers batches=1,16,64,100 steps=32 maxseq=512 chains=16 k=5
	if [[ -z "${GOMLX_BACKEND:-}" ]]; then
		plugin="$("$py" -c 'import jax_plugins.xla_cuda13 as p, os; print(os.path.join(p.__path__[0], "xla_cuda_plugin.so"))' 2>/dev/null)"
		if [[ -z "$plugin" || ! -f "$plugin" ]]; then
			echo "gpu-check: jax's CUDA plugin (jax_plugins.xla_cuda13) not found; set GOMLX_BACKEND=xla:/abs/path/plugin.so" >&2
			exit 1
		fi
		# TF32 off: the f32 logits are compared with a TF32-off reference; no preallocation: nvidia-smi then
		# shows what gasp holds.
		export GOMLX_BACKEND="xla:$plugin,tf32=false,preallocate=false"
	fi
fi
ckpt="$work/ckpt"

{
	date -u +"date: %Y-%m-%dT%H:%M:%SZ"
	echo "GOMLX_BACKEND: $GOMLX_BACKEND"
	echo "model: synthesized $size (scripts/gpu/synth.py), bf16"
	nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /'
	"$py" -c 'import sys, numpy; print("python", sys.version.split()[0], "numpy", numpy.__version__)' 2>&1
	"$py" -c 'import torch, transformers; print("torch", torch.__version__, "transformers", transformers.__version__)' 2>/dev/null
	"$py" -c 'import jax; print("jax", jax.__version__)' 2>/dev/null
	nproc | sed 's/^/cpus: /'
} >"$work/env.txt"

step synth "$py" scripts/gpu/synth.py --size "$size" --out "$ckpt" --tokenizer "$tok"
step doctor "$gasp" doctor --model "$ckpt" --batch 100 --seq "$maxseq"
cp "$work/doctor.log" "$work/doctor.txt"
step reference "$py" scripts/gpu/reference.py --model "$ckpt" --out "$work/ref.npy" --impl "$impl"
ids="$(tr -d '[]\n' <"$ckpt/ids.json" 2>/dev/null)"
for dt in f32 bf16; do
	step "logits_$dt" sh -c '"$1" logits --model "$2" --ids "$3" --dtype "$4" >"$5"' _ "$gasp" "$ckpt" "$ids" "$dt" "$work/logits_$dt.json"
done

# GPU memory in use, sampled while the benchmark runs.
: >"$work/mem.csv"
if command -v nvidia-smi >/dev/null && [[ -z "$tiny" ]]; then
	nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 500 >"$work/mem.csv" 2>/dev/null &
	smi=$!
fi
step bench sh -c '"$1" bench lm --model "$2" --batch "$3" --steps "$4" --max-seq "$5" --prompt-len 128 --json >"$6"' \
	_ "$gasp" "$ckpt" "$batches" "$steps" "$maxseq" "$work/bench.json"
if [[ -n "${smi:-}" ]]; then kill "$smi" 2>/dev/null; wait "$smi" 2>/dev/null; fi

rm -f "$work/sample.jsonl" "$work/sample_gcd.jsonl"
step sample "$gasp" sample --model "$ckpt" --grammar "$task/grammar.ebnf" --prompt "$task/prompt.txt" \
	--method mcmc-priority --k "$k" --n "$chains" --batch "$chains" --max-new-tokens 64 --seed 1 --quiet --out "$work/sample.jsonl"
step sample_gcd "$gasp" sample --model "$ckpt" --grammar "$task/grammar.ebnf" --prompt "$task/prompt.txt" \
	--method gcd --n 8 --batch 8 --max-new-tokens 64 --seed 1 --quiet --out "$work/sample_gcd.jsonl"

"$py" scripts/gpu/report.py --work "$work" --out "$out"
cat "$out/report.md"
