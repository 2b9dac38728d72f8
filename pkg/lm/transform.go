package lm

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Transform maps a model's logits to the log-probabilities of the
// distribution P that samplers sample from and score with: divide by the
// temperature, keep the top-k logits, keep the top-p nucleus, softmax.
// The zero value is the identity (a plain softmax).
type Transform struct {
	// Temperature divides the logits; 0 means 1. Greedy decoding is not
	// offered: it is not a distribution.
	Temperature float64
	// TopK keeps the TopK largest logits and every logit tied with the
	// smallest of them (as Hugging Face does); 0 means off.
	TopK int
	// TopP keeps the smallest set of most probable tokens whose mass
	// reaches TopP: a token is kept iff the mass of the tokens before it,
	// in order of decreasing probability (ties by increasing id), is below
	// TopP. 0 or 1 means off.
	TopP float64
}

// Validate reports whether the parameters are in range.
func (t Transform) Validate() error {
	switch {
	case t.Temperature < 0 || math.IsNaN(t.Temperature) || math.IsInf(t.Temperature, 0):
		return fmt.Errorf("lm: temperature %v is not a positive number", t.Temperature)
	case t.TopK < 0:
		return fmt.Errorf("lm: top-k %d is negative", t.TopK)
	case t.TopP < 0 || t.TopP > 1 || math.IsNaN(t.TopP):
		return fmt.Errorf("lm: top-p %v is outside [0, 1]", t.TopP)
	}
	return nil
}

// String describes the transform, e.g. "T=1 top-k=off top-p=0.9".
func (t Transform) String() string {
	temp := t.Temperature
	if temp == 0 {
		temp = 1
	}
	k, p := "off", "off"
	if t.TopK > 0 {
		k = fmt.Sprint(t.TopK)
	}
	if t.TopP > 0 && t.TopP < 1 {
		p = fmt.Sprint(t.TopP)
	}
	return fmt.Sprintf("T=%g top-k=%s top-p=%s", temp, k, p)
}

// LogProbs writes the log-probabilities of P given logits into dst (grown
// as needed) and returns it. Removed tokens get -Inf. NaN logits count as
// -Inf. If every logit is -Inf, so is every log-probability.
func (t Transform) LogProbs(logits []float32, dst []float64) []float64 {
	dst, _ = t.Probs(logits, dst, nil)
	return dst
}

// Probs is LogProbs that also returns the probabilities, in p (grown as
// needed; nil skips them), computing each exponential once.
func (t Transform) Probs(logits []float32, lp, p []float64) ([]float64, []float64) {
	n := len(logits)
	lp = slices.Grow(lp[:0], n)[:n]
	temp := t.Temperature
	if temp == 0 {
		temp = 1
	}
	overflow := false
	for i, l := range logits {
		x := float64(l) / temp
		if math.IsNaN(x) {
			x = math.Inf(-1)
		}
		overflow = overflow || math.IsInf(x, 0) && !math.IsInf(float64(l), 0)
		lp[i] = x
	}
	if overflow {
		shiftedDivide(logits, lp, temp)
	}
	if t.TopK > 0 && t.TopK < n {
		kth := kthLargest(lp, t.TopK)
		for i, x := range lp {
			if x < kth {
				lp[i] = math.Inf(-1)
			}
		}
	}
	if t.TopP > 0 && t.TopP < 1 {
		logSoftmax(lp, nil)
		topP(lp, t.TopP)
	}
	if p != nil {
		p = slices.Grow(p[:0], n)[:n]
	}
	logSoftmax(lp, p)
	return lp, p
}

// shiftedDivide sets x to (logits − max)/temp: the same distribution as
// logits/temp, which overflows at a small temperature (+Inf − +Inf is NaN);
// shifted, the largest logit is 0 and the others at most −Inf.
func shiftedDivide(logits []float32, x []float64, temp float64) {
	top := math.Inf(-1)
	for _, l := range logits {
		if !math.IsNaN(float64(l)) {
			top = max(top, float64(l))
		}
	}
	for i, l := range logits {
		x[i] = (float64(l) - top) / temp
		if math.IsNaN(x[i]) {
			x[i] = math.Inf(-1)
		}
	}
}

// logSoftmax normalises x in place and, if p is not nil, writes exp(x) to
// it.
func logSoftmax(x, p []float64) {
	m := math.Inf(-1)
	for _, v := range x {
		m = max(m, v)
	}
	if math.IsInf(m, -1) {
		clear(p)
		return
	}
	s := 0.0
	for i, v := range x {
		e := math.Exp(v - m)
		if p != nil {
			p[i] = e
		}
		s += e
	}
	z := m + math.Log(s)
	for i := range x {
		x[i] -= z
	}
	if p != nil {
		for i := range p {
			p[i] /= s
		}
	}
}

// kthLargest returns the k-th largest value of x (1 ≤ k ≤ len(x)) by
// quickselect on a copy.
func kthLargest(x []float64, k int) float64 {
	a := slices.Clone(x)
	lo, hi, want := 0, len(a)-1, k-1 // want: index in decreasing order
	for lo < hi {
		p := a[lo+(hi-lo)/2]
		i, j := lo, hi
		for i <= j {
			for a[i] > p {
				i++
			}
			for a[j] < p {
				j--
			}
			if i <= j {
				a[i], a[j] = a[j], a[i]
				i++
				j--
			}
		}
		switch {
		case want <= j:
			hi = j
		case want >= i:
			lo = i
		default:
			return a[want]
		}
	}
	return a[want]
}

// topP sets to -Inf the log-probabilities outside the nucleus of mass p.
// Only tokens at least eps as probable as the most probable one are sorted:
// if they already hold mass p, every kept token is among them (a less
// probable token has all of them before it).
func topP(lp []float64, p float64) {
	mx := math.Inf(-1)
	for _, v := range lp {
		mx = max(mx, v)
	}
	if math.IsInf(mx, -1) {
		return
	}
	var cand []int
	for _, eps := range []float64{1e-4, 1e-12, 0} {
		cand = cand[:0]
		mass := 0.0
		th := mx + math.Log(eps)
		for i, v := range lp {
			if v >= th && !math.IsInf(v, -1) {
				cand = append(cand, i)
				mass += math.Exp(v)
			}
		}
		if mass >= p || eps == 0 {
			break
		}
	}
	slices.SortFunc(cand, func(a, b int) int {
		if c := cmp.Compare(lp[b], lp[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	keep := make([]bool, len(lp))
	before := 0.0
	for _, i := range cand {
		if before >= p {
			break
		}
		keep[i] = true
		before += math.Exp(lp[i])
	}
	for i, k := range keep {
		if !k {
			lp[i] = math.Inf(-1)
		}
	}
}

// Entropy returns the entropy, in nats, of the distribution with
// log-probabilities lp.
func Entropy(lp []float64) float64 {
	h := 0.0
	for _, v := range lp {
		if !math.IsInf(v, -1) {
			h -= math.Exp(v) * v
		}
	}
	return max(0, h) // rounding can leave a point mass at -0 or -1e-17
}
