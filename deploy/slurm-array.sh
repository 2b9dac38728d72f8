#!/usr/bin/env bash
# slurm-array.sh: runs one experiment's grid as a Slurm array job, one shard
# per array task, each on one GPU, each into its own run store; merge them
# afterwards (deploy/README.md). Submit from the repository root:
#
#   sbatch --array=0-15 deploy/slurm-array.sh experiments/paper.json
#
# The array's size is the number of shards (SLURM_ARRAY_TASK_COUNT). A task
# that is cancelled, preempted or fails is resumed by submitting the same
# array index again (--array=7): "gasp experiment run" skips what its store
# holds. Settings, by environment (sbatch --export=ALL,VAR=...):
#   GASP        the gasp binary (default: ./gasp, built with -tags xla)
#   STORE_ROOT  where the shard stores go (default: mcmc/<config name>.shards)
#   GOMLX_BACKEND  default xla:cuda; an absolute plugin path works too
#SBATCH --job-name=gasp-experiment
#SBATCH --gres=gpu:1
#SBATCH --cpus-per-task=8
#SBATCH --mem=64G
#SBATCH --time=24:00:00
#SBATCH --output=slurm-%A_%a.out
set -euo pipefail

config="${1:?usage: sbatch --array=0-N deploy/slurm-array.sh CONFIG}"
gasp="${GASP:-./gasp}"
i="${SLURM_ARRAY_TASK_ID:?not running as a Slurm array task}"
n="${SLURM_ARRAY_TASK_COUNT:?not running as a Slurm array task}"
if [[ -n "${SLURM_ARRAY_TASK_MIN:-}" && "$SLURM_ARRAY_TASK_MIN" != 0 ]]; then
	echo "slurm-array.sh: array indices must start at 0 (got $SLURM_ARRAY_TASK_MIN)" >&2
	exit 2
fi
name="$(basename "$config" .json)"
store="${STORE_ROOT:-mcmc/$name.shards}/shard-$i-of-$n"
export GOMLX_BACKEND="${GOMLX_BACKEND:-xla:cuda}"
export GOMLX_NO_AUTO_INSTALL=1

"$gasp" doctor
exec "$gasp" experiment run --shard "$i/$n" --store "$store" "$config"
