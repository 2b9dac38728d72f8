#!/usr/bin/env bash
# notebooks-browser.sh: the browser test of the notebooks. Starts the
# notebook server of scripts/notebook-server.sh (127.0.0.1, a free port, a
# random token) and, in headless Chromium driven by playwright-core
# (scripts/browser/notebook.mjs), opens each notebook through it, runs
# every cell (Cell ▸ Run All), waits for its figures and fails if a cell
# shows an error; notebooks/07-explore.ipynb is also driven: its k slider
# is moved and its outcome must change (if its first outcome never comes,
# a lost widget comm, it runs once more on a restarted kernel, and says so). A screenshot of each page goes to
# analysis/notebooks/<notebook>.png. First, cmd/nbcheck/testdata/
# fail-exit.ipynb (a cell that exits with status 3) must fail: a check
# without teeth fails the run.
#
#	bash scripts/notebooks-browser.sh [NOTEBOOK.ipynb...]
#	    (default: notebooks/00-quickstart.ipynb notebooks/07-explore.ipynb)
#
# Installs what it needs, idempotently: Debian's chromium (apt, root or
# sudo) and playwright-core, pinned by scripts/browser/package-lock.json,
# with "npm ci" into .cache/notebooks/browser (no browser download: the
# system Chromium is used). The server is stopped at the end, whatever
# happens. GASP_BROWSER_TIMEOUT bounds one notebook (seconds, default 300).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
log() { echo "notebooks-browser: $*" >&2; }
per="${GASP_BROWSER_TIMEOUT:-300}"
if [[ $# -gt 0 ]]; then
	notebooks=("$@")
else
	notebooks=(notebooks/00-quickstart.ipynb notebooks/07-explore.ipynb)
fi

# 1. Chromium and playwright-core; exit status 2 when they cannot be
# installed (scripts/test.sh then only warns, outside CI).
sudo=()
if [[ "$(id -u)" != 0 ]]; then sudo=(sudo -n); fi
if ! dpkg-query -W -f='${Status}' chromium 2>/dev/null | grep -q "install ok installed"; then
	log "installing chromium"
	if ! { "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 update -qq &&
		DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
			--no-install-recommends chromium >/dev/null; }; then
		log "could not install chromium (apt-get install chromium needs root)"
		exit 2
	fi
fi
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	log "node and npm are needed (apt-get install nodejs npm)"
	exit 2
fi
driver="$root/.cache/notebooks/browser"
lock="$root/scripts/browser/package-lock.json"
if ! cmp -s "$lock" "$driver/package-lock.json" || [[ ! -d "$driver/node_modules/playwright-core" ]]; then
	log "npm ci (playwright-core) into $driver"
	rm -rf "$driver"
	mkdir -p "$driver"
	cp "$root/scripts/browser/package.json" "$lock" "$driver/"
	if ! (cd "$driver" && timeout 300 npm ci --no-audit --no-fund --loglevel=error); then
		rm -rf "$driver"
		log "npm ci of playwright-core failed"
		exit 2
	fi
fi
cp "$root/scripts/browser/notebook.mjs" "$driver/"

# 2. The server, the documented command, in its own process group so that
# the trap stops it and its kernels.
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
token="$(python3 -c 'import secrets; print(secrets.token_hex(24))')"
server_log="$root/.cache/notebooks/server.log"
GASP_NOTEBOOK_PORT="$port" GASP_NOTEBOOK_TOKEN="$token" setsid bash scripts/notebook-server.sh >"$server_log" 2>&1 &
server=$!
stop() {
	kill -TERM -- "-$server" 2>/dev/null || true
	for _ in $(seq 20); do
		kill -0 "$server" 2>/dev/null || return 0
		sleep 0.5
	done
	kill -KILL -- "-$server" 2>/dev/null || true
}
trap stop EXIT
url="http://127.0.0.1:$port"
for i in $(seq 240); do
	if python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=5)' \
		"$url/api/status?token=$token" 2>/dev/null; then
		break
	fi
	if ! kill -0 "$server" 2>/dev/null || [[ $i -eq 240 ]]; then
		tail -n 30 "$server_log" >&2
		log "the notebook server did not start (log: $server_log)"
		exit 1
	fi
	sleep 0.5
done
log "server up at $url"

# check NOTEBOOK SHOT [ARGS...] runs notebook.mjs on a notebook (a path
# relative to the repository, the server's root).
check() {
	local nb="$1" shot="$2"
	shift 2
	timeout $((per + 60)) node "$driver/notebook.mjs" --server "$url" --token "$token" --notebook "$nb" \
		--shot "$shot" --chromium "$(command -v chromium)" --timeout "$per" "$@"
}

# 3. The check of the check: a notebook whose cell exits with status 3 must
# fail in the browser, on that line.
t0=$SECONDS
if selfcheck="$(check cmd/nbcheck/testdata/fail-exit.ipynb "$root/.cache/notebooks/fail-exit.png" 2>&1)"; then
	echo "$selfcheck" >&2
	log "cmd/nbcheck/testdata/fail-exit.ipynb passed in the browser: the check has no teeth"
	exit 1
fi
if ! grep -q "exit status 3" <<<"$selfcheck"; then
	echo "$selfcheck" >&2
	log "cmd/nbcheck/testdata/fail-exit.ipynb failed, but not on its \"exit status 3\" line"
	exit 1
fi
log "cmd/nbcheck/testdata/fail-exit.ipynb: flagged as expected ($((SECONDS - t0)) s): $(grep -m1 'exit status' <<<"$selfcheck" | sed 's/^ *//')"

# 4. The notebooks.
mkdir -p analysis/notebooks
failed=0
for nb in "${notebooks[@]}"; do
	name="$(basename "$nb" .ipynb)"
	t0=$SECONDS
	args=()
	[[ "$name" == 07-explore ]] && args+=(--explore)
	if check "$nb" "$root/analysis/notebooks/$name.png" "${args[@]}"; then
		log "$nb: ok in the browser ($((SECONDS - t0)) s)"
	else
		log "$nb: FAILED in the browser ($((SECONDS - t0)) s; server log: $server_log)"
		failed=1
	fi
done
exit $failed
