#!/usr/bin/env python3
"""The model families gasp runs (Llama-3.2, Qwen2.5, Qwen3), each against an independent forward pass, for gpu-check.sh.

    python3 scripts/gpu/families.py --gasp BIN --work DIR --out families.json --impl transformers \
        --backend xla="$GOMLX_BACKEND" --backend cpu=cpu

For each family: a small random checkpoint with the family's real vocabulary, config fields and quirks (tied
embeddings and Llama-3 rope scaling; Qwen2's q/k/v biases; Qwen3's q/k norms and a head_dim that is not
hidden_size / num_attention_heads), weights drawn as pkg/llama/testdata/make_reference.py draws them and
rounded to bfloat16. Then the next-token logits after 24 ids from gasp (`gasp logits --dtype D`, once per
--backend NAME=GOMLX_BACKEND and --dtype D) against the reference:

- transformers (the GPU check): transformers builds the model from the config, takes the weights, writes the
  checkpoint itself (save_pretrained, bfloat16: transformers 5's config.json, with rope_parameters and dtype)
  and computes the reference from what it wrote, in float32 with TF32 off, eager attention, on CUDA when there;
- numpy (CPU tests of the script): make_reference.py writes the checkpoint and its float64 forward pass is the
  reference.

With --dtype bf16, gasp's bf16 logits are compared with the float32 reference and, under transformers, with the
same model run in bfloat16 (`vs_reference_bf16`); the family's `reference_bf16_vs_f32` says how far bfloat16
itself moves the logits. bf16 rows are measurements, not goals: rounding to bfloat16 at other points than
transformers does moves logits by ~1e-2 and may swap two close candidates.

Writes --out (JSON: per family the config.json gasp read and per backend and dtype the comparison) and prints a
table; exits 1 when an f32 comparison misses the goal (argmax equal, max |Δ| ≤ 1e-3) or a run fails. Requirements: numpy (and torch,
transformers for --impl transformers).
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "pkg", "llama", "testdata"))
import make_reference as mr  # noqa: E402
from report import compare  # noqa: E402

MAX_ABS_DIFF = 1e-3

# Small widths, real vocabularies and the fields of the hub's config.json files.
SMALL = {"hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 4, "num_attention_heads": 8,
         "num_key_value_heads": 2, "hidden_act": "silu"}
FAMILIES = {
    # meta-llama/Llama-3.2-1B-Instruct's fields: tied embeddings, head_dim 64, rope scaling factor 32.
    "llama3.2": dict(SMALL, model_type="llama", architectures=["LlamaForCausalLM"], vocab_size=128256, head_dim=64,
                     tie_word_embeddings=True, rms_norm_eps=1e-5, max_position_embeddings=131072,
                     rope_theta=500000.0, rope_scaling={"rope_type": "llama3", "factor": 32.0, "low_freq_factor": 1.0,
                                                        "high_freq_factor": 4.0, "original_max_position_embeddings": 8192},
                     attention_bias=False, mlp_bias=False, bos_token_id=128000, eos_token_id=[128001, 128008, 128009]),
    # Qwen/Qwen2.5-1.5B-Instruct's fields: q/k/v biases, tied embeddings, sliding window present but off.
    "qwen2.5": dict(SMALL, model_type="qwen2", architectures=["Qwen2ForCausalLM"], vocab_size=151936,
                    tie_word_embeddings=True, rms_norm_eps=1e-6, max_position_embeddings=32768, rope_theta=1000000.0,
                    use_sliding_window=False, sliding_window=32768, max_window_layers=4,
                    bos_token_id=151643, eos_token_id=151645),
    # Qwen/Qwen3-8B's fields: q/k norms, head_dim 64 given (hidden_size / heads is 32), separate lm_head.
    "qwen3": dict(SMALL, model_type="qwen3", architectures=["Qwen3ForCausalLM"], vocab_size=151936, head_dim=64,
                  tie_word_embeddings=False, rms_norm_eps=1e-6, max_position_embeddings=40960, rope_theta=1000000.0,
                  attention_bias=False, use_sliding_window=False, sliding_window=None, max_window_layers=4,
                  bos_token_id=151643, eos_token_id=151645),
}


def weights(cfg, seed):
    """make_reference.py's random weights, rounded to bfloat16 (float64 arrays)."""
    return [(n, mr.bf16(a)) for n, a in mr.random_weights(cfg, np.random.default_rng(seed))]


def token_ids(cfg, seed):
    ids = [int(i) for i in np.random.default_rng(seed + 100).integers(0, cfg["vocab_size"], size=24)]
    if cfg["model_type"] == "llama":
        ids[0] = cfg["bos_token_id"]  # Qwen tokenizers add no BOS
    return ids


def build_numpy(cfg, tensors, ids, d):
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(dict(cfg, torch_dtype="bfloat16"), f, indent=2)
    mr.write_safetensors(os.path.join(d, "model.safetensors"), tensors, dtype="BF16")
    return {"f32": mr.forward(cfg, dict(tensors), ids)[-1]}, {"impl": "numpy (make_reference.py, float64)"}


def build_transformers(cfg, tensors, ids, d, dtypes):
    import torch
    import transformers

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    fields = {k: v for k, v in cfg.items() if k not in ("model_type", "architectures")}
    conf = transformers.AutoConfig.for_model(cfg["model_type"], **fields)
    model = transformers.AutoModelForCausalLM.from_config(conf).float()
    state = {n: torch.tensor(a, dtype=torch.float32) for n, a in tensors}
    missing, unexpected = model.load_state_dict(state, strict=False)
    missing = [m for m in missing if not (m == "lm_head.weight" and cfg["tie_word_embeddings"])]
    if missing or unexpected:
        raise SystemExit("families: %s: weights missing %s, unexpected %s" % (cfg["model_type"], missing, unexpected))
    model.to(torch.bfloat16).save_pretrained(d)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    try:
        ref = transformers.AutoModelForCausalLM.from_pretrained(d, dtype=torch.float32, attn_implementation="eager")
    except TypeError:  # transformers 4
        ref = transformers.AutoModelForCausalLM.from_pretrained(d, torch_dtype=torch.float32, attn_implementation="eager")
    ref = ref.to(device).eval()
    refs = {}
    with torch.no_grad():
        refs["f32"] = ref(torch.tensor([ids], device=device)).logits[0, -1].float().cpu().numpy()
        if "bf16" in dtypes:  # the same checkpoint run in bfloat16: how far bfloat16 itself moves the logits
            ref = ref.to(torch.bfloat16)
            refs["bf16"] = ref(torch.tensor([ids], device=device)).logits[0, -1].float().cpu().numpy()
    info = {"impl": "transformers %s (%s)" % (transformers.__version__, type(ref).__name__), "torch": torch.__version__,
            "device": torch.cuda.get_device_name(0) if device == "cuda" else "cpu", "tf32": False, "attn": "eager"}
    return refs, info


def run_gasp(gasp, d, ids, backend, dtype):
    env = dict(os.environ, GOMLX_BACKEND=backend)
    t0 = time.time()
    p = subprocess.run([gasp, "logits", "--model", d, "--ids", " ".join(map(str, ids)), "--dtype", dtype],
                       env=env, capture_output=True, text=True, timeout=180)
    secs = time.time() - t0
    if p.returncode != 0:
        return None, secs, "exit %d: %s" % (p.returncode, "\n".join(p.stderr.strip().splitlines()[-5:]))
    return json.loads(p.stdout), secs, None


def family(name, cfg, seed, args):
    d = os.path.join(args.work, name)
    os.makedirs(d, exist_ok=True)
    tensors = weights(cfg, seed)
    ids = token_ids(cfg, seed)
    if args.impl == "transformers":
        refs, info = build_transformers(cfg, tensors, ids, d, args.dtype)
    else:
        refs, info = build_numpy(cfg, tensors, ids, d)
    ref = refs["f32"]
    with open(os.path.join(d, "config.json")) as f:
        written = json.load(f)
    res = {"family": name, "model_type": cfg["model_type"], "ids": len(ids), "reference": info, "config_json": written,
           "results": []}
    if args.impl == "transformers":  # the reference itself against make_reference.py's float64 pass
        res["reference_vs_numpy"] = compare(mr.forward(cfg, dict(tensors), ids)[-1], {"logits": ref.tolist()})
    if "bf16" in refs:
        res["reference_bf16_vs_f32"] = compare(np.asarray(ref, dtype=np.float32), {"logits": refs["bf16"].tolist()})
    for spec in args.backend:
        bname, backend = spec.split("=", 1)
        for dtype in args.dtype:
            res["results"].append(one_run(args.gasp, d, ids, bname, backend, dtype, refs))
    return res


def one_run(gasp, d, ids, bname, backend, dtype, refs):
    got, secs, err = run_gasp(gasp, d, ids, backend, dtype)
    r = {"backend": bname, "gomlx_backend": backend, "dtype": dtype, "seconds": round(secs, 1)}
    if err:
        return dict(r, error=err, ok=False)
    r.update(compare(np.asarray(refs["f32"], dtype=np.float32), got))
    if dtype == "f32":
        r["ok"] = bool(r["argmax_equal"] and r["max_abs_diff"] <= MAX_ABS_DIFF)
    else:
        r["ok"] = True  # a measurement (module doc)
        if dtype in refs:
            r["vs_reference_" + dtype] = compare(np.asarray(refs[dtype], dtype=np.float32), got)
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gasp", required=True)
    ap.add_argument("--work", required=True, help="folder for the checkpoints")
    ap.add_argument("--out", required=True)
    ap.add_argument("--impl", choices=["transformers", "numpy"], default="transformers")
    ap.add_argument("--backend", action="append", required=True, help="NAME=GOMLX_BACKEND, repeatable")
    ap.add_argument("--only", help="comma-separated families (default: all)")
    ap.add_argument("--dtype", action="append", choices=["f32", "bf16"],
                    help="gasp's dtype, repeatable (default: f32)")
    args = ap.parse_args()
    args.dtype = args.dtype or ["f32"]
    names = args.only.split(",") if args.only else list(FAMILIES)
    report = {"impl": args.impl, "goal": "f32: argmax equal, max |Δ| ≤ %g" % MAX_ABS_DIFF, "families": []}
    ok = True
    for seed, name in enumerate(names, start=11):
        try:
            res = family(name, FAMILIES[name], seed, args)
        except Exception as e:  # one family's failure is reported, the others still run
            res = {"family": name, "error": "%s: %s" % (type(e).__name__, e), "results": []}
        report["families"].append(res)
        with open(args.out + ".tmp", "w") as f:
            json.dump(report, f, indent=2)
        os.replace(args.out + ".tmp", args.out)
        ok = ok and "error" not in res and all(r["ok"] for r in res["results"])
        if "error" in res:
            print("%-9s error: %s" % (name, res["error"]))
        for r in res["results"]:
            print("%-9s %-5s %-4s %s" % (name, r["backend"], r["dtype"], r.get("error") or "max |Δ| %.3g, argmax %s, top-5 overlap %d, %.1f s" % (
                r["max_abs_diff"], "equal" if r["argmax_equal"] else "differs", r["top5_overlap"], r["seconds"])))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
