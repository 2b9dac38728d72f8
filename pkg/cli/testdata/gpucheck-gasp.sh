#!/usr/bin/env bash
# A stand-in for gasp in the tests of scripts/gpu-check.sh (gpucheck_test.go): runs $GASP_REAL with the same
# arguments, except that it hangs on the subcommand $GASP_HANG names, and with GASP_FAIL_TINY=1 refuses
# "logits" on the tiny stage's model, as a GPU plugin that refuses go-xla would.
if [[ -n "${GASP_HANG:-}" && "${1:-}" == "$GASP_HANG" ]]; then
	sleep 300
	exit 1
fi
if [[ -n "${GASP_FAIL_TINY:-}" && "${1:-}" == logits && " $* " == */tiny\ * ]]; then
	echo "stand-in: refusing the tiny stage's logits" >&2
	exit 3
fi
exec "$GASP_REAL" "$@"
