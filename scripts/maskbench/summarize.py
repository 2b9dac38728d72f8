#!/usr/bin/env python3
"""Summarizes a MaskBench-style run (scripts/maskbench/run.sh) as Markdown.

    summarize.py GASP.jsonl XGRAMMAR.jsonl [--command CMD] > README.md

GASP.jsonl is "gasp bench schemas" output, XGRAMMAR.jsonl is xgrammar.cjs
output on the same schemas and token ids. Per engine: schemas compiled,
rejected (compile error), wrong (a valid instance refused; for gasp also a
mask that differs from brute force or a sampled sentence an independent
validator refuses), compile p50/p99 over compiled schemas, mask p50/p99/max
over all steps of the schemas whose instance was accepted; then the same on
the schemas both engines stepped, the allowed-token counts compared step by
step, gasp's goals, and the keywords behind gasp's rejections.
Percentiles are nearest-rank, as gasp bench masks computes them.
"""
import argparse
import collections
import json
import math
import re
import sys

GOALS = [  # (label, key, limit): gasp's goals from issue #28
    ("mask p50", "mask_p50", 10.0),
    ("mask p99", "mask_p99", 250.0),
    ("mask max", "mask_max", 5000.0),
    ("compile p50", "compile_p50", 2.0),
    ("compile p99", "compile_p99", 50.0),
]


def pct(xs, p):
    if not xs:
        return float("nan")
    s = sorted(xs)
    i = int(p / 100 * len(s) + 0.5) - 1
    return s[max(0, min(i, len(s) - 1))]


def load(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.startswith("{")]


# status of each engine's record mapped onto the table's categories
GASP = {"ok": "ok", "no_instance": "compiled", "wrong": "wrong", "rejected": "rejected", "error": "error", "timeout": "timeout"}
XG = {"ok": "ok", "compiled": "compiled", "refused": "wrong", "rejected": "rejected", "timeout": "timeout"}


# keywords the front end asserts (pkg/jsonschema); others beside enum/const are annotations
ASSERTIONS = {"properties", "required", "additionalProperties", "items", "prefixItems", "minItems", "maxItems",
              "minLength", "maxLength", "pattern", "format", "minimum", "maximum", "exclusiveMinimum",
              "exclusiveMaximum", "anyOf", "oneOf", "allOf", "$ref"}


def reason(err):
    """The kind of a front-end error, from its first line."""
    e = err.split("\n")[0]
    m = re.search(r"keyword (\S+) beside enum or const", e)
    if m:
        k = m.group(1)
        return f"{k} beside enum/const" if k in ASSERTIONS else "a non-keyword member (annotation) beside enum/const"
    m = re.search(r"keyword (\S+) is not supported", e)
    if m:
        return f"{m.group(1)} (not supported)"
    m = re.search(r'format "[^"]*" is not supported', e)
    if m:
        return "format of an unsupported name"
    m = re.search(r"(\w+): \d+ is over the supported", e)
    if m:
        return f"{m.group(1)} over the supported bound"
    m = re.search(r"(\w+) beside minLength/maxLength", e)
    if m:
        return f"{m.group(1)} beside minLength/maxLength"
    m = re.search(r"cannot intersect two different values of (\S+)", e)
    if m:
        k = m.group(1)
        return (f"allOf/$ref: two values of {k}" if k in ASSERTIONS
                else "allOf/$ref: two values of a non-keyword member (annotation)")
    for key, label in (("oneOf whose branches may overlap", "oneOf with branches that may overlap"),
                       ("grammar too large", "grammar too large (> 2^20 symbols after expanding repetitions)"),
                       ("$id below the root", "$id below the root above a $ref")):
        if key in e:
            return label
    return " ".join(e.split(": ", 1)[-1].split()[:8])


def stats(recs, kind, steps_of=None):
    cnt = collections.Counter(kind[r["status"]] for r in recs)
    compiled = [r for r in recs if kind[r["status"]] in ("ok", "compiled", "wrong") and r.get("compile_ms")]
    ok = [r for r in recs if r["status"] == "ok"]
    steps = [u for r in ok for u in r["step_us"]]
    cpus = [u for r in ok for u in r.get("cpu_us") or []]
    return {
        "n": len(recs),
        "compiled": cnt["ok"] + cnt["compiled"] + cnt["wrong"],
        "accepted": cnt["ok"],
        "rejected": cnt["rejected"],
        "wrong": cnt["wrong"],
        "error": cnt["error"],
        "timeout": cnt["timeout"],
        "compile_p50": pct([r["compile_ms"] for r in compiled], 50),
        "compile_p99": pct([r["compile_ms"] for r in compiled], 99),
        "ccpu_p50": pct([r["compile_cpu_ms"] for r in compiled if "compile_cpu_ms" in r], 50),
        "ccpu_p99": pct([r["compile_cpu_ms"] for r in compiled if "compile_cpu_ms" in r], 99),
        "steps": len(steps),
        "mask_p50": pct(steps, 50),
        "mask_p99": pct(steps, 99),
        "mask_max": max(steps) if steps else float("nan"),
        "cpu_p50": pct(cpus, 50),
        "cpu_p99": pct(cpus, 99),
        "cpu_max": max(cpus) if cpus else float("nan"),
    }


def row(name, s):
    return (f"| {name} | {s['n']} | {s['compiled']} | {s['accepted']} | {s['rejected']} | {s['timeout']} | {s['wrong']} | "
            f"{s['compile_p50']:.2f} | {s['compile_p99']:.1f} | {s['steps']} | {s['mask_p50']:.1f} | "
            f"{s['mask_p99']:.1f} | {s['mask_max']:.0f} | {s['cpu_p50']:.0f} / {s['cpu_p99']:.0f} / {s['cpu_max']:.0f} |")


HEAD = ("| engine | schemas | compiled | instance accepted | rejected | timeout | wrong | compile p50 ms | "
        "compile p99 ms | mask steps | mask p50 µs | mask p99 µs | mask max µs | mask CPU p50 / p99 / max µs |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")


def write_csv(path, g, xs):
    """One row per schema: each engine's status, compile time, steps and mask CPU p50/max."""
    import csv
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["schema", "gasp_status", "gasp_reason", "gasp_compile_ms", "xgrammar_status", "xgrammar_compile_ms",
                    "steps", "gasp_cpu_p50_us", "gasp_cpu_max_us", "xgrammar_cpu_p50_us", "xgrammar_cpu_max_us"])
        for r in g:
            x = xs.get(r["name"], {})
            gc, xc = r.get("cpu_us") or [], x.get("cpu_us") or []
            fmt = lambda v: "" if v is None else f"{v:.3f}"
            w.writerow([r["name"], r["status"], reason(r["error"]) if r["status"] == "rejected" else "",
                        fmt(r.get("compile_ms")), x.get("status", ""), fmt(x.get("compile_ms")),
                        len(r.get("step_us") or []), fmt(pct(gc, 50) if gc else None), fmt(max(gc) if gc else None),
                        fmt(pct(xc, 50) if xc else None), fmt(max(xc) if xc else None)])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gasp")
    ap.add_argument("xgrammar")
    ap.add_argument("--command", default="")
    ap.add_argument("--csv", help="also write one row per schema (no schema text) to this file")
    a = ap.parse_args()
    g = load(a.gasp)
    xs = {r["name"]: r for r in load(a.xgrammar)}
    x = [xs[r["name"]] for r in g if r["name"] in xs]
    if a.csv:
        write_csv(a.csv, g, xs)
    out = []
    p = out.append
    if a.command:
        p("Made by:\n\n```\n" + a.command + "\n```\n")
    p("## All schemas\n")
    p(HEAD)
    sg, sx = stats(g, GASP), stats(x, XG)
    p(row("gasp", sg))
    p(row("XGrammar 0.1.27 (wasm)", sx))
    p("")
    p("compiled: the engine built a grammar. instance accepted: every token of the valid instance and EOS were "
      "allowed (and, for gasp, every verified mask equalled brute force). rejected: compile error. timeout: compile and steps took longer than the engine's limit (gasp bench schemas "
      "--timeout, xgrammar.cjs XG_TIMEOUT_S). wrong: compiled, "
      "but a valid instance was refused (for gasp also: a mask ≠ brute force, or a sampled sentence invalid). "
      "Mask percentiles are over all steps of the schemas with an accepted instance, one pass, cold caches; "
      "wall time, and CPU time (gasp: the mask thread's; XGrammar: node's process, whole µs).\n")

    both = [r["name"] for r in g if r["status"] == "ok" and xs.get(r["name"], {}).get("status") == "ok"]
    bs = set(both)
    p(f"## Schemas both engines stepped ({len(both)})\n")
    p(HEAD)
    p(row("gasp", stats([r for r in g if r["name"] in bs], GASP)))
    p(row("XGrammar 0.1.27 (wasm)", stats([xs[n] for n in both], XG)))
    p("")
    more = less = same = 0
    more_schemas = collections.Counter()
    gmap = {r["name"]: r for r in g}
    for n in both:
        for i, (ga, xa) in enumerate(zip(gmap[n]["allowed"], xs[n]["allowed"])):
            if ga > xa:
                more += 1
                more_schemas[n] += 1
            elif ga < xa:
                less += 1
            else:
                same += 1
    p(f"Allowed-token counts, step by step: equal on {same} steps, gasp allows fewer on {less}, more on {more} "
      f"(in {len(more_schemas)} schemas). gasp's masks on these schemas were checked against brute force on "
      f"{sum(gmap[n].get('verified_steps', 0) for n in both)} steps, all equal.\n")

    p("## gasp against its goals\n")
    p("| goal | limit | measured (wall) | met | thread CPU | met |\n|---|---|---|---|---|---|")
    met = lambda v, lim: "yes" if v <= lim else f"no ({v / lim:.1f}×)"
    for label, key, lim in GOALS:
        unit = "ms" if "compile" in key else "µs"
        v = sg[key]
        cpu = sg.get(key.replace("mask_", "cpu_").replace("compile_", "ccpu_"))
        c = f"{cpu:.1f} {unit} | {met(cpu, lim)}" if cpu is not None and not math.isnan(cpu) else "– | –"
        p(f"| {label} | ≤ {lim:g} {unit} | {v:.2f} {unit} | {met(v, lim)} | {c} |")
    exact_more = sg["accepted"] > sx["accepted"]
    p(f"| schemas compiled with the instance accepted, more than XGrammar | > {sx['accepted']} | {sg['accepted']} | "
      f"{'yes' if exact_more else 'no'} | | |")
    p(f"| none wrong | 0 | {sg['wrong']} | {'yes' if sg['wrong'] == 0 else 'no'} | | |")
    p("")

    p("## Why gasp rejected schemas (its first error, by kind)\n")
    p("| reason | schemas |\n|---|---|")
    kw = collections.Counter(reason(r["error"]) for r in g if r["status"] == "rejected")
    for k, c in kw.most_common():
        p(f"| {k} | {c} |")
    p("")
    wrong = [r for r in g if r["status"] in ("wrong", "error")]
    if wrong:
        p("## gasp: wrong or unreadable\n")
        for r in wrong:
            p(f"- {r['name']}: {r['status']}: {r['error'][:200]}")
        p("")
    p("## XGrammar: errors\n")
    p("| XGrammar status | first words of the error | schemas |\n|---|---|---|")
    xe = collections.Counter((r["status"], re.sub(r"\d+", "N", " ".join((r.get("error") or "").split()[:7]))) for r in x
                             if r["status"] in ("rejected", "refused"))
    for (st, e), c in xe.most_common(15):
        p(f"| {st} | {e.replace('|', '/')} | {c} |")
    print("\n".join(out))


if __name__ == "__main__":
    sys.exit(main())
