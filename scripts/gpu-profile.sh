#!/usr/bin/env bash
# gpu-profile.sh: where an 8B decode step's time and memory go on a GPU machine,
# for the follow-up of a gpu-check.sh report (same set-up: carry
# build/gpu-check.tar.gz, run from the repository root there). Writes to $OUT
# (at most 8 files):
#
#   profile.md           each run's gasp bench lm numbers (ms/step, CPU ms/step)
#   b1.pprof, b100.pprof CPU profiles of the decode steps at batch 1 and 100 (warm-up pass and its compiles included)
#                        (go tool pprof -top b1.pprof; Go frames are symbolized
#                        in the profile itself, the binary is stripped)
#   xla-dump.tar.gz      XLA's optimized HLO of the batch-1 run (--xla_dump_to)
#   nsys.txt             nsys's CUDA kernel and API summary of batch 1, if nsys is there
#   memory.csv           nvidia-smi memory.used during batch 100 × 1,024 positions
#                        with allocator=platform (cudaMalloc per buffer: live bytes,
#                        not the BFC pool, which grows in powers of two)
#
# Settings: OUT, WORK (default /tmp/gasp-gpu-check: its checkpoint is reused),
# PYTHON, DEADLINE (seconds, default 400).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
deadline=$(($(date +%s) + ${DEADLINE:-400}))
py="${PYTHON:-python3}"
work="${WORK:-/tmp/gasp-gpu-check}"
out="${OUT:-analysis/gpu/profile}"
mkdir -p "$work" "$out"
[[ -x build/gpu-check/gasp ]] || tar -C build -xzf build/gpu-check.tar.gz
gasp="$root/build/gpu-check/gasp"
export GOMLX_NO_AUTO_INSTALL=1
if [[ -z "${GPU_PROFILE_BACKEND:-}" ]]; then source scripts/gpu/plugin-env.sh "$py" || exit 1; fi
base="xla:${PJRT_PLUGIN:-},tf32=false"
ckpt="$work/ckpt"
if [[ ! -f "$ckpt/done" ]]; then
	"$py" scripts/gpu/synth.py --size 8b --out "$ckpt" --tokenizer build/gpu-check/tokenizer.json && echo 8b >"$ckpt/done"
fi
echo "# gasp GPU profile ($(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null), $(date -u +%FT%TZ))" >"$out/profile.md"

# run NAME LIMIT CMD...: bounded by LIMIT and the deadline; the command's output goes to profile.md.
run() {
	local name="$1" limit="$2" left rc
	shift 2
	left=$((deadline - $(date +%s)))
	((left < 15)) && { echo "## $name: skipped (deadline)" >>"$out/profile.md"; return; }
	((limit > left)) && limit=$left
	echo "gpu-profile: $name (≤ $limit s)" >&2
	{ echo "## $name"; echo '```'; } >>"$out/profile.md"
	timeout -k 5 "$limit" bash -c '"$@"' _ "$@" >"$work/$name.out" 2>"$work/$name.err"
	rc=$?
	{ cat "$work/$name.out"; echo "exit $rc"; grep -v "cuda_linux.go" "$work/$name.err" | tail -n 15; echo '```'; } >>"$out/profile.md"
}
bench() { "$gasp" bench lm --model "$ckpt" --dtype bf16 --max-seq 1024 "$@"; }
backend() { echo "${GPU_PROFILE_BACKEND:-$base,$1}"; } # GPU_PROFILE_BACKEND: a test of this script on a CPU
export gasp ckpt
export -f bench

GOMLX_BACKEND="$(backend preallocate=false)" XLA_FLAGS="${XLA_FLAGS:-} --xla_dump_to=$work/xla --xla_dump_hlo_as_text" \
	run b1 120 bench --batch 1 --steps 64 --cpuprofile "$out/b1.pprof"
tar -C "$work" -czf "$out/xla-dump.tar.gz" xla 2>/dev/null
GOMLX_BACKEND="$(backend preallocate=false)" run b100 120 bench --batch 100 --steps 32 --cpuprofile "$out/b100.pprof"
nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 100 >"$out/memory.csv" 2>/dev/null &
smi=$!
GOMLX_BACKEND="$(backend allocator=platform)" run memory 120 bench --batch 100 --steps 8 --prompt-len 800 --json
kill $smi 2>/dev/null
echo "peak memory.used with allocator=platform: $(sort -n "$out/memory.csv" | tail -n 1) MiB" >>"$out/profile.md"
if command -v nsys >/dev/null; then
	GOMLX_BACKEND="$(backend preallocate=false)" run nsys 150 sh -c "nsys profile -o $work/b1 --force-overwrite true \
		$gasp bench lm --model $ckpt --dtype bf16 --max-seq 1024 --batch 1 --steps 64 >/dev/null &&
		nsys stats -q --report cuda_gpu_kern_sum,cuda_api_sum --format csv $work/b1.nsys-rep | head -c 200000 >$out/nsys.txt"
else
	echo "## nsys: not installed" >>"$out/profile.md"
fi
cat "$out/profile.md"
