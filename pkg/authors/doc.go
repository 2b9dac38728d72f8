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
// Llama-3.1-8B-Instruct). <style> is prefix (their name for Uniform),
// priority, restart (MCMC), or rs, ars, rsft, cars (rejection-type). An MCMC
// file is
//
//	{"steps": [{"current": S, "proposal": S, "acceptance_prob": p, "accepted": bool}, …]}
//
// and a rejection-type file {"steps": [S, …], "successes": [bool, …]}, where
// a sample S is {"tokens": [strings], "token_ids": [ints], "raw_logprob": f,
// "cons_logprob": f}: raw_logprob is log P of the whole sequence, its EOS
// included, cons_logprob its log P_GCD. Python's json writes -Infinity for
// a zero probability; it is read as -Inf (NaN and Infinity are refused).
//
// # The store
//
// Tasks are mapped to the task names of Options.TaskRoot (data/gad:
// SLIA_name_combine_4_short is SLIA/name-combine-4_short); methods are
//
//	prefix → mcmc-uniform, priority → mcmc-priority, restart → mcmc-restart,
//	rs → rejection, ars → asap, rsft → rsft, cars → cars
//
// and runs are numbered in the order of their files (style directory, then
// file name). An MCMC chain of n steps gives records k = 0…n: the state
// after k steps is steps[k].current, and after the last step the last
// proposal if it was accepted, else the last current; each file is checked
// to be such a chain (steps[k].current is the outcome of step k−1). The
// record at k ≥ 1 carries the proposal of step k (runs.Record.Proposal), so
// the authors' protocol has its full reference set. A rejection-type run
// gives records k = 1…n, one per step, valid when the step succeeded and
// ended with an EOS. The GCD records (method gcd, k = 0) are the chains'
// starting states: the restart chains' where the task has them (the
// authors' GCD line), else the prefix, else the priority chains'.
//
// A sample's last token is its EOS when it is one of Options.EOS; the
// record keeps it apart (runs.Record.EOS), and a sample without one is
// "capped" (not valid). Seeds, prompts, evaluation counts and times are not
// in the logs: they are 0 and empty.
//
// Task directories of another model index than Options.Model are skipped
// and listed in the Summary. Import checks everything before it writes: an
// unknown task or style, a malformed file (with its path and the JSON error's line
// and column) or an inconsistent chain is reported, all of them at once,
// and nothing is written. The store is written in a temporary directory
// beside the output and renamed into place when complete; an existing
// output is refused.
package authors
