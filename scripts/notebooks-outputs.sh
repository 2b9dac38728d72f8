#!/usr/bin/env bash
# notebooks-outputs.sh: executes the notebooks and writes them back into
# notebooks/ with their outputs (figures inline, tables rendered), so that a
# reader sees them on a repository browser without running anything.
# scripts/notebooks-run.sh (CI) then checks that the committed outputs are
# the ones the current code makes. Run it after changing a notebook or what
# it shows, and commit the result.
#
#	bash scripts/notebooks-outputs.sh [NOTEBOOK.ipynb...]   (default: notebooks/*.ipynb)
#
# A notebook is written back only if its execution passed cmd/nbcheck
# (no panic, failed test or error in any cell); otherwise it is left as it
# was and the script fails. Needs scripts/notebooks-setup.sh first.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
source scripts/goenv.sh
bin="$root/.cache/notebooks/bin"
export PATH="$bin:$PATH"
# The kernel spec of this checkout (scripts/notebooks-setup.sh), and the
# mark that no browser is attached: notebooks with widgets (07-explore) then
# show their defaults instead of waiting for a browser to answer.
export JUPYTER_PATH="$root/.cache/notebooks/share/jupyter"
export GASP_NOTEBOOK_HEADLESS=1
timeout="${GASP_NOTEBOOK_TIMEOUT:-600}"
if ! command -v jupyter >/dev/null || [[ ! -x "$bin/gonb" ]]; then
	echo "notebooks-outputs: jupyter or gonb missing: run scripts/notebooks-setup.sh" >&2
	exit 1
fi
go build -o "$bin/nbcheck" ./cmd/nbcheck || exit 1
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

if [[ $# -gt 0 ]]; then
	notebooks=("$@")
else
	notebooks=(notebooks/*.ipynb)
fi
failed=0
for nb in "${notebooks[@]}"; do
	name="$(basename "$nb")"
	t0=$SECONDS
	if ! jupyter nbconvert --to notebook --execute --ExecutePreprocessor.kernel_name=gonb \
		--ExecutePreprocessor.record_timing=False --ExecutePreprocessor.timeout="$timeout" \
		--output-dir="$tmp" "$nb" >"$tmp/$name.log" 2>&1; then
		grep -vE '^[IWE][0-9]{4} ' "$tmp/$name.log" | tail -n 30
		echo "notebooks-outputs: $nb: nbconvert failed; left as it was" >&2
		failed=1
		continue
	fi
	if ! "$bin/nbcheck" "$tmp/$name"; then
		echo "notebooks-outputs: $nb: a cell failed; left as it was" >&2
		failed=1
		continue
	fi
	cp "$tmp/$name" "$nb"
	echo "notebooks-outputs: $nb: written with its outputs ($((SECONDS - t0)) s)"
done
exit $failed
