// Package kernels holds the float32 kernels of pkg/llama's "cpu" engine: a matrix product (also over
// bfloat16 weights, widened as they are read: MatMulBF16; or multiplied in bfloat16 pairs with the
// activations rounded, as AVX512-BF16's VDPBF16PS does: MatMulBF16Pairs), weighted sums of rows
// (attention's scores and outputs), softmax, RMSNorm and SwiGLU's gate, each over plain row-major slices.
//
// Every kernel has a portable Go version (generic.go), and on amd64 binaries built with
// GOEXPERIMENT=simd an AVX-512 version (avx512.go) and an AVX2 version (avx2.go), the fastest the CPU
// supports chosen at start; Name says which. The inner loops of the matrix product's 4-row tiles are
// assembly (tile_amd64.s): written with archsimd, their accumulators moved between registers at every step.
// So are MatMulBF16Pairs's (pairs_amd64.s), whose instruction the Go assembler does not know: its bytes are
// written out, and TestMatMulBF16PairsBits holds them to the sums a Go version computes, bit for bit.
// The tests hold every implementation the CPU runs to the same float64 references. avx2.go mirrors
// avx512.go with vectors of 8: archsimd's vector types share no interface that a generic function could use
// without calls through a dictionary in its inner loops.
//
// Why hand-written: GoMLX's pure-Go backend runs a Llama step as a graph of generic ops, each reading and
// writing whole tensors (reshapes and concatenations copy, softmax runs over every cache slot); on the
// embedded model that left its matrix kernels a fifth of a decode step. A decoder that owns its loops can
// fuse the projections, attend only over the positions a row has, and update caches in place. No
// maintained Go library offers these kernels: gonum's float32 BLAS has no AVX2 or AVX-512 kernels.
//
//	y := make([]float32, m*n)
//	kernels.MatMul(y, x, w, m, k, n, false) // y = x·w, x [m, k], w [k, n]
package kernels

import "fmt"

// MatMul sets y = x·w, or adds x·w to y when accumulate is true: x is [m, k], w is [k, n] and y is
// [m, n], all row-major. Sums run over k in order, in float32 (fused multiply-adds on AVX2 and AVX-512).
func MatMul(y, x, w []float32, m, k, n int, accumulate bool) {
	MatMulColumns(y, x, w, m, k, n, 0, n, accumulate)
}

// MatMulColumns is MatMul for the columns [j0, j1) of y and w only, so that goroutines can share a
// product; j0 must be a multiple of ColumnBlock.
func MatMulColumns(y, x, w []float32, m, k, n, j0, j1 int, accumulate bool) {
	if len(x) < m*k || len(w) < k*n || len(y) < m*n || j0%ColumnBlock != 0 || j0 > j1 || j1 > n {
		panic("kernels: MatMul: slices shorter than their shapes, or columns out of range")
	}
	active.matMul(y, x, w, m, k, n, j0, j1, accumulate)
}

// MatMulBF16 is MatMul with w in bfloat16, each element the high 16 bits of a float32: y is, bit for bit,
// what MatMul gives with w widened to float32, without a float32 copy of w. A batch-1 product reads half
// the bytes.
func MatMulBF16(y, x []float32, w []uint16, m, k, n int, accumulate bool) {
	MatMulBF16Columns(y, x, w, m, k, n, 0, n, accumulate)
}

// MatMulBF16Columns is MatMulBF16 for the columns [j0, j1) of y and w only (see MatMulColumns).
func MatMulBF16Columns(y, x []float32, w []uint16, m, k, n, j0, j1 int, accumulate bool) {
	if len(x) < m*k || len(w) < k*n || len(y) < m*n || j0%ColumnBlock != 0 || j0 > j1 || j1 > n {
		panic("kernels: MatMulBF16: slices shorter than their shapes, or columns out of range")
	}
	active.matMulBF16(y, x, w, m, k, n, j0, j1, accumulate)
}

// ColumnBlock is a multiple of the width of the column panels MatMul works in.
const ColumnBlock = 32

// WeightedSum sets out[d] = Σ_p a[p]·v[p·stride+d] for d < len(out) and p < len(a): the sum of the rows
// of v, stride apart, weighted by a. Attention uses it twice: a query's scores are the rows of the keys
// stored transposed ([hd][positions]) weighted by the query, and its output the rows of the values
// ([positions][hd]) weighted by the probabilities.
func WeightedSum(out, a, v []float32, stride int) {
	if len(a) == 0 {
		clear(out)
		return
	}
	if len(out) > stride || len(v) < (len(a)-1)*stride+len(out) {
		panic("kernels: WeightedSum: rows shorter than their shape")
	}
	active.weightedSum(out, a, v, stride)
}

// Softmax replaces s by softmax(s) (the maximum subtracted first).
func Softmax(s []float32) {
	if len(s) > 0 {
		active.softmax(s)
	}
}

// SiLUMul sets out[i] = silu(g[i])·u[i], silu(x) = x/(1+e^-x): SwiGLU's gate. out may be g.
func SiLUMul(out, g, u []float32) {
	active.siluMul(out, g[:len(out)], u[:len(out)])
}

// RMSNorm sets y = x/√(mean(x²)+eps)·w, elementwise; y and x may be the same slice.
func RMSNorm(y, x, w []float32, eps float32) {
	active.rmsNorm(y, x[:len(y)], w[:len(y)], eps)
}

// impl is one implementation of the kernels.
type impl struct {
	name       string
	matMul     func(y, x, w []float32, m, k, n, j0, j1 int, accumulate bool)
	matMulBF16 func(y, x []float32, w []uint16, m, k, n, j0, j1 int, accumulate bool)
	// matMulBF16Pairs is MatMulBF16Pairs (all columns: the cpu engine gives it one column block).
	matMulBF16Pairs func(y []float32, ldy int, x []float32, w []uint16, m, k, n int, accumulate bool)
	weightedSum     func(out, a, v []float32, stride int)
	softmax         func(s []float32)
	siluMul         func(out, g, u []float32)
	rmsNorm         func(y, x, w []float32, eps float32)
}

var portable = impl{"portable Go", matMulGeneric, matMulBF16Generic, matMulBF16PairsAll, weightedSumGeneric, softmaxGeneric, siluMulGeneric, rmsNormGeneric}

// active is the implementation the functions above run: the first of implementations(), the fastest this
// CPU supports.
var active = implementations()[0]

// Name names the implementation in use: "AVX-512", "AVX2" or "portable Go".
func Name() string { return active.name }

// Fast reports whether the kernels run vector instructions (AVX2 or AVX-512 on amd64 binaries built with
// GOEXPERIMENT=simd); otherwise they run portable Go, several times slower.
func Fast() bool { return active.name != portable.name }

// Use makes the kernels run the implementation called name (see Name) and returns the one in use before;
// for tests and benchmarks, not safe while kernels run.
func Use(name string) (previous string, err error) {
	for _, im := range implementations() {
		if im.name == name {
			previous, active = active.name, im
			return previous, nil
		}
	}
	return active.name, fmt.Errorf("kernels: no implementation %q on this CPU and build", name)
}

// PairsFast reports whether MatMulBF16Pairs runs AVX512-BF16's VDPBF16PS here (AVX-512 kernels on a CPU
// with it); otherwise Go computes the same sums, several times slower than MatMulBF16.
func PairsFast() bool { return active.name == "AVX-512" && pairsBF16 }
