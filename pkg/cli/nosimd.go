//go:build !(amd64 && goexperiment.simd)

package cli

// ensureFastExp has nothing to do in a binary built without GOEXPERIMENT=simd (see simd.go).
func ensureFastExp() {}
