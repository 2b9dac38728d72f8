package sample

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gasplab/gasp/pkg/gcd"
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
	thinned bool    // the attempt was rejected before drawing (knowledge gained meanwhile)
	dead    bool    // nothing can be drawn: the language is empty
	masked  float64 // P of the tokens the grammar excludes at the prefix
	entry   float64 // 1 − dead of the chosen child when it was chosen
}

// carsRun is one row: a run of attempts until k samples are accepted. Its
// ev0 is the row's evaluations at its previous sample.
type carsRun struct {
	lane
	tries, rejected int
	path            []*trieNode // path[d]: the node after d tokens
	masked          []float64   // masked[d]: grammar-excluded mass after d tokens
	entry           float64     // 1 − dead of the current node when it was entered
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
	r.masked = r.masked[:0]
	r.entry = 1 - s.trie.root.dead
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
	u := r.path[len(r.path)-1]
	depth := len(r.rec.Tokens)
	step := carsStep{masked: max(0, 1-d.Mass)}
	w := append(d.w[:0], d.Prob...)
	if (s.rs.Variant == RSFT && depth == 0) || (s.rs.Variant == CARS && u.known) {
		clear(w)
		for _, id := range d.IDs {
			w[id] = d.Prob[id]
		}
	}
	if s.rs.Variant.adaptive() {
		for t, kid := range u.kids {
			if kid.dead > 0 && t < len(w) {
				w[t] *= 1 - kid.dead
			}
		}
	}
	d.w = w
	sum := 0.0
	for _, x := range w {
		sum += x
	}
	if s.rs.Variant.adaptive() && !(r.rand.Float64()*r.entry < sum) {
		step.thinned = true
		return step
	}
	if !(sum > 0) { // RSFT: no token is allowed at the root
		step.dead = true
		return step
	}
	i := Pick(w, sum, r.rand)
	step.drawn = drawn{tok: i, logP: d.LogP[i], logQ: d.LogP[i], h: d.Entropy, rawH: d.RawEntropy}
	step.entry = 1
	if kid := u.kids[i]; kid != nil {
		step.entry = 1 - kid.dead
	}
	return step
}

// advance applies step x to r's attempt and reports whether it ended.
func (s *carsLoop) advance(r *carsRun, x *carsStep) bool {
	r.masked = append(r.masked, x.masked)
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
			s.trie.kill(u, x.tok, x.logP)
		}
		return true
	case Capped:
		s.trie.kill(u, x.tok, x.logP)
		return true
	}
	r.path = append(r.path, s.trie.child(u, x.tok, x.logP))
	r.entry = x.entry
	return false
}

// finish ends r's attempt: it teaches the trie and keeps the record if it
// is a sample. It reports whether r needs another attempt.
func (s *carsLoop) finish(r *carsRun) bool {
	s.c.report(&s.st, r.row, r.rec)
	if s.rs.Variant.adaptive() {
		s.trie.learn(r.path, r.masked, s.rs.Variant == CARS)
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
	p      float64 // P(t | parent) of the token t that leads here
	dead   float64 // the fraction of P's mass below this prefix known to be invalid
	fixed  bool    // the prefix itself is invalid (left the grammar, or at the cap): dead = 1
	known  bool    // CARS: masked holds the grammar-excluded mass after the prefix
	masked float64
	kidsum float64 // Σ over the children v of P(v's token)·dead(v)
	kids   map[int]*trieNode
}

// child returns u's child by tok, made with P(tok|u) = exp(logP) if new.
func (t *Trie) child(u *trieNode, tok int, logP float64) *trieNode {
	if kid := u.kids[tok]; kid != nil {
		return kid
	}
	if u.kids == nil {
		u.kids = make(map[int]*trieNode)
	}
	kid := &trieNode{p: math.Exp(logP)}
	u.kids[tok] = kid
	t.nodes++
	return kid
}

// update recomputes dead from the node's children and mask.
func (u *trieNode) update() {
	if u.fixed {
		u.dead = 1
		return
	}
	d := u.kidsum
	if u.known {
		d += u.masked
	}
	u.dead = min(1, max(0, d))
}

// kill marks u's child by tok as an invalid prefix. u's dead changes when
// the attempt is learnt.
func (t *Trie) kill(u *trieNode, tok int, logP float64) {
	kid := t.child(u, tok, logP)
	if !kid.fixed {
		kid.fixed = true
		u.kidsum += kid.p * (1 - kid.dead)
		kid.dead = 1
	}
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
func (t *Trie) Dead() float64 { return t.root.dead }

// emptyTol is how close to 1 Dead must come for the trie to hold that the
// language within the cap is empty: Dead sums P over children, and the
// sums round, so that an empty language can leave it a few ulps below 1
// (where ARS and CARS without a budget would otherwise try for ever).
const emptyTol = 1e-12

// empty reports whether the trie holds that no sentence fits within the cap.
func (t *Trie) empty() bool { return t.root.dead >= 1-emptyTol }

// Nodes returns the number of prefixes in the trie.
func (t *Trie) Nodes() int { return t.nodes }

// learn records an ended attempt's path: with the grammar's masks when
// constrained, then dead bottom-up.
func (t *Trie) learn(path []*trieNode, masked []float64, constrained bool) {
	for i, u := range path {
		if constrained && i < len(masked) && !u.known {
			u.known, u.masked = true, masked[i]
		}
	}
	for i := len(path) - 1; i >= 0; i-- {
		u := path[i]
		old := u.dead
		u.update()
		if i > 0 {
			path[i-1].kidsum += u.p * (u.dead - old)
		}
	}
}
