#!/usr/bin/env bash
# test-deps.sh: installs the Debian packages the Go tests need beyond Go
# itself, idempotently (nothing is done when they are installed):
#   libonig-dev  Oniguruma's headers and library: pkg/tokenizer compares its
#                pre-tokenizer with Oniguruma (TestOniguruma), built with gcc.
#   gcc          the C compiler that builds that comparison's helper.
#   python3-numpy  numpy for Debian's /usr/bin/python3: pkg/cli's test of
#                scripts/gpu-check.sh (its CPU mode) and regenerating
#                pkg/llama/testdata (make_reference.py).
#   python3-jinja2  jinja2, with which pkg/tokenizer renders Qwen3's chat
#                template as transformers does (testdata/chat/render.py).
#   python3-lark  Lark, the oracle pkg/lark's tests compare membership with
#                (pkg/lark/testdata/oracle.py, Earley with the dynamic lexer).
#   python3-scipy  scipy.stats.mannwhitneyu, the reference pkg/fuzz's
#                Mann-Whitney U test is compared with (TestMannWhitneyScipy).
set -euo pipefail

log() { echo "test-deps: $*" >&2; }
sudo=()
if [[ "$(id -u)" != 0 ]]; then sudo=(sudo -n); fi

pkgs=(libonig-dev gcc python3-numpy python3-jinja2 python3-lark python3-scipy)
missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done
if [[ ${#missing[@]} -eq 0 ]]; then
	exit 0
fi
log "installing ${missing[*]}"
# apt's lock may be held by another set-up script running beside this one.
"${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
