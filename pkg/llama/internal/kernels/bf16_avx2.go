//go:build goexperiment.simd && amd64

package kernels

import (
	"simd/archsimd"
	"sync"
)

// loadBF16x8 widens 8 bfloat16s to float32s.
func loadBF16x8(s []uint16) vec8 {
	return archsimd.LoadUint16x8((*[8]uint16)(s[:8])).ExtendToUint32().ShiftAllLeft(16).AsFloat32x8()
}

// matMulBF16AVX2 is matMulAVX2 over w in bfloat16: a single row streams w's rows widening as it goes, more
// rows widen each block of a panel of 16 columns once (kBlockAVX2·64 bytes) into a float32 copy that every
// row passes over. The sums are matMulAVX2's, in the same order, so the bits are the same.
func matMulBF16AVX2(y, x []float32, w []uint16, m, k, n, j0, j1 int, accumulate bool) {
	full := j0 + (j1-j0)&^15
	if m == 1 {
		rowBF16AVX2(y, x, w, k, n, j0, full, accumulate)
	} else if full > j0 {
		panel := panels2.Get().(*[kBlockAVX2 * 16]float32)
		defer panels2.Put(panel)
		for j := j0; j < full; j += 16 {
			for p0 := 0; p0 < k || p0 == 0; p0 += kBlockAVX2 {
				p1, acc := min(p0+kBlockAVX2, k), accumulate || p0 > 0
				for p := p0; p < p1; p++ {
					row, dst := w[p*n+j:], panel[(p-p0)*16:]
					store8(loadBF16x8(row), dst)
					store8(loadBF16x8(row[8:]), dst[8:])
				}
				panelTiles16(y, x, panel[:], 0, 16, j, m, k, n, p0, p1, acc)
			}
		}
	}
	if full < j1 {
		matMulBF16Generic(y, x, w, m, k, n, full, j1, accumulate)
	}
}

// panels2 holds the widened panels of matMulBF16AVX2.
var panels2 = sync.Pool{New: func() any { return new([kBlockAVX2 * 16]float32) }}

// rowBF16AVX2 is rowAVX2 over w in bfloat16, widened as it is read.
func rowBF16AVX2(y, x []float32, w []uint16, k, n, j0, j1 int, accumulate bool) {
	rowBlocks8(y, x, w, k, n, j0, j1, accumulate, func(y []float32, row []uint16, s vec8) {
		for j := 0; j < len(y); j += 16 {
			store8(loadBF16x8(row[j:]).MulAdd(s, load8(y[j:])), y[j:])
			store8(loadBF16x8(row[j+8:]).MulAdd(s, load8(y[j+8:])), y[j+8:])
		}
	})
}
