#!/usr/bin/env bash
# gpu-check.sh: checks gasp's Llama stack on a GPU machine in one command that
# fits a short lease (issue #26). Stages, riskiest first, each bounded by
# `timeout` and by the check's deadline; the report (report.md, report.json)
# and the logs (logs.tar.gz) are rewritten in $OUT before and after every
# stage, so a check cut short still returns what it found:
#
#   env       GPU, driver, Python packages, the plugin's PJRT C API version,
#             gasp doctor on the XLA backend                          (≤ 60 s)
#   jax       jax itself on the plugin (a broken machine or go-xla?)  (≤ 45 s)
#   tiny      a 2-layer model with the Llama 3 vocabulary through XLA on the
#             GPU, f32 logits against the numpy reference; if gasp fails, the
#             same with gasp-patched (go-xla with GetCompiledMemoryStats
#             non-fatal), which then runs every later stage          (≤ 90 s)
#   families  Llama-3.2, Qwen2.5 and Qwen3 shapes (small widths, real
#             vocabularies) written by transformers, f32 logits through XLA
#             and gasp's cpu engine against transformers (scripts/gpu/
#             families.py)                                           (≤ 150 s)
#   synth     waits for the Llama-3.1-8B-shaped checkpoint (random bf16
#             weights) that scripts/gpu/synth.py writes in the background
#             from the start, in parallel; reused when already there
#   bench8b   one load of 8B in bf16: next-token logits, gasp bench lm at
#             batch 1 and 100 (prompt 128, 1,024 positions), GPU memory sampled
#   logits8b  8B in f32 against transformers (float32, TF32 off), both loaded
#             side by side
#   memory8b  batch 100 with a prompt of 800 tokens: caches at their 1,024
#             positions, nvidia-smi's peak against llama.EstimateMemory, with
#             XLA's platform allocator (live bytes, not the BFC pool)
#   sample, sample_gcd
#             MCMC-Priority and GCD on a SyGuS task (8B bf16)
#   cmdbuf    batch 1 again with XLA's command buffers on (off is gasp's default
#             on CUDA: analysis/gpu/README.md, section 10)
#
# Where to run it, from the repository root there:
#   bash scripts/gpu-pack.sh              # here: build/gpu-check.tar.gz
#   bash scripts/gpu-check.sh             # there (carry build/gpu-check.tar.gz)
#
# The GPU machine needs no Go and no internet: python3 with numpy, torch and
# transformers, and jax's CUDA PJRT plugin (jax_plugins.xla_cuda13), loaded by
# its real path with the nvidia.* wheels' libraries on LD_LIBRARY_PATH and
# --xla_gpu_cuda_data_dir, as jax itself does.
#
# Settings (environment): OUT (default analysis/gpu), WORK (scratch, default
# /tmp/gasp-gpu-check; needs ~17 GB; a checkpoint left there is reused),
# DEADLINE (seconds for the whole check, default 500: stages that would end
# later are cut to fit, or skipped), PYTHON, GASP, GASP_PATCHED, TOKENIZER,
# GPU_CHECK_TINY=1 (every stage on a 2-layer model on the CPU, with the numpy
# reference: how the tests run this script).
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
start=$(date +%s)
deadline=$((start + ${DEADLINE:-500}))
py="${PYTHON:-python3}"
work="${WORK:-/tmp/gasp-gpu-check}"
out="${OUT:-analysis/gpu}"
tiny="${GPU_CHECK_TINY:-}"
task=data/gad/BV4/find_inv_bvsge_bvneg_4bit
mkdir -p "$work" "$out"
work="$(cd "$work" && pwd)"
rm -f "$work"/*.log "$work"/*.json "$work"/*.jsonl "$work"/*.npy "$work"/*.csv "$work"/stages.tsv "$work"/env.txt
: >"$work/stages.tsv"

# report: rewrites the report and the logs' archive in $out from what $work holds now.
report() {
	"$py" scripts/gpu/report.py --work "$work" --out "$out" >/dev/null 2>>"$work/report.log" ||
		echo "gpu-check: report.py failed (see report.log in logs.tar.gz)" >&2
	tar -C "$work" -czf "$out/logs.tar.gz.tmp" --exclude=ckpt --exclude=tiny --exclude=fam --exclude='*.npy' . 2>/dev/null &&
		mv "$out/logs.tar.gz.tmp" "$out/logs.tar.gz"
}

# stage NAME LIMIT CMD...: runs CMD (a program or an exported function) for at most LIMIT seconds (less if
# the deadline comes first; skipped if under 10 s are left), logging to $work/NAME.log; records "NAME
# running" before and the exit status and seconds after, and rewrites the report both times.
stage() {
	local name="$1" limit="$2" t0 rc left
	shift 2
	left=$((deadline - $(date +%s)))
	if ((left < 10)); then
		printf '%s\tskipped\t\t0\t%d\n' "$name" "$limit" >>"$work/stages.tsv"
		echo "gpu-check: $name skipped (deadline)" >&2
		report
		return 99
	fi
	((limit > left)) && limit=$left
	printf '%s\trunning\t\t0\t%d\n' "$name" "$limit" >>"$work/stages.tsv"
	report
	echo "gpu-check: $name (≤ ${limit} s)" >&2
	t0=$(date +%s%N)
	# timeout signals its whole process group: a stage's children (gasp, python, nvidia-smi) end with it.
	timeout -k 5 "$limit" bash -c '"$@"' _ "$@" >"$work/$name.log" 2>&1
	rc=$?
	sed -i "/^$name\trunning\t/d" "$work/stages.tsv"
	printf '%s\t%s\t%d\t%s\t%d\n' "$name" "$( ((rc == 124 || rc == 137)) && echo timeout || { ((rc == 0)) && echo ok || echo failed; })" \
		"$rc" "$(awk -v t0="$t0" -v t1="$(date +%s%N)" 'BEGIN {printf "%.1f", (t1 - t0) / 1e9}')" "$limit" >>"$work/stages.tsv"
	if ((rc != 0)); then
		echo "gpu-check: $name failed (exit $rc); last lines of its log:" >&2
		tail -n 8 "$work/$name.log" >&2
	fi
	report
	return $rc
}

# The binaries: from build/gpu-check/, unpacked from the archive gpu-pack.sh wrote when missing.
if [[ -z "${GASP:-}" && ! -x build/gpu-check/gasp && -f build/gpu-check.tar.gz ]]; then
	tar -C build -xzf build/gpu-check.tar.gz
fi
gasp="${GASP:-build/gpu-check/gasp}"
gasp_patched="${GASP_PATCHED:-build/gpu-check/gasp-patched}"
tok="${TOKENIZER:-build/gpu-check/tokenizer.json}"
for f in "$gasp" "$tok"; do
	if [[ ! -e "$f" ]]; then
		echo "gpu-check: $f is missing (run scripts/gpu-pack.sh where Go is, and carry build/gpu-check.tar.gz)" >&2
		exit 1
	fi
done
export GOMLX_NO_AUTO_INSTALL=1

if [[ -n "$tiny" ]]; then
	size=tiny impl=numpy batches=1,4 steps=4 chains=4 k=2 mem_prompt=200 mem_seq=256
	export GOMLX_BACKEND="${GOMLX_BACKEND:-go}"
	fam_args=(--only qwen3 --backend go=go --backend cpu=cpu --dtype f32 --dtype bf16)
	backend_note="CPU mode (GPU_CHECK_TINY): every stage on a 2-layer model"
else
	size=8b impl=transformers batches=1,100 steps=32 chains=16 k=5 mem_prompt=800 mem_seq=1024
	source scripts/gpu/plugin-env.sh "$py" || exit 1 # sets GOMLX_BACKEND, LD_LIBRARY_PATH, XLA_FLAGS, PATH
	backend_note="plugin $PJRT_PLUGIN (nvidia libraries: $NVIDIA_LIB_DIRS)"
	fam_args=(--backend xla="$GOMLX_BACKEND" --backend cpu=cpu --dtype f32 --dtype bf16)
fi
echo "$gasp" >"$work/binary.txt"

# The 8B checkpoint, written in the background from the start (all CPUs) unless a finished one is there.
ckpt="$work/ckpt"
if [[ -f "$ckpt/done" && "$(cat "$ckpt/done")" == "$size" ]]; then
	echo "gpu-check: reusing the checkpoint in $ckpt" >"$work/synth_bg.log"
else
	rm -rf "$ckpt"
	("$py" scripts/gpu/synth.py --size "$size" --out "$ckpt" --tokenizer "$tok" && echo "$size" >"$ckpt/done") \
		>"$work/synth_bg.log" 2>&1 &
	synth_pid=$!
fi

# env: what the machine has, and whether go-xla's view of the plugin holds.
env_stage() {
	date -u +"date: %Y-%m-%dT%H:%M:%SZ"
	echo "GOMLX_BACKEND: $GOMLX_BACKEND"
	echo "backend: $backend_note"
	echo "LD_LIBRARY_PATH: ${LD_LIBRARY_PATH:-}"
	echo "XLA_FLAGS: ${XLA_FLAGS:-}"
	nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /'
	echo "cpus: $(nproc), memory: $(free -g | awk '/^Mem:/ {print $2}') GiB, disk free in WORK: $(df -h "$work" | awk 'NR == 2 {print $4}')"
	"$py" -c 'import sys, numpy; print("python", sys.version.split()[0], "numpy", numpy.__version__)'
	"$py" -c 'import torch, transformers; print("torch", torch.__version__, "transformers", transformers.__version__)' 2>/dev/null
	"$py" -c 'import jax; print("jax", jax.__version__)' 2>/dev/null
	if [[ -z "$tiny" ]]; then "$py" scripts/gpu/pjrt_version.py "$PJRT_PLUGIN"; fi
	echo "--- gasp doctor"
	"$gasp" doctor
}
export gasp ckpt work tok py tiny backend_note
export -f env_stage
stage env 60 env_stage
cp "$work/env.log" "$work/env.txt"
# jax on the same plugin: tells a broken machine from a go-xla that this plugin refuses.
if [[ -z "$tiny" ]]; then
	stage jax 45 "$py" -c 'import jax, jax.numpy as jnp; print(jax.devices()); x = jnp.arange(6.0).reshape(2, 3); print(float((x @ x.T).sum()))'
fi

# tiny: the riskiest question (does the plugin compile and run gasp's graphs, exactly?), with the fallback.
tiny_model() {
	"$py" scripts/gpu/synth.py --size tiny --out "$work/tiny" --tokenizer "$tok" --jobs 4 &&
		"$py" scripts/gpu/reference.py --model "$work/tiny" --out "$work/tiny_ref.npy" --impl numpy
}
tiny_logits() {
	"$1" logits --model "$work/tiny" --ids "$(tr -d '[]\n' <"$work/tiny/ids.json")" --dtype f32 >"$work/tiny_logits.json"
}
export -f tiny_model tiny_logits
stage tiny_model 60 tiny_model
if ! stage tiny 60 tiny_logits "$gasp" && [[ -x "$gasp_patched" ]]; then
	if stage tiny_patched 60 tiny_logits "$gasp_patched"; then
		export gasp="$gasp_patched"
		echo "$gasp" >"$work/binary.txt"
	fi
fi

# families: the other architectures, each against a forward pass that is not gasp's.
families() {
	"$py" scripts/gpu/families.py --gasp "$gasp" --work "$work/fam" --out "$work/families.json" --impl "$impl" "$@"
}
export impl
export -f families
stage families 150 families "${fam_args[@]}"

stage synth 240 bash -c 'while [[ ! -f "$1/done" ]]; do
	if [[ -z "$3" ]] || ! kill -0 "$3" 2>/dev/null && [[ ! -f "$1/done" ]]; then cat "$2"; exit 1; fi
	sleep 1; done; cat "$2"' _ "$ckpt" "$work/synth_bg.log" "${synth_pid:-}"
ids="$(tr -d '[]\n' <"$ckpt/ids.json" 2>/dev/null)"

# memsample NAME CMD...: runs CMD while nvidia-smi samples the GPU memory in use into NAME.csv.
memsample() {
	local name="$1" smi="" rc
	shift
	: >"$work/$name.csv"
	if command -v nvidia-smi >/dev/null; then
		nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 200 >"$work/$name.csv" 2>/dev/null &
		smi=$!
	fi
	"$@"
	rc=$?
	if [[ -n "$smi" ]]; then kill "$smi" 2>/dev/null; wait "$smi" 2>/dev/null; fi
	return $rc
}
bench() { # bench OUT.json ARGS...: gasp bench lm on the checkpoint in bf16
	local o="$1"
	shift
	"$gasp" bench lm --model "$ckpt" --dtype bf16 --json "$@" >"$o"
}
export -f memsample bench
stage bench8b 180 memsample mem_bench bench "$work/bench.json" --batch "$batches" --steps "$steps" \
	--prompt-len 128 --max-seq "$mem_seq" --logits-ids "$ids"

logits8b() {
	"$py" scripts/gpu/reference.py --model "$ckpt" --out "$work/ref.npy" --impl "$impl" >"$work/reference.log" 2>&1 &
	local refpid=$! rc
	"$gasp" logits --model "$ckpt" --ids "$ids" --dtype f32 >"$work/logits_f32.json"
	rc=$?
	wait $refpid || rc=$?
	cat "$work/reference.log"
	return $rc
}
export ids
export -f logits8b
stage logits8b 150 logits8b

# allocator=platform: a cudaMalloc per buffer, so that nvidia-smi shows the live bytes; XLA's default BFC
# allocator grows its pool in powers of two (64.6 GiB seen for this 40 GiB plan, 2026-11-26).
memory8b() {
	GOMLX_BACKEND="${GOMLX_BACKEND/preallocate=false/allocator=platform}" memsample mem_plan bench "$work/memory.json" \
		--batch 100 --steps 8 --prompt-len "$mem_prompt" --max-seq "$mem_seq"
}
export mem_prompt mem_seq
export -f memory8b
stage memory8b 120 memory8b

sample() { # sample OUT.jsonl ARGS...
	local o="$1"
	shift
	rm -f "$o"
	"$gasp" sample --model "$ckpt" --grammar "$task/grammar.ebnf" --prompt "$task/prompt.txt" \
		--max-new-tokens 64 --seed 1 --quiet --out "$o" "$@"
}
export task
export -f sample
stage sample 90 sample "$work/sample.jsonl" --method mcmc-priority --k "$k" --n "$chains" --batch "$chains"
stage sample_gcd 60 sample "$work/sample_gcd.jsonl" --method gcd --n 8 --batch 8

# cmdbuf: batch 1 with XLA's command buffers on, against bench8b's with them off (gasp's default on CUDA,
# llama.XLAFlags): whether that default still pays on this machine and plugin. Last: an XLA that refuses the
# list aborts this stage alone.
cmdbuf() {
	XLA_FLAGS="${XLA_FLAGS:-} --xla_gpu_enable_command_buffer=FUSION,CUBLAS,CUBLASLT,CUSTOM_CALL,CUDNN" \
		bench "$work/bench_cmdbuf.json" --batch 1 --steps "$steps" --prompt-len 128 --max-seq "$mem_seq"
}
export steps
export -f cmdbuf
stage cmdbuf 90 cmdbuf

report
echo "gpu-check: done in $(($(date +%s) - start)) s; $out/report.md:" >&2
cat "$out/report.md"
