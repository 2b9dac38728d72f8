package sample

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gasplab/gasp/pkg/gcd"
	"github.com/gasplab/gasp/pkg/internal/logspace"
	"github.com/gasplab/gasp/pkg/lm"
)

// Variant selects one of the exact rejection samplers of CARS.
type Variant uint8

const (
	// RS is plain rejection sampling: attempts drawn from P, kept when
	// they are sentences.
	RS Variant = iota
	// RSFT is rejection sampling whose first token is drawn from P masked
	// by the grammar: the normaliser at the root is the same for every
	// sentence, so the output is still exactly P^G.
	RSFT
	// ARS is adaptive rejection sampling: each rejected prefix (the token
	// that left the grammar, or the prefix that reached the cap) is
	// recorded in the trie and its probability mass is subtracted from
	// later draws.
	ARS
	// CARS is constrained adaptive rejection sampling (Parys et al. 2025):
	// ARS that also records, at every prefix an attempt visited, the mass
	// of all the tokens the grammar excludes there.
	CARS
)

var variantNames = [...]string{RS: "rs", RSFT: "rsft", ARS: "ars", CARS: "cars"}

func (v Variant) String() string {
	if int(v) < len(variantNames) {
		return variantNames[v]
	}
	return fmt.Sprintf("Variant(%d)", v)
}

// ParseVariant returns the variant named "rs", "rsft", "ars" or "cars".
func ParseVariant(s string) (Variant, error) {
	for v, n := range variantNames {
		if n == s {
			return Variant(v), nil
		}
	}
	return 0, fmt.Errorf("sample: unknown rejection variant %q (want rs, rsft, ars or cars)", s)
}

// adaptive reports whether v learns a trie.
func (v Variant) adaptive() bool { return v == ARS || v == CARS }

// carsStep is one drawn token of an attempt.
type carsStep struct {
	drawn
	thinned bool // the attempt was rejected before drawing (knowledge gained meanwhile)
	dead    bool // nothing can be drawn: the language is empty
	// rest is log Σ P(t|u)·alive(u·t) over the tokens the trie counts at
	// the prefix u (for CARS the allowed ones), the drawn token left out.
	rest  float64
	entry float64 // log alive of the chosen child when it was chosen
}

// carsRun is one row: a run of attempts until k samples are accepted. Its
// ev0 is the row's evaluations at its previous sample.
type carsRun struct {
	lane
	tries, rejected int
	path            []*trieNode // path[d]: the node after d tokens
	rest            []float64   // rest[d]: carsStep.rest of the draw at path[d]
	entry           float64     // log alive of the current node when it was entered
	lw              []float64   // scratch: log P(t|u)·alive(u·t) for every token
	out             []*Record
}

// RejectionSampler draws exact samples of P^G (under the length cap) with
// one of the variants of CARS; see Config.CARS.
type RejectionSampler struct {
	Variant Variant
	// Trie holds what ARS and CARS have learnt: shared by all the rows of
	// a call and by successive calls on the same prompt, grammar and
	// Config (a Trie from NewTrie, or loaded with ReadTrie). Nil makes a
	// new one for the call. RS and RSFT ignore it.
	Trie *Trie
	// Budget bounds the attempts of each run (0: no bound). A bound on
	// attempts keeps the accepted samples exact; a bound on time that
	// abandoned attempts in flight would not (it would favour samples that
	// are quick to write), so there is none.
	Budget int
}

// CARS runs one rejection sampler per random source, all in lockstep,
// until run i has k accepted samples (or its Budget of attempts is spent):
// out[i] holds them in order, followed by the last attempt, not Valid, if
// the budget ran out. Every accepted record is exactly distributed as P^G
// under the length cap, whatever the variant.
//
// The adaptive variants share one trie between all rows. An attempt at
// prefix u draws t ∝ P(t|u)·(1 − dead(u·t)), dead(v) being the fraction of
// P's mass below v known to lie outside the language; for CARS, tokens the
// grammar excludes at a prefix learnt earlier have dead = 1. Since dead
// only grows, an attempt that entered u when its mass was e continues only
// with probability (1 − dead(u))/e, or is rejected (thinned): it is then an
// attempt drawn with the knowledge it started with that fell where another
// row has since found no sentence. The probability of a sentence x is then
// P(x)/(1 − dead(root) at the start), ∝ P(x). Knowledge from an attempt is
// added to the trie when it ends.
//
// The trie holds alive = 1 − dead in log space, and the draws weigh tokens
// in log space, so that a small temperature, where P(L) and every allowed
// token's P may be below the smallest float64, still gives exact samples:
// an attempt's end sets alive(u) at each prefix on its path to the sum of
// P(t|u)·alive(u·t) over the tokens it did not draw there, computed from
// the distribution it drew from, and the drawn token's term. A sum computed
// while other rows learnt about u's other children is an upper bound of
// alive(u); the least bound is kept, and the next draw at u tightens it.
//
// Record.Evals counts the row's evaluations since its previous accepted
// sample (all attempts) and Record.Rejections the attempts rejected in
// between; Stats counts every attempt.
func (c *Config) CARS(m lm.Model, prompt []int, rs RejectionSampler, k int, rands []*rand.Rand) ([][]*Record, Stats, error) {
	if err := c.Validate(); err != nil {
		return nil, Stats{}, err
	}
	if len(rands) == 0 || k <= 0 || rs.Budget < 0 || rs.Variant > CARS {
		return nil, Stats{}, errors.New("sample: CARS needs runs, k > 0, a budget ≥ 0 and a known variant")
	}
	trie := rs.Trie
	if trie == nil {
		trie = NewTrie()
	}
	if trie.empty() {
		return nil, Stats{}, errors.New("sample: CARS: the trie holds that no sentence fits within the cap")
	}
	b, err := lm.NewBatch(m, prompt, len(rands))
	if err != nil {
		return nil, Stats{}, err
	}
	defer b.Close()
	s := &carsLoop{c: c, b: b, rs: rs, trie: trie, k: k, maxNew: c.Cap()}
	out, err := s.run(rands)
	s.st.Evals = b.Evals()
	return out, s.st, err
}

type carsLoop struct {
	c      *Config
	b      *lm.Batch
	rs     RejectionSampler
	trie   *Trie
	k      int
	maxNew int
	st     Stats
}

func (s *carsLoop) begin(r *carsRun) {
	r.tries++
	r.retry(s.b)
	r.path = append(r.path[:0], s.trie.root)
	r.rest = r.rest[:0]
	r.entry = s.trie.root.logAlive
}

func (s *carsLoop) run(rands []*rand.Rand) ([][]*Record, error) {
	all := make([]*carsRun, len(rands))
	var active []*carsRun
	for i, rnd := range rands {
		if rnd == nil {
			continue
		}
		r := &carsRun{lane: lane{row: i, st: s.c.Masker.NewState(), rand: rnd}}
		s.begin(r)
		all[i] = r
		active = append(active, r)
	}
	if err := lockstep(s.b, s.c.Transform, active, s); err != nil {
		return nil, err
	}
	out := make([][]*Record, len(rands))
	for i, r := range all {
		if r != nil {
			out[i] = r.out
		}
	}
	return out, nil
}

func (s *carsLoop) step(r *carsRun, x *carsStep) (*carsRun, bool, error) {
	if !s.advance(r, x) {
		return r, true, nil
	}
	if s.finish(r) {
		s.begin(r)
		return r, true, nil
	}
	return nil, false, nil
}

// draw draws r's next token from d; it reads the trie, never writes it.
func (s *carsLoop) draw(r *carsRun, d *Dist, _ gcd.Bitset) carsStep {
	if s.rs.Variant.adaptive() {
		return s.drawAdaptive(r, d)
	}
	var i int
	if s.rs.Variant == RSFT && len(r.rec.Tokens) == 0 {
		// From P masked by the grammar (in log space where it underflows).
		if len(d.IDs) == 0 {
			return carsStep{dead: true}
		}
		i = d.IDs[Pick(d.allowedP, d.pickSum, r.rand)]
	} else {
		sum := 0.0
		for _, x := range d.Prob {
			sum += x
		}
		if !(sum > 0) {
			return carsStep{dead: true}
		}
		i = Pick(d.Prob, sum, r.rand)
	}
	return carsStep{drawn: drawn{tok: i, logP: d.LogP[i], logQ: d.LogP[i], h: d.Entropy, rawH: d.RawEntropy}}
}

// drawAdaptive is draw for ARS and CARS: t ∝ P(t|u)·alive(u·t), in log
// space, after thinning by alive(u)/entry.
func (s *carsLoop) drawAdaptive(r *carsRun, d *Dist) carsStep {
	u := r.path[len(r.path)-1]
	constrained := s.rs.Variant == CARS
	lw := append(r.lw[:0], d.LogP...)
	r.lw = lw
	if constrained && u.known { // the allowed tokens only
		for i := range lw {
			lw[i] = math.Inf(-1)
		}
		for _, id := range d.IDs {
			lw[id] = d.LogP[id]
		}
	}
	for t, kid := range u.kids {
		if t < len(lw) {
			lw[t] += kid.logAlive
		}
	}
	top := math.Inf(-1)
	for _, x := range lw {
		top = max(top, x)
	}
	w := d.w[:0]
	sum := 0.0
	if top > math.Inf(-1) {
		for _, x := range lw {
			w = append(w, math.Exp(x-top))
			sum += w[len(w)-1]
		}
	}
	d.w = w
	logSum := top + math.Log(sum) // −Inf when every weight is 0
	if !(r.rand.Float64() < math.Exp(logSum-r.entry)) {
		return carsStep{thinned: true, rest: s.learnt(r, d, -1)}
	}
	i := Pick(w, sum, r.rand)
	step := carsStep{drawn: drawn{tok: i, logP: d.LogP[i], logQ: d.LogP[i], h: d.Entropy, rawH: d.RawEntropy}, rest: s.learnt(r, d, i)}
	if kid := u.kids[i]; kid != nil {
		step.entry = kid.logAlive
	}
	return step
}

// learnt returns log Σ P(t|u)·alive(u·t) over the tokens other than skip
// that the trie counts at u: for CARS the allowed ones, for ARS all. r.lw
// holds the terms of the tokens draw weighed.
func (s *carsLoop) learnt(r *carsRun, d *Dist, skip int) float64 {
	if s.rs.Variant != CARS {
		return logSumExcept(r.lw, skip)
	}
	x := d.w[:0]
	at := -1
	for k, id := range d.IDs {
		if id == skip {
			at = k
		}
		v := d.LogP[id]
		if kid := r.path[len(r.path)-1].kids[id]; kid != nil {
			v += kid.logAlive
		}
		x = append(x, v)
	}
	d.w = x
	return logSumExcept(x, at)
}

// advance applies step x to r's attempt and reports whether it ended.
func (s *carsLoop) advance(r *carsRun, x *carsStep) bool {
	r.rest = append(r.rest, x.rest)
	switch {
	case x.dead:
		r.rec.Status = DeadEnd
		return true
	case x.thinned:
		r.rec.Status = Rejected
		return true
	}
	r.rec.Status, _ = extend(s.b, &r.lane, &x.drawn, s.maxNew)
	if !s.rs.Variant.adaptive() {
		return r.rec.Status != Running
	}
	u := r.path[len(r.path)-1]
	switch r.rec.Status {
	case Complete:
		return true
	case Rejected:
		if s.rs.Variant == ARS {
			s.trie.kill(u, x.tok)
		}
		return true
	case Capped:
		s.trie.kill(u, x.tok)
		return true
	}
	r.path = append(r.path, s.trie.child(u, x.tok))
	r.entry = x.entry
	return false
}

// finish ends r's attempt: it teaches the trie and keeps the record if it
// is a sample. It reports whether r needs another attempt.
func (s *carsLoop) finish(r *carsRun) bool {
	s.c.report(&s.st, r.row, r.rec)
	if s.rs.Variant.adaptive() {
		s.trie.learn(r.path, r.rest, r.rec, s.rs.Variant == CARS)
	}
	budgetOut := s.rs.Budget > 0 && r.tries >= s.rs.Budget
	hopeless := r.rec.Status == DeadEnd || (s.rs.Variant.adaptive() && s.trie.empty())
	if !r.rec.Valid() && !budgetOut && !hopeless {
		r.rejected++
		return true
	}
	r.rec.Evals = r.evals(s.b)
	r.rec.Rejections = r.rejected
	r.out = append(r.out, r.rec)
	r.ev0, r.rejected, r.tries = s.b.RowEvals(r.row), 0, 0
	return r.rec.Valid() && len(r.out) < s.k
}

// trieNode is a prefix visited by an adaptive rejection sampler.
type trieNode struct {
	// logAlive is log(1 − dead), dead being the fraction of P's mass
	// below this prefix known to be invalid: an upper bound of log Σ
	// P(t|u)·alive(u·t) over the tokens the trie counts at u.
	logAlive float64
	fixed    bool // the prefix itself is invalid (left the grammar, or at the cap): alive = 0
	known    bool // CARS: the grammar's mask after the prefix was learnt (excluded tokens weigh 0)
	kids     map[int]*trieNode
}

// child returns u's child by tok, made if new.
func (t *Trie) child(u *trieNode, tok int) *trieNode {
	if kid := u.kids[tok]; kid != nil {
		return kid
	}
	if u.kids == nil {
		u.kids = make(map[int]*trieNode)
	}
	kid := &trieNode{}
	u.kids[tok] = kid
	t.nodes++
	return kid
}

// kill marks u's child by tok as an invalid prefix. u's alive changes when
// the attempt is learnt.
func (t *Trie) kill(u *trieNode, tok int) {
	kid := t.child(u, tok)
	kid.fixed, kid.logAlive = true, math.Inf(-1)
}

// Trie is what ARS and CARS learn about a prompt under a grammar, a model
// and a Config: the visited prefixes with the probability mass below each
// known to be invalid. It is not safe for concurrent use.
type Trie struct {
	// Under describes what the trie was learnt under: the model, grammar,
	// prompt and settings that define P and the language. A trie is
	// valid under these only; its user checks them (the trie cannot).
	// WriteTo saves it and ReadTrie restores it; "" when unknown.
	Under string

	root  *trieNode
	nodes int
}

// NewTrie returns an empty trie.
func NewTrie() *Trie { return &Trie{root: &trieNode{}, nodes: 1} }

// Dead returns the mass of P known to lie outside the language: the
// acceptance probability of the next attempt is P(L)/(1 − Dead()).
func (t *Trie) Dead() float64 { return max(0, -math.Expm1(t.root.logAlive)) }

// LogAlive returns log(1 − Dead()), which does not round to −Inf where
// P(L) is below the smallest float64 (at a small temperature).
func (t *Trie) LogAlive() float64 { return t.root.logAlive }

// empty reports whether the trie holds that no sentence fits within the
// cap. Alive is a sum of terms, never a difference, so that it is 0
// exactly when every term is.
func (t *Trie) empty() bool { return math.IsInf(t.root.logAlive, -1) }

// Nodes returns the number of prefixes in the trie.
func (t *Trie) Nodes() int { return t.nodes }

// learn records an ended attempt's path: with the grammar's masks when
// constrained, then alive bottom-up, each prefix's from the sum of the
// terms its draw left out (rest) and the drawn token's: its child's alive,
// 1 for a complete sentence's last token, 0 for a token that left the
// grammar or reached the cap.
func (t *Trie) learn(path []*trieNode, rest []float64, rec *Record, constrained bool) {
	for i := len(path) - 1; i >= 0; i-- {
		u := path[i]
		if constrained {
			u.known = true
		}
		x := rest[i]
		switch {
		case i+1 < len(path):
			x = logspace.Add(x, rec.LogP[i]+path[i+1].logAlive)
		case i < len(rec.Tokens) && rec.Status == Complete:
			x = logspace.Add(x, rec.LogP[i])
		}
		u.logAlive = min(u.logAlive, x)
	}
}
