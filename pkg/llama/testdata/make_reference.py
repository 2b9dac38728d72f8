#!/usr/bin/python3
"""Builds the small random Llama, Qwen2 and Qwen3 checkpoints and reference logits in this directory.

The forward pass below is written from the Hugging Face transformers LlamaForCausalLM semantics
(RMSNorm, rotate_half RoPE with "llama3" frequency scaling, grouped-query attention, SwiGLU MLP,
tied or separate lm_head), in float64 numpy, independently of GoMLX, with what the Qwen families add
to it: Qwen2ForCausalLM's biases on the q, k and v projections (model_type "qwen2"), and
Qwen3ForCausalLM's RMSNorm over head_dim of each query and key head, before RoPE (model_type "qwen3"). The weights are drawn at random,
rounded to float32 (the checkpoint's dtype) and the reference is computed from those float32 values.

Requirements: numpy only (Debian: apt-get install python3-numpy; it lands in /usr/bin/python3, which a
pyenv python3 earlier on PATH may shadow, hence the shebang). Run from anywhere:

    /usr/bin/python3 pkg/llama/testdata/make_reference.py

It (re)writes, for each case directory (tiny/, tied/, bf16/, qwen2/, qwen3/):

    config.json        HF LlamaConfig fields
    model.safetensors  float32 weights (bfloat16 in bf16/), HF names, Linear weights as [out, in]
    ids.json           the token ids of the reference sequence
    logits.npy         float64 [len(ids), vocab_size]: logits at every position
    logits_bf16.npy    (bf16 checkpoints only: bf16/, qwen2/, qwen3/) the same computed with bfloat16
                       rounding where a bfloat16 model rounds

The output is deterministic (fixed seeds).
"""

import json
import math
import os
import struct

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


# ---- safetensors, by hand ----------------------------------------------------------------------------------

def bf16_bits(a):
    """The bfloat16 bits of a (any float array), rounded to nearest even from its float32 value, as PyTorch's
    .to(torch.bfloat16) does."""
    u = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return u.astype(np.uint16)


def bf16(a):
    """a rounded to bfloat16 (through float32), as a float64 array."""
    bits = bf16_bits(a).astype(np.uint32) << 16
    return bits.view(np.float32).astype(np.float64).reshape(np.shape(a))


def write_safetensors(path, tensors, metadata=None, dtype="F32"):
    """tensors: list of (name, ndarray), written as dtype ("F32", or "BF16": rounded to nearest even). Writes the safetensors format: an 8-byte little-endian
    header length, a JSON header (padded with spaces to a multiple of 8) and the raw little-endian data."""
    header = {}
    offset = 0
    blobs = []
    for name, arr in tensors:
        if dtype == "BF16":
            b = bf16_bits(arr).astype("<u2").tobytes()
        else:
            b = np.ascontiguousarray(arr, dtype="<f4").tobytes()
        header[name] = {"dtype": dtype, "shape": list(arr.shape), "data_offsets": [offset, offset + len(b)]}
        offset += len(b)
        blobs.append(b)
    if metadata:
        header["__metadata__"] = metadata
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def write_npy(path, arr):
    """Writes a float64 .npy file (format version 1.0) by hand, so the layout is fixed."""
    arr = np.ascontiguousarray(arr, dtype="<f8")
    hdr = "{'descr': '<f8', 'fortran_order': False, 'shape': %s, }" % (tuple(arr.shape),)
    hdr = hdr.encode("latin1")
    pad = -(10 + len(hdr) + 1) % 64
    hdr += b" " * pad + b"\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00")
        f.write(struct.pack("<H", len(hdr)))
        f.write(hdr)
        f.write(arr.tobytes())


# ---- the model, following transformers' LlamaForCausalLM ----------------------------------------------------

def rope_inv_freq(cfg, head_dim):
    # transformers 5 writes rope_theta and the scaling together in rope_parameters.
    rs = cfg.get("rope_parameters") or cfg.get("rope_scaling")
    base = cfg["rope_parameters"]["rope_theta"] if cfg.get("rope_parameters") else cfg["rope_theta"]
    inv_freq = 1.0 / (base ** (np.arange(0, head_dim, 2, dtype=np.float64) / head_dim))
    if not rs or rs["rope_type"] == "default":
        return inv_freq
    assert rs["rope_type"] == "llama3"
    factor = rs["factor"]
    low = rs["low_freq_factor"]
    high = rs["high_freq_factor"]
    old = rs["original_max_position_embeddings"]
    low_freq_wavelen = old / low
    high_freq_wavelen = old / high
    out = np.empty_like(inv_freq)
    for i, f in enumerate(inv_freq):
        wavelen = 2 * math.pi / f
        if wavelen < high_freq_wavelen:
            out[i] = f
        elif wavelen > low_freq_wavelen:
            out[i] = f / factor
        else:
            s = (old / wavelen - low) / (high - low)
            out[i] = (1 - s) * f / factor + s * f
    return out


def rms_norm(x, w, eps):
    var = np.mean(x * x, axis=-1, keepdims=True)
    return w * (x / np.sqrt(var + eps))


def rotate_half(x):
    h = x.shape[-1] // 2
    return np.concatenate([-x[..., h:], x[..., :h]], axis=-1)


def forward(cfg, W, ids, r=lambda a: a):
    """Logits [T, V] for the token ids, in float64. r is applied where a bfloat16 computation rounds: to the
    input of every matrix product with a weight, to the (pre-scaled) queries, keys, values and attention
    probabilities: identity for the exact reference, bf16 for its emulation."""
    H = cfg["hidden_size"]
    nh = cfg["num_attention_heads"]
    nkv = cfg["num_key_value_heads"]
    hd = cfg.get("head_dim") or H // nh
    eps = cfg["rms_norm_eps"]
    T = len(ids)
    g = lambda n: W[n].astype(np.float64)
    family = cfg.get("model_type", "llama")
    assert family in ("llama", "qwen2", "qwen3"), family

    inv_freq = rope_inv_freq(cfg, hd)
    pos = np.arange(T, dtype=np.float64)
    freqs = np.outer(pos, inv_freq)                   # [T, hd/2]
    emb = np.concatenate([freqs, freqs], axis=-1)     # [T, hd]
    cos, sin = np.cos(emb), np.sin(emb)

    x = g("model.embed_tokens.weight")[ids]           # [T, H]
    mask = np.triu(np.full((T, T), -np.inf), k=1)
    for i in range(cfg["num_hidden_layers"]):
        p = "model.layers.%d." % i
        h = r(rms_norm(x, g(p + "input_layernorm.weight"), eps))
        q = h @ g(p + "self_attn.q_proj.weight").T
        k = h @ g(p + "self_attn.k_proj.weight").T
        v = h @ g(p + "self_attn.v_proj.weight").T
        if family == "qwen2":                         # Qwen2Attention: Linear(bias=True) for q, k, v
            q = q + g(p + "self_attn.q_proj.bias")
            k = k + g(p + "self_attn.k_proj.bias")
            v = v + g(p + "self_attn.v_proj.bias")
        q = q.reshape(T, nh, hd)
        k = k.reshape(T, nkv, hd)
        if family == "qwen3":                         # Qwen3Attention: q_norm, k_norm over head_dim, before RoPE
            q = rms_norm(q, g(p + "self_attn.q_norm.weight"), eps)
            k = rms_norm(k, g(p + "self_attn.k_norm.weight"), eps)
        q = q.transpose(1, 0, 2)
        k = k.transpose(1, 0, 2)
        v = v.reshape(T, nkv, hd).transpose(1, 0, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        rep = nh // nkv                               # repeat_kv: head j uses kv head j // rep
        k = np.repeat(k, rep, axis=0)
        v = np.repeat(v, rep, axis=0)
        s = r(q / math.sqrt(hd)) @ r(k).transpose(0, 2, 1) + mask
        s = s - s.max(axis=-1, keepdims=True)
        a = np.exp(s)
        a /= a.sum(axis=-1, keepdims=True)
        o = (r(a) @ r(v)).transpose(1, 0, 2).reshape(T, nh * hd)
        x = x + r(o) @ g(p + "self_attn.o_proj.weight").T
        h = r(rms_norm(x, g(p + "post_attention_layernorm.weight"), eps))
        gate = h @ g(p + "mlp.gate_proj.weight").T
        up = h @ g(p + "mlp.up_proj.weight").T
        act = gate / (1 + np.exp(-gate))              # SiLU
        x = x + r(act * up) @ g(p + "mlp.down_proj.weight").T
    x = r(rms_norm(x, g("model.norm.weight"), eps))
    head = g("model.embed_tokens.weight") if cfg["tie_word_embeddings"] else g("lm_head.weight")
    return x @ head.T


def random_weights(cfg, rng):
    H = cfg["hidden_size"]
    nh = cfg["num_attention_heads"]
    nkv = cfg["num_key_value_heads"]
    hd = cfg.get("head_dim") or H // nh
    I = cfg["intermediate_size"]
    V = cfg["vocab_size"]
    f32 = lambda a: a.astype(np.float32)
    lin = lambda o, i: f32(rng.standard_normal((o, i)) / math.sqrt(i))
    norm = lambda n: f32(1 + 0.1 * rng.standard_normal(n))
    t = [("model.embed_tokens.weight", f32(0.5 * rng.standard_normal((V, H))))]
    for i in range(cfg["num_hidden_layers"]):
        p = "model.layers.%d." % i
        t += [
            (p + "input_layernorm.weight", norm(H)),
            (p + "self_attn.q_proj.weight", lin(nh * hd, H)),
            (p + "self_attn.k_proj.weight", lin(nkv * hd, H)),
            (p + "self_attn.v_proj.weight", lin(nkv * hd, H)),
            (p + "self_attn.o_proj.weight", lin(H, nh * hd)),
            (p + "post_attention_layernorm.weight", norm(H)),
            (p + "mlp.gate_proj.weight", lin(I, H)),
            (p + "mlp.up_proj.weight", lin(I, H)),
            (p + "mlp.down_proj.weight", lin(H, I)),
        ]
        if cfg["model_type"] == "qwen2":
            bias = lambda n: f32(0.5 * rng.standard_normal(n))
            t += [
                (p + "self_attn.q_proj.bias", bias(nh * hd)),
                (p + "self_attn.k_proj.bias", bias(nkv * hd)),
                (p + "self_attn.v_proj.bias", bias(nkv * hd)),
            ]
        if cfg["model_type"] == "qwen3":
            t += [(p + "self_attn.q_norm.weight", norm(hd)), (p + "self_attn.k_norm.weight", norm(hd))]
    t.append(("model.norm.weight", norm(H)))
    if not cfg["tie_word_embeddings"]:
        t.append(("lm_head.weight", lin(V, H)))
    return t


# Llama-3.1 rope scaling with a small original context (64), so that high-, medium- and low-frequency
# dimensions all occur with head_dim 16 and theta 500000.
LLAMA3_SCALING = {
    "factor": 8.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "original_max_position_embeddings": 64,
}


def config(size, rope, dtype, **extra):
    """A config.json in the key order of the hub's Llama files: size (hidden_size through intermediate_size),
    then rope (its rope_theta and scaling fields), extra (further fields), the special tokens and dtype."""
    cfg = {"architectures": ["LlamaForCausalLM"], "model_type": "llama"}
    cfg.update(size)
    cfg["hidden_act"] = "silu"
    cfg.update(rope)
    cfg.update(extra)
    cfg.update(dtype)
    return cfg


def gqa_config(rope, dtype):
    """The "tiny" architecture: separate lm_head, GQA (2 query heads per KV head), no biases."""
    size = {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
            "intermediate_size": 128}
    return config(size, dict(rms_norm_eps=1e-5, **rope), {"bos_token_id": 1, "eos_token_id": [2, 3], **dtype},
                  max_position_embeddings=512, vocab_size=256, tie_word_embeddings=False,
                  attention_bias=False, mlp_bias=False)


def qwen2_config():
    """A Qwen2.5-0.5B-like config.json (its keys, in its order): tied embeddings, GQA, rope_theta 1e6, the
    sliding-window fields present but off, bfloat16."""
    return {
        "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 250, "eos_token_id": 250,
        "hidden_act": "silu", "hidden_size": 64, "initializer_range": 0.02, "intermediate_size": 128,
        "max_position_embeddings": 32768, "max_window_layers": 2, "model_type": "qwen2",
        "num_attention_heads": 4, "num_hidden_layers": 2, "num_key_value_heads": 2, "rms_norm_eps": 1e-06,
        "rope_theta": 1000000.0, "sliding_window": 32768, "tie_word_embeddings": True, "torch_dtype": "bfloat16",
        "transformers_version": "4.43.1", "use_cache": True, "use_sliding_window": False, "vocab_size": 256,
    }


def qwen3_config():
    """A Qwen3-8B-like config.json (its keys, in its order): separate lm_head, GQA, head_dim 32 given
    explicitly (hidden_size / num_attention_heads is 16), no attention biases, rope_theta 1e6, bfloat16."""
    return {
        "architectures": ["Qwen3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
        "bos_token_id": 250, "eos_token_id": 251, "head_dim": 32, "hidden_act": "silu", "hidden_size": 64,
        "initializer_range": 0.02, "intermediate_size": 128, "max_position_embeddings": 40960,
        "max_window_layers": 2, "model_type": "qwen3", "num_attention_heads": 4, "num_hidden_layers": 2,
        "num_key_value_heads": 2, "rms_norm_eps": 1e-06, "rope_scaling": None, "rope_theta": 1000000,
        "sliding_window": None, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
        "transformers_version": "4.51.0", "use_cache": True, "use_sliding_window": False, "vocab_size": 256,
    }


CASES = {
    # The GQA architecture with Llama-3.1 rope scaling, its config.json as the hub's Llama-3.1 files have it.
    "tiny": dict(
        seed=1,
        config=gqa_config({"rope_theta": 500000.0, "rope_scaling": {"rope_type": "llama3", **LLAMA3_SCALING}},
                          {"torch_dtype": "float32"}),
    ),
    # Tied embeddings, multi-query attention (1 KV head), head_dim set explicitly and != hidden/heads,
    # no rope scaling, rope_theta 10000.
    "tied": dict(
        seed=2,
        config=config(
            {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 1,
             "head_dim": 16, "intermediate_size": 64},
            {"rms_norm_eps": 1e-6, "rope_theta": 10000.0, "rope_scaling": None},
            {"bos_token_id": 1, "eos_token_id": 2, "torch_dtype": "float32"},
            max_position_embeddings=128, vocab_size=256, tie_word_embeddings=True),
    ),
    # The "tiny" architecture with bfloat16 weights (a Llama-3.1 checkpoint's dtype), its config.json as
    # transformers 5 writes it: rope_theta inside rope_parameters, dtype instead of torch_dtype.
    "bf16": dict(
        seed=3,
        bf16=True,
        config=gqa_config({"rope_parameters": {"rope_type": "llama3", "rope_theta": 500000.0, **LLAMA3_SCALING}},
                          {"dtype": "bfloat16"}),
    ),
    # Qwen2/Qwen2.5: q, k, v biases; bfloat16 weights, as the hub's Qwen2.5 checkpoints.
    "qwen2": dict(seed=4, bf16=True, config=qwen2_config()),
    # Qwen3: per-head q and k norms, head_dim != hidden_size / num_attention_heads; bfloat16 weights.
    "qwen3": dict(seed=5, bf16=True, config=qwen3_config()),
}


def main():
    for name, case in CASES.items():
        d = os.path.join(HERE, name)
        os.makedirs(d, exist_ok=True)
        cfg = case["config"]
        rng = np.random.default_rng(case["seed"])
        tensors = random_weights(cfg, rng)
        dtype = "F32"
        if case.get("bf16"):
            # The checkpoint holds the weights rounded to bfloat16; the references use those values.
            dtype = "BF16"
            tensors = [(n, bf16(a)) for n, a in tensors]
        ids = [int(i) for i in rng.integers(0, cfg["vocab_size"], size=24)]
        if cfg["model_type"] == "llama":
            ids[0] = cfg["bos_token_id"]              # Qwen tokenizers add no BOS
        logits = forward(cfg, dict(tensors), ids)
        if case.get("bf16"):
            emu = forward(cfg, dict(tensors), ids, r=bf16)
            write_npy(os.path.join(d, "logits_bf16.npy"), emu)
            print("%s: bf16 emulation differs from the exact logits by up to %.4f" % (name, np.abs(emu - logits).max()))
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump(cfg, f, indent=2)
            f.write("\n")
        write_safetensors(os.path.join(d, "model.safetensors"), tensors, {"format": "pt"}, dtype)
        with open(os.path.join(d, "ids.json"), "w") as f:
            json.dump(ids, f)
            f.write("\n")
        write_npy(os.path.join(d, "logits.npy"), logits)
        print("%s: %d tensors, logits %s, |logits| max %.3f" % (name, len(tensors), logits.shape, np.abs(logits).max()))


if __name__ == "__main__":
    main()
