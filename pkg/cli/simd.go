//go:build amd64 && goexperiment.simd

package cli

import (
	"os"
	"strings"
	"syscall"
)

// fmaOff is the GODEBUG setting that keeps math.Exp fast in a binary built with GOEXPERIMENT=simd.
//
// GoMLX's pure-Go backend multiplies matrices with AVX2/AVX-512 kernels when the program is built with
// GOEXPERIMENT=simd (about 6× faster than without, measured on this project's machines). With Go 1.26.8 such
// a binary makes math.Exp 100–300× slower (1–4 µs a call instead of 8 ns): math.Exp's assembly mixes VEX
// (VFMADD) and legacy SSE instructions, which stalls once the SIMD code has left the upper vector state
// dirty. Turning the FMA path off (GODEBUG=cpu.fma=off) makes math.Exp take its pure-SSE path (12 ns) and
// leaves the matrix kernels untouched. Softmax, SiLU and every log-probability computation call math.Exp,
// so without this the SIMD build is slower than the plain one.
const fmaOff = "cpu.fma=off"

// ensureFastExp re-executes the program with fmaOff added to GODEBUG, once, before anything else runs.
// CPU options are read from GODEBUG when the runtime starts, so setting it later has no effect.
func ensureFastExp() {
	godebug := os.Getenv("GODEBUG")
	if strings.Contains(godebug, fmaOff) {
		return
	}
	if godebug != "" {
		godebug += ","
	}
	exe, err := os.Executable()
	if err != nil {
		return // run as is: slower, still correct
	}
	env := []string{"GODEBUG=" + godebug + fmaOff}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GODEBUG=") {
			env = append(env, kv)
		}
	}
	_ = syscall.Exec(exe, os.Args, env) // returns only on failure; then run as is
}
