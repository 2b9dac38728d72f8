package sample

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/gasplab/gasp/pkg/gcd"
	"github.com/gasplab/gasp/pkg/lm"
)

// DefaultMaxNew is the length cap used when Config.MaxNew is 0.
const DefaultMaxNew = 512

// Config is what every sampler needs besides the model and the prompt.
type Config struct {
	// Masker holds the grammar and the vocabulary. It is not safe for
	// concurrent use, and neither is a sampler using it.
	Masker *gcd.Masker
	// Transform defines P.
	Transform lm.Transform
	// MaxNew caps a completion's tokens, its end-of-sequence token
	// included; 0 means DefaultMaxNew.
	MaxNew int
	// Ended, if not nil, is called each time a row's completion ends
	// (Complete, Capped, DeadEnd or Rejected), on the sampler's goroutine,
	// for example to show progress. It must not modify rec.
	Ended func(row int, rec *Record)
}

// Cap returns the length cap in effect.
func (c *Config) Cap() int {
	if c.MaxNew == 0 {
		return DefaultMaxNew
	}
	return c.MaxNew
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	if c.Masker == nil {
		return errors.New("sample: Config.Masker is nil")
	}
	if c.MaxNew < 0 {
		return fmt.Errorf("sample: MaxNew %d is negative", c.MaxNew)
	}
	return c.Transform.Validate()
}

// Stats counts a sampler's work.
type Stats struct {
	Samples  int // completions finished
	Complete int // ... that are sentences
	Capped   int // ... that hit the length cap
	DeadEnd  int // ... that reached a prefix with nothing allowed
	Rejected int // ... that left the grammar (rejection sampling)
	Tokens   int // tokens sampled
	Evals    int // LM token evaluations, the prefill included
}

// AcceptanceRate returns Complete / Samples.
func (s Stats) AcceptanceRate() float64 {
	if s.Samples == 0 {
		return 0
	}
	return float64(s.Complete) / float64(s.Samples)
}

// Add counts a finished record.
func (s *Stats) Add(r *Record) {
	s.Samples++
	s.Tokens += len(r.Tokens)
	switch r.Status {
	case Complete:
		s.Complete++
	case Capped:
		s.Capped++
	case DeadEnd:
		s.DeadEnd++
	case Rejected:
		s.Rejected++
	}
}

// Fork returns a new random source seeded from r, so that each row or chain
// has its own stream and results do not depend on how rows are batched.
func Fork(r *rand.Rand) *rand.Rand {
	return rand.New(rand.NewPCG(r.Uint64(), r.Uint64()))
}

// Forks returns n sources forked from r in turn: what GCD, ASAp and
// mcmc.Run give their rows.
func Forks(r *rand.Rand, n int) []*rand.Rand {
	out := make([]*rand.Rand, n)
	for i := range out {
		out[i] = Fork(r)
	}
	return out
}

// NewRand returns the random source of a run with the given seed. A run's
// output is a function of its seed alone (and of the model, prompt and
// configuration), whichever other runs share its batch.
func NewRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// DeriveSeed returns the i-th of a family of seeds derived from one seed
// (SplitMix64 of both), so that each run of a batch has a seed of its own
// and can be reproduced alone: NewRand(DeriveSeed(seed, i)). A grid names
// its runs' seeds by task and method too: experiment.RunSeed.
func DeriveSeed(seed uint64, i int) uint64 {
	return splitMix(seed ^ splitMix(uint64(i)+0x632be59bd9b4e019))
}

func splitMix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// Job is one row's GCD run in progress: Rec holds the tokens so far (the
// prefix to continue from) and State the grammar state after them.
type Job struct {
	Row   int
	State *gcd.State
	Rec   *Record
	Rand  *rand.Rand

	ev0 int // the row's evaluations when the job started
}

func (j *Job) rowState() (int, *gcd.State) { return j.Row, j.State }

// Continue runs GCD on every job until its record ends (Complete, Capped or
// DeadEnd), all rows in lockstep: one b.Next call per token step for the
// rows still running. Each row of b is first set to its record's tokens,
// reusing what it holds in common with them. Each record's Evals grows by
// the evaluations its row spent, those that restore its tokens included.
func (c *Config) Continue(b *lm.Batch, jobs []*Job) error {
	return c.Stream(b, jobs, nil)
}

// Stream is Continue that keeps rows busy: each time a job's record ends,
// more(job) is called (after Config.Ended) and may return the next job of
// the same row, which joins the next token step; nil leaves the row idle.
// A driver of many short jobs per row (MCMC steps) thus never waits for the
// slowest row of a round. Jobs that are not Running when they are given are
// skipped.
func (c *Config) Stream(b *lm.Batch, jobs []*Job, more func(done *Job) (*Job, error)) error {
	s := &stream{c: c, b: b, maxNew: c.Cap(), more: more}
	var active []*Job
	for _, j := range jobs {
		ok, ended, err := s.start(j)
		if ended {
			j, err = s.successor(j)
			ok = j != nil
		}
		if err != nil {
			return err
		}
		if ok {
			active = append(active, j)
		}
	}
	return lockstep(b, c.Transform, active, s)
}

// stream is GCD as a lockstep method: a row whose job ends takes the next
// job more gives it, or idles.
type stream struct {
	c      *Config
	b      *lm.Batch
	maxNew int
	more   func(done *Job) (*Job, error)
}

func (s *stream) end(j *Job) {
	j.Rec.Evals += s.b.RowEvals(j.Row) - j.ev0
	if s.c.Ended != nil {
		s.c.Ended(j.Row, j.Rec)
	}
}

// start readies j's row and reports whether j needs token steps, and
// whether it ended at once (at the length cap).
func (s *stream) start(j *Job) (ok, ended bool, err error) {
	if !slices.Equal(j.State.Tokens(), j.Rec.Tokens) {
		return false, false, fmt.Errorf("sample: row %d: grammar state and record hold different tokens", j.Row)
	}
	if j.Rec.Status != Running {
		return false, false, nil
	}
	if j.State.Ended() {
		return false, false, fmt.Errorf("sample: row %d: running record after end of sequence", j.Row)
	}
	j.ev0 = s.b.RowEvals(j.Row)
	if len(j.Rec.Tokens) >= s.maxNew {
		j.Rec.Status = Capped
		s.end(j)
		return false, true, nil
	}
	s.b.Set(j.Row, j.Rec.Tokens)
	return true, false, nil
}

// successor returns the next job of the row of j, which has ended, that
// needs token steps; nil if none.
func (s *stream) successor(j *Job) (*Job, error) {
	for s.more != nil {
		nj, err := s.more(j)
		if nj == nil || err != nil {
			return nil, err
		}
		if nj.Row != j.Row {
			return nil, fmt.Errorf("sample: a job of row %d followed by one of row %d", j.Row, nj.Row)
		}
		ok, ended, err := s.start(nj)
		if err != nil || ok {
			return nj, err
		}
		if !ended {
			return nil, nil
		}
		j = nj
	}
	return nil, nil
}

func (s *stream) draw(j *Job, d *Dist, _ gcd.Bitset) drawn { return gcdDraw(d, j.Rand) }

func (s *stream) step(j *Job, x *drawn) (*Job, bool, error) {
	if x.none {
		j.Rec.Status = DeadEnd
	} else {
		l := lane{row: j.Row, st: j.State, rec: j.Rec}
		status, err := extend(s.b, &l, x, s.maxNew)
		switch status {
		case Running:
			return j, true, nil
		case Rejected:
			return nil, false, fmt.Errorf("sample: allowed token refused: %w", err)
		}
		j.Rec.Status = status
	}
	s.end(j)
	nj, err := s.successor(j)
	return nj, nj != nil, err
}

// GCD draws n completions with grammar-constrained decoding, one row each.
// Records that are not Valid (capped or dead ends) are returned flagged and
// counted in Stats.
func (c *Config) GCD(m lm.Model, prompt []int, n int, rng *rand.Rand) ([]*Record, Stats, error) {
	return c.GCDEach(m, prompt, Forks(rng, n))
}

// GCDEach is GCD with one completion per random source: row i draws from
// rands[i] alone, so its record does not depend on the other rows. A nil
// source leaves its row idle, with a nil record (see "Reproducing runs" in
// the package documentation).
func (c *Config) GCDEach(m lm.Model, prompt []int, rands []*rand.Rand) ([]*Record, Stats, error) {
	if err := c.Validate(); err != nil {
		return nil, Stats{}, err
	}
	n := len(rands)
	b, err := lm.NewBatch(m, prompt, n)
	if err != nil {
		return nil, Stats{}, err
	}
	defer b.Close()
	var jobs []*Job
	recs := make([]*Record, n)
	for i, r := range rands {
		if r != nil {
			recs[i] = &Record{}
			jobs = append(jobs, &Job{Row: i, State: c.Masker.NewState(), Rec: recs[i], Rand: r})
		}
	}
	if err := c.Continue(b, jobs); err != nil {
		return nil, Stats{}, err
	}
	var st Stats
	for _, j := range jobs {
		st.Add(j.Rec)
	}
	st.Evals = b.Evals()
	return recs, st, nil
}
