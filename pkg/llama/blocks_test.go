package llama

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gasplab/gasp/pkg/llama/internal/kernels"
)

// TestBlockWidth checks that column blocks are multiples of the kernels' column block, at most maxBlock
// wide, and as many as a multiple of the goroutines where the columns allow.
func TestBlockWidth(t *testing.T) {
	for _, threads := range []int{1, 2, 3, 16} {
		for _, n := range []int{1, 31, 64, 512, 1536, 2048, 3072, 8960, 17920, 128256, 151936} {
			w := blockWidth(n, threads)
			blocks := (n + w - 1) / w
			if w%kernels.ColumnBlock != 0 || w > maxBlock || w <= 0 {
				t.Errorf("blockWidth(%d, %d) = %d", n, threads, w)
			}
			if n >= threads*maxBlock && blocks%threads != 0 {
				t.Errorf("blockWidth(%d, %d) = %d: %d blocks, not a multiple of the goroutines", n, threads, w, blocks)
			}
		}
	}
}

// TestBlockedProduct checks that a product over a matrix in column blocks, its blocks shared among
// goroutines, is bit for bit kernels.MatMul over the plain row-major transpose, in float32 and bfloat16 (and
// kernels.MatMulBF16Pairs in pair layout, its blocks filled in place), for one row (a batch-1 step) and
// several, with and without accumulation.
func TestBlockedProduct(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct{ m, k, n, threads int }{
		{1, 64, 96, 2}, {1, 256, 4160, 2}, {1, 300, 4100, 3}, {5, 64, 2080, 2}, {8, 256, 4160, 2}, {16, 256, 2080, 3}, {3, 33, 70, 1},
	} {
		// The checkpoint's layout: two matrices [out_i, k], side by side in the product's [k, n].
		n1 := tc.n / 3
		a, b := randomFloats(r, n1*tc.k), randomFloats(r, (tc.n-n1)*tc.k)
		wt := make([]float32, tc.k*tc.n) // [k, n], plain row-major: the reference layout
		for p := range tc.k {
			for c := range tc.n {
				if c < n1 {
					wt[p*tc.n+c] = a[c*tc.k+p]
				} else {
					wt[p*tc.n+c] = b[(c-n1)*tc.k+p]
				}
			}
		}
		x, y0 := randomFloats(r, tc.m*tc.k), randomFloats(r, tc.m*tc.n)
		c := &cpuModel{threads: tc.threads}
		for _, mode := range []string{"f32", "bf16", "pairs"} {
			ma, mb := matrix{f32: a}, matrix{f32: b}
			if mode != "f32" {
				ma, mb = roundedMatrix(a), roundedMatrix(b)
			}
			w := sideBySide(tc.k, tc.threads, ma, mb).inPairs(tc.k, mode == "pairs")
			for _, acc := range []bool{false, true} {
				want, got := append([]float32(nil), y0...), append([]float32(nil), y0...)
				plainProduct(want, x, wt, tc.m, tc.k, tc.n, acc, mode)
				c.matMul(got, x, w, tc.m, tc.k, tc.n, acc)
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("%+v %s accumulate %v: y[%d] = %g, want %g (block %d)", tc, mode, acc, i, got[i], want[i], w.block)
					}
				}
			}
		}
	}
}

// plainProduct is the product over wt, [k, n] plain row-major, as mode stores it: kernels.MatMul in
// float32, over wt rounded to bfloat16 and widened, or kernels.MatMulBF16Pairs over it in pair layout.
func plainProduct(y, x, wt []float32, m, k, n int, accumulate bool, mode string) {
	switch mode {
	case "f32":
		kernels.MatMul(y, x, wt, m, k, n, accumulate)
	case "bf16":
		kernels.MatMul(y, x, widened(roundedMatrix(wt).bf16), m, k, n, accumulate)
	default:
		wp := make([]uint16, kernels.PairsLen(k, n))
		kernels.PairRows(wp, roundedMatrix(wt).bf16, k, n)
		kernels.MatMulBF16Pairs(y, n, x, wp, m, k, n, accumulate)
	}
}

func randomFloats(r *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(r.NormFloat64())
	}
	return s
}

func widened(b []uint16) []float32 {
	s := make([]float32, len(b))
	for i, h := range b {
		s[i] = math.Float32frombits(uint32(h) << 16)
	}
	return s
}
