#!/usr/bin/env bash
# notebooks-run.sh: executes GoNB notebooks headless and fails if any cell
# failed. GoNB does not mark a cell whose program panics, exits with a
# non-zero status or has a failing %test as an error, so each executed
# notebook is also checked by cmd/nbcheck.
#
# Before the notebooks, the deliberately failing notebooks of
# cmd/nbcheck/testdata/fail-*.ipynb are executed and must each be flagged,
# and testdata/pass.ipynb must pass: a check without teeth fails the run.
#
#	bash scripts/notebooks-run.sh [NOTEBOOK.ipynb...]   (default: notebooks/*.ipynb)
#
# A notebook committed with outputs (scripts/notebooks-outputs.sh) must have
# the outputs this execution gives (nbcheck -compare: cell by cell, timings
# and temporary paths masked): the outputs a reader sees are the current
# code's.
#
# Needs scripts/notebooks-setup.sh first (scripts/test.sh runs both). The
# executed notebooks are written to .cache/notebooks/executed/; the
# notebooks in the tree are not modified. GASP_NOTEBOOK_TIMEOUT bounds one
# cell (seconds, default 600).
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
source scripts/goenv.sh
out="$root/.cache/notebooks/executed"
bin="$root/.cache/notebooks/bin"
mkdir -p "$out"
export PATH="$bin:$PATH"
# The kernel spec of this checkout (scripts/notebooks-setup.sh), and the
# mark that no browser is attached: notebooks with widgets (07-explore) then
# show their defaults instead of waiting for a browser to answer.
export JUPYTER_PATH="$root/.cache/notebooks/share/jupyter"
export GASP_NOTEBOOK_HEADLESS=1
timeout="${GASP_NOTEBOOK_TIMEOUT:-600}"

if ! command -v jupyter >/dev/null || [[ ! -x "$bin/gonb" ]]; then
	echo "notebooks-run: jupyter or gonb missing: run scripts/notebooks-setup.sh" >&2
	exit 1
fi
go build -o "$bin/nbcheck" ./cmd/nbcheck || exit 1

# execute NOTEBOOK DIR: runs the notebook with nbconvert into DIR (in the
# notebook's own directory, where GoNB sets GONB_DIR) and checks the result.
# Prints the problems; returns non-zero if there are any.
execute() {
	local nb="$1" dir="$2" name
	name="$(basename "$nb")"
	mkdir -p "$dir"
	rm -f "$dir/$name"
	if ! jupyter nbconvert --to notebook --execute --ExecutePreprocessor.kernel_name=gonb \
		--ExecutePreprocessor.record_timing=False \
		--ExecutePreprocessor.timeout="$timeout" --output-dir="$dir" "$nb" >"$dir/$name.log" 2>&1; then
		grep -vE '^[IWE][0-9]{4} ' "$dir/$name.log" | tail -n 30
		echo "$nb: nbconvert failed (log: $dir/$name.log)"
		return 1
	fi
	"$bin/nbcheck" "$dir/$name"
}

failed=0
echo "notebooks-run: checking the checker on cmd/nbcheck/testdata"
for nb in cmd/nbcheck/testdata/*.ipynb; do
	problems="$(execute "$nb" "$out/selfcheck")"
	rc=$?
	case "$(basename "$nb")" in
	fail-*)
		if [[ $rc -eq 0 ]]; then
			echo "notebooks-run: $nb should fail but passed the check" >&2
			failed=1
		else
			echo "  $nb: flagged as expected: $(echo "$problems" | head -n 1)"
		fi
		;;
	*)
		if [[ $rc -ne 0 ]]; then
			echo "$problems"
			echo "notebooks-run: $nb should pass but failed" >&2
			failed=1
		else
			echo "  $nb: passes as expected"
		fi
		;;
	esac
done

if [[ $# -gt 0 ]]; then
	notebooks=("$@")
else
	shopt -s nullglob
	notebooks=(notebooks/*.ipynb)
fi
skipped=0
for nb in "${notebooks[@]}"; do
	t0=$SECONDS
	# A notebook that reads a run store says so with "gasp:requires PATH"; while PATH is missing it is
	# skipped, loudly (GASP_NOTEBOOKS_STRICT=1 fails instead).
	missing=""
	for req in $(grep -o 'gasp:requires [^ `"\\]*' "$nb" | cut -d' ' -f2); do
		[[ -e "$req" ]] || missing+=" $req"
	done
	if [[ -n "$missing" ]]; then
		echo "notebooks-run: $nb: SKIPPED: needs$missing (not produced yet)" >&2
		[[ "${GASP_NOTEBOOKS_STRICT:-}" == 1 ]] && failed=1
		skipped=$((skipped + 1))
		continue
	fi
	if execute "$nb" "$out" && "$bin/nbcheck" -compare "$nb" "$out/$(basename "$nb")"; then
		echo "notebooks-run: $nb: ok, committed outputs current ($((SECONDS - t0)) s)"
	else
		echo "notebooks-run: $nb: FAILED ($((SECONDS - t0)) s; executed copy: $out/$(basename "$nb"))" >&2
		failed=1
	fi
done
echo "notebooks-run: $((${#notebooks[@]} - skipped)) notebook(s) executed, $skipped skipped"
exit $failed
