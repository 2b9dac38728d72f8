#!/usr/bin/env bash
# fuzz-slurm.sh: the fuzzing experiment's AFL++ trials as a Slurm array, one
# (target, method, trial) per array task, each on one core: paper scale
# (experiments/fuzz-paper.json: 100 seeds, 5 trials of 1 h) is 2 targets x
# 12 methods x 5 trials = 120 tasks of about 1 h 10 min. Steps (deploy/README.md):
# the samples (deploy/slurm-array.sh, then gasp experiment merge), the seeds
# (scripts/fuzz-quick.sh -n -s), this array, then scripts/fuzz-quick.sh -n
# again, which finds every trial stored and writes the tables. Submit from
# the repository root, with the seeds in place:
#
#   sbatch --array=0-119 deploy/fuzz-slurm.sh
#
# Each task runs "gasp fuzz run --only-trial": it stores its trial in
# .cache/<name>/runs/<target>/<method>/trial-<i>/trial.json, and the task that
# stores a method's last trial writes its coverage.json. A task that dies is
# run again by submitting its index again. Settings, by environment (sbatch
# --export=ALL,VAR=...); the collecting run of scripts/fuzz-quick.sh must
# use the same CONFIG, TIME, TRIALS and SNAPSHOTS:
#   CONFIG     the sampling configuration (default experiments/fuzz-paper.json)
#   TIME       AFL++ time per trial (default 1h)
#   TRIALS     trials per target and method (default 5)
#   SNAPSHOTS  points of the coverage-over-time curve (default 10)
#   METHODS    method labels (default: the 12 of scripts/fuzz-quick.sh)
#   GASP       the gasp binary (default .cache/bin/gasp)
#   TOOLCHAIN  the fuzzing toolchain, scripts/fuzz-setup.sh's (default .cache/fuzz)
#SBATCH --job-name=gasp-fuzz
#SBATCH --cpus-per-task=1
#SBATCH --mem=4G
#SBATCH --time=02:00:00
#SBATCH --output=slurm-fuzz-%A_%a.out
set -euo pipefail

config="${CONFIG:-experiments/fuzz-paper.json}"
time="${TIME:-1h}"
trials="${TRIALS:-5}"
snapshots="${SNAPSHOTS:-10}"
gasp="${GASP:-.cache/bin/gasp}"
tc="${TOOLCHAIN:-.cache/fuzz}"
read -r -a methods <<<"${METHODS:-grammarinator gcd asap-k10 mcmc-uniform-k2 mcmc-uniform-k5 mcmc-uniform-k10 mcmc-priority-k2 mcmc-priority-k5 mcmc-priority-k10 mcmc-restart-k2 mcmc-restart-k5 mcmc-restart-k10}"
targets=(xml sql)
i="${SLURM_ARRAY_TASK_ID:?not running as a Slurm array task}"
n=$((${#targets[@]} * ${#methods[@]} * trials))
if ((i < 0 || i >= n)); then
	echo "fuzz-slurm.sh: array index $i out of range: want 0-$((n - 1)) (${#targets[@]} targets x ${#methods[@]} methods x $trials trials)" >&2
	exit 2
fi
trial=$((i % trials + 1))
label="${methods[i / trials % ${#methods[@]}]}"
target="${targets[i / trials / ${#methods[@]}]}"
name="$(sed -n 's/^[[:space:]]*"name":[[:space:]]*"\([^"]*\)".*/\1/p' "$config")"
work=".cache/$name"
seeds="$work/seeds/$target/$label"
if [[ ! -d "$seeds" ]]; then
	echo "fuzz-slurm.sh: no seeds in $seeds: run CONFIG=$config SEEDS=... bash scripts/fuzz-quick.sh -n -s first (or the method has no valid sample: $work/skipped.txt)" >&2
	exit 1
fi
echo "fuzz-slurm.sh: task $i: $target $label, trial $trial of $trials, AFL++ $time"
exec "$gasp" fuzz run --toolchain "$tc" --target "$target" --seeds "$seeds" --time "$time" --trials "$trials" \
	--snapshots "$snapshots" --out "$work/runs/$target/$label" -q --only-trial "$trial"
