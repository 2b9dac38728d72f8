package sample

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/gasplab/gasp/pkg/gcd"
	"github.com/gasplab/gasp/pkg/lm"
)

// Status says how a completion ended.
type Status uint8

const (
	Running  Status = iota // not finished
	Complete               // ended with an end-of-sequence token: a sentence of the grammar
	Capped                 // reached Config.MaxNew tokens without ending
	DeadEnd                // no allowed token had positive probability
	Rejected               // rejection sampling: a token left the grammar's prefix language
)

func (s Status) String() string {
	switch s {
	case Running:
		return "running"
	case Complete:
		return "complete"
	case Capped:
		return "capped"
	case DeadEnd:
		return "dead end"
	case Rejected:
		return "rejected"
	}
	return fmt.Sprintf("Status(%d)", s)
}

// Record is one completion (the tokens after the prompt) with per-token
// scores. Index j of each slice describes Tokens[j] and the distribution it
// was drawn from, given the prompt and Tokens[:j].
type Record struct {
	Tokens []int
	// LogP is log P(Tokens[j] | prefix), P being the model after the
	// lm.Transform: the target's per-token factor.
	LogP []float64
	// LogQ is the log-probability of Tokens[j] under the distribution the
	// sampler drew it from: for GCD log P_GCD (P masked to the allowed
	// tokens and renormalised), for ASAp its adjusted distribution, for
	// rejection sampling LogP.
	LogQ []float64
	// Entropy is the entropy, in nats, of the grammar-masked distribution
	// P_GCD(· | prefix).
	Entropy []float64
	// RawEntropy is the entropy of P(· | prefix).
	RawEntropy []float64
	Status     Status
	// Evals counts the LM token evaluations the record's row spent while
	// the sampler produced it (lm.Batch.RowEvals), the shared prompt
	// prefill excluded: for a record continued from a prefix, only those
	// spent on the continuation (and on restoring the prefix in the
	// cache); for rejection sampling's RejectionEach, every attempt of
	// the run.
	Evals int
	// Rejections counts, for the exact rejection samplers (Config.CARS),
	// the attempts rejected since the run's previous accepted sample.
	Rejections int
}

// Valid reports whether the record is a complete sentence.
func (r *Record) Valid() bool { return r.Status == Complete }

// Len returns the number of tokens.
func (r *Record) Len() int { return len(r.Tokens) }

// LogProb returns log P(Tokens), the sum of LogP.
func (r *Record) LogProb() float64 {
	s := 0.0
	for _, v := range r.LogP {
		s += v
	}
	return s
}

// LogQProb returns the log-probability that the sampler produced Tokens,
// the sum of LogQ.
func (r *Record) LogQProb() float64 {
	s := 0.0
	for _, v := range r.LogQ {
		s += v
	}
	return s
}

// Prefix returns a new running Record holding the first n tokens of r.
func (r *Record) Prefix(n int) *Record {
	p := &Record{}
	p.Tokens = append(make([]int, 0, n+8), r.Tokens[:n]...)
	p.LogP = append(make([]float64, 0, n+8), r.LogP[:n]...)
	p.LogQ = append(make([]float64, 0, n+8), r.LogQ[:n]...)
	p.Entropy = append(make([]float64, 0, n+8), r.Entropy[:n]...)
	p.RawEntropy = append(make([]float64, 0, n+8), r.RawEntropy[:n]...)
	return p
}

// Text returns the bytes of the tokens, special tokens written by name.
func (r *Record) Text(v *gcd.Vocab) string {
	var b strings.Builder
	for _, t := range r.Tokens {
		if v.Special[t] {
			b.WriteString(v.Name(t))
		} else {
			b.Write(v.Token(t))
		}
	}
	return b.String()
}

func (r *Record) add(tok int, logP, logQ, h, rawH float64) {
	r.Tokens = append(r.Tokens, tok)
	r.LogP = append(r.LogP, logP)
	r.LogQ = append(r.LogQ, logQ)
	r.Entropy = append(r.Entropy, h)
	r.RawEntropy = append(r.RawEntropy, rawH)
}

// Dist is the next-token distribution after one prefix: P, and P masked by
// the grammar and renormalised (P_GCD).
type Dist struct {
	LogP       []float64 // log P(t) for every token id
	Prob       []float64 // P(t) for every token id; 0 where it underflows (see linearFloor)
	IDs        []int     // the allowed tokens with log P(t) > −Inf (Prob may underflow to 0), increasing
	LogQ       []float64 // log P_GCD(IDs[i])
	Mass       float64   // P of the allowed tokens, the normaliser of P_GCD
	LogMass    float64   // log Mass, finite where Mass underflows to 0
	Entropy    float64   // of P_GCD; 0 when at most one token is allowed
	RawEntropy float64   // of P

	allowedP []float64 // P(IDs[i]) (0 where it underflows), or P_GCD(IDs[i]) where Mass underflows
	pickSum  float64   // the sum of allowedP
	w        []float64 // scratch for samplers' weights
}

// Fill computes d from the model's logits and the allowed tokens.
func (d *Dist) Fill(tf lm.Transform, logits []float32, allowed gcd.Bitset) {
	if d.Prob == nil {
		d.Prob = []float64{} // non-nil: Probs fills it
	}
	d.LogP, d.Prob = tf.Probs(logits, d.LogP, d.Prob)
	h := 0.0
	for i, p := range d.Prob {
		if p > 0 {
			h -= p * d.LogP[i]
		}
	}
	d.RawEntropy = max(0, h)
	d.IDs = allowed.AppendIDs(d.IDs[:0])
	d.LogQ, d.allowedP = d.LogQ[:0], d.allowedP[:0]
	d.Mass = 0
	n, positive := 0, 0
	for _, id := range d.IDs {
		if id < len(d.LogP) && d.LogP[id] > math.Inf(-1) {
			d.IDs[n] = id
			n++
			if d.Prob[id] > 0 {
				positive++
				d.Mass += d.Prob[id]
			}
			d.allowedP = append(d.allowedP, d.Prob[id])
		}
	}
	if d.Mass < linearFloor {
		d.fillLog(allowed)
		return
	}
	d.IDs = d.IDs[:n]
	d.LogMass, d.pickSum = math.Log(d.Mass), d.Mass
	d.Entropy = 0
	logZ := math.Log(d.Mass)
	for _, id := range d.IDs {
		q := d.LogP[id] - logZ
		if positive == 1 && d.Prob[id] > 0 {
			// Exactly, not up to rounding: Priority gives such positions weight 0.
			q = 0
		}
		d.LogQ = append(d.LogQ, q)
		if positive > 1 {
			d.Entropy -= d.Prob[id] / d.Mass * q
		}
	}
	d.Entropy = max(0, d.Entropy)
}

// linearFloor is the mass of the allowed tokens below which Fill computes
// P_GCD in log space: there, the linear probabilities of the allowed
// tokens lose precision or underflow to 0 (at a small temperature, or when
// the model is sure of a token the grammar forbids), though P restricted
// to the grammar is well defined. Above it the linear path is kept, as it
// is, so that the samplers draw the same bits as before.
const linearFloor = 1e-250

// fillLog is Fill's P_GCD in log space, relative to the most probable
// allowed token: IDs are the allowed tokens with log P > −Inf, allowedP
// their P_GCD.
func (d *Dist) fillLog(allowed gcd.Bitset) {
	d.IDs = allowed.AppendIDs(d.IDs[:0])
	d.LogQ, d.allowedP, d.Entropy = d.LogQ[:0], d.allowedP[:0], 0
	n, top := 0, math.Inf(-1)
	for _, id := range d.IDs {
		if id < len(d.LogP) && d.LogP[id] > math.Inf(-1) {
			d.IDs[n] = id
			n++
			top = max(top, d.LogP[id])
		}
	}
	d.IDs = d.IDs[:n]
	if n == 0 {
		d.Mass, d.LogMass, d.pickSum = 0, math.Inf(-1), 0
		return
	}
	s := 0.0
	for _, id := range d.IDs {
		s += math.Exp(d.LogP[id] - top)
	}
	d.LogMass = top + math.Log(s)
	d.Mass = math.Exp(d.LogMass) // 0 or subnormal: P's own mass, for CARS
	d.pickSum = 0
	for _, id := range d.IDs {
		q := d.LogP[id] - d.LogMass
		if n == 1 {
			q = 0
		}
		p := math.Exp(q)
		d.LogQ = append(d.LogQ, q)
		d.allowedP = append(d.allowedP, p)
		d.pickSum += p
		if n > 1 {
			d.Entropy -= p * q
		}
	}
	d.Entropy = max(0, d.Entropy)
}

// Pick draws index i with probability w[i] / sum, sum being the total of
// the positive weights (1 for a distribution); it skips the others. It
// uses one r.Float64(). It returns −1 if no weight is positive, and the
// last positive one if rounding leaves the draw past them all.
func Pick(w []float64, sum float64, r *rand.Rand) int {
	u := r.Float64() * sum
	last := -1
	for i, v := range w {
		if v <= 0 {
			continue
		}
		u -= v
		if u < 0 {
			return i
		}
		last = i
	}
	return last
}
