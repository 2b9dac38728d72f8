#!/usr/bin/env python3
"""Writes data/genlm's tasks from a checkout of github.com/genlm/genlm-eval.

Usage: make_tasks.py GENLM_EVAL_DIR OUT_DIR

Each task is a directory with a grammar (grammar.lark or grammar.regex) and
prompt.txt, the prompt genlm-eval's default_prompt_formatter builds without
a chat template (genlm/eval/domains/molecular_synthesis.py and
pattern_matching.py), as text. Assets are copied unchanged; see README.md.
"""
import csv
import os
import random
import sys

# molecular_synthesis.py: SYSTEM_PROMPT and MolecularSynthesisDataset.from_smiles defaults.
SMILES_SYSTEM = (
    "You are an expert in chemistry. "
    "You are given a list of molecules in SMILES format. "
    "You are asked to write another molecule in SMILES format with similar chemical properties."
)
SMILES_INSTANCES = 4  # the first instances of from_smiles(n_molecules=20, n_instances=100, seed=1234)

# pattern_matching.py: SYSTEM_PROMPT and FEW_SHOT_EXAMPLES.
PATTERN_SYSTEM = (
    "You are a helpful assistant that generates strings matching regular expressions. "
    + "Only output the exact string that matches the regex pattern, nothing more."
)
FEW_SHOT = [("(ab)+", "ab"), ("(ab|cd)+", "cd"), ("[a-z]+", "hello")]
# Rows (0-based, after the header) of assets/pattern_matching/patterns.csv
# whose pattern means the same in Python's re and Go's RE2 (ASCII, no \d \w
# \s \b, no flags or possessive quantifiers) and compiles in gasp.
PATTERN_ROWS = [3, 4, 81, 171, 224, 308, 382, 435]


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)


def smiles_tasks(src, out):
    with open(os.path.join(src, "assets/molecular_synthesis/smiles.lark"), encoding="utf-8") as f:
        grammar = f.read()
    with open(os.path.join(src, "assets/molecular_synthesis/GDB17_sample.txt"), encoding="utf-8") as f:
        molecules = f.readlines()
    random.seed(1234)
    for i in range(SMILES_INSTANCES):
        ids = random.sample(range(len(molecules)), 20)
        prompt = SMILES_SYSTEM + "\n" + "\n".join("Molecule: " + molecules[j] for j in ids) + "\nMolecule:"
        write(os.path.join(out, "smiles", str(i), "grammar.lark"), grammar)
        write(os.path.join(out, "smiles", str(i), "prompt.txt"), prompt)


def pattern_tasks(src, out):
    with open(os.path.join(src, "assets/pattern_matching/patterns.csv"), encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))[1:]
    shots = "\n".join(f"Pattern: {p}\nOutput: {o}" for p, o in FEW_SHOT)
    for r in PATTERN_ROWS:
        pattern = rows[r][0]
        d = os.path.join(out, "pattern", "%03d" % r)
        write(os.path.join(d, "grammar.regex"), pattern + "\n")
        write(os.path.join(d, "prompt.txt"), PATTERN_SYSTEM + "\n" + shots + "\n" + pattern)


def main():
    src, out = sys.argv[1], sys.argv[2]
    smiles_tasks(src, out)
    pattern_tasks(src, out)


if __name__ == "__main__":
    main()
