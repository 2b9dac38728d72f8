package exact

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/gasplab/gasp/pkg/gcd"
	"github.com/gasplab/gasp/pkg/internal/logspace"
	"github.com/gasplab/gasp/pkg/lm"
	"github.com/gasplab/gasp/pkg/mcmc"
	"github.com/gasplab/gasp/pkg/sample"
)

// Lang is a finite language (the sentences of a grammar within the length
// cap) with the exact distributions over it.
type Lang struct {
	// Sentences are the sentences x with P(x) > 0 and |x| ≤ cap, each a
	// Record as GCD would record it, in depth-first order of token ids.
	Sentences []*sample.Record
	// P[i] is P(Sentences[i]).
	P []float64
	// Target is P^G: P renormalised over the sentences.
	Target []float64
	// GCD is the distribution of GCD's valid outputs: P_GCD renormalised
	// over the sentences.
	GCD []float64
	// GCDInvalid is the probability that a GCD run is capped or dead-ends.
	GCDInvalid float64
	// Mass is Σ P(x) over the sentences: rejection sampling's acceptance
	// probability. It and P underflow to 0 at a small temperature; LogMass
	// is log Mass, finite there.
	Mass    float64
	LogMass float64
	// Prefixes is the number of prefixes visited by the enumeration.
	Prefixes int

	index map[string]int
}

// Enumerate walks every GCD path of cfg's grammar under m (after prompt, up
// to the length cap) and returns the language with its distributions. It
// fails if more than limit prefixes would be visited.
func Enumerate(m lm.Model, prompt []int, cfg sample.Config, limit int) (*Lang, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	b, err := lm.NewBatch(m, prompt, 1)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	e := &enum{b: b, cfg: &cfg, cap: cfg.Cap(), limit: limit, st: cfg.Masker.NewState(), lang: &Lang{index: map[string]int{}}}
	if err := e.walk(&sample.Record{}, 0); err != nil {
		return nil, err
	}
	l := e.lang
	if len(l.Sentences) == 0 {
		return nil, errors.New("exact: the language within the cap is empty")
	}
	// P^G and GCD's distribution are normalised in log space: at a small
	// temperature P(x) and P(L) may underflow though P^G is well defined.
	logP, logQ := make([]float64, len(l.Sentences)), make([]float64, len(l.Sentences))
	for i, x := range l.Sentences {
		logP[i], logQ[i] = x.LogProb(), x.LogQProb()
		l.P = append(l.P, math.Exp(logP[i]))
		l.Mass += l.P[i]
	}
	l.LogMass = logspace.Sum(logP)
	logGCD := logspace.Sum(logQ)
	for i := range l.Sentences {
		l.Target = append(l.Target, math.Exp(logP[i]-l.LogMass))
		l.GCD = append(l.GCD, math.Exp(logQ[i]-logGCD))
	}
	return l, nil
}

type enum struct {
	b     *lm.Batch
	cfg   *sample.Config
	cap   int
	limit int
	st    *gcd.State
	lang  *Lang
}

// walk visits prefix x (its records filled in), whose GCD probability is
// exp(logQ).
func (e *enum) walk(x *sample.Record, logQ float64) error {
	l := e.lang
	if l.Prefixes++; l.Prefixes > e.limit {
		return fmt.Errorf("exact: more than %d prefixes", e.limit)
	}
	e.b.Set(0, x.Tokens)
	logits, err := e.b.Next([]int{0})
	if err != nil {
		return err
	}
	var d sample.Dist
	d.Fill(e.cfg.Transform, logits[0], e.st.Allowed())
	if len(d.IDs) == 0 {
		l.GCDInvalid += math.Exp(logQ)
		return nil
	}
	n := len(x.Tokens)
	for i, id := range d.IDs {
		y := extend(x, id, d.LogP[id], d.LogQ[i], d.Entropy, d.RawEntropy)
		lq := logQ + d.LogQ[i]
		if err := e.st.Advance(id); err != nil {
			return err
		}
		switch {
		case e.st.Ended():
			y.Status = sample.Complete
			l.index[lm.Key(y.Tokens)] = len(l.Sentences)
			l.Sentences = append(l.Sentences, y)
		case n+1 >= e.cap:
			l.GCDInvalid += math.Exp(lq)
		default:
			if err := e.walk(y, lq); err != nil {
				return err
			}
		}
		e.st.Rollback(n)
	}
	return nil
}

func extend(x *sample.Record, tok int, logP, logQ, h, rawH float64) *sample.Record {
	return &sample.Record{
		Tokens:     append(slices.Clip(x.Tokens), tok),
		LogP:       append(slices.Clip(x.LogP), logP),
		LogQ:       append(slices.Clip(x.LogQ), logQ),
		Entropy:    append(slices.Clip(x.Entropy), h),
		RawEntropy: append(slices.Clip(x.RawEntropy), rawH),
	}
}

// Index returns the index of the sentence with these tokens, or -1.
func (l *Lang) Index(tokens []int) int {
	if i, ok := l.index[lm.Key(tokens)]; ok {
		return i
	}
	return -1
}

// Len returns the number of sentences.
func (l *Lang) Len() int { return len(l.Sentences) }

// Q returns the probability that cutting x at i ~ px and running GCD from
// x[:i] yields y: Σ_i px[i]·[y[:i] = x[:i]]·Π_{j≥i} P_GCD(y_j | y[:j]).
// It is written from the definition, apart from mcmc.LogQ, on purpose.
func Q(px []float64, x, y *sample.Record) float64 {
	s := 0.0
	for i := 0; i < len(x.Tokens) && i <= len(y.Tokens); i++ {
		if !slices.Equal(x.Tokens[:i], y.Tokens[:i]) {
			break
		}
		prod := px[i]
		for _, v := range y.LogQ[i:] {
			prod *= math.Exp(v)
		}
		s += prod
	}
	return s
}

// Transition returns the MH transition matrix T[x][y] of proposal p over
// the sentences: the probability that one step from x ends at y. A
// proposal that implements mcmc.Kernels is the mixture of its components'
// matrices. Proposals that leave the language (capped or dead-end GCD
// runs) are rejected: their mass stays on the diagonal.
func (l *Lang) Transition(p mcmc.Proposal) ([][]float64, error) {
	kw, kp, err := mcmc.Components(p)
	if err != nil {
		return nil, err
	}
	n := l.Len()
	T := make([][]float64, n)
	for i := range T {
		T[i] = make([]float64, n)
	}
	pos := make([][]float64, n)
	for c, comp := range kp {
		for i, x := range l.Sentences {
			if pos[i], err = mcmc.Positions(comp, x); err != nil {
				return nil, err
			}
		}
		for i, x := range l.Sentences {
			for j, y := range l.Sentences {
				if i == j {
					continue
				}
				qxy := Q(pos[i], x, y)
				if qxy == 0 {
					continue
				}
				qyx := Q(pos[j], y, x)
				alpha := min(1, l.P[j]*qyx/(l.P[i]*qxy))
				T[i][j] += kw[c] * qxy * alpha
			}
		}
	}
	for i := range T {
		off := 0.0
		for j, v := range T[i] {
			if j != i {
				off += v
			}
		}
		T[i][i] = 1 - off
	}
	return T, nil
}

// Step returns dist·T.
func Step(dist []float64, T [][]float64) []float64 {
	out := make([]float64, len(dist))
	for i, p := range dist {
		if p == 0 {
			continue
		}
		for j, t := range T[i] {
			out[j] += p * t
		}
	}
	return out
}

// Chain returns the exact distributions of MCMC with proposal p after 0, 1,
// …, k steps, started from GCD's distribution (Alg. 1).
func (l *Lang) Chain(p mcmc.Proposal, k int) ([][]float64, error) {
	T, err := l.Transition(p)
	if err != nil {
		return nil, err
	}
	out := [][]float64{slices.Clone(l.GCD)}
	for i := 0; i < k; i++ {
		out = append(out, Step(out[i], T))
	}
	return out, nil
}

// TV returns the total variation distance ½ Σ |p − q|.
func TV(p, q []float64) float64 {
	s := 0.0
	for i := range p {
		s += math.Abs(p[i] - q[i])
	}
	return s / 2
}

// Counts tallies records by sentence; outside counts those that are not
// sentences of the language (invalid, or unknown).
func (l *Lang) Counts(recs []*sample.Record) (counts []int, outside int) {
	counts = make([]int, l.Len())
	for _, r := range recs {
		i := -1
		if r.Valid() {
			i = l.Index(r.Tokens)
		}
		if i < 0 {
			outside++
			continue
		}
		counts[i]++
	}
	return counts, outside
}

// Empirical returns the empirical distribution of records over the
// sentences (records outside the language are left out of the numerator).
func (l *Lang) Empirical(recs []*sample.Record) []float64 {
	counts, _ := l.Counts(recs)
	out := make([]float64, len(counts))
	for i, c := range counts {
		out[i] = float64(c) / float64(len(recs))
	}
	return out
}
