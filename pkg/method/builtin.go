package method

import (
	"math/rand/v2"

	"github.com/gasplab/gasp/pkg/mcmc"
	"github.com/gasplab/gasp/pkg/sample"
)

// GCD is grammar-constrained decoding: one sample per run.
type GCD struct{}

func (GCD) Steps() Steps { return None }

func (GCD) Draw(r Request) (Result, error) {
	return one(r.Sample.GCDEach(r.LM, r.Prompt, r.Rands))
}

// Rejection is rejection sampling from P: a run's record is its first
// sentence of the grammar, or its last attempt, not valid, after
// Request.Budget attempts (default 1, so that a store of runs gives the
// acceptance rate).
type Rejection struct{}

func (Rejection) Steps() Steps { return None }

// Rejects is true: a run that spends its budget records its last attempt, not valid.
func (Rejection) Rejects() bool { return true }

func (Rejection) Draw(r Request) (Result, error) {
	return one(r.Sample.RejectionEach(r.LM, r.Prompt, max(r.Budget, 1), r.Rands))
}

// ASAp is adaptive sampling with approximate expected futures: a run draws
// Request.K samples, ASAp(k) at k = 1…K.
type ASAp struct{}

func (ASAp) Steps() Steps { return Samples }

func (ASAp) Draw(r Request) (Result, error) {
	all, _, err := r.Sample.ASApEach(r.LM, r.Prompt, r.K, r.Rands)
	if err != nil {
		return Result{}, err
	}
	var out []Drawn
	for i, rs := range all {
		ev := 0
		for j, rec := range rs {
			ev += rec.Evals
			out = append(out, Drawn{Run: i, K: j + 1, Rec: rec, Evals: ev})
		}
	}
	return Result{Drawn: out}, nil
}

// MCMC is Metropolis–Hastings with a truncation proposal (paper Alg. 1): a
// run is a chain of Request.K steps from a GCD sample, MCMC(k) its state
// after k steps.
type MCMC struct{ Proposal mcmc.Proposal }

func (MCMC) Steps() Steps { return Chain }

func (c MCMC) Draw(r Request) (Result, error) {
	res, err := mcmc.RunEach(r.LM, r.Prompt, mcmc.Config{Sample: r.Sample, Proposal: c.Proposal, Steps: r.K}, r.Rands)
	if err != nil {
		return Result{}, err
	}
	var out []Drawn
	for i := range res.Chains {
		ch := &res.Chains[i]
		if r.Rands[i] == nil {
			continue
		}
		for k := 0; k <= r.K; k++ {
			acc := make([]bool, k)
			for s := range acc {
				acc[s] = ch.Steps[s].Accepted
			}
			d := Drawn{Run: i, K: k, Rec: ch.At(k), Accepted: acc, Evals: ch.EvalsAt(k)}
			if k >= 1 {
				d.Proposal = &ch.Steps[k-1]
			}
			out = append(out, d)
		}
	}
	return Result{Drawn: out, Stats: res.Stats}, nil
}

// ExactBudget is the default budget of attempts of a run of Exact; a run
// that spends it records its last attempt, not valid.
const ExactBudget = 5000

// Exact draws exact samples of P^G by constrained adaptive rejection
// sampling or a variant (sample.Config.CARS): one per run, at most
// Request.Budget attempts (default ExactBudget). The runs of a batch share
// the trie cars and ars learn in (Request.Trie).
type Exact struct{ Variant sample.Variant }

func (Exact) Steps() Steps { return None }

// Rejects is true: a run that spends its budget records its last attempt, not valid.
func (Exact) Rejects() bool { return true }

// Learns is true for the variants that learn in the trie, cars and ars:
// rs and rsft ignore it (sample.RejectionSampler.Trie).
func (e Exact) Learns() bool { return e.Variant == sample.ARS || e.Variant == sample.CARS }

func (e Exact) Draw(r Request) (Result, error) {
	budget := r.Budget
	if budget == 0 {
		budget = ExactBudget
	}
	all, _, err := r.Sample.CARS(r.LM, r.Prompt, sample.RejectionSampler{Variant: e.Variant, Trie: r.Trie, Budget: budget}, 1, r.Rands)
	if err != nil {
		return Result{}, err
	}
	last := make([]*sample.Record, len(all))
	for i, rs := range all {
		if len(rs) > 0 {
			last[i] = rs[len(rs)-1]
		}
	}
	return one(last, sample.Stats{}, nil)
}

// SMC is sequential Monte Carlo with grammar-masked extensions: a run is
// one SMC run of Options.Particles particles, and its record one particle
// drawn ∝ its weight (the run's last particle, not valid, when every weight
// is zero), whose Evals are those of all the run's particles. Only the runs
// with a random source are batched.
type SMC struct{ Options sample.SMCOptions }

func (SMC) Steps() Steps { return None }

// RowsPerRun is the number of particles: each is a row of the model.
func (s SMC) RowsPerRun() int { return s.Options.Particles }

// Units is the number of particles: each ends a completion.
func (s SMC) Units(int) int { return s.Options.Particles }

func (s SMC) Draw(r Request) (Result, error) {
	var ids []int
	var rs []*rand.Rand
	for i, rng := range r.Rands {
		if rng != nil {
			ids = append(ids, i)
			rs = append(rs, rng)
		}
	}
	if len(rs) == 0 {
		return Result{}, nil
	}
	res, _, err := r.Sample.SMC(r.LM, r.Prompt, s.Options, rs)
	if err != nil {
		return Result{}, err
	}
	out := make([]Drawn, len(res))
	for j, run := range res {
		rec := run.Pick(rs[j])
		if rec == nil {
			rec = run.Particles[len(run.Particles)-1]
		}
		out[j] = Drawn{Run: ids[j], Rec: rec, Evals: run.Evals}
	}
	return Result{Drawn: out}, nil
}
