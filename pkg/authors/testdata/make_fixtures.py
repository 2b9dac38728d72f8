# Writes the fixtures runs_log/ in the authors' format (one JSON file per
# chain or run, written by Python's json as their sampler does, -Infinity
# included). Run from this directory: python3 make_fixtures.py
import json, os, random, shutil

EOT, EOTEXT = 128009, 128001
# (token ids, tokens, raw_logprob, cons_logprob): the same text "ab" ended by
# two EOS tokens is two samples; "abc" never ended (capped); "x" has P = 0.
SAMPLES = [
    ([10, 11, EOT], ["a", "b", "<|eot_id|>"], -0.7, -0.4),
    ([10, 11, EOTEXT], ["a", "b", "<|end_of_text|>"], -7.6, -3.1),
    ([12, EOT], ["c", "<|eot_id|>"], -0.9, -1.2),
    ([13, 14, 15, EOT], ["d", "e", "f", "<|eot_id|>"], -2.3, -1.9),
    ([10, 11, 12], ["a", "b", "c"], -5.0, -2.0),
    ([16, EOT], ["x", "<|eot_id|>"], float("-inf"), -6.0),
]

def sample(i):
    ids, toks, raw, cons = SAMPLES[i]
    return {"tokens": toks, "token_ids": ids, "raw_logprob": raw, "cons_logprob": cons}

def chain(rng, steps):
    cur = rng.choice([0, 1, 2, 3])
    out = []
    for _ in range(steps):
        prop = rng.choice(range(len(SAMPLES)))
        acc = prop != 4 and prop != 5 and rng.random() < 0.6
        out.append({"current": sample(cur), "proposal": sample(prop), "acceptance_prob": 0.6 if prop < 4 else 0.0, "accepted": acc})
        if acc:
            cur = prop
    return {"steps": out}

def rejection(rng, steps):
    idx = [rng.choice(range(len(SAMPLES))) for _ in range(steps)]
    return {"steps": [sample(i) for i in idx], "successes": [i < 4 for i in idx]}

def write(task_dir, style, runs, make, rng):
    d = os.path.join("runs_log", task_dir, style + "-2025-01-17_10-00-00")
    os.makedirs(d, exist_ok=True)
    for n in range(runs):
        with open(os.path.join(d, "2025-01-17_10-00-00-n%d.json" % n), "w") as f:
            json.dump(make(rng, 3), f)

shutil.rmtree("runs_log", ignore_errors=True)
rng = random.Random(13)
for task in ["SLIA_name_combine_4_short-dcfc47e5-1", "BV4_find_inv_eq_bvand_4bit-0a1b2c3d-1", "SLIA_lastname-12345678-2"]:
    for style in ["prefix", "priority", "restart"]:
        write(task, style, 3, chain, rng)
    for style in ["rs", "ars"]:
        write(task, style, 2, rejection, rng)
