#!/usr/bin/env bash
# notebooks-setup.sh: installs what executing the GoNB notebooks in
# notebooks/ needs, and registers the Go kernel with Jupyter. Idempotent:
# every step is skipped when its result is already there.
#
#  1. Debian packages jupyter-nbconvert and jupyter-client (no ipykernel is
#     needed), fonts-liberation (the figures' SVGs name Liberation Serif,
#     whose metrics gonum/plot lays the text out with) and librsvg2-bin
#     (rsvg-convert, to look at a figure as PNG), downloaded into a private archive directory
#     (.cache/notebooks/apt-archives) so that another run cleaning apt's
#     shared cache cannot break the install.
#  2. GoNB and goimports, built as Go tools of the small tools module
#     scripts/notebooks-tools (its go.mod and go.sum pin the versions; "go
#     install module@version" cannot be used: the proxy refuses GoNB's
#     deprecation lookup), into .cache/notebooks/bin.
#  3. The GoNB kernel, registered for the current user with
#     "gonb --install", its kernel.json given a PATH that holds gonb,
#     goimports and go, and the GOEXPERIMENT and GODEBUG settings of
#     scripts/goenv.sh (the embedded model's speed in notebook cells).
#
# Prints the bin directory (absolute) as its last line; put it on PATH to
# run jupyter with the kernel by hand. Usage:
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
pkgs=(jupyter-nbconvert jupyter-client fonts-liberation librsvg2-bin)
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
	"${sudo[@]}" apt-get update -qq
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends \
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

# 3. Kernel registration. gonb --install writes the kernel spec for the
# current user; its env must carry PATH, because Jupyter starts the kernel
# without the caller's PATH additions and GoNB runs go and goimports, and
# GOEXPERIMENT=simd and GODEBUG=cpu.fma=off (scripts/goenv.sh), so that cells
# that run the embedded model get its fast kernels when started by hand too.
kernels="$(jupyter --data-dir)/kernels"
spec="$kernels/gonb/kernel.json"
goroot_bin="$(go env GOROOT)/bin"
path="$bin:$goroot_bin:/usr/local/bin:/usr/bin:/bin"
if [[ ! -f "$spec" ]] || ! grep -q "\"$bin/gonb\"" "$spec" || ! grep -qF "\"PATH\": \"$path\"" "$spec" ||
	! grep -qF '"GOEXPERIMENT": "simd"' "$spec" || ! grep -qF '"GODEBUG": "cpu.fma=off"' "$spec"; then
	log "registering the GoNB kernel in $kernels/gonb"
	# --force_deps: gopls only serves editor completion, which headless
	# execution never asks for.
	PATH="$bin:$goroot_bin:$PATH" "$bin/gonb" --install --raw_error --force_deps 2>/dev/null
	python3 - "$spec" "$path" <<'EOF'
import json, sys
spec, path = sys.argv[1], sys.argv[2]
with open(spec) as f:
    k = json.load(f)
env = k.setdefault("env", {})
env["PATH"] = path
env["GOEXPERIMENT"] = "simd"
env["GODEBUG"] = "cpu.fma=off"
with open(spec, "w") as f:
    json.dump(k, f, indent=2)
    f.write("\n")
EOF
fi
echo "$bin"
