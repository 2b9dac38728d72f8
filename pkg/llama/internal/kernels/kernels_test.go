package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

func randSlice(rng *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(rng.NormFloat64())
	}
	return s
}

// close reports whether got is within tol·(1+|want|) of want, element by element.
func checkClose(t *testing.T, what string, got []float32, want []float64, tol float64) {
	t.Helper()
	for i := range want {
		if d := math.Abs(float64(got[i]) - want[i]); !(d <= tol*(1+math.Abs(want[i]))) {
			t.Fatalf("%s: [%d] = %g, want %g (|Δ| %.3g)", what, i, got[i], want[i], d)
		}
	}
}

// Shapes that exercise every tile and tail: rows not a multiple of 4, columns not of 32 or 16.
var shapes = [][3]int{{1, 1, 1}, {1, 7, 33}, {3, 5, 32}, {4, 16, 64}, {5, 9, 47}, {9, 128, 96}, {64, 128, 131}, {2, 3, 16}, {7, 31, 17}}

func TestMatMul(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sh := range shapes {
		m, k, n := sh[0], sh[1], sh[2]
		x, w, y0 := randSlice(rng, m*k), randSlice(rng, k*n), randSlice(rng, m*n)
		for _, acc := range []bool{false, true} {
			want := make([]float64, m*n)
			for i := range m {
				for j := range n {
					var s float64
					if acc {
						s = float64(y0[i*n+j])
					}
					for p := range k {
						s += float64(x[i*k+p]) * float64(w[p*n+j])
					}
					want[i*n+j] = s
				}
			}
			tol := 4e-7 * math.Sqrt(float64(k+1)) * 4
			y := append([]float32(nil), y0...)
			MatMul(y, x, w, m, k, n, acc)
			checkClose(t, "MatMul", y, want, tol)
			y = append([]float32(nil), y0...)
			matMulGeneric(y, x, w, m, k, n, 0, n, acc)
			checkClose(t, "matMulGeneric", y, want, tol)
		}
	}
}

func TestScoresAndWeightedSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, L := range []int{1, 15, 16, 17, 63, 64, 65, 130, 200} {
		for _, hd := range []int{1, 8, 16, 32, 48, 64, 80, 128} {
			stride := L + 3
			q, kt := randSlice(rng, hd), randSlice(rng, hd*stride)
			want := make([]float64, L)
			for p := range L {
				for d := range hd {
					want[p] += float64(q[d]) * float64(kt[d*stride+p])
				}
			}
			s := make([]float32, L)
			Scores(s, q, kt, stride)
			checkClose(t, "Scores", s, want, 1e-5)
			scoresGeneric(s, q, kt, stride)
			checkClose(t, "scoresGeneric", s, want, 1e-5)

			a, v := randSlice(rng, L), randSlice(rng, L*hd)
			wantO := make([]float64, hd)
			for p := range L {
				for d := range hd {
					wantO[d] += float64(a[p]) * float64(v[p*hd+d])
				}
			}
			out := randSlice(rng, hd)
			WeightedSum(out, a, v)
			checkClose(t, "WeightedSum", out, wantO, 1e-5)
			weightedSumGeneric(out, a, v)
			checkClose(t, "weightedSumGeneric", out, wantO, 1e-5)
		}
	}
}

// TestExp checks e^x against math.Exp to 2 float32 ulps of relative error over [-87, 88], and the clamps.
func TestExp(t *testing.T) {
	var worst float64
	for x := -87.0; x <= 88; x += 0.0137 {
		want := math.Exp(float64(float32(x)))
		got := float64(expGeneric(float32(x)))
		worst = max(worst, math.Abs(got-want)/want)
		sm := []float32{float32(x), 0}
		Softmax(sm) // e^x/(e^x+1) through the vector path's exp when it is in use
		wantS := want / (want + 1)
		if math.Abs(float64(sm[0])-wantS) > 3e-7*math.Max(wantS, 1e-30)+1e-38 {
			t.Fatalf("Softmax([%g, 0])[0] = %g, want %g", x, sm[0], wantS)
		}
	}
	if worst > 2.4e-7 {
		t.Errorf("expGeneric: worst relative error %.3g over [-87, 88]", worst)
	}
	if got := expGeneric(float32(math.Inf(-1))); got > 1.3e-38 {
		t.Errorf("expGeneric(-inf) = %g, want ≤ 1.2e-38", got)
	}
	if got := expGeneric(1000); math.IsInf(float64(got), 0) || got < 1e38 {
		t.Errorf("expGeneric(1000) = %g, want the largest finite value the clamp gives", got)
	}
}

func TestSoftmaxSiLURMSNorm(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 5, 16, 17, 33, 100, 256} {
		s := randSlice(rng, n)
		for i := range s {
			s[i] *= 10
		}
		want := make([]float64, n)
		mx := math.Inf(-1)
		for _, v := range s {
			mx = math.Max(mx, float64(v))
		}
		var sum float64
		for i, v := range s {
			want[i] = math.Exp(float64(v) - mx)
			sum += want[i]
		}
		for i := range want {
			want[i] /= sum
		}
		got := append([]float32(nil), s...)
		Softmax(got)
		checkClose(t, "Softmax", got, want, 1e-6)
		got = append([]float32(nil), s...)
		softmaxGeneric(got)
		checkClose(t, "softmaxGeneric", got, want, 1e-6)

		g, u := randSlice(rng, n), randSlice(rng, n)
		wantG := make([]float64, n)
		for i := range g {
			x := float64(g[i]) * 8
			g[i] = float32(x)
			wantG[i] = x / (1 + math.Exp(-x)) * float64(u[i])
		}
		got = make([]float32, n)
		SiLUMul(got, g, u)
		checkClose(t, "SiLUMul", got, wantG, 1e-6)
		got = append([]float32(nil), g...)
		siluMulGeneric(got, got, u)
		checkClose(t, "siluMulGeneric", got, wantG, 1e-6)

		x, w := randSlice(rng, n), randSlice(rng, n)
		var ss float64
		for _, v := range x {
			ss += float64(v) * float64(v)
		}
		r := 1 / math.Sqrt(ss/float64(n)+1e-5)
		wantN := make([]float64, n)
		for i := range x {
			wantN[i] = float64(x[i]) * r * float64(w[i])
		}
		got = make([]float32, n)
		RMSNorm(got, x, w, 1e-5)
		checkClose(t, "RMSNorm", got, wantN, 1e-6)
		rmsNormGeneric(got, x, w, 1e-5)
		checkClose(t, "rmsNormGeneric", got, wantN, 1e-6)
	}
}

func benchMatMul(b *testing.B, m, k, n int) {
	rng := rand.New(rand.NewPCG(1, 2))
	x, w, y := randSlice(rng, m*k), randSlice(rng, k*n), make([]float32, m*n)
	b.ResetTimer()
	for range b.N {
		MatMul(y, x, w, m, k, n, false)
	}
	b.ReportMetric(float64(2*m*k*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

func BenchmarkMatMul64x128x512(b *testing.B)  { benchMatMul(b, 64, 128, 512) }
func BenchmarkMatMul64x128x2048(b *testing.B) { benchMatMul(b, 64, 128, 2048) }
func BenchmarkMatMul1x128x2048(b *testing.B)  { benchMatMul(b, 1, 128, 2048) }

// TestMatMulColumns checks that products of column ranges put together equal the whole.
func TestMatMulColumns(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	m, k, n := 5, 19, 150
	x, w := randSlice(rng, m*k), randSlice(rng, k*n)
	want := make([]float32, m*n)
	MatMul(want, x, w, m, k, n, false)
	got := make([]float32, m*n)
	for j := 0; j < n; j += 64 {
		MatMulColumns(got, x, w, m, k, n, j, min(j+64, n), false)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("[%d]: columns %g, whole %g", i, got[i], want[i])
		}
	}
}
