// Package kernels holds the float32 kernels of pkg/llama's "cpu" engine: a matrix product, attention's
// scores and weighted sums, softmax, RMSNorm and SwiGLU's gate, each over plain row-major slices.
//
// Every kernel has a portable Go version (generic.go), and on amd64 binaries built with
// GOEXPERIMENT=simd an AVX-512 version (avx512.go) chosen at run time when the CPU has AVX-512; Fast
// reports which. The portable versions are also the references the AVX-512 ones are tested against.
//
// Why hand-written: GoMLX's pure-Go backend runs a Llama step as a graph of generic ops, each reading and
// writing whole tensors (reshapes and concatenations copy, softmax runs over every cache slot); on the
// embedded model that left its matrix kernels a fifth of a decode step. A decoder that owns its loops can
// fuse the projections, attend only over the positions a row has, and update caches in place. No
// maintained Go library offers these kernels: gonum's float32 BLAS has no AVX-512 matrix product.
//
//	y := make([]float32, m*n)
//	kernels.MatMul(y, x, w, m, k, n, false) // y = x·w, x [m, k], w [k, n]
package kernels

// MatMul sets y = x·w, or adds x·w to y when accumulate is true: x is [m, k], w is [k, n] and y is
// [m, n], all row-major. Sums run over k in order, in float32 (fused multiply-adds on AVX-512).
func MatMul(y, x, w []float32, m, k, n int, accumulate bool) {
	MatMulColumns(y, x, w, m, k, n, 0, n, accumulate)
}

// MatMulColumns is MatMul for the columns [j0, j1) of y and w only, so that goroutines can share a
// product; j0 must be a multiple of ColumnBlock.
func MatMulColumns(y, x, w []float32, m, k, n, j0, j1 int, accumulate bool) {
	if len(x) < m*k || len(w) < k*n || len(y) < m*n || j0%ColumnBlock != 0 || j0 > j1 || j1 > n {
		panic("kernels: MatMul: slices shorter than their shapes, or columns out of range")
	}
	if useAVX512 {
		matMulAVX512(y, x, w, m, k, n, j0, j1, accumulate)
		return
	}
	matMulGeneric(y, x, w, m, k, n, j0, j1, accumulate)
}

// ColumnBlock is the width of the column panels MatMul works in.
const ColumnBlock = 32

// Scores sets s[p] = Σ_d q[d]·kt[d·stride+p] for p < len(s) and d < len(q): a query's dot products with
// keys stored transposed ([len(q)][stride], one column per position).
func Scores(s, q, kt []float32, stride int) {
	if len(s) > stride || len(kt) < (len(q)-1)*stride+len(s) {
		panic("kernels: Scores: keys shorter than their shape")
	}
	if useAVX512 {
		scoresAVX512(s, q, kt, stride)
		return
	}
	scoresGeneric(s, q, kt, stride)
}

// WeightedSum sets out[d] = Σ_p a[p]·v[p·len(out)+d] for d < len(out) and p < len(a): the sum of the
// rows of v [len(a)][len(out)] weighted by a.
func WeightedSum(out, a, v []float32) {
	if len(v) < len(a)*len(out) {
		panic("kernels: WeightedSum: values shorter than their shape")
	}
	if useAVX512 {
		weightedSumAVX512(out, a, v)
		return
	}
	weightedSumGeneric(out, a, v)
}

// Softmax replaces s by softmax(s) (the maximum subtracted first).
func Softmax(s []float32) {
	if len(s) == 0 {
		return
	}
	if useAVX512 {
		softmaxAVX512(s)
		return
	}
	softmaxGeneric(s)
}

// SiLUMul sets out[i] = silu(g[i])·u[i], silu(x) = x/(1+e^-x): SwiGLU's gate. out may be g.
func SiLUMul(out, g, u []float32) {
	g, u = g[:len(out)], u[:len(out)]
	if useAVX512 {
		siluMulAVX512(out, g, u)
		return
	}
	siluMulGeneric(out, g, u)
}

// RMSNorm sets y = x/√(mean(x²)+eps)·w, elementwise; y and x may be the same slice.
func RMSNorm(y, x, w []float32, eps float32) {
	x, w = x[:len(y)], w[:len(y)]
	if useAVX512 {
		rmsNormAVX512(y, x, w, eps)
		return
	}
	rmsNormGeneric(y, x, w, eps)
}

// Fast reports whether the kernels run their AVX-512 versions (amd64, GOEXPERIMENT=simd, a CPU with
// AVX-512); otherwise they run portable Go, several times slower.
func Fast() bool { return useAVX512 }
