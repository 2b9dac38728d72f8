package analysis

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gasplab/gasp/pkg/runs"
)

// Reference is the paper's §4.1 reference distribution of one task: P
// renormalised over the union S of distinct complete (valid) samples observed
// from every method of the task (DESIGN.md §3).
type Reference struct {
	logp  map[string]float64 // sample key → log P(x)
	logZ  float64            // log Σ_{x ∈ S} P(x)
	tasks map[string]bool    // tasks of the records it was built from
}

// NewReference builds the reference of a task from all its records, of
// every method and k. Invalid records are ignored.
func NewReference(recs []runs.Record) *Reference {
	r := &Reference{logp: make(map[string]float64), tasks: make(map[string]bool)}
	for i := range recs {
		rec := &recs[i]
		r.tasks[rec.Task] = true
		if !rec.Valid {
			continue
		}
		k := key(rec.IDs)
		if old, ok := r.logp[k]; !ok || rec.LogP < old {
			r.logp[k] = rec.LogP
		}
	}
	// Sum in a fixed order: the result must not depend on map iteration.
	keys := make([]string, 0, len(r.logp))
	for k := range r.logp {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	lps := make([]float64, len(keys))
	for i, k := range keys {
		lps[i] = r.logp[k]
	}
	r.logZ = logSumExp(lps)
	return r
}

// Size returns |S|, the number of distinct valid samples.
func (r *Reference) Size() int { return len(r.logp) }

// LogZ returns log Σ_{x ∈ S} P(x), the log of P's mass on S.
func (r *Reference) LogZ() float64 { return r.logZ }

// LogProb returns log ref(x) for the completion ids, and false when x is
// not in S.
func (r *Reference) LogProb(ids []int) (float64, bool) {
	lp, ok := r.logp[key(ids)]
	if !ok {
		return math.Inf(-1), false
	}
	return lp - r.logZ, true
}

// Count is how a set of records enters the estimator.
type Count struct {
	Records int // all records
	Valid   int // valid records: the samples p̂ is built from
}

// empirical is a method's valid samples, grouped: counts[i] draws of the
// sample with log ref(x) = logRef[i]; draws[j] is the group of the j-th valid
// record, for resampling.
type empirical struct {
	counts []int
	logRef []float64
	draws  []int
}

func (r *Reference) empirical(recs []runs.Record) (*empirical, error) {
	e := &empirical{}
	group := make(map[string]int)
	for i := range recs {
		rec := &recs[i]
		if !r.tasks[rec.Task] {
			return nil, fmt.Errorf("analysis: record %s/%s k=%d run=%d: task not in the reference", rec.Task, rec.Method, rec.K, rec.Run)
		}
		if !rec.Valid {
			continue
		}
		k := key(rec.IDs)
		g, ok := group[k]
		if !ok {
			lp, in := r.logp[k]
			if !in {
				return nil, fmt.Errorf("analysis: record %s/%s k=%d run=%d: sample not in the reference (build it from every record of the task)", rec.Task, rec.Method, rec.K, rec.Run)
			}
			g = len(e.counts)
			group[k] = g
			e.counts = append(e.counts, 0)
			e.logRef = append(e.logRef, lp-r.logZ)
		}
		e.counts[g]++
		e.draws = append(e.draws, g)
	}
	if len(e.draws) == 0 {
		return nil, errNoValid(recs)
	}
	return e, nil
}

func errNoValid(recs []runs.Record) error {
	if len(recs) == 0 {
		return errors.New("analysis: no records")
	}
	r := recs[0]
	return fmt.Errorf("analysis: %s/%s k=%d: none of %d records is valid", r.Task, r.Method, r.K, len(recs))
}

// kl returns KL(p̂ ‖ ref) for the group counts c (summing to n).
func (e *empirical) kl(c []int, n int) float64 {
	s := 0.0
	for i, ci := range c {
		if ci == 0 {
			continue
		}
		p := float64(ci) / float64(n)
		s += p * (math.Log(p) - e.logRef[i])
	}
	return s
}

// KL returns KL(p̂ ‖ ref) for the records of one method at one k, one record
// per run. It fails when none of them is valid, or when a valid one is not in
// the reference (the reference was not built from every record of the task).
// A valid sample with P(x) = 0 gives +Inf.
func (r *Reference) KL(recs []runs.Record) (float64, error) {
	e, err := r.empirical(recs)
	if err != nil {
		return 0, err
	}
	return e.kl(e.counts, len(e.draws)), nil
}

// Counts reports how many of recs enter the estimator.
func Counts(recs []runs.Record) Count {
	c := Count{Records: len(recs)}
	for i := range recs {
		if recs[i].Valid {
			c.Valid++
		}
	}
	return c
}

// Bootstrap returns the 95 % bootstrap confidence interval of KL for the
// records of one method at one k: resamples resamples of the valid runs,
// drawn with replacement from a source seeded with seed, and the 2.5th and
// 97.5th percentiles of their KL.
func (r *Reference) Bootstrap(recs []runs.Record, resamples int, seed uint64) (lo, hi float64, err error) {
	if resamples < 1 {
		return 0, 0, fmt.Errorf("analysis: %d bootstrap resamples", resamples)
	}
	e, err := r.empirical(recs)
	if err != nil {
		return 0, 0, err
	}
	kls := e.resample(resamples, newRand(seed))
	return percentile(kls, 2.5), percentile(kls, 97.5), nil
}

// resample returns the KL of n bootstrap resamples of e's draws.
func (e *empirical) resample(n int, rng *rand.Rand) []float64 {
	out := make([]float64, n)
	c := make([]int, len(e.counts))
	m := len(e.draws)
	for b := range out {
		clear(c)
		for range m {
			c[e.draws[rng.IntN(m)]]++
		}
		out[b] = e.kl(c, m)
	}
	return out
}

// newRand returns the package's seeded random source.
func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x5851f42d4c957f2d))
}

// percentile returns the p-th percentile of xs (0 ≤ p ≤ 100), interpolating
// linearly between order statistics (numpy's default). xs is not modified.
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	pos := p / 100 * float64(len(s)-1)
	i := int(math.Floor(pos))
	if i >= len(s)-1 {
		return s[len(s)-1]
	}
	f := pos - float64(i)
	if f == 0 {
		return s[i]
	}
	return s[i] + f*(s[i+1]-s[i])
}

// logSumExp returns log Σ exp(xs[i]), −Inf for none.
func logSumExp(xs []float64) float64 {
	m := math.Inf(-1)
	for _, x := range xs {
		m = max(m, x)
	}
	if math.IsInf(m, 0) {
		return m
	}
	s := 0.0
	for _, x := range xs {
		s += math.Exp(x - m)
	}
	return m + math.Log(s)
}

// key returns the map key of a completion.
func key(ids []int) string {
	var b strings.Builder
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Itoa(id))
	}
	return b.String()
}
