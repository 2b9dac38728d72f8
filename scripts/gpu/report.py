#!/usr/bin/env python3
"""Writes gpu-check.sh's report from what its stages have left in WORK so far: report.json and report.md in OUT.

    python3 scripts/gpu/report.py --work WORK --out OUT

gpu-check.sh runs this before and after every stage, so the report always says how far the check got. Reads
(each optional; a missing one is reported as such): stages.tsv (stage, status, exit, seconds, limit), env.txt
(or env.log), binary.txt, each stage's log (the tail of a failed, timed-out or unfinished one goes into the
report), tiny_ref.npy and tiny_logits.json (the tiny model through XLA), ref.npy and ref.json (the 8B
reference logits), logits_f32.json, bench.json and memory.json (gasp bench lm --json; bench.json carries
gasp's bf16 logits), mem_bench.csv and mem_plan.csv (GPU memory used, MiB, sampled during those two
benchmarks), sample.jsonl and sample_gcd.jsonl, families.json (scripts/gpu/families.py). Compares against issue #26's goals. Requirements: numpy.
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
    "memory_within": 0.10,  # measured peak within 10 % of llama.EstimateMemory
}
TINY_MAX_ABS_DIFF = 1e-4  # the tiny model in f32 against the float64 numpy reference


def read(work, name, how="text"):
    p = os.path.join(work, name)
    if not os.path.exists(p):
        return None
    try:
        if how == "npy":
            return np.load(p)
        with open(p) as f:
            if how == "json":
                return json.load(f)
            if how == "jsonl":
                return [json.loads(line) for line in f if line.strip()]
            return f.read()
    except ValueError:  # a file a killed stage left half written
        return None


def compare(ref, got):
    """Compares logits got (a dict with "logits") with the reference ref."""
    if ref is None or got is None or not got.get("logits"):
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



def stages(work):
    out = []
    for line in (read(work, "stages.tsv") or "").splitlines():
        f = line.split("\t")
        if len(f) == 5:
            out.append({"stage": f[0], "status": f[1], "exit": int(f[2]) if f[2] else None,
                        "seconds": float(f[3]), "limit": int(f[4])})
    return out


def tails(work, st, lines=30):
    """The last lines of the log of every stage that did not end well."""
    out = {}
    for s in st:
        if s["status"] in ("ok", "skipped"):
            continue
        text = read(work, s["stage"] + ".log")
        out[s["stage"]] = "\n".join((text or "(no log)").splitlines()[-lines:])
    return out


def memory(work, name, estimate=None):
    text = read(work, name)
    if not text:
        return None
    vals = [float(x) for x in re.findall(r"^\s*(\d+(?:\.\d+)?)\s*$", text, re.M)]
    if not vals:
        return None
    m = {"peak_used_mib": max(vals), "baseline_used_mib": vals[0], "samples": len(vals)}
    if estimate:
        m["estimate_mib"] = estimate / 2**20
        m["ratio"] = m["peak_used_mib"] / m["estimate_mib"]
    return m


def sample_summary(recs, st, stage):
    if recs is None:
        return None
    secs = next((s["seconds"] for s in st if s["stage"] == stage), None)
    return {"records": len(recs), "valid": sum(1 for r in recs if r.get("valid")),
            "methods": sorted({r.get("method", "") for r in recs}), "k": max((r.get("k", 0) for r in recs), default=0),
            "seconds": secs}


def without_logits(b):
    return {k: v for k, v in b.items() if k != "logits"} if b else None


def build(work):
    st = stages(work)
    ref = read(work, "ref.npy", "npy")
    bench, mem = read(work, "bench.json", "json"), read(work, "memory.json", "json")
    f32 = read(work, "logits_f32.json", "json")
    env = read(work, "env.txt") or read(work, "env.log") or ""
    rep = {
        "stages": st,
        "binary": (read(work, "binary.txt") or "").strip(),
        "environment": env.strip().splitlines(),
        "tiny_xla": compare(read(work, "tiny_ref.npy", "npy"), read(work, "tiny_logits.json", "json")),
        "reference": read(work, "ref.json", "json"),
        "logits_f32": compare(ref, f32),
        "logits_bf16": compare(ref, bench),
        "logits_bf16_vs_f32": compare(np.asarray(f32["logits"], dtype=np.float32) if f32 else None, bench),
        "bench": without_logits(bench),
        "bench_cmdbuf": without_logits(read(work, "bench_cmdbuf.json", "json")),
        "bench_gpu_memory": memory(work, "mem_bench.csv"),
        "memory_plan": without_logits(mem),
        "memory_plan_gpu_memory": memory(work, "mem_plan.csv", (mem or {}).get("memory_estimate_bytes")),
        "sample": sample_summary(read(work, "sample.jsonl", "jsonl"), st, "sample"),
        "sample_gcd": sample_summary(read(work, "sample_gcd.jsonl", "jsonl"), st, "sample_gcd"),
        "families": read(work, "families.json", "json"),
        "failed_stage_logs": tails(work, st),
    }
    rep["goals"] = goals(rep)
    return rep


def goal(target, measured, met):
    return {"goal": target, "measured": measured, "met": bool(met)}


def logits_goal(c, limit):
    return goal("argmax equal, max |Δ| ≤ %g" % limit,
                "argmax %s, max |Δ| %.3g" % ("equal" if c["argmax_equal"] else "differs", c["max_abs_diff"]),
                c["argmax_equal"] and c["max_abs_diff"] <= limit)


def goals(rep):
    g = {}
    dec = {d["batch"]: d["tokens_per_s"] for d in (rep["bench"] or {}).get("decode", [])}
    for b, key in ((1, "decode_batch1_tokens_per_s"), (100, "decode_batch100_tokens_per_s")):
        if b in dec:
            g[key] = goal("≥ %g tokens/s" % GOALS[key], "%.1f tokens/s" % dec[b], dec[b] >= GOALS[key])
    if rep["tiny_xla"] and "max_abs_diff" in rep["tiny_xla"]:
        g["tiny_xla_logits"] = logits_goal(rep["tiny_xla"], TINY_MAX_ABS_DIFF)
    if rep["logits_f32"] and "max_abs_diff" in rep["logits_f32"]:
        g["logits_f32"] = logits_goal(rep["logits_f32"], GOALS["logits_f32_max_abs_diff"])
    fam = [(f["family"], r) for f in (rep["families"] or {}).get("families", []) for r in f["results"]
           if r.get("dtype", "f32") == "f32" or "error" in r]
    if fam:
        bad = ["%s/%s" % (n, r["backend"]) for n, r in fam if not r["ok"]]
        worst = max((r.get("max_abs_diff", float("inf")) for _, r in fam), default=0)
        g["families_f32"] = goal(rep["families"]["goal"] + " for every family and backend",
                                 "%d of %d comparisons; worst max |Δ| %.3g%s" % (len(fam) - len(bad), len(fam), worst,
                                                                                 "; missed: " + ", ".join(bad) if bad else ""),
                                 not bad)
    m = rep["memory_plan_gpu_memory"]
    if m and "ratio" in m:
        g["memory_plan"] = goal("peak within %d %% of the estimate" % (100 * GOALS["memory_within"]),
                                "%.2f GiB vs %.2f GiB estimated (×%.3f)" % (m["peak_used_mib"] / 1024, m["estimate_mib"] / 1024, m["ratio"]),
                                abs(m["ratio"] - 1) <= GOALS["memory_within"])
    return g


def md_logits(rep):
    L = ["## Logits", "", "| gasp | against | max abs diff | mean abs diff | argmax equal | top-5 overlap | reference top-2 gap |",
         "|---|---|---:|---:|---|---:|---:|"]
    impl = (rep["reference"] or {}).get("impl", "reference")
    for key, what, against in (("tiny_xla", "tiny, f32", "numpy float64"), ("logits_f32", "8B f32", impl),
                               ("logits_bf16", "8B bf16", impl), ("logits_bf16_vs_f32", "8B bf16", "gasp 8B f32")):
        c = rep[key]
        if c and "max_abs_diff" in c:
            L.append("| %s | %s | %.3g | %.3g | %s | %d | %.3g |" % (what, against, c["max_abs_diff"], c["mean_abs_diff"],
                                                                   c["argmax_equal"], c["top5_overlap"], c["reference_top2_gap"]))
        else:
            L.append("| %s | %s | %s | | | | |" % (what, against, (c or {}).get("error", "missing")))
    return L


def md_families(fam):
    L = ["", "## Model families (scripts/gpu/families.py, logits after 24 ids, against the float32 reference)", ""]
    if not fam:
        return L + ["missing"]
    L += ["reference: %s; goal: %s; bf16 rows are measurements: gasp bf16 against the reference run in bfloat16, "
          "and that run against float32" % (fam["impl"], fam["goal"]), "",
          "| family | model_type | backend | dtype | max abs diff | argmax equal | top-5 overlap | seconds "
          "| reference vs numpy | vs reference bf16 | reference bf16 vs f32 |",
          "|---|---|---|---|---:|---|---:|---:|---:|---:|---:|"]
    g = lambda c: "%.3g" % c["max_abs_diff"] if c and "max_abs_diff" in c else ""
    for f in fam["families"]:
        if "error" in f:
            L.append("| %s | | | | error: %s | | | | | | |" % (f["family"], f["error"].replace("|", "/")))
        for r in f["results"]:
            dtype = r.get("dtype", "f32")
            if "error" in r:
                L.append("| %s | %s | %s | %s | error: %s | | | %.1f | | | |" % (
                    f["family"], f["model_type"], r["backend"], dtype, r["error"].replace("\n", " ").replace("|", "/"),
                    r["seconds"]))
                continue
            bf = dtype == "bf16"
            L.append("| %s | %s | %s | %s | %.3g | %s | %d | %.1f | %s | %s | %s |" % (
                f["family"], f["model_type"], r["backend"], dtype, r["max_abs_diff"], r["argmax_equal"],
                r["top5_overlap"], r["seconds"], g(f.get("reference_vs_numpy")), g(r.get("vs_reference_bf16")),
                g(f.get("reference_bf16_vs_f32")) if bf else ""))
    return L


def md_bench(b, m, title):
    L = ["", "## " + title, ""]
    if not b:
        return L + ["missing"]
    L += ["backend `%s`, dtype %s, prompt %d tokens, load %.1f s, prefill %.0f tokens/s" % (
        b.get("backend"), b.get("dtype"), b.get("prompt_len", 0), b.get("load_s", 0), b.get("prefill_tokens_per_s", 0)), "",
        "| batch | ms/step | tokens/s |", "|---:|---:|---:|"]
    L += ["| %d | %.2f | %.0f |" % (d["batch"], d["ms_per_step"], d["tokens_per_s"]) for d in b["decode"]]
    if m:
        L += ["", "nvidia-smi memory.used (%d samples): %.2f GiB before, peak %.2f GiB%s" % (
            m["samples"], m["baseline_used_mib"] / 1024, m["peak_used_mib"] / 1024,
            "; llama.EstimateMemory %.2f GiB (×%.3f)" % (m["estimate_mib"] / 1024, m["ratio"]) if "ratio" in m else "")]
    return L


def md_cmdbuf(off, on):
    """Batch 1 with XLA's command buffers on (the cmdbuf stage) beside bench8b's, off."""
    L = ["", "## XLA's command buffers at batch 1 (off: gasp's default on CUDA)", ""]
    one = lambda b: next((d for d in (b or {}).get("decode", []) if d["batch"] == 1), None)
    a, b = one(off), one(on)
    if not a or not b:
        return L + ["missing"]
    return L + ["off %.2f ms/step (%.0f tokens/s), on %.2f ms/step (%.0f tokens/s): off is %.2fx on" % (
        a["ms_per_step"], a["tokens_per_s"], b["ms_per_step"], b["tokens_per_s"], b["ms_per_step"] / a["ms_per_step"])]


def markdown(rep):
    L = ["# gasp GPU check", ""]
    L += ["## Stages", "", "binary: `%s`" % (rep["binary"] or "?"), "", "| stage | status | exit | seconds | limit |",
          "|---|---|---:|---:|---:|"]
    L += ["| %s | %s | %s | %.1f | %d |" % (s["stage"], s["status"] if s["status"] != "running" else "**running (no result yet)**",
                                          "" if s["exit"] is None else s["exit"], s["seconds"], s["limit"]) for s in rep["stages"]]
    L += ["", "## Goals", "", "| goal | target | measured | met |", "|---|---|---|---|"]
    L += ["| %s | %s | %s | %s |" % (k, v["goal"], v["measured"], "yes" if v["met"] else "**no**") for k, v in rep["goals"].items()]
    L += ["", "## Environment", "", "```"] + rep["environment"] + ["```", ""]
    L += md_logits(rep)
    L += md_families(rep["families"])
    L += md_bench(rep["bench"], rep["bench_gpu_memory"], "Decoding (gasp bench lm, bf16)")
    L += md_cmdbuf(rep["bench"], rep["bench_cmdbuf"])
    L += md_bench(rep["memory_plan"], rep["memory_plan_gpu_memory"], "Memory plan (gasp bench lm, bf16)")
    L += ["", "## Sampling (gasp sample, SyGuS BV4/find_inv_bvsge_bvneg_4bit, ≤ 64 tokens)", ""]
    for key, what in (("sample", "MCMC-Priority"), ("sample_gcd", "GCD")):
        s = rep[key]
        L.append("- %s: " % what + ("%d records (%d valid, k ≤ %d), %.1f s" % (s["records"], s["valid"], s["k"], s["seconds"] or 0)
                                     if s else "missing"))
    for name, text in rep["failed_stage_logs"].items():
        L += ["", "## Log of %s (last lines)" % name, "", "```", text, "```"]
    return "\n".join(L) + "\n"


def write(path, text):
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    rep = build(args.work)
    os.makedirs(args.out, exist_ok=True)
    write(os.path.join(args.out, "report.json"), json.dumps(rep, indent=2) + "\n")
    write(os.path.join(args.out, "report.md"), markdown(rep))
    print("report: %s/report.json, report.md" % args.out)


if __name__ == "__main__":
    main()
