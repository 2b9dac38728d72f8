#!/usr/bin/env bash
# gpu-flags.sh: the 8B-shaped checkpoint's decode step at batch 1 and 100 under
# XLA's command buffers (CUDA graphs) on and off, one process each, alternated
# off, on, off, on, on a GPU machine (same set-up as gpu-check.sh: carry
# build/gpu-check.tar.gz, run from the repository root there). gasp turns them
# off on CUDA unless XLA_FLAGS sets the flag (llama.XLAFlags); this measures
# that choice again on whatever machine and plugin it runs on. Writes to $OUT:
#
#   flags.md        each run's gasp bench lm figures (ms/step, CPU ms/step)
#   hlo.tar.gz      the optimized HLO of the first run's graphs (--xla_dump_to)
#
# Settings: OUT, WORK (default /tmp/gasp-gpu-check: its checkpoint is reused),
# PYTHON, DEADLINE (seconds, default 240), GASP (the binary; default the
# archive's), GPU_FLAGS_MODEL and GPU_FLAGS_BACKEND (a model directory and a
# backend: pkg/cli's TestGPUFlagsTiny runs this script so on a CPU, where the
# XLA flags do nothing).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
deadline=$(($(date +%s) + ${DEADLINE:-240}))
py="${PYTHON:-python3}"
work="${WORK:-/tmp/gasp-gpu-check}"
out="${OUT:-analysis/gpu/flags}"
mkdir -p "$work" "$out"
if [[ -z "${GASP:-}" && ! -x build/gpu-check/gasp ]]; then tar -C build -xzf build/gpu-check.tar.gz; fi
gasp="${GASP:-$root/build/gpu-check/gasp}"
export GOMLX_NO_AUTO_INSTALL=1
ckpt="${GPU_FLAGS_MODEL:-$work/ckpt}"
if [[ -z "${GPU_FLAGS_BACKEND:-}" ]]; then
	source scripts/gpu/plugin-env.sh "$py" || exit 1
	export GOMLX_BACKEND="xla:$PJRT_PLUGIN,tf32=false,preallocate=false"
	if [[ ! -f "$ckpt/done" ]]; then
		"$py" scripts/gpu/synth.py --size 8b --out "$ckpt" --tokenizer build/gpu-check/tokenizer.json && echo 8b >"$ckpt/done"
	fi
else
	export GOMLX_BACKEND="$GPU_FLAGS_BACKEND"
fi
base="${XLA_FLAGS:-}"
echo "# gasp decode under XLA command buffers on and off ($(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null), $(date -u +%FT%TZ))" >"$out/flags.md"
echo "base XLA_FLAGS: \`$base\`" >>"$out/flags.md"

# run NAME FLAGS: one bench lm process with FLAGS added to the base; skipped near the deadline.
run() {
	local name="$1" flags="$2" left rc
	left=$((deadline - $(date +%s)))
	((left < 20)) && { echo "## $name: skipped (deadline)" >>"$out/flags.md"; return; }
	((left > 90)) && left=90
	echo "gpu-flags: $name (≤ $left s)" >&2
	{ echo "## $name: \`$flags\`"; echo '```'; } >>"$out/flags.md"
	XLA_FLAGS="$base${flags:+ $flags}" timeout -k 5 "$left" "$gasp" bench lm --model "$ckpt" --dtype bf16 --max-seq 1024 \
		--batch 1,100 --steps 32 >"$work/flags-$name.out" 2>"$work/flags-$name.err"
	rc=$?
	{ cat "$work/flags-$name.out"; echo "exit $rc"; grep -v "cuda_linux.go" "$work/flags-$name.err" | tail -n 6; echo '```'; } >>"$out/flags.md"
}
on="--xla_gpu_enable_command_buffer=FUSION,CUBLAS,CUBLASLT,CUSTOM_CALL,CUDNN"
rm -rf "$work/hlo"
run off "--xla_dump_to=$work/hlo --xla_dump_hlo_as_text"
(cd "$work" && find hlo -name '*after_optimizations.txt' -size -4M | tar -czf "$out/hlo.tar.gz" -T -) 2>/dev/null
run on "$on"
run off-again ""
run on-again "$on"
cat "$out/flags.md"
