"""Markdown table of scripts/bench-1b.sh's runs: gasp bench lm (JSON) beside llama-batched-bench (JSONL).

For each model, dtype and batch size: decode tokens/s of each engine, their ratio against the issue's goal
(gasp >= llama.cpp at batch 1, >= 2x at 16 and 64), and what the figure implies of the machine: the weight
bytes each decode step reads (parameters x bytes per weight, once per step whatever the batch) times steps
per second, in GB/s, and the matrix FLOPs (2 x parameters x batch per step) per second, in GFLOP/s. A
figure near the machine's memory bandwidth is bandwidth-bound; one near its FLOP rate is compute-bound.
"""
import argparse
import glob
import json
import os
import sys

GOAL = {1: 1.0}  # batch -> gasp/llama.cpp ratio wanted; 2.0 for the others


def load_gasp(raw, m, dt):
    """The gasp reports of model m in dtype dt (one file per run, gasp-M-DT-b*.json): the first report
    and the decode figures of every batch size."""
    rep, decode = None, {}
    for path in sorted(glob.glob(os.path.join(raw, f"gasp-{m}-{dt}-b*.json"))):
        try:
            with open(path) as f:
                r = json.load(f)
        except (OSError, ValueError):
            continue  # a run that failed or timed out
        rep = rep or r
        decode.update({d["batch"]: d for d in r["decode"]})
    return rep, decode


def load_llamacpp(path):
    out = {}
    try:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line.startswith("{"):
                    r = json.loads(line)
                    out[r["pl"]] = r
    except OSError:
        pass
    return out


def fmt(x, spec):
    return "–" if x is None else format(x, spec)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw", required=True)
    ap.add_argument("--models", required=True)
    ap.add_argument("--dtypes", required=True)
    ap.add_argument("--llamacpp", default="unknown")
    a = ap.parse_args()
    print("| model | dtype | batch | gasp tok/s | llama.cpp tok/s | gasp / llama.cpp | goal | met | "
          "gasp GB/s · GFLOP/s | llama.cpp GB/s · GFLOP/s |")
    print("|---|---|---:|---:|---:|---:|---:|---|---:|---:|")
    notes = []
    for m in a.models.split():
        for dt in a.dtypes.split():
            rep, gasp = load_gasp(a.raw, m, dt)
            lcpp = load_llamacpp(os.path.join(a.raw, f"llamacpp-{m}-{dt}.jsonl"))
            if rep is None and not lcpp:
                continue
            params = rep["params"] if rep else None
            if rep:
                notes.append(f"gasp {m} {dt}: backend {rep['backend']}, {rep['threads']} threads, prompt "
                             f"{rep['prompt_len']}, prefill {rep['prefill_tokens_per_s']:.0f} tok/s")
            ebytes = 4 if dt == "f32" else 2
            for b in sorted(set(gasp) | set(lcpp)):
                g = gasp.get(b, {}).get("tokens_per_s")
                l = lcpp.get(b, {}).get("speed_tg")
                ratio = g / l if g and l else None
                goal = GOAL.get(b, 2.0)
                met = "–" if ratio is None else ("yes" if ratio >= goal else "no")

                def implied(tok_s):
                    if tok_s is None or params is None:
                        return "–"
                    steps = tok_s / b
                    return f"{params * ebytes * steps / 1e9:.1f} · {2 * params * b * steps / 1e9:.0f}"

                print(f"| {m} | {dt} | {b} | {fmt(g, '.1f')} | {fmt(l, '.1f')} | {fmt(ratio, '.2f')} | "
                      f"≥ {goal:g}× | {met} | {implied(g)} | {implied(l)} |")
    print()
    print(f"llama.cpp commit {a.llamacpp}.")
    for n in notes:
        print(f"- {n}")


if __name__ == "__main__":
    sys.exit(main())
