package kernels

import (
	"fmt"
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

// Shapes that exercise every tile and tail: rows not a multiple of 4, columns not of 32 or 16, k past
// the AVX-512 kernel's block of 256 rows of w, a single row past its block of 2048 columns.
var shapes = [][3]int{{7, 0, 48}, {1, 1, 1}, {1, 7, 33}, {1, 6, 2*rowBlockTest + 64 + 16 + 3}, {9, 600, 70}, {6, 513, 32}, {3, 5, 32}, {4, 16, 64}, {5, 9, 47}, {9, 128, 96}, {64, 128, 131}, {2, 3, 16}, {7, 31, 17}, {13, 40, 96}}

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
			for _, im := range implementations() {
				y = append([]float32(nil), y0...)
				im.matMul(y, x, w, m, k, n, 0, n, acc)
				checkClose(t, im.name+" matMul", y, want, tol)
			}
		}
	}
}

// TestWeightedSum covers both of attention's shapes: few long rows (a query's scores: hd rows of the
// transposed keys, as many columns as positions) and many short ones (its output: a row of hd values a
// position), for every count of columns that exercises the blocks and the tail.
func TestWeightedSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, rows := range []int{0, 1, 3, 15, 16, 17, 64, 130, 200} {
		for _, cols := range []int{1, 7, 8, 16, 17, 32, 33, 48, 64, 80, 100, 128, 200} {
			stride := cols + rows%5
			a, v := randSlice(rng, rows), randSlice(rng, rows*stride)
			want := make([]float64, cols)
			for p := range rows {
				for d := range cols {
					want[d] += float64(a[p]) * float64(v[p*stride+d])
				}
			}
			out := randSlice(rng, cols)
			WeightedSum(out, a, v, stride)
			checkClose(t, fmt.Sprintf("WeightedSum %d rows × %d", rows, cols), out, want, 1e-5)
			for _, im := range implementations() {
				if rows == 0 {
					break // WeightedSum's own case
				}
				out := randSlice(rng, cols)
				im.weightedSum(out, a, v, stride)
				checkClose(t, fmt.Sprintf("%s weightedSum %d rows × %d", im.name, rows, cols), out, want, 1e-5)
			}
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
		for _, im := range implementations() {
			sm := make([]float32, 16) // e^x/(e^x+15) through the vector exp where there is one
			sm[0] = float32(x)
			im.softmax(sm)
			wantS := want / (want + 15)
			if math.Abs(float64(sm[0])-wantS) > 1e-6*math.Max(wantS, 1e-30)+1e-38 {
				t.Fatalf("%s softmax([%g, 0...])[0] = %g, want %g", im.name, x, sm[0], wantS)
			}
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
		for _, im := range implementations() {
			got := append([]float32(nil), s...)
			im.softmax(got)
			checkClose(t, im.name+" softmax", got, want, 1e-6)
		}

		g, u := randSlice(rng, n), randSlice(rng, n)
		wantG := make([]float64, n)
		for i := range g {
			x := float64(g[i]) * 8
			g[i] = float32(x)
			wantG[i] = x / (1 + math.Exp(-x)) * float64(u[i])
		}
		for _, im := range implementations() {
			got := make([]float32, n)
			im.siluMul(got, g, u)
			checkClose(t, im.name+" siluMul", got, wantG, 1e-6)
			got = append([]float32(nil), g...)
			im.siluMul(got, got, u) // in place
			checkClose(t, im.name+" siluMul in place", got, wantG, 1e-6)
		}

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
		for _, im := range implementations() {
			got := make([]float32, n)
			im.rmsNorm(got, x, w, 1e-5)
			checkClose(t, im.name+" rmsNorm", got, wantN, 1e-6)
		}
	}
}

// benchMatMul measures every implementation's product in GFLOP/s.
func benchMatMul(b *testing.B, m, k, n int) {
	rng := rand.New(rand.NewPCG(1, 2))
	x, w, y := randSlice(rng, m*k), randSlice(rng, k*n), make([]float32, m*n)
	for _, im := range implementations() {
		b.Run(im.name, func(b *testing.B) {
			for b.Loop() {
				im.matMul(y, x, w, m, k, n, 0, n, false)
			}
			b.ReportMetric(float64(2*m*k*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

func BenchmarkMatMul64x128x512(b *testing.B)  { benchMatMul(b, 64, 128, 512) }
func BenchmarkMatMul64x128x2048(b *testing.B) { benchMatMul(b, 64, 128, 2048) }
func BenchmarkMatMul1x128x2048(b *testing.B)  { benchMatMul(b, 1, 128, 2048) }

// A batch of 16 through a 1B model's 2048 × 2048 projection (one goroutine's share of it is half).
func BenchmarkMatMul16x2048x1024(b *testing.B) { benchMatMul(b, 16, 2048, 1024) }

// A single row through a 1B model's column block of 2048 columns with its 8192 rows (the MLP's down
// projection): a batch-1 step, bound by reading w (64 MB, from memory).
func BenchmarkMatMul1x8192x2048(b *testing.B) { benchMatMul(b, 1, 8192, 2048) }

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

// TestImplementations: this CPU's implementations are listed fastest first, the active one is the first,
// and Use switches between them and refuses a name it does not have.
func TestImplementations(t *testing.T) {
	ims := implementations()
	if ims[len(ims)-1].name != portable.name || Name() != ims[0].name || Fast() != (len(ims) > 1) {
		t.Fatalf("implementations %v, active %q", len(ims), Name())
	}
	for _, im := range ims {
		prev, err := Use(im.name)
		if err != nil || Name() != im.name {
			t.Fatalf("Use(%q): %v, now %q", im.name, err, Name())
		}
		if _, err := Use(prev); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Use("SSE9"); err == nil {
		t.Error("Use of an unknown implementation: no error")
	}
	t.Logf("implementations: %d, active %q", len(ims), Name())
}

// FuzzKernels compares every implementation with the portable one on random shapes: products (with column
// ranges and accumulation) and weighted sums, to float32 rounding.
func FuzzKernels(f *testing.F) {
	f.Add(uint8(5), uint8(9), uint8(47), uint8(3), uint64(1))
	f.Add(uint8(64), uint8(128), uint8(131), uint8(0), uint64(2))
	f.Fuzz(func(t *testing.T, m, k, n, stridePad uint8, seed uint64) {
		M, K, N := int(m%70)+1, int(k%140)+1, int(n%200)+1
		rng := rand.New(rand.NewPCG(seed, 9))
		x, w, y0 := randSlice(rng, M*K), randSlice(rng, K*N), randSlice(rng, M*N)
		j0 := int(seed%4) * ColumnBlock
		if j0 > N {
			j0 = 0
		}
		want := append([]float32(nil), y0...)
		matMulGeneric(want, x, w, M, K, N, j0, N, seed%2 == 0)
		ref := make([]float64, M*N)
		for i, v := range want {
			ref[i] = float64(v)
		}
		tol := 4e-7 * math.Sqrt(float64(K+1)) * 8
		stride := N + int(stridePad%7)
		v := randSlice(rng, K*stride)
		a := x[:K]
		ws := make([]float32, N)
		weightedSumGeneric(ws, a, v, stride)
		refW := make([]float64, N)
		for i, s := range ws {
			refW[i] = float64(s)
		}
		for _, im := range implementations() {
			y := append([]float32(nil), y0...)
			im.matMul(y, x, w, M, K, N, j0, N, seed%2 == 0)
			checkClose(t, im.name+" matMul", y, ref, tol)
			out := make([]float32, N)
			im.weightedSum(out, a, v, stride)
			checkClose(t, im.name+" weightedSum", out, refW, tol)
		}
	})
}

// rowBlockTest is more than any implementation's column block for single rows (rowAVX512's 2048).
const rowBlockTest = 2048

// A row's product is the same to the bit whether it is computed alone (a batch-1 decode step, which the
// AVX-512 kernels stream row by row) or among other rows (a batch's tiles): sessions decode the same
// tokens whatever the batch.
func TestMatMulRowAlone(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	m, k, n := 5, 600, 2*rowBlockTest+48+5 // k past kBlock and kBlockAVX2: the tiles sum in blocks, the row in one
	x, w, y0 := randSlice(rng, m*k), randSlice(rng, k*n), randSlice(rng, m*n)
	for _, im := range implementations() {
		for _, acc := range []bool{false, true} {
			all := append([]float32(nil), y0...)
			im.matMul(all, x, w, m, k, n, 0, n, acc)
			for i := range m {
				one := append([]float32(nil), y0[i*n:(i+1)*n]...)
				im.matMul(one, x[i*k:(i+1)*k], w, 1, k, n, 0, n, acc)
				for j := range n {
					if one[j] != all[i*n+j] {
						t.Fatalf("%s, accumulate %v: row %d column %d alone %g, among %d rows %g", im.name, acc, i, j, one[j], m, all[i*n+j])
					}
				}
			}
		}
	}
}
