#!/usr/bin/env bash
# notebooks-setup.sh: installs what executing the GoNB notebooks in
# notebooks/ needs, and registers the Go kernel with Jupyter inside this
# checkout. Idempotent: every step is skipped when its result is already
# there.
#
#  1. Debian packages jupyter-nbconvert and jupyter-client (headless
#     execution), jupyter-notebook (the browser front-end that
#     scripts/notebook-server.sh starts), fonts-liberation (the figures' SVGs
#     name Liberation Serif, whose metrics gonum/plot lays the text out with)
#     and librsvg2-bin (rsvg-convert, to look at a figure as PNG), downloaded
#     into a private archive directory (.cache/notebooks/apt-archives) so that
#     another run cleaning apt's shared cache cannot break the install.
#  2. GoNB and goimports, built as Go tools of the small tools module
#     scripts/notebooks-tools (its go.mod and go.sum pin the versions; "go
#     install module@version" cannot be used: the proxy refuses GoNB's
#     deprecation lookup), into .cache/notebooks/bin.
#  3. The GoNB kernel spec, written inside the checkout
#     (.cache/notebooks/share/jupyter/kernels/gonb/kernel.json), never into
#     the user's Jupyter directory, so that two checkouts do not repoint each
#     other's kernel. Jupyter finds it through
#     JUPYTER_PATH=.cache/notebooks/share/jupyter, which the scripts that run
#     Jupyter set (notebooks-run.sh, notebooks-outputs.sh,
#     notebook-server.sh). Its env gives a PATH that holds gonb, goimports
#     and go, and the GOEXPERIMENT and GODEBUG settings of scripts/goenv.sh
#     (the embedded model's speed in notebook cells). A user-wide spec that
#     an earlier version of this script wrote for this checkout is removed.
#
# Prints the bin directory (absolute) as its last line. To run jupyter with
# the kernel by hand:
#
#	export PATH="$(bash scripts/notebooks-setup.sh | tail -n 1):$PATH"
#	export JUPYTER_PATH="$PWD/.cache/notebooks/share/jupyter"
#
# Usage:
#
#	bash scripts/notebooks-setup.sh
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$root/.cache/notebooks"
bin="$dir/bin"
tools="$root/scripts/notebooks-tools"
mkdir -p "$bin"
log() { echo "notebooks-setup: $*" >&2; }

sudo=()
if [[ "$(id -u)" != 0 ]]; then sudo=(sudo -n); fi

# 1. Packages.
pkgs=(jupyter-nbconvert jupyter-client jupyter-notebook fonts-liberation librsvg2-bin)
missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done
if [[ ${#missing[@]} -gt 0 ]]; then
	log "installing ${missing[*]}"
	archives="$dir/apt-archives"
	mkdir -p "$archives/partial"
	"${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 update -qq
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends \
		-o "Dir::Cache::archives=$archives" "${missing[@]}" >/dev/null
	rm -f "$archives"/*.deb
fi

# 2. Go tools, rebuilt when the tools module changes.
stamp="$bin/.tools-sum"
want="$(cat "$tools/go.mod" "$tools/go.sum" "$(command -v go)" 2>/dev/null | sha256sum | cut -d' ' -f1)"
if [[ ! -x "$bin/gonb" || ! -x "$bin/goimports" || "$(cat "$stamp" 2>/dev/null)" != "$want" ]]; then
	log "building $(grep -E '^[[:space:]]+(github.com/janpfeifer/gonb|golang.org/x/tools) v' "$tools/go.mod" |
		awk '{printf "%s%s@%s", sep, $1, $2; sep=" "}')"
	(cd "$tools" && GOBIN="$bin" GOFLAGS=-mod=mod go install tool)
	echo "$want" >"$stamp"
fi

# 3. Kernel spec, inside the checkout. Jupyter starts the kernel without the
# caller's PATH additions, and GoNB runs go and goimports, so the spec's env
# carries PATH; and GOEXPERIMENT=simd and GODEBUG=cpu.fma=off
# (scripts/goenv.sh), so that cells that run the embedded model get its fast
# kernels. The flags are those "gonb --install" writes (-raw_error: errors as
# plain text, which cmd/nbcheck reads).
kernel="$dir/share/jupyter/kernels/gonb"
goroot_bin="$(go env GOROOT)/bin"
path="$bin:$goroot_bin:/usr/local/bin:/usr/bin:/bin"
mkdir -p "$kernel"
python3 - "$kernel/kernel.json" "$bin/gonb" "$path" <<'EOF'
import json, os, sys
spec, gonb, path = sys.argv[1:]
k = {
    "argv": [gonb, "--kernel", "{connection_file}", "-logtostderr=true", "-alsologtostderr=false",
             "-raw_error=true", "-work=false", "-comms_log=false", "-stderrthreshold=2", "-v=0"],
    "display_name": "Go (gonb)",
    "language": "go",
    "interrupt_mode": "message",
    "env": {"PATH": path, "GOEXPERIMENT": "simd", "GODEBUG": "cpu.fma=off"},
}
text = json.dumps(k, indent=2) + "\n"
old = open(spec).read() if os.path.exists(spec) else None
if old != text:
    with open(spec, "w") as f:
        f.write(text)
    print("notebooks-setup: kernel spec written to " + spec, file=sys.stderr)
EOF
# An earlier set-up registered the kernel user-wide: remove that spec when it
# runs this checkout's gonb (another checkout's is left alone).
user_spec="${XDG_DATA_HOME:-$HOME/.local/share}/jupyter/kernels/gonb/kernel.json"
if [[ -f "$user_spec" ]] && grep -qF "\"$bin/gonb\"" "$user_spec"; then
	log "removing $(dirname "$user_spec"): the user-wide kernel an earlier set-up wrote for this checkout"
	rm -rf "$(dirname "$user_spec")"
fi
echo "$bin"
