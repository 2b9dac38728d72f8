package kernels

import (
	"runtime"

	"golang.org/x/sys/cpu"
)

// SIMDName names the kernels a binary built with GOEXPERIMENT=simd would run on this CPU: "AVX-512" (F,
// CD, BW, DQ and VL, the set archsimd requires), "AVX2", or "portable Go" where it would gain nothing
// (not amd64, or no AVX2). It reads the CPU, not the build, so that a portable build can say what it
// leaves unused.
func SIMDName() string {
	x := cpu.X86
	switch {
	case runtime.GOARCH != "amd64":
		return portable.name
	case x.HasAVX512F && x.HasAVX512CD && x.HasAVX512BW && x.HasAVX512DQ && x.HasAVX512VL:
		return "AVX-512"
	case x.HasAVX2:
		return "AVX2"
	}
	return portable.name
}
