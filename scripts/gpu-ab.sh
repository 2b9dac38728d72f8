#!/usr/bin/env bash
# gpu-ab.sh A B: times two gasp binaries against each other on a GPU machine,
# on the 8B decode of gpu-check.sh (same set-up), alternating A B A B on one
# warm machine so that both see the same GPU. Each run is one process:
# gasp bench lm --dtype bf16 --batch 1,100 --steps 64 --prompt-len 128
# --max-seq 1024 --logits-ids (the checkpoint's ids), so the bf16 logits of A
# and B are compared too. Writes to $OUT: ab.md (the table and the logits'
# largest difference), b-decode.pprof (B's host CPU profile of its last run's
# decode steps), b-xla-dump.tar.gz (XLA's optimized HLO of B's first run).
#
#   bash scripts/gpu-pack.sh --ab OLD_COMMIT     # here: build/gpu-ab.tar.gz
#   bash scripts/gpu-ab.sh build/gpu-ab/gasp-a build/gpu-ab/gasp-b   # there
#
# Settings: OUT, WORK (default /tmp/gasp-gpu-check: its checkpoint is reused),
# PYTHON, ROUNDS (default 2), DEADLINE (seconds, default 360).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
deadline=$(($(date +%s) + ${DEADLINE:-360}))
py="${PYTHON:-python3}"
work="${WORK:-/tmp/gasp-gpu-check}"
out="${OUT:-analysis/gpu/ab}"
mkdir -p "$work" "$out"
[[ -x "${1:-}" ]] || tar -C build -xzf build/gpu-ab.tar.gz
a="$(realpath "$1")" b="$(realpath "$2")"
export GOMLX_NO_AUTO_INSTALL=1
source scripts/gpu/plugin-env.sh "$py" || exit 1
ckpt="$work/ckpt"
if [[ ! -f "$ckpt/done" ]]; then
	"$py" scripts/gpu/synth.py --size 8b --out "$ckpt" --tokenizer build/gpu-ab/tokenizer.json && echo 8b >"$ckpt/done"
fi
ids="$(tr -d '[]\n' <"$ckpt/ids.json")"

# bench NAME BINARY [ARGS...]: one timed run into $work/NAME.json, bounded by the deadline.
bench() {
	local name="$1" bin="$2" left
	shift 2
	left=$((deadline - $(date +%s)))
	((left < 20)) && { echo "gpu-ab: $name skipped (deadline)" >&2; return 1; }
	echo "gpu-ab: $name" >&2
	timeout -k 5 $((left < 120 ? left : 120)) "$bin" bench lm --model "$ckpt" --dtype bf16 --batch 1,100 --steps 64 \
		--prompt-len 128 --max-seq 1024 --logits-ids "$ids" --json "$@" >"$work/$name.json" 2>"$work/$name.err" ||
		{ tail -n 5 "$work/$name.err" >&2; return 1; }
}
rounds="${ROUNDS:-2}"
for r in $(seq 1 "$rounds"); do
	bench "a$r" "$a"
	if ((r == 1)); then
		XLA_FLAGS="${XLA_FLAGS:-} --xla_dump_to=$work/xla-b --xla_dump_hlo_as_text" bench "b$r" "$b"
		tar -C "$work" -czf "$out/b-xla-dump.tar.gz" xla-b 2>/dev/null
	elif ((r == rounds)); then
		bench "b$r" "$b" --cpuprofile "$out/b-decode.pprof"
	else
		bench "b$r" "$b"
	fi
done
"$py" - "$work" "$rounds" >"$out/ab.md" <<'EOF'
import json, os, sys
import numpy as np
work, rounds = sys.argv[1], int(sys.argv[2])
runs = {}
for side in "ab":
    for r in range(1, rounds + 1):
        p = os.path.join(work, "%s%d.json" % (side, r))
        try:
            runs[side + str(r)] = json.load(open(p))
        except (OSError, ValueError):
            pass
print("# gasp A/B on the 8B decode (bf16, prompt 128, 64 steps)\n")
print("| run | load s | prefill tokens/s | batch 1 ms/step | batch 1 tokens/s | batch 100 ms/step | batch 100 tokens/s |")
print("|---|---:|---:|---:|---:|---:|---:|")
for k, d in sorted(runs.items(), key=lambda kv: (kv[0][1:], kv[0][0])):
    dec = {x["batch"]: x for x in d["decode"]}
    print("| %s | %.1f | %.0f | %.2f | %.1f | %.2f | %.0f |" % (k, d["load_s"], d["prefill_tokens_per_s"],
          dec[1]["ms_per_step"], dec[1]["tokens_per_s"], dec[100]["ms_per_step"], dec[100]["tokens_per_s"]))
if "a1" in runs and "b1" in runs:
    la, lb = np.asarray(runs["a1"]["logits"]), np.asarray(runs["b1"]["logits"])
    print("\nbf16 logits, A vs B: max |Δ| %.3g, argmax %d vs %d" % (np.abs(la - lb).max(), la.argmax(), lb.argmax()))
EOF
cat "$out/ab.md"
