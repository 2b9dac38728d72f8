package exact

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/gasplab/gasp/pkg/sample"
)

// ChiResult is the outcome of a chi-square goodness-of-fit test.
type ChiResult struct {
	N       int     // draws
	Stat    float64 // Pearson's X²
	DF      int     // degrees of freedom after pooling
	P       float64 // p-value: the probability of an X² this large under the null
	Outside int     // draws outside the support of the expected distribution
}

func (r ChiResult) String() string {
	return fmt.Sprintf("N=%d X²=%.1f df=%d p=%.3g", r.N, r.Stat, r.DF, r.P)
}

// ChiSquare tests observed counts against probabilities probs (summing to
// 1). Cells expected fewer than 5 draws are pooled into one cell, itself
// merged into the smallest other cell if still under 5. Draws in cells of
// probability 0 make the p-value 0.
func ChiSquare(counts []int, probs []float64) ChiResult {
	n := 0
	for _, c := range counts {
		n += c
	}
	r := ChiResult{N: n}
	type cell struct{ obs, exp float64 }
	var cells []cell
	var pool cell
	for i, c := range counts {
		e := probs[i] * float64(n)
		if probs[i] == 0 {
			r.Outside += c
			continue
		}
		if e < 5 {
			pool.obs += float64(c)
			pool.exp += e
			continue
		}
		cells = append(cells, cell{float64(c), e})
	}
	if pool.exp > 0 {
		if pool.exp < 5 && len(cells) > 0 {
			i := 0
			for j := range cells {
				if cells[j].exp < cells[i].exp {
					i = j
				}
			}
			cells[i].obs += pool.obs
			cells[i].exp += pool.exp
		} else {
			cells = append(cells, pool)
		}
	}
	for _, c := range cells {
		r.Stat += (c.obs - c.exp) * (c.obs - c.exp) / c.exp
	}
	r.DF = len(cells) - 1
	switch {
	case r.Outside > 0:
		r.Stat, r.P = math.Inf(1), 0
	case r.DF <= 0:
		r.P = 1
	default:
		r.P = ChiSquareSF(r.Stat, r.DF)
	}
	return r
}

// Test tests records against distribution dist over l's sentences; records
// outside the language count as Outside and fail the test.
func (l *Lang) Test(recs []*sample.Record, dist []float64) ChiResult {
	counts, outside := l.Counts(recs)
	r := ChiSquare(counts, dist)
	r.N += outside
	if outside > 0 {
		r.Outside += outside
		r.Stat, r.P = math.Inf(1), 0
	}
	return r
}

// ChiSquareSF returns P(X > x) for X chi-square with df degrees of freedom:
// the regularized upper incomplete gamma function Q(df/2, x/2).
func ChiSquareSF(x float64, df int) float64 {
	if x <= 0 {
		return 1
	}
	return gammaQ(float64(df)/2, x/2)
}

// gammaQ is the regularized upper incomplete gamma function, by its series
// below a+1 and its continued fraction above (Numerical Recipes §6.2).
func gammaQ(a, x float64) float64 {
	lg, _ := math.Lgamma(a)
	front := math.Exp(-x + a*math.Log(x) - lg)
	if x < a+1 {
		sum, term := 1/a, 1/a
		for n := 1; n < 10000; n++ {
			term *= x / (a + float64(n))
			sum += term
			if math.Abs(term) < math.Abs(sum)*1e-16 {
				break
			}
		}
		return max(0, 1-front*sum)
	}
	const tiny = 1e-300
	b := x + 1 - a
	c := 1 / tiny
	d := 1 / b
	h := d
	for i := 1; i < 10000; i++ {
		an := -float64(i) * (float64(i) - a)
		b += 2
		d = an*d + b
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = b + an/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < 1e-16 {
			break
		}
	}
	return front * h
}

// Perturb returns a copy of dist with mass delta moved from its most
// probable sentence to its second most probable one: a distribution at TV
// distance delta, for checking that a test can tell the two apart.
func Perturb(dist []float64, delta float64) []float64 {
	order := make([]int, len(dist))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(dist[b], dist[a]) }) // most probable first
	out := slices.Clone(dist)
	out[order[0]] -= delta
	out[order[1]] += delta
	return out
}
