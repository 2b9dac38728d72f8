//go:build goexperiment.simd && amd64

package kernels

import (
	"simd/archsimd"
	"sync"
)

// loadBF16 widens 16 bfloat16s to float32s: zero-extended to 32 bits and shifted into the high half.
func loadBF16(s []uint16) vec {
	return archsimd.LoadUint16x16((*[16]uint16)(s[:16])).ExtendToUint32().ShiftAllLeft(16).AsFloat32x16()
}

// panels512 holds the widened panels of matMulBF16AVX512 (kBlock rows of 32 columns, 32 KB, in L1).
var panels512 = sync.Pool{New: func() any { return new([kBlock * 32]float32) }}

// matMulBF16AVX512 is matMulAVX512 over w in bfloat16: a single row streams w's rows widening as it goes
// (rowBF16AVX512); more rows widen each block of a panel once into a float32 copy that every row passes
// over. The sums are matMulAVX512's, in the same order, so the bits are the same.
func matMulBF16AVX512(y, x []float32, w []uint16, m, k, n, j0, j1 int, accumulate bool) {
	if m == 1 {
		rowBF16AVX512(y, x, w, k, n, j0, j1, accumulate)
		return
	}
	panel := panels512.Get().(*[kBlock * 32]float32)
	defer panels512.Put(panel)
	full := j0 + (j1-j0)&^31
	for j := j0; j < full; j += 32 {
		for p0 := 0; p0 < k || p0 == 0; p0 += kBlock {
			p1, acc := min(p0+kBlock, k), accumulate || p0 > 0
			for p := p0; p < p1; p++ {
				row, dst := w[p*n+j:], panel[(p-p0)*32:]
				store(loadBF16(row), dst)
				store(loadBF16(row[16:]), dst[16:])
			}
			i := 0
			for ; i+4 <= m; i += 4 {
				tile4x32(y, x, panel[:], 0, 32, i, j, k, n, p0, p1, acc)
			}
			for ; i < m; i++ {
				tile1x32(y, x, panel[:], 0, 32, i, j, k, n, p0, p1, acc)
			}
		}
	}
	if full < j1 {
		matMulBF16Generic(y, x, w, m, k, n, full, j1, accumulate)
	}
}

// rowBF16AVX512 is rowAVX512 over w in bfloat16: half the bytes to read.
func rowBF16AVX512(y, x []float32, w []uint16, k, n, j0, j1 int, accumulate bool) {
	full := j0 + (j1-j0)&^31
	for b0 := j0; b0 < full; b0 += rowBlock {
		yb := y[b0:min(b0+rowBlock, full)]
		if !accumulate {
			clear(yb)
		}
		for p, a := range x[:k] {
			row := w[p*n+b0 : p*n+b0+len(yb)]
			s := splat(a)
			j := 0
			for ; j+64 <= len(yb); j += 64 {
				store(loadBF16(row[j:]).MulAdd(s, load(yb[j:])), yb[j:])
				store(loadBF16(row[j+16:]).MulAdd(s, load(yb[j+16:])), yb[j+16:])
				store(loadBF16(row[j+32:]).MulAdd(s, load(yb[j+32:])), yb[j+32:])
				store(loadBF16(row[j+48:]).MulAdd(s, load(yb[j+48:])), yb[j+48:])
			}
			for ; j < len(yb); j += 16 {
				store(loadBF16(row[j:]).MulAdd(s, load(yb[j:])), yb[j:])
			}
		}
	}
	if full < j1 {
		matMulBF16Generic(y, x, w, 1, k, n, full, j1, accumulate)
	}
}
