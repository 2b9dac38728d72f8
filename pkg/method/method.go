// Package method defines a sampling method as a value: a way to draw a
// task's samples, run the same way by the experiment grid
// (pkg/experiment), "gasp sample", "gasp demo", "gasp bench sample" and
// the notebooks. The built-in methods are the types GCD, Rejection, ASAp,
// MCMC, Exact and SMC; Parse is the one place their names resolve. A user's
// method is any other Method, most often MCMC with a proposal of one's own:
//
//	floor := mcmc.ProposalFunc(func(x *sample.Record, w []float64) {
//		for i := range w {
//			w[i] = 0.1 + x.Entropy[i]
//		}
//	})
//	opts := experiment.Options{Methods: map[string]method.Method{"mcmc-floor": method.MCMC{Proposal: floor}}}
//
// A method draws a batch of runs, one row of the model each, from one
// random source per run, and returns what every run left at each of its
// steps (Steps): an MCMC chain its states k = 0…K, ASAp its samples k =
// 1…K, the others one record at k = 0.
package method

import (
	"math"
	"math/rand/v2"

	"github.com/gasplab/gasp/pkg/lm"
	"github.com/gasplab/gasp/pkg/mcmc"
	"github.com/gasplab/gasp/pkg/sample"
)

// Method is a way to draw a task's samples.
type Method interface {
	// Draw runs the method once per random source of r, all runs in one
	// batch: run i on row i with r.Rands[i]; a nil source leaves its row
	// idle. It returns every record the runs leave, at the k that Steps
	// says.
	Draw(r Request) (Result, error)
	// Steps says at which k a run leaves records.
	Steps() Steps
}

// Steps says at which k a run of a method leaves records.
type Steps uint8

const (
	None    Steps = iota // one record, at k = 0
	Chain                // a Markov chain's states at k = 0…K
	Samples              // successive samples k = 1…K (ASAp)
)

// Range returns the first and last k of a run's records when the method
// runs K steps.
func (s Steps) Range(K int) (lo, hi int) {
	switch s {
	case Chain:
		return 0, K
	case Samples:
		return 1, K
	}
	return 0, 0
}

// Request is a batch for a method to draw: which model, prompt and
// sampler settings, one random source per run, and how much each run
// draws. The zero values of K, Budget and Trie mean no steps, the
// method's default budget and a new trie.
type Request struct {
	LM     lm.Model      // one row per run (Rows); cancel it with lm.WithContext
	Sample sample.Config // the sampler's settings: grammar, temperature, length cap, Ended
	Prompt []int         // the prompt's tokens, every run's prefix
	Rands  []*rand.Rand  // run i's random source on row i; nil: row i idles

	K      int          // MCMC steps; ASAp samples
	Budget int          // Rejecters: most attempts per run; 0: the method's default (1 for Rejection, ExactBudget for Exact)
	Trie   *sample.Trie // cars, ars: the trie to learn in (nil: a new one)
}

// Result is what a batch of a method's runs left.
type Result struct {
	Drawn []Drawn    // every run's records, at the k that Steps says
	Stats mcmc.Stats // MCMC: the chains' statistics; zero for other methods
}

// Drawn is what run Run of a method left at step K.
type Drawn struct {
	Run, K     int
	Rec        *sample.Record
	Accepted   []bool // MCMC: acceptance of steps 1…K
	Evals      int    // LM evaluations of the run up to this record
	Rejections int    // exact methods: attempts rejected before this sample
	// Proposal is, for MCMC at K ≥ 1, step K (its proposal, accepted or
	// not); nil otherwise.
	Proposal *mcmc.Step
}

// MaxK bounds K, a run's steps: a run keeps its K+1 records, and a chain
// of 10^5 steps already takes days on an 8B model.
const MaxK = 100_000

// A method declares its traits through small optional interfaces, as an
// http.ResponseWriter declares Flusher: Rows, Units, Rejects and Learns
// ask for them and give the plain answer for a method that has none. A
// user's method implements only those that differ from the plain answer.
type (
	// RowCounter is implemented by methods that take more than one
	// language-model row per run (SMC: one per particle).
	RowCounter interface{ RowsPerRun() int }
	// UnitCounter is implemented by methods whose run ends a number of
	// completions other than its records (SMC: one per particle).
	UnitCounter interface{ Units(K int) int }
	// Rejecter is implemented by methods whose runs may end with no sample,
	// having spent their budget of attempts (Request.Budget).
	Rejecter interface{ Rejects() bool }
	// Learner is implemented by methods whose runs learn in a trie
	// (Request.Trie) that later batches may continue.
	Learner interface{ Learns() bool }
)

// Rows returns the language-model rows a batch of runs runs of m takes:
// one per run unless m is a RowCounter. A batch's memory is that of its
// rows (model.CheckMemory). It saturates at math.MaxInt rather than
// overflow.
func Rows(m Method, runs int) int {
	per := 1
	if c, ok := m.(RowCounter); ok {
		per = max(c.RowsPerRun(), 1)
	}
	if runs > math.MaxInt/per {
		return math.MaxInt
	}
	return runs * per
}

// Units returns how many completions a run of m ends when it needs no
// retries, K steps long: what a progress bar counts (sample.Config.Ended).
// Unless m is a UnitCounter, that is a completion per record.
func Units(m Method, K int) int {
	if c, ok := m.(UnitCounter); ok {
		return c.Units(K)
	}
	switch m.Steps() {
	case Chain:
		return K + 1 // the start and one proposal per step
	case Samples:
		return K
	}
	return 1
}

// Rejects reports whether a run of m may end with no sample (m is a
// Rejecter that says so).
func Rejects(m Method) bool {
	r, ok := m.(Rejecter)
	return ok && r.Rejects()
}

// Learns reports whether the runs of m learn in a trie that later batches
// may continue (m is a Learner that says so).
func Learns(m Method) bool {
	l, ok := m.(Learner)
	return ok && l.Learns()
}

// one returns the Result of runs that leave one record each, at k = 0,
// as a sampler returned them.
func one(recs []*sample.Record, _ sample.Stats, err error) (Result, error) {
	if err != nil {
		return Result{}, err
	}
	var out []Drawn
	for i, r := range recs {
		if r != nil {
			out = append(out, Drawn{Run: i, Rec: r, Evals: r.Evals, Rejections: r.Rejections})
		}
	}
	return Result{Drawn: out}, nil
}
