package logspace

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSumAdd compares Sum and Add with the direct log(Σ exp) where that is
// representable, with a shift identity where it overflows or underflows,
// and checks the infinities and NaN.
func TestSumAdd(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		x := make([]float64, 1+rng.IntN(6))
		direct := 0.0
		for i := range x {
			x[i] = 20 * (rng.Float64() - 0.7)
			direct += math.Exp(x[i])
		}
		if got, want := Sum(x), math.Log(direct); math.Abs(got-want) > 1e-12*max(1, math.Abs(want)) {
			t.Fatalf("Sum(%v) = %v, want %v", x, got, want)
		}
		if got, want := Mean(x), math.Log(direct/float64(len(x))); math.Abs(got-want) > 1e-12*max(1, math.Abs(want)) {
			t.Fatalf("Mean(%v) = %v, want %v", x, got, want)
		}
		a, b := x[0], 5*(rng.Float64()-0.5)
		if got, want := Add(a, b), math.Log(math.Exp(a)+math.Exp(b)); math.Abs(got-want) > 1e-12*max(1, math.Abs(want)) {
			t.Fatalf("Add(%v, %v) = %v, want %v", a, b, got, want)
		}
		// Shifted by ±1000, where exp overflows or underflows: log Σ exp(x+c) = c + log Σ exp(x).
		for _, c := range []float64{1000, -1000} {
			y := make([]float64, len(x))
			for i := range x {
				y[i] = x[i] + c
			}
			if got, want := Sum(y), c+Sum(x); math.Abs(got-want) > 1e-9 {
				t.Fatalf("Sum shifted by %v: %v, want %v", c, got, want)
			}
			if got, want := Mean(y), c+Mean(x); math.Abs(got-want) > 1e-9 {
				t.Fatalf("Mean shifted by %v: %v, want %v", c, got, want)
			}
			if got, want := Add(a+c, b+c), c+Add(a, b); math.Abs(got-want) > 1e-9 {
				t.Fatalf("Add shifted by %v: %v, want %v", c, got, want)
			}
		}
	}
	inf := math.Inf(1)
	for _, c := range []struct {
		x          []float64
		want, mean float64
	}{
		{nil, -inf, -inf}, {[]float64{-inf, -inf}, -inf, -inf}, {[]float64{-inf, 0}, 0, -math.Ln2}, {[]float64{1, inf}, inf, inf},
	} {
		if got := Sum(c.x); got != c.want {
			t.Errorf("Sum(%v) = %v, want %v", c.x, got, c.want)
		}
		if got := Mean(c.x); got != c.mean {
			t.Errorf("Mean(%v) = %v, want %v", c.x, got, c.mean)
		}
	}
	if !math.IsNaN(Sum([]float64{0, math.NaN()})) {
		t.Error("Sum with a NaN is not NaN")
	}
	if Add(-inf, -inf) != -inf || Add(-inf, 2) != 2 || Add(2, -inf) != 2 || Add(inf, 0) != inf {
		t.Error("Add with infinities")
	}
}
