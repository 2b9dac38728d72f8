package sample

import (
	"errors"
	"math"
	"math/rand/v2"

	"github.com/gasplab/gasp/pkg/gcd"
	"github.com/gasplab/gasp/pkg/lm"
)

// asapNode is a visited prefix u in an ASAp trie.
type asapNode struct {
	p        float64 // P(t | parent) of the token t that leads here
	c        float64 // c̃(u): over-approximates the expected future grammaticality
	mass     float64 // P of the tokens allowed after u (set when expanded)
	deficit  float64 // Σ over children v of P(v's token)·(1 − c̃(v))
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
	maxNew := c.Cap()

	type run struct {
		row  int
		st   *gcd.State
		rand *rand.Rand
		path []*asapNode // path[d]: the node after d tokens of the current sample
		rec  *Record
		out  []*Record
		ev0  int // the row's evaluations when rec began
	}
	begin := func(r *run) {
		r.st.Rollback(0)
		b.Truncate(r.row, 0)
		r.path = r.path[:1]
		r.rec = &Record{}
		r.ev0 = b.RowEvals(r.row)
	}
	all := make([]*run, runs)
	var active []*run
	for i := range all {
		if rands[i] == nil {
			continue
		}
		root := &asapNode{c: 1}
		all[i] = &run{row: i, st: c.Masker.NewState(), rand: rands[i], path: []*asapNode{root}}
		begin(all[i])
		active = append(active, all[i])
	}
	var (
		st      Stats
		rows    []int
		allowed []gcd.Bitset
		res     []drawn
	)
	ds := newDists()
	for len(active) > 0 {
		rows = rows[:0]
		allowed = allowed[:0]
		for _, r := range active {
			rows = append(rows, r.row)
			allowed = append(allowed, r.st.Allowed())
		}
		logits, err := b.Next(rows)
		if err != nil {
			return nil, st, err
		}
		res = append(res[:0], make([]drawn, len(active))...)
		ds.each(c.Transform, logits, allowed, func(j int, d *Dist) {
			r := active[j]
			u := r.path[len(r.path)-1]
			if !u.expanded {
				u.expanded, u.mass = true, d.Mass
			}
			d.w = d.w[:0]
			sum := 0.0
			for _, id := range d.IDs {
				x := d.Prob[id]
				if kid := u.kids[id]; kid != nil {
					x *= kid.c
				}
				d.w = append(d.w, x)
				sum += x
			}
			if !(sum > 0) {
				res[j].none = true
				return
			}
			i := pickWeights(d.w, sum, r.rand)
			tok := d.IDs[i]
			res[j] = drawn{tok: tok, logP: d.LogP[tok], logQ: math.Log(d.w[i] / sum), h: d.Entropy, rawH: d.RawEntropy}
		})
		next := active[:0]
		for j, r := range active {
			x := &res[j]
			if !x.none {
				u := r.path[len(r.path)-1]
				if err := r.st.Advance(x.tok); err != nil {
					return nil, st, err
				}
				r.rec.add(x.tok, x.logP, x.logQ, x.h, x.rawH)
				b.Append(r.row, x.tok)
				if !r.st.Ended() {
					kid := u.kids[x.tok]
					if kid == nil {
						if u.kids == nil {
							u.kids = make(map[int]*asapNode)
						}
						kid = &asapNode{p: math.Exp(x.logP), c: 1, dead: len(r.rec.Tokens) >= maxNew}
						u.kids[x.tok] = kid
					}
					r.path = append(r.path, kid)
				}
			}
			switch {
			case x.none:
				r.rec.Status = DeadEnd
			case r.st.Ended():
				r.rec.Status = Complete
			case len(r.rec.Tokens) >= maxNew:
				r.rec.Status = Capped
			default:
				next = append(next, r)
				continue
			}
			// Update c̃ bottom-up along the sample's path.
			for i := len(r.path) - 1; i >= 0; i-- {
				if delta := r.path[i].update(); i > 0 {
					r.path[i-1].deficit -= r.path[i].p * delta
				}
			}
			r.rec.Evals = b.RowEvals(r.row) - r.ev0
			st.Add(r.rec)
			if c.Ended != nil {
				c.Ended(r.row, r.rec)
			}
			r.out = append(r.out, r.rec)
			if len(r.out) < k {
				begin(r)
				next = append(next, r)
			}
		}
		active = next
	}
	out := make([][]*Record, runs)
	for i, r := range all {
		if r != nil {
			out[i] = r.out
		}
	}
	st.Evals = b.Evals()
	return out, st, nil
}
