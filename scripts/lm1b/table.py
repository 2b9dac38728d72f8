"""Markdown table of scripts/bench-1b.sh's runs: gasp bench lm (JSON) beside llama-batched-bench (JSONL).

For each model, dtype and batch size: decode tokens/s of each engine (the range over the rounds), the ratio
gasp / llama.cpp of each round (the two engines ran one after the other: on a shared machine only such a
pair compares them) against the issue's goal (gasp >= llama.cpp at batch 1, >= 2x at 16 and 64), and what
the best figure implies of the machine: the weight bytes each decode step reads (parameters x bytes per
weight, once per step whatever the batch) times steps per second, in GB/s, and the matrix FLOPs
(2 x parameters x batch per step) per second, in GFLOP/s. A figure near the machine's memory bandwidth is
bandwidth-bound; one near its FLOP rate is compute-bound.
"""
import argparse
import glob
import json
import os
import re
import sys

GOAL = {1: 1.0}  # batch -> gasp/llama.cpp ratio wanted; 2.0 for the others


def rounds(raw, pattern):
    """Files of raw matching pattern (with {r} for the round), grouped by round number."""
    out = {}
    for path in glob.glob(os.path.join(raw, pattern.format(r="*"))):
        m = re.search(r"-r(\d+)[-.]", os.path.basename(path))
        if m:
            out.setdefault(int(m.group(1)), []).append(path)
    return out


def load_gasp(raw, m, dt):
    """{round: {batch: decode report}} and one report (for params and settings)."""
    rep, res = None, {}
    for r, paths in rounds(raw, f"gasp-{m}-{dt}-r{{r}}-b*.json").items():
        for path in paths:
            try:
                with open(path) as f:
                    g = json.load(f)
            except (OSError, ValueError):
                continue  # a run that failed or timed out
            rep = rep or g
            res.setdefault(r, {}).update({d["batch"]: d["tokens_per_s"] for d in g["decode"]})
    return rep, res


def load_llamacpp(raw, m, dt):
    res = {}
    for r, paths in rounds(raw, f"llamacpp-{m}-{dt}-r{{r}}.jsonl").items():
        for path in paths:
            with open(path) as f:
                for line in f:
                    if line.startswith("{"):
                        d = json.loads(line)
                        res.setdefault(r, {})[d["pl"]] = d["speed_tg"]
    return res


def span(xs, spec):
    if not xs:
        return "–"
    lo, hi = min(xs), max(xs)
    return format(lo, spec) if lo == hi else f"{lo:{spec}}–{hi:{spec}}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw", required=True)
    ap.add_argument("--models", required=True)
    ap.add_argument("--dtypes", required=True)
    ap.add_argument("--llamacpp", default="unknown")
    a = ap.parse_args()
    print("| model | dtype | batch | gasp tok/s | llama.cpp tok/s | gasp / llama.cpp (per round) | goal | met | "
          "best gasp: GB/s · GFLOP/s | best llama.cpp: GB/s · GFLOP/s |")
    print("|---|---|---:|---:|---:|---:|---:|---|---:|---:|")
    notes = []
    for m in a.models.split():
        for dt in a.dtypes.split():
            rep, gasp = load_gasp(a.raw, m, dt)
            lcpp = load_llamacpp(a.raw, m, dt)
            if rep is None and not lcpp:
                continue
            params = rep["params"] if rep else None
            if rep:
                notes.append(f"gasp {m} {dt}: backend {rep['backend']}, {rep['threads']} threads, prompt "
                             f"{rep['prompt_len']} tokens, {len(gasp)} round(s)")
            ebytes = 4 if dt == "f32" else 2
            batches = sorted({b for d in list(gasp.values()) + list(lcpp.values()) for b in d})
            for b in batches:
                g = [d[b] for d in gasp.values() if b in d]
                l = [d[b] for d in lcpp.values() if b in d]
                ratios = [gasp[r][b] / lcpp[r][b] for r in gasp if b in gasp[r] and b in lcpp.get(r, {})]
                goal = GOAL.get(b, 2.0)
                met = "–" if not ratios else ("yes" if min(ratios) >= goal else
                                              "no" if max(ratios) < goal else "in some rounds")

                def implied(xs):
                    if not xs or params is None:
                        return "–"
                    steps = max(xs) / b
                    return f"{params * ebytes * steps / 1e9:.1f} · {2 * params * b * steps / 1e9:.0f}"

                print(f"| {m} | {dt} | {b} | {span(g, '.2f')} | {span(l, '.2f')} | "
                      f"{', '.join(format(x, '.2f') for x in ratios) or '–'} | ≥ {goal:g}× | {met} | "
                      f"{implied(g)} | {implied(l)} |")
    print()
    print(f"llama.cpp commit {a.llamacpp}. – : no figure (the run failed or passed LIMIT; see raw/*.log).")
    for n in notes:
        print(f"- {n}")


if __name__ == "__main__":
    sys.exit(main())
