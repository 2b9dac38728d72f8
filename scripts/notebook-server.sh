#!/usr/bin/env bash
# notebook-server.sh: opens the notebooks in a browser. Starts a local
# Jupyter Notebook server with the GoNB kernel on 127.0.0.1, serving
# the repository, and prints the address of notebooks/ to open (with its
# token).
#
#	bash scripts/notebook-server.sh
#
# The set-up comes first (scripts/notebooks-setup.sh, idempotent: Debian's
# jupyter-notebook, GoNB, and the kernel spec inside this checkout, found
# through JUPYTER_PATH, so another checkout's kernel is never used or
# changed). The server listens on 127.0.0.1 only, on a free port, and asks
# for a random token; Ctrl-C stops it and its kernels.
#
# Environment: GASP_NOTEBOOK_PORT and GASP_NOTEBOOK_TOKEN fix the port and
# the token (scripts/notebooks-browser.sh, the browser test, sets both).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
source scripts/goenv.sh
bin="$(bash scripts/notebooks-setup.sh | tail -n 1)"
export PATH="$bin:$PATH"
export JUPYTER_PATH="$root/.cache/notebooks/share/jupyter"
export JUPYTER_RUNTIME_DIR="$root/.cache/notebooks/runtime" # the server's and kernels' connection files

port="${GASP_NOTEBOOK_PORT:-}"
if [[ -z "$port" ]]; then
	port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
fi
token="${GASP_NOTEBOOK_TOKEN:-$(python3 -c 'import secrets; print(secrets.token_hex(24))')}"
root_flag=()
if [[ "$(id -u)" == 0 ]]; then root_flag=(--allow-root); fi # a container's or CI's root user

echo "notebook-server: open http://127.0.0.1:$port/tree/notebooks?token=$token"
echo "notebook-server: kernel \"Go (gonb)\" from $JUPYTER_PATH/kernels/gonb; Ctrl-C stops the server"
# exec: the server is this process, so that stopping it (Ctrl-C, or kill
# from the browser test) stops its kernels too.
exec jupyter-notebook --no-browser --ip=127.0.0.1 --port="$port" --port-retries=0 \
	--NotebookApp.token="$token" --NotebookApp.open_browser=False \
	--notebook-dir="$root" "${root_flag[@]}"
