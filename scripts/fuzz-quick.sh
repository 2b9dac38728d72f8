#!/usr/bin/env bash
# fuzz-quick.sh: the fuzzing experiment (paper §4.2), end to end, at the
# scale of the quick protocol (or another, with the variables below):
#
#  1. samples: gasp experiment run experiments/fuzz-quick.json, the LM
#     samples of GCD, ASAp and MCMC-Uniform/-Priority/-Restart (k ≤ 10) for
#     the tasks xml and sql into the run store mcmc/fuzz-quick/ (resumable);
#  2. seeds per target and method: the first $SEEDS valid samples of GCD,
#     ASAp(10) and MCMC(k) for k in 2, 5, 10 (gasp fuzz seeds --store), and
#     $SEEDS grammar derivations (the Grammarinator-style baseline). The GCD
#     seeds are the starts of the MCMC-Uniform chains (MCMC(0)): GCD samples
#     redrawn until valid, as the paper's "100 valid samples" of GCD; the
#     store's own gcd runs keep invalid draws (they measure the valid rate);
#  3. gasp fuzz run per target and method ($TRIALS trials of $TIME of
#     AFL++), its coverage.json copied to $OUT/<target>/<method>/;
#  4. gasp fuzz table $OUT: tables and coverage-over-time plots.
#
# A method with no valid sample is listed in $OUT/skipped.txt. Steps whose
# result exists are skipped, so an interrupted run resumes. Needs
# scripts/fuzz-setup.sh. Usage (all variables optional):
#
#	CONFIG=experiments/fuzz-quick.json SEEDS=20 TIME=20s TRIALS=2 \
#	OUT=analysis/fuzz-quick bash scripts/fuzz-quick.sh [-n]
#
# -n skips step 1 (uses the store as it is). METHODS="gcd asap-k10 ..."
# and TARGETS="xml sql" restrict steps 2-3 to the methods and targets named.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
source scripts/goenv.sh
config="${CONFIG:-experiments/fuzz-quick.json}"
seeds="${SEEDS:-20}"
time="${TIME:-20s}"
trials="${TRIALS:-2}"
out="${OUT:-analysis/fuzz-quick}"
name="$(sed -n 's/^[[:space:]]*"name":[[:space:]]*"\([^"]*\)".*/\1/p' "$config")"
store="mcmc/$name"
work="$root/.cache/$name"
log() { echo "fuzz-quick: $*" >&2; }

mkdir -p "$root/.cache/bin" "$out" "$work"
gasp="$root/.cache/bin/gasp"
go build -o "$gasp" ./cmd/gasp
tc="$(bash scripts/fuzz-setup.sh | tail -n 1)"

if [[ "${1:-}" != "-n" ]]; then
	log "sampling: $config into $store"
	# A method whose chains find no valid GCD start fails the experiment
	# (the embedded model on xml): go on with what the store holds, and the
	# methods without samples end up in skipped.txt.
	if ! "$gasp" experiment run "$config"; then
		log "warning: sampling stopped with an error (above); using the samples stored so far"
	fi
fi

: >"$work/skipped.txt"
for target in ${TARGETS:-xml sql}; do
	# method label, store method, k
	specs=("grammarinator - -" "gcd mcmc-uniform 0" "asap-k10 asap 10")
	for p in uniform priority restart; do
		for k in 2 5 10; do specs+=("mcmc-$p-k$k mcmc-$p $k"); done
	done
	for spec in "${specs[@]}"; do
		read -r label method k <<<"$spec"
		if [[ -n "${METHODS:-}" && " $METHODS " != *" $label "* ]]; then continue; fi
		dst="$out/$target/$label/coverage.json"
		[[ -f "$dst" ]] && continue
		sd="$work/seeds/$target/$label"
		rm -rf "$sd"
		if [[ "$label" == grammarinator ]]; then
			"$gasp" fuzz seeds --target "$target" -n "$seeds" --out "$sd"
		elif ! "$gasp" fuzz seeds --target "$target" --store "$store" --task "$target" --method "$method" \
			--k "$k" -n "$seeds" --out "$sd" 2>"$work/seeds.err"; then
			cat "$work/seeds.err" >&2
			echo "$target $label: $(tail -n 1 "$work/seeds.err" | sed 's/^gasp fuzz seeds: //')" >>"$work/skipped.txt"
			continue
		fi
		log "$target $label: $(ls "$sd" | wc -l) seeds, AFL++ $time x $trials"
		"$gasp" fuzz run --toolchain "$tc" --target "$target" --seeds "$sd" --time "$time" --trials "$trials" \
			--snapshots 4 --out "$work/runs/$target/$label" -q
		mkdir -p "$(dirname "$dst")"
		cp "$work/runs/$target/$label/coverage.json" "$dst"
		rm -rf "$work/runs/$target/$label"
	done
done
cp "$work/skipped.txt" "$out/skipped.txt"
"$gasp" fuzz table "$out" >/dev/null
log "tables and plots in $out"
