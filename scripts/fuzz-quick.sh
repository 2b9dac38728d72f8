#!/usr/bin/env bash
# fuzz-quick.sh: the fuzzing experiment (paper §4.2), end to end, at the
# scale of the quick protocol (a smoke test) or another, with the variables
# below (scripts/fuzz-main.sh sets those of the main run):
#
#  1. samples: gasp experiment run $CONFIG, the LM samples of GCD, ASAp and
#     MCMC-Uniform/-Priority/-Restart (k ≤ 10) for the tasks xml and sql into
#     the run store mcmc/<name>/ (resumable);
#  2. seeds per target and method: the first $SEEDS valid samples of GCD,
#     ASAp(10) and MCMC(k) for k in 2, 5, 10 (gasp fuzz seeds --store), and
#     $SEEDS grammar derivations (the Grammarinator-style baseline). The GCD
#     seeds are the starts of the MCMC-Uniform chains (MCMC(0)): GCD samples
#     redrawn until valid, as the paper's "100 valid samples" of GCD; the
#     store's own gcd runs keep invalid draws (they measure the valid rate);
#  3. gasp fuzz run per target and method: $TRIALS trials of $TIME of AFL++,
#     run in rounds (trial 1 of every method, then trial 2, ...), $JOBS at a
#     time. Each finished trial is kept in $OUT/<target>/<method>/trials/
#     (and in the run directory under .cache/); when a method has all its
#     trials, its coverage.json goes to $OUT/<target>/<method>/;
#  4. gasp fuzz table $OUT: tables and coverage-over-time plots.
#
# A method with no valid sample is listed in $OUT/skipped.txt. What exists
# is not done again: an interrupted run (killed, or stopped by a timeout)
# resumes trial by trial, also from a fresh clone holding the committed
# trials/ files. Needs scripts/fuzz-setup.sh. Usage (all variables optional):
#
#	CONFIG=experiments/fuzz-quick.json SEEDS=20 TIME=20s TRIALS=2 \
#	SNAPSHOTS=4 JOBS=1 OUT=analysis/fuzz-quick bash scripts/fuzz-quick.sh [-n]
#
# -n skips step 1 (uses the store as it is); -s stops after step 2 (the
# seeds, for deploy/fuzz-slurm.sh). MIN_CPU_SHARE=0.9 runs again a stored
# trial that had less than 90 % of a core (gasp fuzz run --min-cpu-share). METHODS="gcd asap-k10 ..." and
# TARGETS="xml sql" restrict steps 2-3 to the methods and targets named.
# Run it under nice -n 19 on a shared machine: AFL++ inherits it.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
source scripts/goenv.sh
config="${CONFIG:-experiments/fuzz-quick.json}"
seeds="${SEEDS:-20}"
time="${TIME:-20s}"
trials="${TRIALS:-2}"
if [[ "$time" =~ ^0[a-z]*$ ]]; then trials=1; fi # the seeds alone: one trial says it all
snapshots="${SNAPSHOTS:-4}"
jobs="${JOBS:-1}"
out="${OUT:-analysis/fuzz-quick}"
name="$(sed -n 's/^[[:space:]]*"name":[[:space:]]*"\([^"]*\)".*/\1/p' "$config")"
store="mcmc/$name"
work="$root/.cache/$name"
log() { echo "fuzz-quick: $*" >&2; }

mkdir -p "$root/.cache/bin" "$out" "$work"
gasp="$root/.cache/bin/gasp"
go build -o "$gasp" ./cmd/gasp
tc="$(bash scripts/fuzz-setup.sh | tail -n 1)"

sample=1 seeds_only=0
for arg in "$@"; do
	case "$arg" in
	-n) sample=0 ;;
	-s) seeds_only=1 ;;
	*)
		echo "usage: [VAR=...] bash scripts/fuzz-quick.sh [-n] [-s]" >&2
		exit 2
		;;
	esac
done

if ((sample)); then
	log "sampling: $config into $store"
	# A method whose chains find no valid GCD start fails the experiment
	# (the embedded model on xml): go on with what the store holds, and the
	# methods without samples end up in skipped.txt.
	if ! "$gasp" experiment run "$config"; then
		log "warning: sampling stopped with an error (above); using the samples stored so far"
	fi
fi

# seed_dir TARGET LABEL METHOD K: writes the seeds of a method into
# $work/seeds/TARGET/LABEL; a method without valid samples goes to
# skipped.txt and fails.
seed_dir() {
	local target="$1" label="$2" method="$3" k="$4"
	local sd="$work/seeds/$target/$label" err="$work/seeds-$target-$label.err"
	rm -rf "$sd"
	if [[ "$label" == grammarinator ]]; then
		"$gasp" fuzz seeds --target "$target" -n "$seeds" --out "$sd"
	elif ! "$gasp" fuzz seeds --target "$target" --store "$store" --task "$target" --method "$method" \
		--k "$k" -n "$seeds" --out "$sd" 2>"$err"; then
		cat "$err" >&2
		echo "$target $label: $(tail -n 1 "$err" | sed 's/^gasp fuzz seeds: //')" >>"$work/skipped.txt"
		return 1
	fi
}

# run_trial TARGET LABEL I [ARGS]: runs (or keeps) trial I of a method,
# restoring a trial committed under $OUT first and keeping a new one there.
run_trial() {
	local target="$1" label="$2" i="$3"
	shift 3
	local run="$work/runs/$target/$label" kept="$out/$target/$label/trials/trial-$((i - 1)).json"
	if [[ -f "$kept" && ! -f "$run/trial-$((i - 1))/trial.json" ]]; then
		mkdir -p "$run/trial-$((i - 1))"
		cp "$kept" "$run/trial-$((i - 1))/trial.json"
	fi
	"$gasp" fuzz run --toolchain "$tc" --target "$target" --seeds "$work/seeds/$target/$label" --time "$time" \
		--trials "$trials" --snapshots "$snapshots" --out "$run" -q --only-trial "$i" \
		--min-cpu-share "${MIN_CPU_SHARE:-0}" "$@" >/dev/null
	mkdir -p "$(dirname "$kept")"
	cp "$run/trial-$((i - 1))/trial.json" "$kept"
}

: >"$work/skipped.txt"
: >"$work/failed.txt"
: >"$work/handled.txt" # "target label" of every method this run looks at
pairs=()
for target in ${TARGETS:-xml sql}; do
	# method label, store method, k
	specs=("grammarinator - -" "gcd mcmc-uniform 0" "asap-k10 asap 10")
	for p in uniform priority restart; do
		for k in 2 5 10; do specs+=("mcmc-$p-k$k mcmc-$p $k"); done
	done
	for spec in "${specs[@]}"; do
		read -r label method k <<<"$spec"
		if [[ -n "${METHODS:-}" && " $METHODS " != *" $label "* ]]; then continue; fi
		echo "$target $label" >>"$work/handled.txt"
		[[ -f "$out/$target/$label/coverage.json" ]] && continue
		seed_dir "$target" "$label" "$method" "$k" || continue
		log "$target $label: $(ls "$work/seeds/$target/$label" | wc -l) seeds, AFL++ $time x $trials"
		pairs+=("$target $label")
	done
done

if ((seeds_only)); then
	log "seeds in $work/seeds (-s: no fuzzing)"
	exit 0
fi

# Rounds of trials, JOBS processes at a time: at any stop, every method
# has about as many trials as the others.
for ((i = 1; i <= trials; i++)); do
	for pair in "${pairs[@]}"; do
		read -r target label <<<"$pair"
		while (($(jobs -rp | wc -l) >= jobs)); do wait -n || true; done
		(run_trial "$target" "$label" "$i" || echo "$target $label trial $i" >>"$work/failed.txt") &
	done
	wait
	if [[ -s "$work/failed.txt" ]]; then
		log "failed: $(tr '\n' ';' <"$work/failed.txt")"
		exit 1
	fi
	log "round $i of $trials done"
done

# Every trial is stored: --resume writes coverage.json without fuzzing.
for pair in "${pairs[@]}"; do
	read -r target label <<<"$pair"
	run="$work/runs/$target/$label"
	"$gasp" fuzz run --toolchain "$tc" --target "$target" --seeds "$work/seeds/$target/$label" --time "$time" \
		--trials "$trials" --snapshots "$snapshots" --out "$run" -q --resume >/dev/null
	cp "$run/coverage.json" "$out/$target/$label/coverage.json"
	rm -rf "$run" "$out/$target/$label/trials"
done
# skipped.txt: this run's, and the earlier lines of methods it left alone.
touch "$out/skipped.txt"
awk 'NR == FNR { seen[$0] = 1; next } { k = $0; sub(/:.*/, "", k); if (!(k in seen)) print }' \
	"$work/handled.txt" "$out/skipped.txt" | cat - "$work/skipped.txt" | sort >"$work/skipped.all"
mv "$work/skipped.all" "$out/skipped.txt"
"$gasp" fuzz table "$out" >/dev/null
log "tables and plots in $out"
