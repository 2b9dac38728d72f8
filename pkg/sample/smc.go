package sample

import (
	"errors"
	"math"
	"math/rand/v2"

	"github.com/gasplab/gasp/pkg/gcd"
	"github.com/gasplab/gasp/pkg/internal/logspace"
	"github.com/gasplab/gasp/pkg/lm"
)

// SMCOptions configure sequential Monte Carlo (Config.SMC).
type SMCOptions struct {
	// Particles is the number of particles of a run.
	Particles int
	// ESS is the resampling threshold: a run's particles are resampled
	// after a token step when their effective sample size falls below
	// ESS·Particles. 0 never resamples (importance sampling); 1 resamples
	// after every step where the weights differ.
	ESS float64
	// AWRS draws each token by adaptive weighted rejection sampling
	// (Lipkin et al. 2025): tokens are drawn from P without replacement
	// until one is allowed, twice, and the weight is an unbiased estimate
	// of the allowed mass from the rejections, instead of the mass itself.
	AWRS bool
}

// SMCRun is the weighted set of particles of one SMC run.
type SMCRun struct {
	Particles []*Record
	// LogW[i] is the log importance weight of Particles[i]: −Inf for
	// particles that are not sentences.
	LogW []float64
	// LogZ is the log of the run's estimate of P(L) (under the cap),
	// unbiased for every number of particles: the mean weight, the means
	// at resampling times folded in.
	LogZ      float64
	Resamples int
	// Evals counts the evaluations of all the run's particles, those that
	// restore resampled prefixes included.
	Evals int
}

// Weights returns the normalised weights; nil if every weight is zero.
func (r *SMCRun) Weights() []float64 {
	m := math.Inf(-1)
	for _, w := range r.LogW {
		m = max(m, w)
	}
	if math.IsInf(m, -1) {
		return nil
	}
	out := make([]float64, len(r.LogW))
	s := 0.0
	for i, w := range r.LogW {
		out[i] = math.Exp(w - m)
		s += out[i]
	}
	for i := range out {
		out[i] /= s
	}
	return out
}

// Pick draws one particle with probability ∝ its weight (sampling
// importance resampling); nil if every weight is zero.
func (r *SMCRun) Pick(rng *rand.Rand) *Record {
	w := r.Weights()
	if w == nil {
		return nil
	}
	return r.Particles[Pick(w, 1, rng)]
}

// particle is one row of an SMC run.
type particle struct {
	lane
	logW float64
}

// SMC runs one sequential Monte Carlo run per random source, the runs'
// particles all in one batch and in lockstep (Loula et al. 2025). A
// particle is extended token by token by GCD, P(t|u) masked by the grammar
// and renormalised, and its weight multiplied by the mass the mask kept,
// Σ_{t allowed} P(t|u) (or, with AWRS, an unbiased estimate of it): a
// complete particle x then has weight P(x)/P_GCD(x), and particles that
// reach the cap or a dead end weight 0. After each token step a run whose
// effective sample size (Σw)²/Σw² is below ESS·N is resampled
// systematically, finished particles included, and its weights set to
// their mean. The weighted set's estimates converge to P^G as N grows;
// SMCRun.Pick draws one particle from it.
func (c *Config) SMC(m lm.Model, prompt []int, opt SMCOptions, rands []*rand.Rand) ([]*SMCRun, Stats, error) {
	if err := c.Validate(); err != nil {
		return nil, Stats{}, err
	}
	n := opt.Particles
	if len(rands) == 0 || n <= 0 || !(opt.ESS >= 0 && opt.ESS <= 1) {
		return nil, Stats{}, errors.New("sample: SMC needs runs, particles > 0 and an ESS threshold in [0, 1]")
	}
	b, err := lm.NewBatch(m, prompt, len(rands)*n)
	if err != nil {
		return nil, Stats{}, err
	}
	defer b.Close()
	runs := make([][]*particle, len(rands))
	out := make([]*SMCRun, len(rands))
	for i, rng := range rands {
		out[i] = &SMCRun{}
		for j := range n {
			p := &particle{lane: lane{row: i*n + j, st: c.Masker.NewState(), rec: &Record{}, rand: Fork(rng)}}
			runs[i] = append(runs[i], p)
		}
	}
	var st Stats
	if err := c.smcLoop(b, opt, runs, out, rands); err != nil {
		return nil, st, err
	}
	for i, ps := range runs {
		r := out[i]
		for _, p := range ps {
			r.Particles = append(r.Particles, p.rec)
			r.LogW = append(r.LogW, p.logW)
			r.Evals += b.RowEvals(p.row)
			p.rec.Evals = b.RowEvals(p.row)
			st.Add(p.rec)
		}
		r.LogZ += logspace.Mean(r.LogW)
	}
	st.Evals = b.Evals()
	return out, st, nil
}

// smcLoop advances every run's particles to their ends.
func (c *Config) smcLoop(b *lm.Batch, opt SMCOptions, runs [][]*particle, out []*SMCRun, rands []*rand.Rand) error {
	s := &smc{c: c, b: b, opt: opt, runs: runs, out: out, rands: rands, maxNew: c.Cap()}
	return lockstep(b, c.Transform, s.running(nil), s)
}

// smc is SMC as a lockstep method: its particles extend by GCD, and its
// runs may be resampled after each token step.
type smc struct {
	c      *Config
	b      *lm.Batch
	opt    SMCOptions
	runs   [][]*particle
	out    []*SMCRun
	rands  []*rand.Rand
	maxNew int
}

func (s *smc) draw(p *particle, d *Dist, allowed gcd.Bitset) smcStep {
	return smcDraw(d, allowed, s.opt.AWRS, p.rand)
}

func (s *smc) step(p *particle, x *smcStep) (*particle, bool, error) {
	p.logW += x.logW
	if x.none {
		p.rec.Status, p.logW = DeadEnd, math.Inf(-1)
		return nil, false, nil
	}
	status, err := extend(s.b, &p.lane, &x.drawn, s.maxNew)
	switch status {
	case Rejected:
		return nil, false, err
	case Running:
		return p, true, nil
	case Capped:
		p.logW = math.Inf(-1)
	}
	p.rec.Status = status
	return nil, false, nil
}

// regroup resamples the runs whose ESS is low, after a token step, and
// returns the particles then running.
func (s *smc) regroup(active []*particle) ([]*particle, error) {
	if s.opt.ESS == 0 {
		return active, nil
	}
	for i, ps := range s.runs {
		if err := s.c.maybeResample(s.b, ps, s.opt.ESS, s.out[i], s.rands[i]); err != nil {
			return nil, err
		}
	}
	return s.running(active[:0]), nil
}

// running appends the running particles to active, run by run.
func (s *smc) running(active []*particle) []*particle {
	for _, ps := range s.runs {
		for _, p := range ps {
			if p.rec.Status == Running {
				active = append(active, p)
			}
		}
	}
	return active
}

// maybeResample resamples a run's particles systematically when their ESS
// is below ess·N and some are still running.
func (c *Config) maybeResample(b *lm.Batch, ps []*particle, ess float64, out *SMCRun, rng *rand.Rand) error {
	running := false
	logW := make([]float64, len(ps))
	for j, p := range ps {
		running = running || p.rec.Status == Running
		logW[j] = p.logW
	}
	if !running {
		return nil
	}
	mean := logspace.Mean(logW)
	if math.IsInf(mean, -1) {
		return nil // every particle is dead: nothing to resample
	}
	n := float64(len(ps))
	s, s2 := 0.0, 0.0
	for _, w := range logW {
		x := math.Exp(w - mean)
		s += x
		s2 += x * x
	}
	threshold := ess * n
	if ess == 1 {
		threshold = n * (1 - 1e-12) // equal weights up to rounding
	}
	if s*s/s2 >= threshold {
		return nil
	}
	// Systematic resampling: offspring j takes the particle whose
	// cumulative normalised weight first exceeds (j + u)/N.
	u := rng.Float64()
	parents := make([]*Record, len(ps))
	cum, i := math.Exp(logW[0]-mean)/n, 0
	for j := range ps {
		for t := (float64(j) + u) / n; cum <= t && i < len(ps)-1; {
			i++
			cum += math.Exp(logW[i]-mean) / n
		}
		parents[j] = ps[i].rec
	}
	for j, p := range ps {
		rec := parents[j]
		cp := rec.Prefix(len(rec.Tokens))
		cp.Status = rec.Status
		p.rec, p.logW = cp, mean
		p.st.Rollback(0)
		for _, t := range cp.Tokens {
			if err := p.st.Advance(t); err != nil {
				return err
			}
		}
		if cp.Status == Running {
			b.Set(p.row, cp.Tokens)
		}
	}
	out.Resamples++
	return nil
}

// smcStep is one particle's token step.
type smcStep struct {
	drawn
	logW float64 // log of the weight increment
}

// smcDraw draws a token from P_GCD with the weight increment log Mass (in
// log space: Mass may underflow), or
// by AWRS.
func smcDraw(d *Dist, allowed gcd.Bitset, awrs bool, rng *rand.Rand) smcStep {
	if len(d.IDs) == 0 {
		return smcStep{drawn: drawn{none: true}}
	}
	if awrs {
		return awrsDraw(d, allowed, rng)
	}
	return smcStep{gcdDraw(d, rng), d.LogMass}
}

// awrsDraw draws tokens from P without replacement until one is allowed,
// then again (the first round's rejections still removed) until one is
// allowed, and returns the first round's token with weight (1 − R)/(n+1):
// R is the mass rejected in the first round and n the rejections of both,
// an unbiased estimate of the allowed mass (Lipkin et al. 2025).
//
// It works in log space, where every allowed token's P may underflow (at
// a small temperature): a round's draws without replacement are the
// tokens in decreasing order of log P(t) + G(t), G(t) independent Gumbel
// variables drawn afresh for each round, and 1 − R is the sum, in log
// space, of P over the tokens the first round left.
func awrsDraw(d *Dist, allowed gcd.Bitset, rng *rand.Rand) smcStep {
	keys := d.w[:0]
	for _, lp := range d.LogP {
		keys = append(keys, lp+gumbel(rng))
	}
	d.w = keys
	ok := func(i int) bool { return i>>6 < len(allowed) && allowed.Has(i) }
	tok, n1 := firstAllowed(keys, ok)
	if tok < 0 {
		return smcStep{drawn: drawn{none: true}}
	}
	left := logSumLeft(d.LogP, keys)
	for i, k := range keys {
		if k > math.Inf(-1) {
			keys[i] = d.LogP[i] + gumbel(rng)
		}
	}
	_, n2 := firstAllowed(keys, ok)
	logQ := d.LogP[tok] - d.LogMass
	return smcStep{drawn{tok: tok, logP: d.LogP[tok], logQ: logQ, h: d.Entropy, rawH: d.RawEntropy},
		left - math.Log(float64(n1+n2+1))}
}

// gumbel returns a standard Gumbel variable, −log(−log U), U uniform on
// (0, 1).
func gumbel(rng *rand.Rand) float64 {
	u := rng.Float64()
	for u == 0 {
		u = rng.Float64()
	}
	return -math.Log(-math.Log(u))
}

// firstAllowed goes through the tokens in decreasing order of their keys
// (−Inf: removed) until one is allowed, and returns it (−1 if none is)
// with the number of tokens rejected before it, whose keys it sets to −Inf.
func firstAllowed(keys []float64, ok func(int) bool) (tok, rejected int) {
	for {
		i, top := -1, math.Inf(-1)
		for j, k := range keys {
			if k > top {
				i, top = j, k
			}
		}
		if i < 0 || ok(i) {
			return i, rejected
		}
		rejected++
		keys[i] = math.Inf(-1)
	}
}

// logSumLeft returns log Σ exp(logP[t]) over the tokens t whose key is
// not −Inf.
func logSumLeft(logP, keys []float64) float64 {
	top := math.Inf(-1)
	for i, k := range keys {
		if k > math.Inf(-1) {
			top = max(top, logP[i])
		}
	}
	s := 0.0
	for i, k := range keys {
		if k > math.Inf(-1) {
			s += math.Exp(logP[i] - top)
		}
	}
	return top + math.Log(s)
}
