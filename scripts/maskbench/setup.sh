#!/usr/bin/env bash
# setup.sh: installs XGrammar (npm @mlc-ai/web-xgrammar 0.1.27, Apache-2.0,
# WebAssembly) for scripts/maskbench into the git-ignored .cache/maskbench of
# the repository, pinned by scripts/maskbench/npm/package.json and
# package-lock.json and installed with npm ci. Idempotent: nothing is done when
# the installed lock file is the pinned one (so it works offline once
# installed). Needs node and npm. Runs from any directory.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
src="$root/scripts/maskbench/npm"
dest="$root/.cache/maskbench"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	echo "maskbench setup: node and npm are needed (apt-get install nodejs npm)" >&2
	exit 1
fi
if ! cmp -s "$src/package-lock.json" "$dest/node_modules/.package-lock.json.pinned" 2>/dev/null; then
	echo "maskbench setup: npm ci of scripts/maskbench/npm into $dest" >&2
	mkdir -p "$dest"
	cp "$src/package.json" "$src/package-lock.json" "$dest/"
	(cd "$dest" && npm ci --no-audit --no-fund --loglevel=error)
	cp "$src/package-lock.json" "$dest/node_modules/.package-lock.json.pinned"
fi
# The package's lib/index.js is CommonJS under a package that node would load as
# an ES module; a .cjs copy is what xgrammar.cjs requires.
cp "$dest/node_modules/@mlc-ai/web-xgrammar/lib/index.js" "$dest/xgrammar.cjs"
