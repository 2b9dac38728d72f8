package sample

import (
	"math/rand/v2"

	"github.com/gasplab/gasp/pkg/gcd"
	"github.com/gasplab/gasp/pkg/lm"
)

// lane is one row of a batch and the completion being written on it.
type lane struct {
	row  int
	st   *gcd.State
	rec  *Record
	rand *rand.Rand
	ev0  int // the row's evaluations when the current count began
}

func (l *lane) rowState() (int, *gcd.State) { return l.row, l.st }

// retry starts a new completion from the prompt: an empty record, the
// grammar state and the model row rolled back.
func (l *lane) retry(b *lm.Batch) {
	l.st.Rollback(0)
	l.rec = &Record{}
	b.Truncate(l.row, 0)
}

// evals returns the row's evaluations since ev0.
func (l *lane) evals(b *lm.Batch) int { return b.RowEvals(l.row) - l.ev0 }

// A rower is a lane as the driver sees it: a row of the batch and the
// grammar state that masks its next token.
type rower interface {
	rowState() (int, *gcd.State)
}

// A method is what a sampler plugs into lockstep: how a row's token is
// drawn from its next-token distribution, and what follows the draw.
type method[L rower, S any] interface {
	// draw draws L's next token from d (the distribution after L's
	// tokens, masked by allowed). It runs on worker goroutines, for many
	// rows at once: it may write only what belongs to L.
	draw(l L, d *Dist, allowed gcd.Bitset) S
	// step applies the draw to L, on one goroutine, lane after lane in
	// the order of the active list. It returns the lane to run on L's
	// row at the next token step (L itself, or the row's next
	// completion) and whether there is one: a row without one idles.
	step(l L, x *S) (next L, ok bool, err error)
}

// A regrouper is a method that may change the set of running lanes
// between token steps (SMC resamples its particles there).
type regrouper[L rower] interface {
	regroup(active []L) ([]L, error)
}

// lockstep is the decoding loop every sampler runs: all active lanes step
// together, one batched b.Next per token step, their distributions computed
// (in parallel when the step is large) and their tokens drawn by m, then
// stepped in order, until no lane is left.
func lockstep[L rower, S any](b *lm.Batch, tf lm.Transform, active []L, m method[L, S]) error {
	rg, _ := any(m).(regrouper[L])
	ds := newDists()
	var (
		rows    []int
		allowed []gcd.Bitset
		res     []S
	)
	for len(active) > 0 {
		rows, allowed = rows[:0], allowed[:0]
		for _, l := range active {
			row, st := l.rowState()
			rows = append(rows, row)
			allowed = append(allowed, st.Allowed())
		}
		logits, err := b.Next(rows)
		if err != nil {
			return err
		}
		res = append(res[:0], make([]S, len(active))...)
		ds.each(tf, logits, allowed, func(k int, d *Dist) {
			res[k] = m.draw(active[k], d, allowed[k])
		})
		next := active[:0]
		for k, l := range active {
			nl, ok, err := m.step(l, &res[k])
			if err != nil {
				return err
			}
			if ok {
				next = append(next, nl) // at most one per lane: next never overtakes active
			}
		}
		active = next
		if rg != nil {
			if active, err = rg.regroup(active); err != nil {
				return err
			}
		}
	}
	return nil
}

// extend appends the drawn token x to a row's record, its model row and
// its grammar state, and returns the record's status after it: Running,
// Complete, Capped, or Rejected, with the grammar's error, when x left the
// grammar's prefixes. It does not set the record's Status.
func extend(b *lm.Batch, l *lane, x *drawn, maxNew int) (Status, error) {
	l.rec.add(x.tok, x.logP, x.logQ, x.h, x.rawH)
	b.Append(l.row, x.tok)
	switch err := l.st.Advance(x.tok); {
	case err != nil:
		return Rejected, err
	case l.st.Ended():
		return Complete, nil
	case len(l.rec.Tokens) >= maxNew:
		return Capped, nil
	}
	return Running, nil
}

// gcdDraw draws a token from P_GCD; none when no allowed token has
// positive probability.
func gcdDraw(d *Dist, r *rand.Rand) drawn {
	if len(d.IDs) == 0 {
		return drawn{none: true}
	}
	i := Pick(d.allowedP, d.pickSum, r)
	tok := d.IDs[i]
	return drawn{tok: tok, logP: d.LogP[tok], logQ: d.LogQ[i], h: d.Entropy, rawH: d.RawEntropy}
}

// report counts a finished record and reports it to c.Ended.
func (c *Config) report(st *Stats, row int, rec *Record) {
	st.Add(rec)
	if c.Ended != nil {
		c.Ended(row, rec)
	}
}
