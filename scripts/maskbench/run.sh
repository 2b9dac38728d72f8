#!/usr/bin/env bash
# run.sh: a MaskBench-style run, gasp and XGrammar side by side on the same
# schemas and the same token ids (Llama 3's tokenizer, one thread each).
#
#   bash scripts/maskbench/run.sh DATA_DIR OUT_DIR [N [SEED]]
#
# DATA_DIR: a folder of schema files in JSONSchemaBench's maskbench/data
# format ({"schema": ..., "tests": [...]}), e.g. a user's copy of
# github.com/guidance-ai/jsonschemabench (maskbench/data; it carries no
# license, so the project does not ship it) or testdata/maskbench here.
# N > 0 takes a seeded sample of N files (SEED, default 28). OUT_DIR gets
# gasp.jsonl ("gasp bench schemas"), xgrammar.jsonl (xgrammar.cjs) and
# README.md (summarize.py). Needs go, node and npm, and Llama 3's
# tokenizer.json (scripts/fetch-tokenizer.sh). Set VERIFY=K to check every
# K-th mask against brute force (default 64; it dominates the run's time),
# GASP_TIMEOUT=D (a Go duration, default 60s) and XG_TIMEOUT_S=S (seconds,
# default 60) to stop each engine on a schema after that long (status timeout).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
data="$1"; out="$2"; n="${3:-0}"; seed="${4:-28}"; verify="${VERIFY:-64}"
tok="$root/.cache/llama3/tokenizer.json"
mkdir -p "$out"
bash "$root/scripts/maskbench/setup.sh"
[[ -f "$tok" ]] || bash "$root/scripts/fetch-tokenizer.sh"
source "$root/scripts/goenv.sh"
gasp="$root/.cache/maskbench/gasp"
(cd "$root" && go build -o "$gasp" ./cmd/gasp)
cmd="gasp bench schemas --dir $data --sample $n --seed $seed --verify $verify --tokenizer $tok --timeout ${GASP_TIMEOUT:-60s} [--from K after a timeout]; XG_TIMEOUT_S=${XG_TIMEOUT_S:-60} node scripts/maskbench/xgrammar.cjs"
# A schema over --timeout ends the run with exit status 3 after its line
# ("timeout"); go on from the next one.
: >"$out/gasp.jsonl"
while true; do
	rc=0
	$gasp bench schemas --dir "$data" --sample "$n" --seed "$seed" --verify "$verify" --tokenizer "$tok" \
		--timeout "${GASP_TIMEOUT:-60s}" --from "$(wc -l <"$out/gasp.jsonl")" >>"$out/gasp.jsonl" || rc=$?
	[[ $rc == 3 ]] || break
done
[[ $rc == 0 ]] || exit $rc
node "$root/scripts/maskbench/xgrammar.cjs" "$root/.cache/maskbench/xgrammar.cjs" "$tok" "$out/gasp.jsonl" "$out/xgrammar.jsonl" >/dev/null
python3 "$root/scripts/maskbench/summarize.py" "$out/gasp.jsonl" "$out/xgrammar.jsonl" --csv "$out/results.csv" \
	--command "VERIFY=$verify GASP_TIMEOUT=${GASP_TIMEOUT:-60s} XG_TIMEOUT_S=${XG_TIMEOUT_S:-60} bash scripts/maskbench/run.sh $data $out $n $seed
# which runs: $cmd" >"$out/README.md"
echo "maskbench: $out/README.md" >&2
