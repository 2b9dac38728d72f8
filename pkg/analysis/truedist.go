package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

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
	draws []string // keys of the valid exact samples
}

// NewExact collects the valid exact samples of recs.
func NewExact(recs []runs.Record) *Exact {
	e := &Exact{}
	for _, r := range recs {
		if r.Valid {
			e.draws = append(e.draws, key(r.IDs))
		}
	}
	return e
}

// Len returns the number of exact samples.
func (e *Exact) Len() int { return len(e.draws) }

// Distance is a true distance with its 95 % bootstrap interval.
type Distance struct {
	TV, TVLo, TVHi float64
	KL, KLLo, KLHi float64
	N              int // the method's valid samples
}

// distances returns TV and smoothed KL between sample keys p and exact
// keys q.
func distances(p, q []string) (tv, kl float64) {
	cp, cq := map[string]int{}, map[string]int{}
	for _, x := range p {
		cp[x]++
	}
	for _, x := range q {
		cq[x]++
	}
	union := len(cq)
	for x := range cp {
		if cq[x] == 0 {
			union++
		}
	}
	np, nq := float64(len(p)), float64(len(q))
	keys := make([]string, 0, union)
	for x := range cq {
		keys = append(keys, x)
	}
	for x := range cp {
		if cq[x] == 0 {
			keys = append(keys, x)
		}
	}
	sort.Strings(keys) // a fixed order of summation
	for _, x := range keys {
		a, b := float64(cp[x])/np, float64(cq[x])/nq
		tv += math.Abs(a - b)
		if a > 0 {
			kl += a * math.Log(a/((float64(cq[x])+1)/(nq+float64(union))))
		}
	}
	return tv / 2, kl
}

// Distance returns the true distance of recs' valid samples to the exact
// samples, with a bootstrap that resamples both (resamples times, seeded).
func (e *Exact) Distance(recs []runs.Record, resamples int, seed uint64) (Distance, error) {
	var p []string
	for _, r := range recs {
		if r.Valid {
			p = append(p, key(r.IDs))
		}
	}
	if len(p) == 0 {
		return Distance{}, errNoValid(recs)
	}
	if e.Len() == 0 || resamples < 1 {
		return Distance{}, fmt.Errorf("analysis: %d exact samples, %d resamples", e.Len(), resamples)
	}
	d := Distance{N: len(p)}
	d.TV, d.KL = distances(p, e.draws)
	rng := newRand(seed)
	tvs, kls := make([]float64, resamples), make([]float64, resamples)
	for b := range resamples {
		tvs[b], kls[b] = distances(resampled(p, rng), resampled(e.draws, rng))
	}
	d.TVLo, d.TVHi = percentile(tvs, 2.5), percentile(tvs, 97.5)
	d.KLLo, d.KLHi = percentile(kls, 2.5), percentile(kls, 97.5)
	return d, nil
}

func resampled(xs []string, rng *rand.Rand) []string {
	out := make([]string, len(xs))
	for i := range out {
		out[i] = xs[rng.IntN(len(xs))]
	}
	return out
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
	xs := append([]string(nil), e.draws...)
	for range splits {
		rng.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
		t, k := distances(xs[:n], xs[n:])
		tv += t
		kl += k
	}
	return tv / float64(splits), kl / float64(splits), true
}
