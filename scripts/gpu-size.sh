#!/usr/bin/env bash
# gpu-size.sh [FILE ...]: the size of what travels to a GPU machine (the device
# tool sends the working tree: tracked and untracked-not-ignored files) plus the
# carried FILEs; exits 1 when it is 64 MiB or more, the limit of what travels.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
tree=$(git ls-files -z --cached --others --exclude-standard | xargs -0 stat -c %s 2>/dev/null | awk '{s += $1} END {print s + 0}')
carried=0
for f in "$@"; do carried=$((carried + $(stat -c %s "$f"))); done
total=$((tree + carried))
mib() { awk -v b="$1" 'BEGIN {printf "%.1f MiB", b / 1048576}'; }
echo "gpu-size: working tree $(mib "$tree") + carried $(mib "$carried") = $(mib "$total") of 64 MiB"
((total < 64 << 20)) || { echo "gpu-size: over the 64 MiB that travel" >&2; exit 1; }
