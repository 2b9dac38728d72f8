package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gasplab/gasp/pkg/hf"
)

// Every implementation's bfloat16 product equals, bit for bit, its float32 product over the weights widened:
// the sums are the same, in the same order. Shapes as TestMatMul's, and k over several of the AVX-512
// kernel's blocks of rows, a single row over its column block, and column ranges that start past 0.
func TestMatMulBF16(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	bf16Shapes := append(shapes, [3]int{5, 3*256 + 7, 100}, [3]int{1, 300, rowBlockTest + 48})
	for _, sh := range bf16Shapes {
		m, k, n := sh[0], sh[1], sh[2]
		x, y0 := randSlice(rng, m*k), randSlice(rng, m*n)
		w := make([]uint16, k*n)
		wide := make([]float32, k*n)
		for i := range w {
			w[i] = hf.BFloat16(float32(rng.NormFloat64()))
			wide[i] = hf.BFloat16ToFloat32(w[i])
		}
		for _, im := range implementations() {
			for _, acc := range []bool{false, true} {
				for _, j0 := range []int{0, ColumnBlock} {
					if j0 > n {
						continue
					}
					want := append([]float32(nil), y0...)
					im.matMul(want, x, wide, m, k, n, j0, n, acc)
					got := append([]float32(nil), y0...)
					im.matMulBF16(got, x, w, m, k, n, j0, n, acc)
					for i := range got {
						if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
							t.Fatalf("%s, %d×%d·%d×%d, columns from %d, accumulate %v: y[%d] = %g, want %g (the float32 product over the widened weights)",
								im.name, m, k, k, n, j0, acc, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}

func TestMatMulBF16Panics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("MatMulBF16 with w shorter than k·n: no panic")
		}
	}()
	MatMulBF16(make([]float32, 4), make([]float32, 4), make([]uint16, 3), 2, 2, 2, false)
}
