package kernels

import "math"

// widen sets dst[i] to src[i] widened to float32.
func widen(dst []float32, src []uint16) {
	for i, h := range src[:len(dst)] {
		dst[i] = math.Float32frombits(uint32(h) << 16)
	}
}

// matMulBF16Generic is matMulGeneric over w widened a row at a time: each y[i, j] is the same sum, over p in
// order from y's value or 0, so the bits are those of matMulGeneric on the widened matrix.
func matMulBF16Generic(y, x []float32, w []uint16, m, k, n, j0, j1 int, accumulate bool) {
	if !accumulate {
		for i := range m {
			clear(y[i*n+j0 : i*n+j1])
		}
	}
	row := make([]float32, j1-j0)
	for p := range k {
		widen(row, w[p*n+j0:p*n+j1])
		for i := range m {
			a, yi := x[i*k+p], y[i*n+j0:i*n+j1]
			for j, v := range row {
				yi[j] += a * v
			}
		}
	}
}
