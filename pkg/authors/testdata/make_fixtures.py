# Writes the fixtures runs_log/ in the authors' format, following their writer
# code (github.com/pparys/cars): mcmc/mcmc.py MCMC.get_sample for the MCMC
# styles, cars/cars.py CARS.get_sample for the rejection-type ones, run_task.py
# for the directory names. One JSON file per chain (MCMC) or per invocation
# (rejection-type), written by Python's json with indent=4, -Infinity
# included. Run from this directory: python3 make_fixtures.py
#
# What the writers do, and the fixtures copy:
# - MCMC: {"steps": [{"current": S, "proposal": S, "acceptance_prob": p,
#   "accepted": b}, ...]}, one step per MH step; acceptance_prob is the int 1
#   when the proposal equals the current state; file <timestamp>-n<steps>.json.
# - rejection-type (rs, ars, rsft, cars): "successes" gets one entry per
#   attempt, "steps" the sample of each successful attempt only; the loop
#   stops after stop_after successes or n_steps attempts (file name n<n_steps>).
#   A failed attempt's tokens are not kept.
# - an unfinished file is <name>.json.tmp (renamed when the run ends).
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
STAMP = "2025-01-17_10-00-00"


def sample(i):
    ids, toks, raw, cons = SAMPLES[i]
    return {"tokens": toks, "token_ids": ids, "raw_logprob": raw, "cons_logprob": cons}


def chain(rng, n_steps):
    cur = rng.choice([0, 1, 2, 3])
    steps = []
    for _ in range(n_steps):
        prop = rng.choice(range(len(SAMPLES)))
        p = 1 if prop == cur else (0.6 if prop < 4 else 0.0)
        acc = bool(rng.random() < p)
        steps.append({"current": sample(cur), "proposal": sample(prop), "acceptance_prob": p, "accepted": acc})
        if acc:
            cur = prop
    return {"steps": steps}


def rejection(rng, n_steps, stop_after, p_success):
    steps, successes = [], []
    for _ in range(n_steps):
        if rng.random() < p_success:
            steps.append(sample(rng.choice([0, 1, 2, 3])))
            successes.append(True)
        else:
            successes.append(False)
        if len(steps) >= stop_after:
            break
    return {"steps": steps, "successes": successes}


def write(task_dir, style, files, tmp=False, start=0):
    d = os.path.join("runs_log", task_dir, style + "-" + STAMP)
    os.makedirs(d, exist_ok=True)
    for n, (steps, doc) in enumerate(files, start):
        name = "%s-%06d-n%d.json" % (STAMP, n, steps) + (".tmp" if tmp else "")
        with open(os.path.join(d, name), "w") as f:
            json.dump(doc, f, indent=4)


shutil.rmtree("runs_log", ignore_errors=True)
rng = random.Random(13)
for task in ["SLIA_name_combine_4_short-dcfc47e5-1", "BV4_find_inv_eq_bvand_4bit-0a1b2c3d-1", "SLIA_lastname-12345678-2"]:
    for style in ["prefix", "priority", "restart"]:
        write(task, style, [(3, chain(rng, 3)) for _ in range(3)])
    # rs: 8 attempts at most, stops after 3 successes; rarely succeeds.
    write(task, "rs", [(8, rejection(rng, 8, 3, 0.3)) for _ in range(2)])
    for style in ["ars", "rsft", "cars"]:
        write(task, style, [(6, rejection(rng, 6, 3, 0.6)) for _ in range(2)])
    # An invocation that used all its attempts, the last ones failures.
    doc = rejection(rng, 5, 99, 0.6)
    doc["successes"] += [False, False]
    write(task, "cars", [(7, doc)], start=2)
# What a real runs_log also holds: an earlier version's style directory, an
# unfinished run, a task of another benchmark, a file beside the tasks.
task = "SLIA_name_combine_4_short-dcfc47e5-1"
write(task, "oldcars", [(6, rejection(rng, 6, 3, 0.6))])
write(task, "cars", [(6, rejection(rng, 6, 3, 0.6))], tmp=True, start=3)
write("fuzzing-json-generate_json-42128c9b-1", "cars", [(6, rejection(rng, 6, 3, 0.6))])
with open(os.path.join("runs_log", "notes.txt"), "w") as f:
    f.write("not a task\n")
