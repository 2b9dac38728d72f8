package sample

import (
	"errors"
	"math/rand/v2"
	"slices"

	"github.com/gasplab/gasp/pkg/gcd"
	"github.com/gasplab/gasp/pkg/lm"
)

// RejectionOptions say how much Rejection draws.
type RejectionOptions struct {
	Want   int // accepted samples wanted
	Budget int // most attempts; 0 means 100·Want
	Rows   int // attempts run at a time, one row each; 0 means 64
}

// Rejection draws completions from P itself, without the grammar, and keeps
// those that are sentences of it: o.Want of them, from at most o.Budget
// attempts, o.Rows attempts at a time. Accepted records are distributed
// exactly as P^G (under the length cap).
//
// An attempt stops at the first token that leaves the grammar's prefix
// language (Status Rejected): the rest of it could only be rejected, so
// this changes the cost, not the outcome. Once want attempts are accepted
// no new attempt starts, the ones running finish, and the first want
// accepted in order of start are returned, so that short completions, which
// finish first, are not favoured. Stats.AcceptanceRate is the acceptance
// rate.
func (c *Config) Rejection(m lm.Model, prompt []int, o RejectionOptions, rng *rand.Rand) ([]*Record, Stats, error) {
	if err := c.Validate(); err != nil {
		return nil, Stats{}, err
	}
	if o.Budget == 0 {
		o.Budget = 100 * o.Want
	}
	if o.Rows == 0 {
		o.Rows = 64
	}
	want, budget, rows := o.Want, o.Budget, o.Rows
	if want <= 0 || budget <= 0 || rows <= 0 {
		return nil, Stats{}, errors.New("sample: Rejection needs Want > 0, and Budget and Rows ≥ 0")
	}
	rows = min(rows, budget)
	b, err := lm.NewBatch(m, prompt, rows)
	if err != nil {
		return nil, Stats{}, err
	}
	defer b.Close()
	s := &rejection{c: c, b: b, maxNew: c.Cap()}
	type done struct {
		index int
		rec   *Record
	}
	var accepted []done
	started := 0
	start := func(a *attempt) {
		a.index = started
		started++
		a.retry(b)
		a.ev0 = b.RowEvals(a.row)
	}
	s.end = func(a *attempt) bool {
		a.rec.Evals = a.evals(b)
		c.report(&s.st, a.row, a.rec)
		if a.rec.Valid() {
			accepted = append(accepted, done{a.index, a.rec})
		}
		if len(accepted) < want && started < budget {
			start(a)
			return true
		}
		return false
	}
	var active []*attempt
	for r := 0; r < rows; r++ {
		a := &attempt{lane: lane{row: r, st: c.Masker.NewState(), rand: Fork(rng)}}
		start(a)
		active = append(active, a)
	}
	if err := lockstep(b, c.Transform, active, s); err != nil {
		return nil, s.st, err
	}
	slices.SortFunc(accepted, func(x, y done) int { return x.index - y.index })
	out := make([]*Record, 0, min(want, len(accepted)))
	for _, a := range accepted[:min(want, len(accepted))] {
		out = append(out, a.rec)
	}
	s.st.Evals = b.Evals()
	return out, s.st, nil
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
	s := &rejection{c: c, b: b, maxNew: c.Cap()}
	out := make([]*Record, n)
	start := func(a *attempt) {
		a.tries++
		a.retry(b)
	}
	s.end = func(a *attempt) bool {
		c.report(&s.st, a.row, a.rec)
		if a.rec.Valid() || a.tries == budget {
			a.rec.Evals = a.evals(b)
			out[a.row] = a.rec
			return false
		}
		start(a)
		return true
	}
	var active []*attempt
	for i, rnd := range rands {
		if rnd != nil {
			a := &attempt{lane: lane{row: i, st: c.Masker.NewState(), rand: rnd}}
			start(a)
			active = append(active, a)
		}
	}
	if err := lockstep(b, c.Transform, active, s); err != nil {
		return nil, s.st, err
	}
	s.st.Evals = b.Evals()
	return out, s.st, nil
}

// attempt is a row of rejection sampling: the attempt it draws.
type attempt struct {
	lane
	index int // Rejection: the attempt's order of start
	tries int // RejectionEach: the run's attempts so far
}

// rejection draws attempts from P, each stopped at the first token that
// leaves the grammar; end says what a row does when its attempt ends.
type rejection struct {
	c      *Config
	b      *lm.Batch
	maxNew int
	st     Stats
	// end is called when a's attempt has ended, its Status set; it
	// reports whether a's row starts another (end having restarted a).
	end func(a *attempt) bool
}

func (s *rejection) draw(a *attempt, d *Dist, _ gcd.Bitset) drawn {
	tok := Pick(d.Prob, 1, a.rand)
	return drawn{tok: tok, logP: d.LogP[tok], logQ: d.LogP[tok], h: d.Entropy, rawH: d.RawEntropy}
}

func (s *rejection) step(a *attempt, x *drawn) (*attempt, bool, error) {
	status, _ := extend(s.b, &a.lane, x, s.maxNew)
	if status == Running {
		return a, true, nil
	}
	a.rec.Status = status
	return a, s.end(a), nil
}
