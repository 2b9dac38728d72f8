package fuzz

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// This file holds the two statistics a fuzzing evaluation reports beside
// the mean (Klees et al. 2018, "Evaluating Fuzz Testing"; Arcuri and
// Briand 2011): the Mann–Whitney U test, which asks whether one method's
// final coverage over independent trials tends to exceed another's, and
// the Vargha–Delaney Â12 effect size, which says by how much.

// A MannWhitney is the result of a two-sided Mann–Whitney U test of a
// sample x against a sample y.
type MannWhitney struct {
	// U is x's statistic: the number of pairs (x_i, y_j) with x_i > y_j,
	// plus half the number with x_i = y_j.
	U float64
	// P is the two-sided p-value.
	P float64
	// Exact says how P was computed. The rule is scipy.stats.mannwhitneyu's
	// (method "auto"): exactly, from the null distribution of U, when there
	// are no ties and one sample has at most exactMaxN values; otherwise by
	// the normal approximation, with the tie correction of the variance and
	// a continuity correction of 0.5.
	Exact bool
}

// exactMaxN is the largest size of the smaller sample for which the exact
// null distribution is used (scipy's rule; the normal approximation is
// poor below it).
const exactMaxN = 8

// MannWhitneyU runs the two-sided Mann–Whitney U test of x against y. Both
// samples must be non-empty and hold no NaN.
func MannWhitneyU(x, y []float64) (MannWhitney, error) {
	if len(x) == 0 || len(y) == 0 {
		return MannWhitney{}, fmt.Errorf("Mann-Whitney U test: empty sample (%d and %d values)", len(x), len(y))
	}
	ranks, ties, err := midranks(append(append([]float64{}, x...), y...))
	if err != nil {
		return MannWhitney{}, err
	}
	n1, n2 := float64(len(x)), float64(len(y))
	r1 := 0.0
	for _, r := range ranks[:len(x)] {
		r1 += r
	}
	u1 := r1 - n1*(n1+1)/2
	// The larger of the two U statistics: its upper tail is the two-sided
	// test's half (the null distribution is symmetric about n1·n2/2).
	big := max(u1, n1*n2-u1)
	res := MannWhitney{U: u1}
	if ties == 0 && min(len(x), len(y)) <= exactMaxN {
		res.Exact = true
		res.P = 2 * exactUpperTail(len(x), len(y), int(math.Round(big)))
	} else {
		n := n1 + n2
		sigma := math.Sqrt(n1 * n2 / 12 * ((n + 1) - ties/(n*(n-1))))
		if sigma == 0 { // every value is the same: no evidence of a difference
			res.P = 1
		} else {
			z := (big - n1*n2/2 - 0.5) / sigma
			res.P = math.Erfc(z / math.Sqrt2) // 2·(1 − Φ(z))
		}
	}
	res.P = min(res.P, 1)
	return res, nil
}

// midranks returns the ranks of xs (1-based; tied values share the mean of
// their ranks) and Σ(t³ − t) over the groups of t tied values.
func midranks(xs []float64) ([]float64, float64, error) {
	idx := make([]int, len(xs))
	for i, x := range xs {
		if math.IsNaN(x) {
			return nil, 0, errors.New("Mann-Whitney U test: a value is NaN")
		}
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return xs[idx[a]] < xs[idx[b]] })
	ranks := make([]float64, len(xs))
	ties := 0.0
	for i := 0; i < len(idx); {
		j := i
		for j < len(idx) && xs[idx[j]] == xs[idx[i]] {
			j++
		}
		for _, k := range idx[i:j] {
			ranks[k] = float64(i+j+1) / 2 // mean of ranks i+1 … j
		}
		t := float64(j - i)
		ties += t*t*t - t
		i = j
	}
	return ranks, ties, nil
}

// exactUpperTail returns P(U ≥ u) under the null hypothesis for samples of
// sizes m and n without ties: the number of the C(m+n, m) equally likely
// orderings of the two samples whose U is at least u, over C(m+n, m).
func exactUpperTail(m, n, u int) float64 {
	counts := uCounts(m, n)
	total, tail := 0.0, 0.0
	for v, c := range counts {
		total += c
		if v >= u {
			tail += c
		}
	}
	return tail / total
}

// uCounts returns, for v = 0 … m·n, how many orderings of m values of x and
// n values of y have U = v, by the recursion on the largest value: it is
// an x (adding n to U: it exceeds every y) or a y (adding nothing).
func uCounts(m, n int) []float64 {
	// prev[j] and cur[j] are the counts for (i-1, j) and (i, j).
	prev := make([][]float64, n+1)
	for j := range prev {
		prev[j] = []float64{1} // i = 0: one ordering, U = 0
	}
	for i := 1; i <= m; i++ {
		cur := make([][]float64, n+1)
		cur[0] = []float64{1} // j = 0: one ordering, U = 0
		for j := 1; j <= n; j++ {
			c := make([]float64, i*j+1)
			for v, k := range prev[j] { // the largest is an x: U grows by j
				c[v+j] += k
			}
			for v, k := range cur[j-1] { // the largest is a y
				c[v] += k
			}
			cur[j] = c
		}
		prev = cur
	}
	return prev[n]
}

// VarghaDelaneyA12 returns Â12 of x against y: the probability that a
// value drawn from x exceeds one drawn from y, ties counting half, as the
// samples estimate it (U/(n1·n2)). 0.5 is no effect; Vargha and Delaney
// (2000) call |Â12 − 0.5| below 0.06 negligible, from 0.06 small, from
// 0.14 medium, from 0.21 large (EffectSize). NaN if a sample is empty.
func VarghaDelaneyA12(x, y []float64) float64 {
	if len(x) == 0 || len(y) == 0 {
		return math.NaN()
	}
	wins := 0.0
	for _, a := range x {
		for _, b := range y {
			switch {
			case a > b:
				wins++
			case a == b:
				wins += 0.5
			}
		}
	}
	return wins / float64(len(x)*len(y))
}

// EffectSize names the magnitude of an Â12 by Vargha and Delaney's
// thresholds: negligible, small, medium or large ("" for NaN).
func EffectSize(a12 float64) string {
	d := math.Abs(a12 - 0.5)
	switch {
	case math.IsNaN(d):
		return ""
	case d >= 0.21:
		return "large"
	case d >= 0.14:
		return "medium"
	case d >= 0.06:
		return "small"
	}
	return "negligible"
}
