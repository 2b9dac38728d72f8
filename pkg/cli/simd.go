//go:build amd64 && goexperiment.simd

package cli

import (
	"os"
	"strings"
	"syscall"
)

// fmaOff keeps math.Exp fast in a binary built with GOEXPERIMENT=simd: SIMD matrix kernels (GoMLX's
// pure-Go backend's among them) return with the upper vector registers dirty, and math.Exp's FMA path,
// which mixes VEX and legacy SSE instructions, then stalls on some CPUs (environment.md has the numbers).
// With FMA off, math.Exp takes its SSE-only path; the kernels are unaffected.
const fmaOff = "cpu.fma=off"

// ensureFastExp re-executes the program once with fmaOff added to GODEBUG. Nothing short of a re-exec
// sets it: the runtime reads cpu.* options from the environment's GODEBUG as it starts (runtime.cpuinit,
// before any Go code), //go:debug lines and go.mod's godebug reject them as unknown settings, and the
// alternative, a VZEROUPPER as each kernel returns, would have to go into GoMLX's code.
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
