// Package logspace adds probabilities held as natural logarithms, the form
// the samplers, MH and the analysis keep them in, without overflow or
// underflow: the largest term is factored out before exponentiating.
package logspace

import "math"

// Sum returns log Σ exp(x[i]): −Inf for no terms or all −Inf, +Inf if a
// term is +Inf, NaN if a term is NaN.
func Sum(x []float64) float64 {
	top, s := scaled(x)
	if s == 0 {
		return top
	}
	return top + math.Log(s)
}

// Mean returns log((1/n) Σ exp(x[i])) for the n terms of x, with Sum's
// infinities and NaN.
func Mean(x []float64) float64 {
	top, s := scaled(x)
	if s == 0 {
		return top
	}
	return top + math.Log(s/float64(len(x)))
}

// scaled returns the largest term top and Σ exp(x[i] − top), or top and 0
// when top is infinite (or there are no terms: top is −Inf).
func scaled(x []float64) (top, s float64) {
	top = math.Inf(-1)
	for _, v := range x {
		top = max(top, v)
	}
	if math.IsInf(top, 0) {
		return top, 0
	}
	for _, v := range x {
		s += math.Exp(v - top)
	}
	return top, s
}

// Add returns log(exp(a) + exp(b)).
func Add(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if math.IsInf(b, -1) {
		return a
	}
	return a + math.Log1p(math.Exp(b-a))
}
