#!/usr/bin/env python3
"""Writes gpu-check.sh's report from the files its steps left in WORK: report.json and report.md in OUT.

    python3 scripts/gpu/report.py --work WORK --out OUT

Reads (each optional; a missing one is reported as such): steps.tsv (step, exit status, seconds), env.txt,
doctor.txt, ref.npy and ref.json (reference logits), logits_f32.json and logits_bf16.json (gasp logits),
bench.json (gasp bench lm --json), mem.csv (GPU memory used, MiB, sampled during the benchmark),
sample.jsonl (gasp sample). Compares against the goals of issue #11 for one H100. Requirements: numpy.
"""

import argparse
import json
import os
import re

import numpy as np

GOALS = {
    "decode_batch1_tokens_per_s": 120.0,
    "decode_batch100_tokens_per_s": 4000.0,
    "logits_f32_max_abs_diff": 1e-2,
}


def read(work, name, how="text"):
    p = os.path.join(work, name)
    if not os.path.exists(p):
        return None
    if how == "npy":
        return np.load(p)
    with open(p) as f:
        if how == "json":
            return json.load(f)
        if how == "jsonl":
            return [json.loads(line) for line in f if line.strip()]
        return f.read()


def compare(ref, path, work):
    got = read(work, path, "json")
    if ref is None or got is None:
        return None
    g = np.asarray(got["logits"], dtype=np.float64)
    r = ref.astype(np.float64)
    if g.shape != r.shape:
        return {"error": "shape %s vs reference %s" % (g.shape, r.shape)}
    top_r = np.argsort(-r)[:5]
    top_g = np.argsort(-g)[:5]
    srt = np.sort(r)
    return {
        "max_abs_diff": float(np.abs(g - r).max()),
        "mean_abs_diff": float(np.abs(g - r).mean()),
        "argmax_equal": bool(top_r[0] == top_g[0]),
        "argmax": int(top_g[0]),
        "reference_argmax": int(top_r[0]),
        "reference_top2_gap": float(srt[-1] - srt[-2]),
        "top5_overlap": len(set(top_r.tolist()) & set(top_g.tolist())),
        "reference_max_abs": float(np.abs(r).max()),
    }


def steps(work):
    out = []
    text = read(work, "steps.tsv") or ""
    for line in text.splitlines():
        f = line.split("\t")
        if len(f) == 3:
            out.append({"step": f[0], "exit": int(f[1]), "seconds": float(f[2])})
    return out


def memory(work):
    text = read(work, "mem.csv")
    if not text:
        return None
    vals = [float(x) for x in re.findall(r"^\s*(\d+(?:\.\d+)?)\s*$", text, re.M)]
    return {"peak_used_mib": max(vals), "samples": len(vals)} if vals else None


def doctor_estimate(text):
    if not text:
        return None
    m = re.search(r"memory for (\d+) rows × (\d+) positions: weights ([\d.]+) GiB \+ caches ([\d.]+) GiB \+ "
                  r"temporaries ([\d.]+) GiB = peak ([\d.]+) GiB", text)
    if not m:
        return None
    keys = ["rows", "positions", "weights_gib", "caches_gib", "temporaries_gib", "peak_gib"]
    return {k: (int(v) if i < 2 else float(v)) for i, (k, v) in enumerate(zip(keys, m.groups()))}


def sample_summary(recs, st, step):
    if recs is None:
        return None
    secs = next((s["seconds"] for s in st if s["step"] == step), None)
    return {"records": len(recs), "valid": sum(1 for r in recs if r.get("valid")),
            "methods": sorted({r.get("method", "") for r in recs}), "k": max((r.get("k", 0) for r in recs), default=0),
            "seconds": secs}


def build(work):
    st = steps(work)
    ref = read(work, "ref.npy", "npy")
    bench = read(work, "bench.json", "json")
    rep = {
        "steps": st,
        "environment": (read(work, "env.txt") or "").strip().splitlines(),
        "reference": read(work, "ref.json", "json"),
        "logits_f32": compare(ref, "logits_f32.json", work),
        "logits_bf16": compare(ref, "logits_bf16.json", work),
        "bench": bench,
        "gpu_memory": memory(work),
        "memory_estimate": doctor_estimate(read(work, "doctor.txt")),
        "sample": sample_summary(read(work, "sample.jsonl", "jsonl"), st, "sample"),
        "sample_gcd": sample_summary(read(work, "sample_gcd.jsonl", "jsonl"), st, "sample_gcd"),
        "goals": {},
    }
    dec = {d["batch"]: d["tokens_per_s"] for d in (bench or {}).get("decode", [])}
    g = rep["goals"]
    if 1 in dec:
        g["decode_batch1_tokens_per_s"] = {"goal": GOALS["decode_batch1_tokens_per_s"], "measured": dec[1],
                                           "met": dec[1] >= GOALS["decode_batch1_tokens_per_s"]}
    if 100 in dec:
        g["decode_batch100_tokens_per_s"] = {"goal": GOALS["decode_batch100_tokens_per_s"], "measured": dec[100],
                                             "met": dec[100] >= GOALS["decode_batch100_tokens_per_s"]}
    f32 = rep["logits_f32"]
    if f32 and "max_abs_diff" in f32:
        g["logits_f32"] = {"goal": "argmax equal, max |Δ| ≤ %g" % GOALS["logits_f32_max_abs_diff"],
                           "measured": "argmax %s, max |Δ| %.3g" % ("equal" if f32["argmax_equal"] else "differs", f32["max_abs_diff"]),
                           "met": f32["argmax_equal"] and f32["max_abs_diff"] <= GOALS["logits_f32_max_abs_diff"]}
    return rep


def markdown(rep):
    L = ["# gasp GPU check", ""]
    L += ["## Environment", "", "```"] + rep["environment"] + ["```", ""]
    L += ["## Steps", "", "| step | exit | seconds |", "|---|---:|---:|"]
    L += ["| %s | %d | %.1f |" % (s["step"], s["exit"], s["seconds"]) for s in rep["steps"]]
    L += ["", "## Goals (one H100)", "", "| goal | target | measured | met |", "|---|---|---|---|"]
    for k, v in rep["goals"].items():
        meas = v["measured"] if isinstance(v["measured"], str) else "%.1f" % v["measured"]
        L.append("| %s | %s | %s | %s |" % (k, v["goal"], meas, "yes" if v["met"] else "**no**"))
    L += ["", "## Logits vs reference (%s)" % ((rep["reference"] or {}).get("impl", "none")), "",
          "| gasp dtype | max abs diff | mean abs diff | argmax equal | top-5 overlap | reference top-2 gap |",
          "|---|---:|---:|---|---:|---:|"]
    for dt in ("f32", "bf16"):
        c = rep["logits_" + dt]
        if c and "max_abs_diff" in c:
            L.append("| %s | %.3g | %.3g | %s | %d | %.3g |" % (dt, c["max_abs_diff"], c["mean_abs_diff"],
                                                           c["argmax_equal"], c["top5_overlap"], c["reference_top2_gap"]))
        else:
            L.append("| %s | %s | | | | |" % (dt, (c or {}).get("error", "missing")))
    b = rep["bench"]
    L += ["", "## Decoding (gasp bench lm)", ""]
    if b:
        L += ["backend `%s`, dtype %s, prompt %d tokens, prefill %.0f tokens/s" % (b.get("backend"), b.get("dtype"),
                                                                                   b.get("prompt_len", 0), b.get("prefill_tokens_per_s", 0)), "",
              "| batch | ms/step | tokens/s |", "|---:|---:|---:|"]
        L += ["| %d | %.2f | %.0f |" % (d["batch"], d["ms_per_step"], d["tokens_per_s"]) for d in b["decode"]]
    else:
        L.append("missing")
    L += ["", "## Memory", ""]
    est, mem = rep["memory_estimate"], rep["gpu_memory"]
    if est:
        L.append("llama.EstimateMemory for %d rows × %d positions: weights %.2f GiB + caches %.2f GiB + temporaries %.2f GiB = peak %.2f GiB"
                 % (est["rows"], est["positions"], est["weights_gib"], est["caches_gib"], est["temporaries_gib"], est["peak_gib"]))
    if mem:
        L.append("")
        L.append("measured (nvidia-smi memory.used during the benchmark, %d samples): peak %.2f GiB "
                 "(includes XLA's allocator pool and CUDA context)" % (mem["samples"], mem["peak_used_mib"] / 1024))
    L += ["", "## Sampling (gasp sample)", ""]
    for key, what in (("sample", "MCMC-Priority, SyGuS BV4/find_inv_bvsge_bvneg_4bit, ≤ 64 tokens"),
                      ("sample_gcd", "GCD, 8 runs, SyGuS BV4/find_inv_bvsge_bvneg_4bit, ≤ 64 tokens")):
        s = rep[key]
        L.append("- %s: " % what + ("%d records (%d valid, k ≤ %d), %.1f s" % (s["records"], s["valid"], s["k"], s["seconds"] or 0)
                                     if s else "missing"))
    return "\n".join(L) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    rep = build(args.work)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "report.json"), "w") as f:
        json.dump(rep, f, indent=2)
        f.write("\n")
    with open(os.path.join(args.out, "report.md"), "w") as f:
        f.write(markdown(rep))
    print("report: %s/report.json, report.md" % args.out)


if __name__ == "__main__":
    main()
