package sample

import (
	"errors"
	"math/rand/v2"
	"slices"

	"github.com/gasplab/gasp/pkg/gcd"
	"github.com/gasplab/gasp/pkg/lm"
)

// Rejection draws completions from P itself, without the grammar, and keeps
// those that are sentences of it: want of them, from at most budget
// attempts, rows attempts at a time. Accepted records are distributed
// exactly as P^G (under the length cap).
//
// An attempt stops at the first token that leaves the grammar's prefix
// language (Status Rejected): the rest of it could only be rejected, so
// this changes the cost, not the outcome. Once want attempts are accepted
// no new attempt starts, the ones running finish, and the first want
// accepted in order of start are returned, so that short completions, which
// finish first, are not favoured. Stats.AcceptanceRate is the acceptance
// rate.
func (c *Config) Rejection(m lm.Model, prompt []int, want, budget, rows int, rng *rand.Rand) ([]*Record, Stats, error) {
	if err := c.Validate(); err != nil {
		return nil, Stats{}, err
	}
	if want <= 0 || budget <= 0 || rows <= 0 {
		return nil, Stats{}, errors.New("sample: Rejection needs want, budget and rows > 0")
	}
	rows = min(rows, budget)
	b, err := lm.NewBatch(m, prompt, rows)
	if err != nil {
		return nil, Stats{}, err
	}
	defer b.Close()
	maxNew := c.Cap()

	type attempt struct {
		row   int
		index int // order of start
		st    *gcd.State
		rec   *Record
		rand  *rand.Rand
		ev0   int
	}
	type done struct {
		index int
		rec   *Record
	}
	var (
		st       Stats
		accepted []done
		started  int
		active   []*attempt
	)
	start := func(a *attempt) {
		a.index = started
		started++
		a.st.Rollback(0)
		a.rec = &Record{}
		b.Truncate(a.row, 0)
		a.ev0 = b.RowEvals(a.row)
	}
	for r := 0; r < rows; r++ {
		a := &attempt{row: r, st: c.Masker.NewState(), rand: Fork(rng)}
		start(a)
		active = append(active, a)
	}
	ds := newDists()
	ids := make([]int, 0, rows)
	var (
		allowed []gcd.Bitset
		res     []drawn
	)
	for len(active) > 0 {
		ids = ids[:0]
		allowed = allowed[:0]
		for _, a := range active {
			ids = append(ids, a.row)
			allowed = append(allowed, a.st.Allowed())
		}
		logits, err := b.Next(ids)
		if err != nil {
			return nil, st, err
		}
		res = append(res[:0], make([]drawn, len(active))...)
		ds.each(c.Transform, logits, allowed, func(k int, d *Dist) {
			tok := pickWeights(d.Prob, 1, active[k].rand)
			res[k] = drawn{tok: tok, logP: d.LogP[tok], logQ: d.LogP[tok], h: d.Entropy, rawH: d.RawEntropy}
		})
		next := active[:0]
		for k, a := range active {
			if !extendAttempt(b, a.row, a.st, a.rec, &res[k], maxNew) {
				next = append(next, a)
				continue
			}
			a.rec.Evals = b.RowEvals(a.row) - a.ev0
			st.Add(a.rec)
			if c.Ended != nil {
				c.Ended(a.row, a.rec)
			}
			if a.rec.Valid() {
				accepted = append(accepted, done{a.index, a.rec})
			}
			if len(accepted) < want && started < budget {
				start(a)
				next = append(next, a)
			}
		}
		active = next
	}
	slices.SortFunc(accepted, func(x, y done) int { return x.index - y.index })
	out := make([]*Record, 0, min(want, len(accepted)))
	for _, a := range accepted[:min(want, len(accepted))] {
		out = append(out, a.rec)
	}
	st.Evals = b.Evals()
	return out, st, nil
}

// RejectionEach runs one rejection sampler per random source, all in
// lockstep: run i draws attempts from P with rands[i] alone until one is a
// sentence of the grammar or budget attempts are spent, so its outcome does
// not depend on the other runs (a nil source leaves its row idle and out[i]
// nil, see "Reproducing runs" in the package documentation). out[i] is run
// i's accepted record, or its last attempt (not Valid) when the budget ran
// out; its Evals counts the evaluations of all the run's attempts. Stats
// counts every attempt.
func (c *Config) RejectionEach(m lm.Model, prompt []int, budget int, rands []*rand.Rand) ([]*Record, Stats, error) {
	if err := c.Validate(); err != nil {
		return nil, Stats{}, err
	}
	n := len(rands)
	if n == 0 || budget <= 0 {
		return nil, Stats{}, errors.New("sample: RejectionEach needs runs and budget > 0")
	}
	b, err := lm.NewBatch(m, prompt, n)
	if err != nil {
		return nil, Stats{}, err
	}
	defer b.Close()
	maxNew := c.Cap()

	type run struct {
		row, tries int
		st         *gcd.State
		rec        *Record
	}
	out := make([]*Record, n)
	var active []*run
	start := func(r *run) {
		r.tries++
		r.st.Rollback(0)
		r.rec = &Record{}
		b.Truncate(r.row, 0)
	}
	for i, rnd := range rands {
		if rnd != nil {
			r := &run{row: i, st: c.Masker.NewState()}
			start(r)
			active = append(active, r)
		}
	}
	var (
		st      Stats
		rows    []int
		allowed []gcd.Bitset
		res     []drawn
	)
	ds := newDists()
	for len(active) > 0 {
		rows, allowed = rows[:0], allowed[:0]
		for _, r := range active {
			rows = append(rows, r.row)
			allowed = append(allowed, r.st.Allowed())
		}
		logits, err := b.Next(rows)
		if err != nil {
			return nil, st, err
		}
		res = append(res[:0], make([]drawn, len(active))...)
		ds.each(c.Transform, logits, allowed, func(k int, d *Dist) {
			tok := pickWeights(d.Prob, 1, rands[active[k].row])
			res[k] = drawn{tok: tok, logP: d.LogP[tok], logQ: d.LogP[tok], h: d.Entropy, rawH: d.RawEntropy}
		})
		next := active[:0]
		for k, r := range active {
			if !extendAttempt(b, r.row, r.st, r.rec, &res[k], maxNew) {
				next = append(next, r)
				continue
			}
			st.Add(r.rec)
			if c.Ended != nil {
				c.Ended(r.row, r.rec)
			}
			if r.rec.Valid() || r.tries == budget {
				r.rec.Evals = b.RowEvals(r.row)
				out[r.row] = r.rec
				continue
			}
			start(r)
			next = append(next, r)
		}
		active = next
	}
	st.Evals = b.Evals()
	return out, st, nil
}

// extendAttempt appends the drawn token x to a rejection attempt: to its record, its model row and its
// grammar state. It reports whether the attempt has ended, with the record's Status saying how: Rejected
// (x left the grammar's prefixes), Complete or Capped.
func extendAttempt(b *lm.Batch, row int, st *gcd.State, rec *Record, x *drawn, maxNew int) bool {
	rec.add(x.tok, x.logP, x.logQ, x.h, x.rawH)
	b.Append(row, x.tok)
	switch {
	case st.Advance(x.tok) != nil:
		rec.Status = Rejected
	case st.Ended():
		rec.Status = Complete
	case len(rec.Tokens) >= maxNew:
		rec.Status = Capped
	default:
		return false
	}
	return true
}
