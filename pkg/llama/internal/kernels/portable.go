//go:build !(goexperiment.simd && amd64)

package kernels

// implementations lists the implementations this build runs: portable Go only (the vector ones need amd64
// and GOEXPERIMENT=simd).
func implementations() []impl { return []impl{portable} }
