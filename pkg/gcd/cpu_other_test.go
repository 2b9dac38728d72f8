//go:build !unix

package gcd

// processCPU is not measured here: benchmarks report 0 CPU time.
func processCPU() int64 { return 0 }
