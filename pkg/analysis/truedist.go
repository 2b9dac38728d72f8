package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gasplab/gasp/pkg/runs"
)

// Exact is a set of exact samples of P^G for one task (CARS records),
// against which the true distance of a method's samples is measured.
//
// With n exact samples, ê is their empirical distribution. For a method's
// valid samples, with empirical distribution p̂, on the union U of the two
// observed supports:
//
//	TV = ½ Σ_{x∈U} |p̂(x) − ê(x)|
//	KL = Σ_x p̂(x) log(p̂(x) / ê₊(x)),  ê₊(x) = (count_ê(x) + 1) / (n + |U|)
//
// (KL with add-one smoothing of ê, so that a sample the exact set missed
// costs a finite amount). Both are biased upward by sampling noise in p̂ and
// ê: Floor gives what an exact sampler with as many runs as the method
// would score, the distance between disjoint random subsets of the exact
// samples.
type Exact struct {
	index map[string]int // sample key → id
	draws []int          // ids of the valid exact samples
}

// NewExact collects the valid exact samples of recs.
func NewExact(recs []runs.Record) *Exact {
	e := &Exact{index: map[string]int{}}
	for _, r := range recs {
		if r.Valid {
			e.draws = append(e.draws, e.id(key(r.IDs)))
		}
	}
	return e
}

// id returns the id of sample key k, giving it the next one if new.
func (e *Exact) id(k string) int {
	i, ok := e.index[k]
	if !ok {
		i = len(e.index)
		e.index[k] = i
	}
	return i
}

// Len returns the number of exact samples.
func (e *Exact) Len() int { return len(e.draws) }

// Distance is a true distance with its 95 % bootstrap interval.
type Distance struct {
	TV, TVLo, TVHi float64
	KL, KLLo, KLHi float64
	N              int // the method's valid samples
}

// counter tallies sample ids of two sets, reused across calls.
type counter struct{ p, q []int }

// distances returns TV and smoothed KL between samples p and exact samples
// q (ids below size), summing in id order.
func (c *counter) distances(p, q []int, size int) (tv, kl float64) {
	c.p = append(c.p[:0], make([]int, size)...)
	c.q = append(c.q[:0], make([]int, size)...)
	for _, x := range p {
		c.p[x]++
	}
	for _, x := range q {
		c.q[x]++
	}
	union := 0
	for i := range size {
		if c.p[i] > 0 || c.q[i] > 0 {
			union++
		}
	}
	np, nq := float64(len(p)), float64(len(q))
	for i := range size {
		if c.p[i] == 0 && c.q[i] == 0 {
			continue
		}
		a, b := float64(c.p[i])/np, float64(c.q[i])/nq
		tv += math.Abs(a - b)
		if a > 0 {
			kl += a * math.Log(a/((float64(c.q[i])+1)/(nq+float64(union))))
		}
	}
	return tv / 2, kl
}

// Distance returns the true distance of recs' valid samples to the exact
// samples, with a bootstrap that resamples both (resamples times, seeded).
func (e *Exact) Distance(recs []runs.Record, resamples int, seed uint64) (Distance, error) {
	var p []int
	for _, r := range recs {
		if r.Valid {
			p = append(p, e.id(key(r.IDs)))
		}
	}
	if len(p) == 0 {
		return Distance{}, errNoValid(recs)
	}
	if e.Len() == 0 || resamples < 1 {
		return Distance{}, fmt.Errorf("analysis: %d exact samples, %d resamples", e.Len(), resamples)
	}
	var c counter
	size := len(e.index)
	d := Distance{N: len(p)}
	d.TV, d.KL = c.distances(p, e.draws, size)
	rng := newRand(seed)
	tvs, kls := make([]float64, resamples), make([]float64, resamples)
	bp, bq := make([]int, len(p)), make([]int, len(e.draws))
	for b := range resamples {
		tvs[b], kls[b] = c.distances(resampled(bp, p, rng), resampled(bq, e.draws, rng), size)
	}
	d.TVLo, d.TVHi = percentile(tvs, 2.5), percentile(tvs, 97.5)
	d.KLLo, d.KLHi = percentile(kls, 2.5), percentile(kls, 97.5)
	return d, nil
}

// resampled fills dst with len(xs) draws from xs with replacement.
func resampled(dst, xs []int, rng *rand.Rand) []int {
	for i := range dst {
		dst[i] = xs[rng.IntN(len(xs))]
	}
	return dst
}

// Floor returns the mean TV and KL, over splits random splits, between n of
// the exact samples and the others: what an exact sampler with n runs
// scores against this reference. ok is false when fewer than 2n exact
// samples exist.
func (e *Exact) Floor(n, splits int, seed uint64) (tv, kl float64, ok bool) {
	if n < 1 || e.Len() < 2*n || splits < 1 {
		return 0, 0, false
	}
	rng := newRand(seed)
	xs := append([]int(nil), e.draws...)
	var c counter
	for range splits {
		rng.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
		t, k := c.distances(xs[:n], xs[n:], len(e.index))
		tv += t
		kl += k
	}
	return tv / float64(splits), kl / float64(splits), true
}
