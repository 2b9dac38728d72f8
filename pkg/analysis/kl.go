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

	"github.com/gasplab/gasp/pkg/internal/logspace"
	"github.com/gasplab/gasp/pkg/runs"
)

// Reference is the paper's §4.1 reference distribution of one task: P
// renormalised over the union S of distinct complete (valid) samples observed
// from every method of the task. A sample is its completion
// ids and the end-of-sequence token that ended it (see the package comment
// for records that did not record it).
type Reference struct {
	logp   map[string]float64 // sample key → log P(x)
	legacy map[string]string  // ids key and log P bits of a record without EOS → its sample key
	logZ   float64            // log Σ_{x ∈ S} P(x)
	tasks  map[string]bool    // tasks of the records it was built from
	keep   func(*runs.Record) bool
	props  int // proposals that entered S
}

// LegacyTolerance is how far apart (in nats) the log P of two records with
// the same ids and no recorded EOS may be and still be the same sample.
const LegacyTolerance = 1e-3

// NewReference builds the gasp protocol's reference of a task from all its
// records, of every method and k. Invalid records are ignored.
func NewReference(recs []runs.Record) *Reference { return newReference(recs, Gasp) }

// ending is one sample as the reference sees it: its ids, its EOS
// (runs.NoEOS when not recorded) and log P.
type ending struct {
	ids  string
	eos  int
	logp float64
}

func newReference(recs []runs.Record, p Protocol) *Reference {
	r := &Reference{logp: make(map[string]float64), legacy: make(map[string]string), tasks: make(map[string]bool), keep: p.keeps}
	var unknown []ending
	add := func(e ending) {
		if e.eos == runs.NoEOS {
			unknown = append(unknown, e)
			return
		}
		k := sampleKey(e.ids, e.eos)
		if old, ok := r.logp[k]; !ok || e.logp < old {
			r.logp[k] = e.logp
		}
	}
	for i := range recs {
		rec := &recs[i]
		r.tasks[rec.Task] = true
		if r.keep(rec) {
			add(ending{key(rec.IDs), rec.EOS, rec.LogP})
		}
		if q := rec.Proposal; p == Authors && q != nil && q.Status == runs.StatusComplete {
			add(ending{key(q.IDs), q.EOS, q.LogP})
			r.props++
		}
	}
	r.resolveLegacy(unknown)
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
	r.logZ = logspace.Sum(lps)
	return r
}

// resolveLegacy gives the samples without a recorded EOS their keys: a
// sample with the same ids and a log P within LegacyTolerance of one
// already in S is that sample; the others, in ascending log P, form groups
// whose consecutive log P are within LegacyTolerance, one sample each (the
// endings with different EOS tokens of the same ids). A group's log P is
// its smallest.
func (r *Reference) resolveLegacy(unknown []ending) {
	sort.Slice(unknown, func(i, j int) bool {
		if unknown[i].ids != unknown[j].ids {
			return unknown[i].ids < unknown[j].ids
		}
		return unknown[i].logp < unknown[j].logp
	})
	byIDs := map[string][]string{} // ids → keys of S with those ids
	for k := range r.logp {
		ids, _, _ := strings.Cut(k, "|")
		byIDs[ids] = append(byIDs[ids], k)
	}
	for ids := range byIDs {
		sort.Strings(byIDs[ids])
	}
	prev := ending{ids: "\x00"}
	prevKey := ""
	n := map[string]int{}
	for _, e := range unknown {
		k := ""
		for _, c := range byIDs[e.ids] {
			if math.Abs(r.logp[c]-e.logp) <= LegacyTolerance {
				k = c
				break
			}
		}
		switch {
		case k != "":
		case e.ids == prev.ids && prevKey != "" && e.logp-prev.logp <= LegacyTolerance:
			k = prevKey
		default:
			k = e.ids + "|?" + strconv.Itoa(n[e.ids])
			n[e.ids]++
			r.logp[k] = e.logp
		}
		r.legacy[legacyKey(e.ids, e.logp)] = k
		prev, prevKey = e, k
	}
}

// keyOf returns the sample key of a completion, false when it is not in S.
func (r *Reference) keyOf(ids []int, eos int, logp float64) (string, bool) {
	if eos != runs.NoEOS {
		k := sampleKey(key(ids), eos)
		_, ok := r.logp[k]
		return k, ok
	}
	k, ok := r.legacy[legacyKey(key(ids), logp)]
	return k, ok
}

func sampleKey(ids string, eos int) string { return ids + "|" + strconv.Itoa(eos) }

func legacyKey(ids string, logp float64) string {
	return ids + "|" + strconv.FormatUint(math.Float64bits(logp), 16)
}

// Size returns |S|, the number of distinct valid samples.
func (r *Reference) Size() int { return len(r.logp) }

// LogZ returns log Σ_{x ∈ S} P(x), the log of P's mass on S.
func (r *Reference) LogZ() float64 { return r.logZ }

// Proposals returns how many MH proposals entered S (authors' protocol).
func (r *Reference) Proposals() int { return r.props }

// LogProb returns log ref(x) for the completion ids ended by eos, and false
// when x is not in S. A record without its EOS (runs.NoEOS) is looked up by
// its log P as well, logp; it is ignored otherwise.
func (r *Reference) LogProb(ids []int, eos int, logp float64) (float64, bool) {
	k, ok := r.keyOf(ids, eos, logp)
	if !ok {
		return math.Inf(-1), false
	}
	return r.logp[k] - r.logZ, true
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
		if !r.keep(rec) {
			continue
		}
		k, in := r.keyOf(rec.IDs, rec.EOS, rec.LogP)
		g, ok := group[k]
		if !ok {
			lp := r.logp[k]
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

// Counts reports how many of recs enter the gasp protocol's estimator.
func Counts(recs []runs.Record) Count { return Gasp.counts(recs) }

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
