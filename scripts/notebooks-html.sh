#!/usr/bin/env bash
# notebooks-html.sh: renders the committed notebooks (with their outputs) to
# HTML, as a reader's browser shows them, and, where Chromium is installed,
# takes a headless screenshot of the top of each page into
# analysis/notebooks/static/<notebook>.png: a check of what a reader of the
# stored outputs sees (figures drawn, tables rendered, fonts found). The
# notebooks run live in a browser are scripts/notebooks-browser.sh's
# (analysis/notebooks/<notebook>.png).
#
#	bash scripts/notebooks-html.sh [NOTEBOOK.ipynb...]   (default: notebooks/*.ipynb)
#
# The HTML goes to .cache/notebooks/html/. Fails if a notebook cannot be
# rendered. Chromium: installed by scripts/notebooks-browser.sh (which
# scripts/test.sh runs first); without it no screenshot is taken.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
html="$root/.cache/notebooks/html"
shots="$root/analysis/notebooks/static"
mkdir -p "$html"
if [[ $# -gt 0 ]]; then
	notebooks=("$@")
else
	notebooks=(notebooks/*.ipynb)
fi
chrome="$(command -v chromium || command -v chromium-browser || true)"
for nb in "${notebooks[@]}"; do
	name="$(basename "$nb" .ipynb)"
	jupyter nbconvert --to html --output-dir="$html" "$nb" >/dev/null 2>&1 ||
		{ echo "notebooks-html: $nb: nbconvert --to html failed" >&2; exit 1; }
	echo "notebooks-html: $html/$name.html"
	if [[ -n "$chrome" ]]; then
		mkdir -p "$shots"
		"$chrome" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1200,3000 \
			--screenshot="$shots/$name.png" "file://$html/$name.html" >/dev/null 2>&1 ||
			{ echo "notebooks-html: $nb: chromium failed" >&2; exit 1; }
		echo "notebooks-html: $shots/$name.png"
	fi
done
