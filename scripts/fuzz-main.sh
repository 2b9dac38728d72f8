#!/usr/bin/env bash
# fuzz-main.sh: the fuzzing experiment's main run (experiments/fuzz-main.json),
# the protocol sized to compare seed methods on a 2-core machine: 50 seeds
# per method, AFL++ 5 min per trial (where coverage growth has mostly
# levelled off here, analysis/fuzz-main/README.md), both targets,
#  - the main comparison: GCD, ASAp(10), the grammar baseline and
#    MCMC-Uniform/-Priority/-Restart(10), 5 trials each;
#  - the k ablation: MCMC-Uniform/-Priority/-Restart at k = 2 and 5, 3
#    trials each (k = 10 is the main comparison's).
# Two AFL++ trials at a time (JOBS=2: both cores). scripts/fuzz-quick.sh
# does the work: it resumes trial by trial (rerun this script after a stop;
# the committed analysis/fuzz-main/<target>/<method>/trials/ carry finished
# trials to a fresh clone). About 1 h of sampling, then 60 trials of the
# main comparison and 36 of the ablation, 5 min each plus replay: ~5 h of
# wall time on 2 free cores. Run it in the background, at low priority:
#
#	nohup nice -n 19 bash scripts/fuzz-main.sh > .cache/fuzz-main.log 2>&1 &
#
# -n skips the sampling (uses mcmc/fuzz-main as it is).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# A trial counts only if it had 90 % of a core (its CPU seconds, recorded in
# trial.json): one that other work slowed is run again on the next start.
export CONFIG=experiments/fuzz-main.json SEEDS=50 TIME=5m SNAPSHOTS=10 JOBS="${JOBS:-2}" OUT=analysis/fuzz-main MIN_CPU_SHARE=0.9
TRIALS=5 METHODS="grammarinator gcd asap-k10 mcmc-uniform-k10 mcmc-priority-k10 mcmc-restart-k10" \
	bash scripts/fuzz-quick.sh "$@"
TRIALS=3 METHODS="mcmc-uniform-k2 mcmc-uniform-k5 mcmc-priority-k2 mcmc-priority-k5 mcmc-restart-k2 mcmc-restart-k5" \
	bash scripts/fuzz-quick.sh -n
