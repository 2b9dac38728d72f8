// Package authors reads the run logs written by the sampler of the paper's
// authors ("Constrained Sampling for Language Models Should Be Easy", 2025)
// and turns them into a gasp run store (pkg/runs), so that gasp analyze
// (pkg/analysis, either protocol) runs on the authors' published runs and
// on gasp's side by side.
//
//	sum, err := authors.Import("runs_log", "mcmc/authors", authors.Options{TaskRoot: "data/gad"})
//
// # The logs
//
// One JSON file per chain or run:
//
//	runs_log/<task dir>/<style>-<timestamp>/<timestamp>-n<K>.json
//
// <task dir> is <family>_<task name with "-" as "_">-<8 hex digits>-<model
// index>, e.g. SLIA_name_combine_4_short-dcfc47e5-1 (model index 1 is
// Llama-3.1-8B-Instruct; 2 and 3 are Qwen2.5-7B- and 14B-Instruct: Models).
// <style> is prefix (their name for Uniform), priority, restart (MCMC), or
// rs, ars, rsft, cars (rejection-type). What follows is what their writer
// code does (github.com/pparys/cars: mcmc/mcmc.py MCMC.get_sample,
// cars/cars.py CARS.get_sample, run_task.py) and their published runs_log
// confirms. An MCMC file is one chain,
//
//	{"steps": [{"current": S, "proposal": S, "acceptance_prob": p, "accepted": bool}, …]}
//
// of n<K> steps (10 in their runs). A rejection-type file is one invocation
// of their sampler, {"steps": [S, …], "successes": [bool, …]}: "successes"
// has one entry per attempt and "steps" the sample of each successful
// attempt only (a failed attempt's tokens are not kept); the invocation stops
// after 100 successes or n<K> attempts (2000 in their runs), so "steps" pairs
// with the true entries of "successes", in order. A sample S is {"tokens":
// [strings], "token_ids": [ints], "raw_logprob": f, "cons_logprob": f}:
// raw_logprob is log P of the whole sequence, its EOS included, cons_logprob
// its log P_GCD. Python's json writes -Infinity for a zero probability; it
// is read as -Inf (NaN and Infinity are refused). A run still being written
// is <name>.json.tmp. Their runs_log also holds old<style> directories (an
// earlier version of their sampler, n1000) and tasks of other benchmarks
// (fuzzing, SMILES); six of their MCMC files hold a raw_logprob above 0
// (up to 1.5e33) and one a NaN: such files are not log-probabilities of
// anything and are skipped.
//
// # The store
//
// Tasks are mapped to the task names of Options.TaskRoot (data/gad:
// SLIA_name_combine_4_short is SLIA/name-combine-4_short); methods are
//
//	prefix → mcmc-uniform, priority → mcmc-priority, restart → mcmc-restart,
//	rs → rejection, ars → ars, rsft → rsft, cars → cars
//
// (their ars is adaptive rejection sampling, exact, not ASAp). The four
// rejection-type methods are exact samplers of P^G (ExactMethods()): their
// valid records are exact samples, which "gasp analyze-true --exact STORE
// --method cars" measures the chains against. Runs are numbered in the
// order of their files (style directory, then file name). An MCMC chain of
// n steps is one run with records k = 0…n: the state
// after k steps is steps[k].current, and after the last step the last
// proposal if it was accepted, else the last current; each file is checked
// to be such a chain (steps[k].current is the outcome of step k−1). The
// record at k ≥ 1 carries the proposal of step k (runs.Record.Proposal), so
// the authors' protocol has its full reference set. A rejection-type file
// gives runs as gasp's own methods do: for rejection (rs), one run per
// attempt, the sample or a rejected record without one (a store of such runs
// gives the acceptance rate); for ars, rsft and cars, one run per sample
// with Record.Rejections the failed attempts before it, and a last rejected
// run without a sample for the attempts after the last success; all at
// k = 0. The GCD records (method gcd, k = 0) are the chains'
// starting states: the restart chains' where the task has them (the
// authors' GCD line), else the prefix, else the priority chains'.
//
// A sample's last token is its EOS when it is one of Options.EOS; the
// record keeps it apart (runs.Record.EOS), and a sample without one is
// "capped" (not valid). Seeds, prompts, evaluation counts and times are not
// in the logs: they are 0 and empty.
//
// What cannot be imported is skipped and listed in Summary.Skipped with
// the reason: task directories of another model index than Options.Model,
// tasks not under Options.TaskRoot, unknown styles, unfinished runs, a
// malformed file (with the JSON error's line and column) or an
// inconsistent one. With Options.Strict any of them is an error and
// nothing is written; without, Import fails only when nothing could be
// imported. The store is written in a temporary directory beside the
// output and renamed into place when complete, with authors.json
// (MetadataFile) saying the model, the methods, which are exact, and what
// was skipped; an existing output is refused.
package authors
