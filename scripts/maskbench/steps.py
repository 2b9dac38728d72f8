#!/usr/bin/env python3
"""Where a MaskBench-style run's slow masks are: gasp's steps by what the prefix ends in.

    steps.py [--tokenizer tokenizer.json] [--over 250] [--top 10] RUN.jsonl[,RUN2.jsonl...] [RUN.jsonl ...]

Each argument is one or more "gasp bench schemas" outputs of the same sample (comma-separated): their
least thread-CPU time per step is taken (this machine's noise moves single runs by a fifth). For each
argument: mask p50, p90, p99 and max (nearest rank), the steps over --over µs, all steps' total; then
those steps by where the mask is asked (the prefix decoded with the tokenizer and scanned as JSON: outside
a string, at a member name's or a string's start, inside one), and the schemas with most of them.
Compare binaries by alternating their runs and passing each binary's runs as one argument.
"""
import argparse
import collections
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from summarize import pct  # noqa: E402  (nearest rank, as gasp bench masks)


def byte_decoder():
    """GPT-2's byte-level alphabet: the character each byte is written as in tokenizer.json."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(bs, cs)}


def load_vocab(path):
    tok = json.load(open(path))
    dec = byte_decoder()
    vocab = {i: bytes(dec[c] for c in t) for t, i in tok["model"]["vocab"].items()}
    for a in tok.get("added_tokens", []):
        vocab[a["id"]] = a["content"].encode()
    return vocab


def where(prefix):
    """Where a JSON text prefix ends: outside a string, or at the start of or inside a member name or a string."""
    stack, in_str, key, start, expect_key, i = [], False, False, 0, False, 0
    while i < len(prefix):
        c = prefix[i]
        if in_str:
            if c == 0x5C:
                i += 2
                continue
            if c == 0x22:
                in_str = False
        elif c == 0x22:
            in_str, start = True, i + 1
            key = bool(stack) and stack[-1] == "{" and expect_key
        elif c in (0x7B, 0x5B):
            stack.append(chr(c))
            expect_key = c == 0x7B
        elif c in (0x7D, 0x5D):
            if stack:
                stack.pop()
            expect_key = False
        elif c == 0x2C:
            expect_key = bool(stack) and stack[-1] == "{"
        elif c == 0x3A:
            expect_key = False
        i += 1
    if not in_str:
        return "outside a string"
    return ("name" if key else "string") + (" start" if len(prefix) == start else " inside")


def read_run(path):
    """The ok lines of one run; a line that is not a schema's record (a run cut short) is an error at its place."""
    out = {}
    try:
        with open(path) as f:
            for n, line in enumerate(f, 1):
                try:
                    r = json.loads(line)
                    if r["status"] == "ok":
                        out[r["name"]] = r
                except (ValueError, KeyError, TypeError) as e:
                    sys.exit("steps.py: %s:%d: not a gasp bench schemas line (%s)" % (path, n, e))
    except OSError as e:
        sys.exit("steps.py: %s" % e)
    return out


def least(paths):
    runs = [read_run(p) for p in paths]
    out = {}
    for name, r in runs[0].items():
        if all(name in x and x[name]["ids"] == r["ids"] for x in runs):
            out[name] = (r["ids"], [min(t) for t in zip(*(x[name]["cpu_us"] for x in runs))])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--tokenizer", default=".cache/llama3/tokenizer.json")
    ap.add_argument("--over", type=float, default=250)
    ap.add_argument("--top", type=int, default=10)
    args = ap.parse_args()
    vocab = load_vocab(args.tokenizer)
    for arg in args.runs:
        steps = least(arg.split(","))
        times = [t for _, ts in steps.values() for t in ts]
        print("%s: %d schemas, %d steps; p50 %.1f µs, p90 %.1f, p99 %.0f, max %.0f; over %g µs: %d; all steps %.2f s" % (
            arg, len(steps), len(times), pct(times, 50), pct(times, 90), pct(times, 99), max(times), args.over,
            sum(t > args.over for t in times), sum(times) / 1e6))
        count, total, slow_by = collections.Counter(), collections.Counter(), collections.Counter()
        for name, (ids, ts) in steps.items():
            prefix = b""
            for i, t in enumerate(ts):
                w = where(prefix)
                total[w] += 1
                if t > args.over:
                    count[w] += 1
                    slow_by[name] += 1
                if i < len(ids):
                    prefix += vocab[ids[i]]
        for w in sorted(total, key=lambda w: -count[w]):
            print("  %-18s %6d steps, %5d over %g µs" % (w, total[w], count[w], args.over))
        print("  most: " + ", ".join("%s %d" % (n, k) for n, k in slow_by.most_common(args.top)))


if __name__ == "__main__":
    main()
