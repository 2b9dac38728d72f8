package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gasplab/gasp/pkg/hf"
)

// pairsCase is a random product for MatMulBF16Pairs: x [m, k], w [k, n] in bfloat16 and in pair layout.
type pairsCase struct {
	m, k, n int
	x, y0   []float32
	w, wp   []uint16
}

func newPairsCase(rng *rand.Rand, m, k, n int) pairsCase {
	c := pairsCase{m: m, k: k, n: n, x: randSlice(rng, m*k), y0: randSlice(rng, m*n), w: make([]uint16, k*n)}
	for i := range c.w {
		c.w[i] = hf.BFloat16(float32(rng.NormFloat64()))
	}
	c.wp = make([]uint16, PairsLen(k, n))
	PairRows(c.wp, c.w, k, n)
	return c
}

// pairsShapes: odd k (a zero pair half), k over several blocks of pair rows, n past the last panel of 32,
// a single row over several of rowPairs's column blocks, and batches that leave rows over after 8 and 4.
var pairsShapes = [][3]int{
	{1, 0, 40}, {5, 0, 40}, {1, 1, 1}, {1, 7, 33}, {2, 64, 64}, {3, 5, 40}, {4, 2*256*2 + 3, 96}, {7, 100, 64}, {13, 40, 96},
	{16, 130, 160}, {1, 300, rowBlockTest + 48}, {9, 600, 33},
}

// Every implementation's MatMulBF16Pairs is within float32 rounding of the float64 sums of the products of
// x rounded to bfloat16 and w; the Go version's sums are those the doc comment states, bit for bit.
func TestMatMulBF16Pairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, sh := range pairsShapes {
		c := newPairsCase(rng, sh[0], sh[1], sh[2])
		for _, acc := range []bool{false, true} {
			want := pairsReference(c, acc)
			for _, im := range implementations() {
				got := append([]float32(nil), c.y0...)
				im.matMulBF16Pairs(got, c.n, c.x, c.wp, c.m, c.k, c.n, acc)
				for i := range got {
					if d := math.Abs(float64(got[i]) - want[i]); d > 1e-5*(1+math.Abs(want[i]))*float64(c.k) {
						t.Fatalf("%s, %d×%d·%d×%d, accumulate %v: y[%d] = %g, want %g", im.name, c.m, c.k, c.k, c.n, acc, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// pairsReference is Σ_p bf16(x[i,p])·w[p,j] in float64, from y0 when accumulate is set.
func pairsReference(c pairsCase, accumulate bool) []float64 {
	y := make([]float64, c.m*c.n)
	for i := range c.m {
		for j := range c.n {
			if accumulate {
				y[i*c.n+j] = float64(c.y0[i*c.n+j])
			}
			for p := range c.k {
				a := hf.BFloat16ToFloat32(hf.BFloat16(c.x[i*c.k+p]))
				y[i*c.n+j] += float64(a) * float64(hf.BFloat16ToFloat32(c.w[p*c.n+j]))
			}
		}
	}
	return y
}

// The vector version's sums are the Go version's, bit for bit: VDPBF16PS adds a pair's second product,
// then its first, each rounded, as the doc comment says (inputs here have no subnormals).
func TestMatMulBF16PairsBits(t *testing.T) {
	if !PairsFast() {
		t.Skip("no AVX512-BF16 kernels on this CPU and build")
	}
	rng := rand.New(rand.NewPCG(13, 14))
	for _, sh := range pairsShapes {
		c := newPairsCase(rng, sh[0], sh[1], sh[2])
		for _, acc := range []bool{false, true} {
			want := append([]float32(nil), c.y0...)
			matMulBF16PairsGeneric(want, c.n, c.x, c.wp, c.m, c.k, c.n, 0, c.n, acc)
			got := append([]float32(nil), c.y0...)
			MatMulBF16Pairs(got, c.n, c.x, c.wp, c.m, c.k, c.n, acc)
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%d×%d·%d×%d, accumulate %v: y[%d] = %g (%#x), Go's sums give %g (%#x)",
						c.m, c.k, c.k, c.n, acc, i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
				}
			}
		}
	}
}

// A row's result is the same, to the bit, alone and in a batch of any size: what lockstep batching needs.
func TestMatMulBF16PairsRowsIndependent(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	k, n := 2*256*2+6, 96
	for _, m := range []int{1, 2, 4, 5, 8, 12, 17} {
		c := newPairsCase(rng, m, k, n)
		for _, im := range implementations() {
			batch := make([]float32, m*n)
			im.matMulBF16Pairs(batch, n, c.x, c.wp, m, k, n, false)
			for i := range m {
				alone := make([]float32, n)
				im.matMulBF16Pairs(alone, n, c.x[i*k:(i+1)*k], c.wp, 1, k, n, false)
				for j := range n {
					if math.Float32bits(alone[j]) != math.Float32bits(batch[i*n+j]) {
						t.Fatalf("%s, batch of %d: row %d column %d: %g alone, %g in the batch", im.name, m, i, j, alone[j], batch[i*n+j])
					}
				}
			}
		}
	}
}

// A product into columns of a wider y (rows ldy apart) is the product alone, in place, and leaves the
// other columns as they were.
func TestMatMulBF16PairsStrided(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	for _, sh := range pairsShapes {
		c := newPairsCase(rng, sh[0], sh[1], sh[2])
		ldy, off := c.n+37, 5
		for _, im := range implementations() {
			for _, acc := range []bool{false, true} {
				want := append([]float32(nil), c.y0...)
				im.matMulBF16Pairs(want, c.n, c.x, c.wp, c.m, c.k, c.n, acc)
				wide := randSlice(rng, c.m*ldy)
				before := append([]float32(nil), wide...)
				for i := range c.m {
					copy(wide[i*ldy+off:], c.y0[i*c.n:(i+1)*c.n])
				}
				im.matMulBF16Pairs(wide[off:], ldy, c.x, c.wp, c.m, c.k, c.n, acc)
				for i := range c.m {
					for j := range ldy {
						got, exp := wide[i*ldy+j], before[i*ldy+j]
						if j >= off && j < off+c.n {
							exp = want[i*c.n+j-off]
						}
						if math.Float32bits(got) != math.Float32bits(exp) {
							t.Fatalf("%s, %d×%d·%d×%d into rows %d apart: y[%d, %d] = %g, want %g", im.name, c.m, c.k, c.k, c.n, ldy, i, j, got, exp)
						}
					}
				}
			}
		}
	}
}

// roundPairs packs as roundPairsGeneric does, for lengths around its blocks of 32; roundBF16 rounds as
// hf.BFloat16 does.
func TestRoundPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	special := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 1.00390625, 1.01171875, 3.3895314e38, float32(math.Inf(1)), 1e-40}
	for _, l := range []int{1, 2, 31, 32, 33, 64, 95} {
		src := randSlice(rng, l)
		copy(src, special)
		for _, v := range src {
			if roundBF16(v) != hf.BFloat16(v) {
				t.Fatalf("roundBF16(%g) = %#x, hf.BFloat16 %#x", v, roundBF16(v), hf.BFloat16(v))
			}
		}
		want, got := make([]uint32, (l+1)/2), make([]uint32, (l+1)/2)
		roundPairsGeneric(want, src)
		roundPairs(got, src)
		for q := range want {
			if got[q] != want[q] {
				t.Fatalf("length %d: pair %d = %#x, want %#x", l, q, got[q], want[q])
			}
		}
	}
}

func TestPairRows(t *testing.T) {
	w := []uint16{1, 2, 3, 4, 5, 6, 7, 8, 9} // [3, 3]
	got := make([]uint16, PairsLen(3, 3))
	PairRows(got, w, 3, 3)
	want := []uint16{1, 4, 2, 5, 3, 6, 7, 0, 8, 0, 9, 0}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("PairRows = %v, want %v", got, want)
		}
	}
}

func TestMatMulBF16PairsPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("MatMulBF16Pairs with w shorter than its pair layout: no panic")
		}
	}()
	MatMulBF16Pairs(make([]float32, 4), 2, make([]float32, 6), make([]uint16, 7), 2, 3, 2, false)
}

// benchBF16 measures, in GFLOP/s, the active implementation's two products over bfloat16 weights:
// MatMulBF16 (x as it is, w widened) and MatMulBF16Pairs (x rounded, VDPBF16PS where the CPU has it).
func benchBF16(b *testing.B, m, k, n int) {
	c := newPairsCase(rand.New(rand.NewPCG(1, 2)), m, k, n)
	y := make([]float32, m*n)
	flops := func(b *testing.B) {
		b.ReportMetric(float64(2*m*k*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	}
	b.Run("widened", func(b *testing.B) {
		for b.Loop() {
			MatMulBF16(y, c.x, c.w, m, k, n, false)
		}
		flops(b)
	})
	b.Run("pairs", func(b *testing.B) {
		for b.Loop() {
			MatMulBF16Pairs(y, n, c.x, c.wp, m, k, n, false)
		}
		flops(b)
	})
}

// A batch of 16 and of 64 through a goroutine's share of a 1B model's 2048 × 2048 projection, and a single
// row through a column block of it.
func BenchmarkBF16x16x2048x1024(b *testing.B) { benchBF16(b, 16, 2048, 1024) }
func BenchmarkBF16x64x2048x1024(b *testing.B) { benchBF16(b, 64, 2048, 1024) }
func BenchmarkBF16x1x2048x2048(b *testing.B)  { benchBF16(b, 1, 2048, 2048) }
