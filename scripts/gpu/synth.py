#!/usr/bin/env python3
"""Synthesizes a Llama-3.1-8B-Instruct-shaped checkpoint with random bfloat16 weights, for gpu-check.sh.

    python3 scripts/gpu/synth.py --size 8b --out DIR [--tokenizer tokenizer.json] [--seed 1]

Writes DIR/config.json by hand, as the hub's meta-llama/Llama-3.1-8B-Instruct has it (transformers 4.43:
rope_scaling, rope_theta, torch_dtype; not written by save_pretrained, whose transformers 5 form differs),
DIR/model.safetensors (BF16, Hugging Face names, Linear weights [out, in]), DIR/ids.json (32 fixed token
ids starting with <|begin_of_text|>) and a copy of the tokenizer. --size tiny keeps the vocabulary, the
rope scaling and every name but has 2 layers of width 64: the same pipeline in seconds on a CPU.

Weights are scaled so that activations stay O(1) through the layers and the logits are O(1) with top-two
gaps well above float32 rounding: Linear N(0, 1/in), norms 1 + 0.1·N(0, 1), embedding 0.5·N(0, 1).
Requirements: numpy only. Deterministic for a seed, whatever --jobs: the file is written in blocks of rows by
--jobs processes (default: all CPUs), each block from a generator seeded by (seed, tensor, first row).
"""

import argparse
import json
import math
import multiprocessing
import os
import shutil
import struct

import numpy as np

# meta-llama/Llama-3.1-8B-Instruct's config.json.
CONFIG_8B = {
    "architectures": ["LlamaForCausalLM"],
    "attention_bias": False,
    "attention_dropout": 0.0,
    "bos_token_id": 128000,
    "eos_token_id": [128001, 128008, 128009],
    "hidden_act": "silu",
    "hidden_size": 4096,
    "initializer_range": 0.02,
    "intermediate_size": 14336,
    "max_position_embeddings": 131072,
    "mlp_bias": False,
    "model_type": "llama",
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "pretraining_tp": 1,
    "rms_norm_eps": 1e-05,
    "rope_scaling": {
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192,
        "rope_type": "llama3",
    },
    "rope_theta": 500000.0,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.43.0.dev0",
    "use_cache": True,
    "vocab_size": 128256,
}

TINY = dict(hidden_size=64, intermediate_size=128, num_attention_heads=4, num_hidden_layers=2, num_key_value_heads=2)


def specs(cfg):
    """(name, shape, kind) of every weight, in checkpoint order."""
    H, I, V = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"]
    hd = H // cfg["num_attention_heads"]
    q, kv = cfg["num_attention_heads"] * hd, cfg["num_key_value_heads"] * hd
    out = [("model.embed_tokens.weight", (V, H), "embed")]
    for i in range(cfg["num_hidden_layers"]):
        p = "model.layers.%d." % i
        out += [
            (p + "input_layernorm.weight", (H,), "norm"),
            (p + "self_attn.q_proj.weight", (q, H), "linear"),
            (p + "self_attn.k_proj.weight", (kv, H), "linear"),
            (p + "self_attn.v_proj.weight", (kv, H), "linear"),
            (p + "self_attn.o_proj.weight", (H, q), "linear"),
            (p + "post_attention_layernorm.weight", (H,), "norm"),
            (p + "mlp.gate_proj.weight", (I, H), "linear"),
            (p + "mlp.up_proj.weight", (I, H), "linear"),
            (p + "mlp.down_proj.weight", (H, I), "linear"),
        ]
    out.append(("model.norm.weight", (H,), "norm"))
    out.append(("lm_head.weight", (V, H), "linear"))
    return out


def bf16_bytes(a):
    """float32 array -> little-endian bfloat16 bytes, rounded to nearest even."""
    u = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)
    u = (u + np.uint32(0x7FFF) + ((u >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)
    return u.astype("<u2").tobytes()


BLOCK = 1 << 24  # elements a work unit writes at most


def units(tensors, offsets):
    """Work units (tensor index, first row, rows, byte offset): tensors cut into blocks of rows."""
    out = []
    for i, (_, shape, kind) in enumerate(tensors):
        cols = int(np.prod(shape[1:])) if len(shape) > 1 else 1
        rows = shape[0] if kind != "norm" else 1
        block = max(1, BLOCK // cols) if kind != "norm" else 1
        for r in range(0, rows, block):
            out.append((i, r, min(block, rows - r), offsets[i] + 2 * r * cols))
    return out


def generate(seed, tensors, unit):
    """The bf16 bytes of one work unit, from a generator seeded by (seed, tensor, first row)."""
    i, r, n, _ = unit
    _, shape, kind = tensors[i]
    rng = np.random.default_rng([seed, i, r])
    if kind == "norm":
        return bf16_bytes(1 + 0.1 * rng.standard_normal(shape[0], dtype=np.float32))
    cols = int(np.prod(shape[1:]))
    x = rng.standard_normal((n, cols), dtype=np.float32)
    x *= np.float32(0.5 if kind == "embed" else 1 / math.sqrt(cols))
    return bf16_bytes(x)


def write_units(path, seed, tensors, todo):
    fd = os.open(path, os.O_WRONLY)
    try:
        for unit in todo:
            os.pwrite(fd, generate(seed, tensors, unit), unit[3])
    finally:
        os.close(fd)


def write_checkpoint(path, cfg, seed, jobs):
    """Writes the safetensors file: header first, then the work units in jobs processes (each unit has its
    own seed, so the bytes do not depend on jobs)."""
    tensors = specs(cfg)
    header, off, offsets = {}, 0, []
    for name, shape, _ in tensors:
        size = 2 * int(np.prod(shape))
        header[name] = {"dtype": "BF16", "shape": list(shape), "data_offsets": [off, off + size]}
        offsets.append(off)
        off += size
    header["__metadata__"] = {"format": "pt"}
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    base = 8 + len(h)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        f.truncate(base + off)
    todo = [(i, r, n, base + o) for i, r, n, o in units(tensors, offsets)]
    jobs = max(1, min(jobs, len(todo)))
    if jobs == 1:
        write_units(path, seed, tensors, todo)
        return off
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=write_units, args=(path, seed, tensors, todo[j::jobs])) for j in range(jobs)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    bad = [p.exitcode for p in procs if p.exitcode != 0]
    if bad:
        raise SystemExit("synth: %d of %d writers failed (exit codes %s)" % (len(bad), jobs, bad))
    return off


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", choices=["8b", "tiny"], default="8b")
    ap.add_argument("--out", required=True)
    ap.add_argument("--tokenizer", default="")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="writer processes (default: all CPUs)")
    args = ap.parse_args()
    cfg = dict(CONFIG_8B)
    if args.size == "tiny":
        cfg.update(TINY)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
        f.write("\n")
    n = write_checkpoint(os.path.join(args.out, "model.safetensors"), cfg, args.seed, args.jobs)
    rng = np.random.default_rng(args.seed + 1)
    ids = [128000] + [int(i) for i in rng.integers(0, 128000, size=31)]
    with open(os.path.join(args.out, "ids.json"), "w") as f:
        json.dump(ids, f)
        f.write("\n")
    if args.tokenizer:
        shutil.copy(args.tokenizer, os.path.join(args.out, "tokenizer.json"))
    print("synth: %s: %s, %.2f GB of bf16 weights" % (args.out, args.size, n / 1e9))


if __name__ == "__main__":
    main()
