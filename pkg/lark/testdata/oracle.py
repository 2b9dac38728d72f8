#!/usr/bin/env python3
"""Membership oracle for pkg/lark's tests: Lark's Earley parser.

Usage: oracle.py GRAMMAR.lark START < strings.jsonl > answers.jsonl

Each input line is a JSON string; each output line is a JSON list
[dynamic, dynamic_complete, unassigned]: whether Lark(grammar,
parser="earley", lexer=L, start=START).parse(s) succeeds with L = "dynamic"
(Earley's default) and with L = "dynamic_complete", and the characters of
s that Python's Unicode database (unicodedata.unidata_version) has as
unassigned (category Cn), as a string.
"""
import json
import sys
import unicodedata

from lark import Lark
from lark.exceptions import LarkError


def main():
    path, start = sys.argv[1], sys.argv[2]
    with open(path, encoding="utf-8") as f:
        src = f.read()
    parsers = [Lark(src, parser="earley", lexer=lx, start=start) for lx in ("dynamic", "dynamic_complete")]
    for line in sys.stdin:
        s = json.loads(line)
        answer = []
        for p in parsers:
            try:
                p.parse(s)
                answer.append(True)
            except LarkError:
                answer.append(False)
        answer.append("".join(c for c in s if unicodedata.category(c) == "Cn"))
        print(json.dumps(answer), flush=False)


if __name__ == "__main__":
    main()
