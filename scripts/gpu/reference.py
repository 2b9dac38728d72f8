#!/usr/bin/env python3
"""Reference next-token logits of a checkpoint on its ids.json, for gpu-check.sh.

    python3 scripts/gpu/reference.py --model DIR --out ref.npy [--impl transformers|numpy]

transformers (the GPU check): LlamaForCausalLM from DIR in float32 on CUDA, TF32 off for matrix products
and cuDNN, eager attention; the logits after the last id, float32 [V], to ref.npy, and the library versions
to ref.json. numpy (CPU tests of the script): pkg/llama/testdata/make_reference.py's float64 forward pass,
an independent implementation of the same semantics, on the bf16 weights read from model.safetensors.
"""

import argparse
import json
import os
import sys

import numpy as np


def transformers_logits(model_dir, ids):
    import torch
    import transformers

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    model = transformers.LlamaForCausalLM.from_pretrained(model_dir, dtype=torch.float32, attn_implementation="eager")
    model = model.to("cuda").eval()
    with torch.no_grad():
        out = model(torch.tensor([ids], device="cuda")).logits[0, -1].float().cpu().numpy()
    info = {"impl": "transformers", "torch": torch.__version__, "transformers": transformers.__version__,
            "device": torch.cuda.get_device_name(0), "tf32": False, "attn": "eager",
            "rope": str(getattr(model.config, "rope_parameters", None) or getattr(model.config, "rope_scaling", None))}
    return out, info


def read_bf16_safetensors(path):
    with open(path, "rb") as f:
        n = int.from_bytes(f.read(8), "little")
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        a, b = t["data_offsets"]
        if t["dtype"] == "BF16":
            u = np.frombuffer(data[a:b], dtype="<u2").astype(np.uint32) << 16
            out[name] = u.view(np.float32).reshape(t["shape"])
        elif t["dtype"] == "F32":
            out[name] = np.frombuffer(data[a:b], dtype="<f4").reshape(t["shape"])
        else:
            sys.exit("reference: %s: dtype %s not supported" % (name, t["dtype"]))
    return out


def numpy_logits(model_dir, ids):
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(here, "..", "..", "pkg", "llama", "testdata"))
    import make_reference

    with open(os.path.join(model_dir, "config.json")) as f:
        cfg = json.load(f)
    W = read_bf16_safetensors(os.path.join(model_dir, "model.safetensors"))
    out = make_reference.forward(cfg, W, ids)[-1].astype(np.float32)
    return out, {"impl": "numpy (pkg/llama/testdata/make_reference.py, float64)"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--impl", choices=["transformers", "numpy"], default="transformers")
    args = ap.parse_args()
    with open(os.path.join(args.model, "ids.json")) as f:
        ids = json.load(f)
    logits, info = (transformers_logits if args.impl == "transformers" else numpy_logits)(args.model, ids)
    np.save(args.out, logits)
    info["ids"] = len(ids)
    with open(os.path.splitext(args.out)[0] + ".json", "w") as f:
        json.dump(info, f, indent=2)
    print("reference: %s logits over %d ids, |max| %.3f" % (info["impl"], len(ids), float(np.abs(logits).max())))


if __name__ == "__main__":
    main()
