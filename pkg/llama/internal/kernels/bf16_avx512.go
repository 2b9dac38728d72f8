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
			panelTiles(y, x, panel[:], 0, 32, j, m, k, n, p0, p1, acc)
		}
	}
	if full < j1 {
		matMulBF16Generic(y, x, w, m, k, n, full, j1, accumulate)
	}
}

// rowFMA sets y[j] += s·row[j], 16 at a time (len(y) = len(row), a multiple of 16). It walks both through
// array pointers, which the compiler checks once a step of 64 rather than at every load: with indexed
// slices the checks and their spilled bounds outnumbered the vector instructions, and the loop ran at half
// the float32 one's speed.
func rowFMA(y []float32, row []uint16, s vec) {
	for len(y) >= 64 {
		yp, wp := (*[64]float32)(y), (*[64]uint16)(row)
		fma16((*[16]float32)(yp[0:16]), (*[16]uint16)(wp[0:16]), s)
		fma16((*[16]float32)(yp[16:32]), (*[16]uint16)(wp[16:32]), s)
		fma16((*[16]float32)(yp[32:48]), (*[16]uint16)(wp[32:48]), s)
		fma16((*[16]float32)(yp[48:64]), (*[16]uint16)(wp[48:64]), s)
		y, row = y[64:], row[64:]
	}
	for len(y) >= 16 {
		fma16((*[16]float32)(y), (*[16]uint16)(row), s)
		y, row = y[16:], row[16:]
	}
}

func fma16(y *[16]float32, w *[16]uint16, s vec) {
	archsimd.LoadUint16x16(w).ExtendToUint32().ShiftAllLeft(16).AsFloat32x16().MulAdd(s, archsimd.LoadFloat32x16(y)).Store(y)
}

// rowBF16AVX512 is rowAVX512 over w in bfloat16: half the bytes to read.
func rowBF16AVX512(y, x []float32, w []uint16, k, n, j0, j1 int, accumulate bool) {
	full := j0 + (j1-j0)&^31
	rowBlocks(y, x, w, k, n, j0, full, accumulate, rowFMA)
	if full < j1 {
		matMulBF16Generic(y, x, w, 1, k, n, full, j1, accumulate)
	}
}
