//go:build !(goexperiment.simd && amd64)

package kernels

// implementations lists the implementations this build runs: portable Go only (the vector ones need amd64
// and GOEXPERIMENT=simd).
func implementations() []impl { return []impl{portable} }

// pairsBF16: VDPBF16PS needs the AVX-512 kernels.
const pairsBF16 = false

func roundPairs(dst []uint32, src []float32) { roundPairsGeneric(dst, src) }
