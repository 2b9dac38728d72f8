package mcmc

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gasplab/gasp/pkg/gcd"
	"github.com/gasplab/gasp/pkg/internal/logspace"
	"github.com/gasplab/gasp/pkg/lm"
	"github.com/gasplab/gasp/pkg/sample"
)

// LogQ returns log q(y|x): the log-probability that cutting x at a position
// drawn from px (p_pos^x, normalised) and regenerating the rest with GCD
// yields y. Every cut i ≤ min(lcp(x, y), |x|−1) can produce y, so
//
//	q(y|x) = Σ_{i=0}^{min(lcp, |x|−1)} px[i] · Π_{j≥i} P_GCD(y_j | y_{<j}),
//
// computed from y's stored LogQ alone. It is −Inf if no cut can.
func LogQ(px []float64, x, y *sample.Record) float64 {
	top := min(lcp(x.Tokens, y.Tokens), len(x.Tokens)-1, len(y.Tokens))
	suffix := 0.0 // Σ_{j≥i} y.LogQ[j], for i = top first
	for j := top; j < len(y.LogQ); j++ {
		suffix += y.LogQ[j]
	}
	acc := math.Inf(-1)
	for i := top; i >= 0; i-- {
		if i < top {
			suffix += y.LogQ[i]
		}
		if px[i] > 0 {
			acc = logspace.Add(acc, math.Log(px[i])+suffix)
		}
	}
	return acc
}

func lcp(a, b []int) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// LogAlpha returns log α(x, y) = min(0, log P(y) + log q(x|y) − log P(x) −
// log q(y|x)) for records x and y, the truncation distributions of the
// kernel in use being px (for x) and py (for y): 0 when y equals x, −Inf
// when y is not a valid sentence.
func LogAlpha(x, y *sample.Record, px, py []float64) float64 {
	switch {
	case !y.Valid():
		return math.Inf(-1)
	case equal(x.Tokens, y.Tokens):
		return 0
	}
	return min(0, y.LogProb()+LogQ(py, y, x)-x.LogProb()-LogQ(px, x, y))
}

func equal(a, b []int) bool { return len(a) == len(b) && lcp(a, b) == len(a) }

// Config configures Run.
type Config struct {
	Sample   sample.Config
	Proposal Proposal
	// Steps is k, the number of MH steps of each chain.
	Steps int
	// MaxInitTries bounds the GCD draws spent on each chain's start, which
	// must be a valid sentence; 0 means 100.
	MaxInitTries int

	// logAlpha, when set, replaces LogAlpha for a step that cut at cut:
	// tests plug in the classic mistakes in q to show that the
	// distribution tests notice them (export_test.go).
	logAlpha func(x, y *sample.Record, px, py []float64, cut int) float64
}

// Step is one MH step of a chain.
type Step struct {
	Kernel   int            // the mixture component used (0 unless the Proposal implements Kernels)
	Cut      int            // the truncation point i: Proposal.Tokens[:Cut] was kept
	Proposal *sample.Record // y
	LogAlpha float64        // log α(x, y); −Inf if y is invalid
	Accepted bool
}

// Chain is one chain: its GCD start and its steps.
type Chain struct {
	Init  *sample.Record
	Steps []Step
	// InitEvals counts the LM token evaluations of the chain's row for
	// its start, invalid GCD draws included (the shared prompt prefill
	// excluded). Step k's own are Steps[k-1].Proposal.Evals.
	InitEvals int
}

// EvalsAt returns the LM token evaluations the chain's row spent up to its
// state after k steps: its start and its first k proposals, restoring the
// current state's prefix after rejections included.
func (c *Chain) EvalsAt(k int) int {
	n := c.InitEvals
	for _, s := range c.Steps[:k] {
		n += s.Proposal.Evals
	}
	return n
}

// At returns the chain's state after k steps (0 ≤ k ≤ len(Steps)).
func (c *Chain) At(k int) *sample.Record {
	x := c.Init
	for _, s := range c.Steps[:k] {
		if s.Accepted {
			x = s.Proposal
		}
	}
	return x
}

// Stats counts a run's work. Token evaluations are counted by the lm.Batch;
// "Authors" figures are what the authors' implementation would spend on the
// same run: per proposal, |prompt| + i + m to re-encode prompt and kept
// prefix and generate the m-token suffix, plus |prompt| + |y| for a second
// pass that scores y; for each start, |prompt| + |x₀| twice.
type Stats struct {
	Chains    int
	Steps     int // MH steps, all chains together
	Accepted  int // accepted proposals, y == x included
	Same      int // proposals equal to the current state
	Invalid   int // proposals that hit the length cap or a dead end (rejected)
	InitDraws int // GCD draws for the starts, invalid ones included

	InitEvals   int // LM token evaluations for the prefill and the starts
	Evals       int // LM token evaluations during the MH steps
	Regenerated int // Σ m, the regenerated suffix lengths
	// Restored counts evaluations spent re-evaluating tokens of the
	// current state after a rejection: a chain's row then holds y, and
	// the next cut of x may lie beyond their common prefix. Evals =
	// Σ (m − 1 + [i > 0]) + Restored: a cut at i > 0 re-evaluates token
	// i−1 (its output is not kept), the final token of a suffix is never
	// evaluated, and a cut at 0 reuses the prompt's logits.
	Restored int
	// AfterRejection counts the steps that followed a rejected proposal
	// different from the current state, whose row therefore held y, not
	// x; RestoredSteps counts those of them whose cut lay beyond
	// lcp(x, y)+1 and so re-evaluated tokens of x (Restored of them).
	// The others reused the row's cache as it was.
	AfterRejection, RestoredSteps int

	AuthorsInitEvals int
	AuthorsEvals     int // during the MH steps
}

// EvalsPerStep returns Evals / Steps.
func (s Stats) EvalsPerStep() float64 { return ratio(s.Evals, s.Steps) }

// RegeneratedPerStep returns the mean regenerated suffix length.
func (s Stats) RegeneratedPerStep() float64 { return ratio(s.Regenerated, s.Steps) }

// AuthorsEvalsPerStep returns AuthorsEvals / Steps.
func (s Stats) AuthorsEvalsPerStep() float64 { return ratio(s.AuthorsEvals, s.Steps) }

// AcceptanceRate returns Accepted / Steps.
func (s Stats) AcceptanceRate() float64 { return ratio(s.Accepted, s.Steps) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Result is the outcome of Run.
type Result struct {
	Chains []Chain
	Stats  Stats
}

// Final returns each chain's state after k steps.
func (r *Result) Final(k int) []*sample.Record {
	out := make([]*sample.Record, len(r.Chains))
	for i := range r.Chains {
		out[i] = r.Chains[i].At(k)
	}
	return out
}

// Run runs chains independent Metropolis–Hastings chains of cfg.Steps steps
// (paper Alg. 1), each on its own row of one lm.Batch, all advancing
// together: every token step of every chain's GCD is one batched Next call.
// A chain does not wait for the others between its steps: once its proposal
// is complete it decides it and starts the next one, so the batch's rows
// stay busy until the chains run out of steps.
//
// Each chain starts from a valid GCD sample (invalid draws are redrawn, up to
// MaxInitTries). A step draws a cut i from the proposal's p_pos^x, keeps
// x[:i] (the row keeps its cache for it), regenerates the rest with GCD into
// y, and accepts with probability α = min(1, P(y)q(x|y) / (P(x)q(y|x))), q
// summed over every cut that could have produced y (LogQ), all from stored
// records. A y that hits the length cap is rejected, which makes the target
// P^G conditioned on |x| ≤ MaxNew.
func Run(m lm.Model, prompt []int, chains int, cfg Config, rng *rand.Rand) (*Result, error) {
	if chains <= 0 {
		return nil, errors.New("mcmc: Run needs chains > 0")
	}
	return RunEach(m, prompt, cfg, sample.Forks(rng, chains))
}

// RunEach is Run with one chain per random source: chain i draws from
// rands[i] alone, so it does not depend on the other chains. A nil source
// leaves its row idle, and Chains[i] empty (see "Reproducing runs" in package sample).
func RunEach(m lm.Model, prompt []int, cfg Config, rands []*rand.Rand) (*Result, error) {
	chains := len(rands)
	if err := cfg.Sample.Validate(); err != nil {
		return nil, err
	}
	if cfg.Proposal == nil || chains <= 0 || cfg.Steps < 0 {
		return nil, errors.New("mcmc: Run needs a Proposal, chains > 0 and Steps ≥ 0")
	}
	kw, kp, err := Components(cfg.Proposal)
	if err != nil {
		return nil, err
	}
	b, err := lm.NewBatch(m, prompt, chains)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	r := &runner{cfg: &cfg, b: b, kw: kw, kp: kp, tries: cfg.MaxInitTries, prompt: len(prompt),
		res: &Result{Chains: make([]Chain, chains)}, cs: make([]*chain, chains)}
	if r.tries == 0 {
		r.tries = 100
	}
	var jobs []*sample.Job
	for i := range r.cs {
		if rands[i] != nil {
			r.cs[i] = &chain{row: i, st: cfg.Sample.Masker.NewState(), rand: rands[i], c: &r.res.Chains[i]}
			jobs = append(jobs, r.initJob(r.cs[i]))
		}
	}
	r.res.Stats.Chains = len(jobs)
	r.res.Stats.InitEvals = r.prompt
	if err := cfg.Sample.Stream(b, jobs, r.more); err != nil {
		return nil, err
	}
	return r.res, nil
}

type chain struct {
	row   int
	st    *gcd.State
	rand  *rand.Rand
	x     *sample.Record
	c     *Chain
	tries int       // GCD draws for the start so far
	px    []float64 // p_pos^x of the step in progress
	step  Step      // the step in progress
}

// runner runs the chains of RunEach as sample.Stream jobs. A chain's jobs
// come in the order its random source is used: start draws until one is
// valid, then per step the kernel, the cut, the suffix and the acceptance
// draw u.
type runner struct {
	cfg    *Config
	b      *lm.Batch
	kw     []float64 // the kernels' weights
	kp     []Proposal
	tries  int // MaxInitTries in effect
	prompt int // its length
	cs     []*chain
	res    *Result
}

func (r *runner) initJob(c *chain) *sample.Job {
	c.tries++
	c.st.Rollback(0)
	c.x = &sample.Record{}
	return &sample.Job{Row: c.row, State: c.st, Rec: c.x, Rand: c.rand}
}

// stepJob draws the kernel and the cut of c's next step and returns the
// job that regenerates the suffix.
func (r *runner) stepJob(c *chain) (*sample.Job, error) {
	kern := 0
	if len(r.kp) > 1 {
		kern = sample.Pick(r.kw, 1, c.rand)
	}
	px, err := Positions(r.kp[kern], c.x)
	if err != nil {
		return nil, err
	}
	cut := sample.Pick(px, 1, c.rand)
	keep := c.x.Tokens[:cut]
	if held := r.b.Tokens(c.row); !equal(held, c.x.Tokens) {
		stats := &r.res.Stats
		stats.AfterRejection++
		if l := lcp(held, keep); cut > l+1 {
			stats.Restored += cut - l - 1
			stats.RestoredSteps++
		}
	}
	setState(c.st, keep)
	c.px = px
	c.step = Step{Kernel: kern, Cut: cut}
	return &sample.Job{Row: c.row, State: c.st, Rec: c.x.Prefix(cut), Rand: c.rand}, nil
}

// more is sample.Stream's: the chain's next job once done has ended.
func (r *runner) more(done *sample.Job) (*sample.Job, error) {
	c := r.cs[done.Row]
	stats := &r.res.Stats
	if c.c.Init == nil { // a start
		stats.InitDraws++
		c.c.InitEvals += c.x.Evals
		stats.InitEvals += c.x.Evals
		stats.AuthorsInitEvals += 2 * (r.prompt + len(c.x.Tokens))
		if !c.x.Valid() {
			if c.tries == r.tries {
				return nil, fmt.Errorf("mcmc: chain %d: no valid GCD sample in %d draws", c.row, r.tries)
			}
			return r.initJob(c), nil
		}
		c.c.Init = c.x
	} else if err := r.decide(c, done.Rec); err != nil {
		return nil, err
	}
	if len(c.c.Steps) == r.cfg.Steps {
		return nil, nil
	}
	return r.stepJob(c)
}

// decide finishes the step whose proposal y is complete.
func (r *runner) decide(c *chain, y *sample.Record) error {
	s, stats := &c.step, &r.res.Stats
	s.Proposal = y
	m := len(y.Tokens) - s.Cut
	stats.Steps++
	stats.Regenerated += m
	stats.Evals += y.Evals
	stats.AuthorsEvals += (r.prompt + s.Cut + m) + (r.prompt + len(y.Tokens))
	if y.Valid() && equal(c.x.Tokens, y.Tokens) {
		stats.Same++
	}
	logAlpha, err := r.logAlpha(c, y)
	if err != nil {
		return err
	}
	s.LogAlpha = logAlpha
	if !y.Valid() {
		stats.Invalid++
	}
	// Draw u even when α = 1, so that rounding in α cannot shift
	// the chain's random stream.
	u := c.rand.Float64()
	s.Accepted = s.LogAlpha == 0 || u < math.Exp(s.LogAlpha)
	if s.Accepted {
		stats.Accepted++
		c.x = y
	}
	c.c.Steps = append(c.c.Steps, *s)
	return nil
}

// logAlpha returns log α(x, y) for c's step in progress.
func (r *runner) logAlpha(c *chain, y *sample.Record) (float64, error) {
	s := &c.step
	switch {
	case !y.Valid():
		return math.Inf(-1), nil
	case equal(c.x.Tokens, y.Tokens):
		return 0, nil
	}
	py, err := Positions(r.kp[s.Kernel], y)
	if err != nil {
		return 0, err
	}
	if r.cfg.logAlpha != nil {
		return r.cfg.logAlpha(c.x, y, c.px, py, s.Cut), nil
	}
	return LogAlpha(c.x, y, c.px, py), nil
}

// setState moves st to the prefix toks, rolling back only past their
// common prefix.
func setState(st *gcd.State, toks []int) {
	l := lcp(st.Tokens(), toks)
	st.Rollback(l)
	for _, t := range toks[l:] {
		if err := st.Advance(t); err != nil {
			panic(fmt.Sprintf("mcmc: a prefix of a sentence refused: %v", err)) // records come from this grammar
		}
	}
}
