package sample

import (
	"errors"
	"math"
	"math/rand/v2"

	"github.com/gasplab/gasp/pkg/gcd"
	"github.com/gasplab/gasp/pkg/internal/logspace"
	"github.com/gasplab/gasp/pkg/lm"
)

// asapNode is a visited prefix u in an ASAp trie. It holds c̃(u) twice:
// in linear space, updated as mass − deficit as ASAp was first written,
// and in log space, recomputed exactly from the draws. Draws use the
// linear one where the two agree, so that at ordinary temperatures they
// keep their bits (see asap.drawLinear).
type asapNode struct {
	p        float64 // P(t | parent) of the token t that leads here
	c        float64 // c̃(u): over-approximates the expected future grammaticality
	mass     float64 // P of the tokens allowed after u (set when expanded)
	deficit  float64 // Σ over children v of P(v's token)·(1 − c̃(v))
	logc     float64 // log c̃(u), exact where c underflows or cancels
	expanded bool    // the model has been evaluated at u
	dead     bool    // u is at the length cap: no completion within it
	kids     map[int]*asapNode
}

// update recomputes c̃(u) = Σ_{t allowed} P(t|u)·c̃(u·t), in which
// unvisited children and end-of-sequence count 1, and returns the change.
func (u *asapNode) update() float64 {
	old := u.c
	switch {
	case u.dead:
		u.c = 0
	case u.expanded:
		u.c = min(1, max(0, u.mass-u.deficit))
	}
	return u.c - old
}

// ASAp runs runs independent adaptive runs of ASAp (Park et al. 2024), each
// drawing k samples one after another; out[r][j] is run r's (j+1)-th sample,
// so the samples of ASAp(j+1) are out[·][j]. The runs advance in lockstep,
// one row each.
//
// Each run keeps a trie over the prefixes it has visited. At prefix u a
// token t is drawn with probability ∝ P(t|u)·c̃(u·t), where c̃(u·t) = 0 for
// tokens the grammar forbids, 1 for end-of-sequence (when allowed) and for
// allowed tokens not yet visited, and for visited children the current
// over-approximation c̃(u·t) = Σ_{t'} P(t'|u·t)·c̃(u·t·t'). After each sample
// c̃ is recomputed bottom-up along its path. The first sample of a run is a
// GCD sample; as the trie fills, samples approach P^G. A prefix at the
// length cap gets c̃ = 0, so the limit is P^G under the cap. The model is
// evaluated at every step: the trie keeps P only for visited children.
//
// c̃ is kept in log space too, where it neither underflows (at a small
// temperature every P(t|u) of an allowed token may be below the smallest
// float64) nor cancels: c̃(u) is recomputed as the sum, in log space, of
// P(t|u)·c̃(u·t) over the allowed tokens other than the one drawn, taken
// from the draw's distribution, and the drawn token's term.
//
// Record.LogQ holds the log-probability of each token under the adjusted
// distribution it was drawn from, and Record.Evals the evaluations spent on
// that sample alone.
func (c *Config) ASAp(m lm.Model, prompt []int, runs, k int, rng *rand.Rand) ([][]*Record, Stats, error) {
	if runs <= 0 || k <= 0 {
		return nil, Stats{}, errors.New("sample: ASAp needs runs and k > 0")
	}
	return c.ASApEach(m, prompt, k, Forks(rng, runs))
}

// ASApEach is ASAp with one run per random source: run i draws from
// rands[i] alone, so its samples do not depend on the other runs. A nil
// source leaves its row idle, with no samples (see "Reproducing runs" in
// the package documentation).
func (c *Config) ASApEach(m lm.Model, prompt []int, k int, rands []*rand.Rand) ([][]*Record, Stats, error) {
	if err := c.Validate(); err != nil {
		return nil, Stats{}, err
	}
	runs := len(rands)
	if runs <= 0 || k <= 0 {
		return nil, Stats{}, errors.New("sample: ASAp needs runs and k > 0")
	}
	b, err := lm.NewBatch(m, prompt, runs)
	if err != nil {
		return nil, Stats{}, err
	}
	defer b.Close()
	s := &asap{c: c, b: b, k: k, maxNew: c.Cap()}
	all := make([]*asapRun, runs)
	var active []*asapRun
	for i := range all {
		if rands[i] == nil {
			continue
		}
		root := &asapNode{c: 1}
		all[i] = &asapRun{lane: lane{row: i, st: c.Masker.NewState(), rand: rands[i]}, path: []*asapNode{root}}
		s.begin(all[i])
		active = append(active, all[i])
	}
	if err := lockstep(b, c.Transform, active, s); err != nil {
		return nil, s.st, err
	}
	out := make([][]*Record, runs)
	for i, r := range all {
		if r != nil {
			out[i] = r.out
		}
	}
	s.st.Evals = b.Evals()
	return out, s.st, nil
}

// asapRun is one row of ASAp: a run of k samples and its trie.
type asapRun struct {
	lane
	path []*asapNode // path[d]: the node after d tokens of the current sample
	rest []float64   // rest[d]: log Σ P(t|u)·c̃(u·t) at path[d], the drawn token's term left out
	lw   []float64   // scratch: log P(t|u)·c̃(u·t) of the allowed tokens
	out  []*Record
}

// asapStep is a row's draw and the sum of the terms it did not draw.
type asapStep struct {
	drawn
	rest float64
}

// asap is ASAp as a lockstep method: a row draws its run's samples one
// after another, each from P reweighted by the run's trie.
type asap struct {
	c      *Config
	b      *lm.Batch
	k      int
	maxNew int
	st     Stats
}

func (s *asap) begin(r *asapRun) {
	r.retry(s.b)
	r.path, r.rest = r.path[:1], r.rest[:0]
	r.ev0 = s.b.RowEvals(r.row)
}

// draw draws t ∝ P(t|u)·c̃(u·t) at r's prefix u, which it marks expanded:
// in linear space where the weights are representable (drawLinear), in
// log space otherwise.
func (s *asap) draw(r *asapRun, d *Dist, _ gcd.Bitset) asapStep {
	u := r.path[len(r.path)-1]
	if !u.expanded {
		u.expanded, u.mass = true, d.Mass
	}
	r.lw = r.lw[:0]
	for _, id := range d.IDs {
		x := d.LogP[id]
		if kid := u.kids[id]; kid != nil {
			x += kid.logc
		}
		r.lw = append(r.lw, x)
	}
	if d.Mass >= linearFloor {
		if x, ok := s.drawLinear(r, u, d); ok {
			return x
		}
	}
	top := math.Inf(-1)
	for _, x := range r.lw {
		top = max(top, x)
	}
	if math.IsInf(top, -1) {
		return asapStep{drawn{none: true}, top}
	}
	d.w = d.w[:0]
	sum := 0.0
	for _, x := range r.lw {
		d.w = append(d.w, math.Exp(x-top))
		sum += d.w[len(d.w)-1]
	}
	i := Pick(d.w, sum, r.rand)
	tok := d.IDs[i]
	logQ := r.lw[i] - top - math.Log(sum)
	return asapStep{drawn{tok: tok, logP: d.LogP[tok], logQ: logQ, h: d.Entropy, rawH: d.RawEntropy}, logSumExcept(r.lw, i)}
}

// drawLinear is draw in linear space, with each child's linear c̃ where it
// agrees with the exact one to 1e-6, so that the draws are those ASAp drew
// before it kept c̃ in log space, and exp(log c̃) where it does not (the
// linear one cancels: mass − deficit leaves 1e-16 to a prefix whose every
// continuation is dead). It reports false where the weights' sum is below
// linearFloor: they may have underflowed.
func (s *asap) drawLinear(r *asapRun, u *asapNode, d *Dist) (asapStep, bool) {
	d.w = d.w[:0]
	sum := 0.0
	for _, id := range d.IDs {
		x := d.Prob[id]
		if kid := u.kids[id]; kid != nil {
			c := kid.c
			if !closeLog(c, kid.logc) {
				c = math.Exp(kid.logc)
			}
			x *= c
		}
		d.w = append(d.w, x)
		sum += x
	}
	if !(sum >= linearFloor) {
		return asapStep{}, false
	}
	i := Pick(d.w, sum, r.rand)
	tok := d.IDs[i]
	return asapStep{drawn{tok: tok, logP: d.LogP[tok], logQ: math.Log(d.w[i] / sum), h: d.Entropy, rawH: d.RawEntropy}, logSumExcept(r.lw, i)}, true
}

// logSumExcept returns log Σ_{j ≠ skip} exp(x[j]), −Inf for an empty sum.
func logSumExcept(x []float64, skip int) float64 {
	top := math.Inf(-1)
	for j, v := range x {
		if j != skip {
			top = max(top, v)
		}
	}
	if math.IsInf(top, -1) {
		return top
	}
	s := 0.0
	for j, v := range x {
		if j != skip {
			s += math.Exp(v - top)
		}
	}
	return top + math.Log(s)
}

func (s *asap) step(r *asapRun, xs *asapStep) (*asapRun, bool, error) {
	r.rest = append(r.rest, xs.rest)
	x := &xs.drawn
	status := DeadEnd
	if !x.none {
		u := r.path[len(r.path)-1]
		var err error
		if status, err = extend(s.b, &r.lane, x, s.maxNew); status == Rejected {
			return nil, false, err
		}
		if status != Complete {
			r.path = append(r.path, u.child(x, len(r.rec.Tokens) >= s.maxNew))
		}
		if status == Running {
			return r, true, nil
		}
	}
	r.rec.Status = status
	r.update()
	r.rec.Evals = r.evals(s.b)
	s.c.report(&s.st, r.row, r.rec)
	r.out = append(r.out, r.rec)
	if len(r.out) < s.k {
		s.begin(r)
		return r, true, nil
	}
	return nil, false, nil
}

// update recomputes c̃ bottom-up along the sample's path, linear and in
// log space.
func (r *asapRun) update() {
	for i := len(r.path) - 1; i >= 0; i-- {
		u := r.path[i]
		if delta := u.update(); i > 0 {
			r.path[i-1].deficit -= u.p * delta
		}
		switch {
		case u.dead:
			u.logc = math.Inf(-1)
		case i < len(r.rest):
			// The drawn token's term: its child's c̃, 1 for the end of
			// the sentence, none for a dead end.
			x := r.rest[i]
			if i+1 < len(r.path) {
				x = logspace.Add(x, r.rec.LogP[i]+r.path[i+1].logc)
			} else if i < len(r.rec.Tokens) {
				x = logspace.Add(x, r.rec.LogP[i])
			}
			u.logc = min(0, x)
		}
	}
}

// closeLog reports whether c and exp(logc) agree to 1e-6, relative.
func closeLog(c, logc float64) bool {
	if c <= 0 || math.IsInf(logc, -1) {
		return c <= 0 && math.IsInf(logc, -1)
	}
	return math.Abs(math.Log(c)-logc) <= 1e-6
}

// child returns u's child by x's token, made if new (dead when at the cap).
func (u *asapNode) child(x *drawn, dead bool) *asapNode {
	kid := u.kids[x.tok]
	if kid == nil {
		if u.kids == nil {
			u.kids = make(map[int]*asapNode)
		}
		kid = &asapNode{p: math.Exp(x.logP), c: 1, dead: dead}
		u.kids[x.tok] = kid
	}
	return kid
}
