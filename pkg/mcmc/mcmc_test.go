package mcmc_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gasplab/gasp/pkg/exact"
	"github.com/gasplab/gasp/pkg/lm"
	"github.com/gasplab/gasp/pkg/mcmc"
	"github.com/gasplab/gasp/pkg/sample"
)

const (
	draws = 30000 // chains per distribution test: enough to see a 2 % error (see exact's TestPower)
	pMin  = 1e-4  // a p-value below this fails a distribution test
)

func proposals() []mcmc.Proposal {
	return []mcmc.Proposal{mcmc.Uniform{}, mcmc.Priority{}, mcmc.PriorityPP{}, mcmc.Restart{}, mcmc.Mix{P: 0.5}, Tail{N: 2, R: 0.2}}
}

// String names the example's proposal in test output.
func (Tail) String() string { return "user-tail" }

func problems(t *testing.T) []exact.Problem {
	pbs, err := exact.Problems()
	if err != nil {
		t.Fatal(err)
	}
	return pbs
}

// freshToy returns a private copy of a toy problem: Maskers are not safe
// for concurrent use.
func freshToy(t *testing.T, name string) *exact.Toy {
	t.Helper()
	toys, err := exact.Toys()
	if err != nil {
		t.Fatal(err)
	}
	for _, toy := range toys {
		if toy.Name == name {
			return toy
		}
	}
	t.Fatalf("no toy %q", name)
	return nil
}

// LogQ against the definition, for every pair of sentences.
func TestLogQMatchesDefinition(t *testing.T) {
	for _, pb := range problems(t) {
		l := pb.Lang
		for _, p := range []mcmc.Proposal{mcmc.Uniform{}, mcmc.Priority{}, mcmc.PriorityPP{}, mcmc.Restart{}, Tail{N: 2, R: 0.2}} {
			for _, x := range l.Sentences {
				px, err := mcmc.Positions(p, x)
				if err != nil {
					t.Fatal(err)
				}
				for _, y := range l.Sentences {
					got, want := mcmc.LogQ(px, x, y), math.Log(exact.Q(px, x, y))
					if math.IsInf(want, -1) && math.IsInf(got, -1) {
						continue
					}
					if math.Abs(got-want) > 1e-9*max(1, math.Abs(want)) {
						t.Fatalf("%s %s: log q(%q | %q) = %v, want %v", pb.Toy.Name, p, y.Text(pb.Toy.Vocab), x.Text(pb.Toy.Vocab), got, want)
					}
				}
			}
		}
	}
}

// checkAccounting checks the run's evaluation counts against what its
// steps imply.
func checkAccounting(t *testing.T, res *mcmc.Result, prompt int) {
	t.Helper()
	s := res.Stats
	var regen, base, authors, steps int
	for _, c := range res.Chains {
		for _, st := range c.Steps {
			m := st.Proposal.Len() - st.Cut
			regen += m
			base += m - 1
			if st.Cut > 0 {
				base++
			}
			authors += (prompt + st.Cut + m) + (prompt + st.Proposal.Len())
			steps++
		}
	}
	if s.Steps != steps || s.Regenerated != regen || s.AuthorsEvals != authors {
		t.Errorf("stats %+v: want %d steps, %d regenerated, %d authors' evaluations", s, steps, regen, authors)
	}
	if s.Evals != base+s.Restored {
		t.Errorf("Evals = %d, want Σ(m − 1 + [i>0]) = %d plus Restored %d", s.Evals, base, s.Restored)
	}
	// Per chain: the rows' counts add up to the batch's, the prefill aside.
	var init, during int
	for _, c := range res.Chains {
		init += c.InitEvals
		during += c.EvalsAt(len(c.Steps)) - c.InitEvals
	}
	if init+prompt != s.InitEvals || during != s.Evals {
		t.Errorf("chains' evaluations: %d at the start + prompt %d, %d in the steps; stats %d, %d", init, prompt, during, s.InitEvals, s.Evals)
	}
	// Restoring happens only after a rejection, at most once per step.
	if s.RestoredSteps > s.AfterRejection || s.AfterRejection > s.Steps-s.Accepted || (s.Restored > 0) != (s.RestoredSteps > 0) {
		t.Errorf("restored %d tokens in %d steps, %d steps after a rejection, %d rejections", s.Restored, s.RestoredSteps, s.AfterRejection, s.Steps-s.Accepted)
	}
}

// MCMC's output after k = 1, 2 and 5 steps against the exact k-step
// distributions, for every proposal on every toy problem.
func TestChainsMatchExact(t *testing.T) {
	for _, pb := range problems(t) {
		t.Run(pb.Toy.Name, func(t *testing.T) {
			t.Parallel()
			toy := freshToy(t, pb.Toy.Name)
			for i, p := range proposals() {
				dist, err := pb.Lang.Chain(p, 5)
				if err != nil {
					t.Fatal(err)
				}
				cfg := mcmc.Config{Sample: toy.Config, Proposal: p, Steps: 5}
				res, err := mcmc.Run(toy.Model, toy.Prompt, draws, cfg, rand.New(rand.NewPCG(uint64(i), 42)))
				if err != nil {
					t.Fatal(err)
				}
				checkAccounting(t, res, len(toy.Prompt))
				s := res.Stats
				line := fmt.Sprintf("%s %-10s accept %.3f  evals/step %.3f  regenerated/step %.3f  restored/step %.3f (in %d of %d steps after a rejection)  authors/step %.3f |", toy.Name, p,
					s.AcceptanceRate(), s.EvalsPerStep(), s.RegeneratedPerStep(), float64(s.Restored)/float64(s.Steps), s.RestoredSteps, s.AfterRejection, s.AuthorsEvalsPerStep())
				for _, k := range []int{1, 2, 5} {
					r := pb.Lang.Test(res.Final(k), dist[k])
					line += fmt.Sprintf(" k=%d: %v |", k, r)
					if r.P < pMin {
						t.Errorf("%s after %d steps: samples do not match the exact distribution: %v", p, k, r)
					}
				}
				t.Log(line)
			}
		})
	}
}

// parity is a proposal whose weights depend on the suffix: p(i) ∝ 1 when
// |x| − i is even, 0.02 when odd.
type parity struct{}

func (parity) Weights(x *sample.Record, w []float64) {
	for i := range w {
		w[i] = 0.02
		if (len(w)-i)%2 == 0 {
			w[i] = 1
		}
	}
}

// Two deliberately wrong q's must fail the distribution test that the right
// q passes: proof that the test has teeth.
//
//   - q from the drawn cut only, with a proposal whose weights depend on the
//     suffix (parity). With the built-in proposals this mistake is harmless:
//     see TestCutOnlyQHarmless.
//   - q without p_pos: the GCD probability of the regenerated suffix alone.
func TestWrongQDetected(t *testing.T) {
	for _, pb := range problems(t) {
		t.Run(pb.Toy.Name, func(t *testing.T) {
			t.Parallel()
			toy := freshToy(t, pb.Toy.Name)
			cases := []struct {
				name  string
				p     mcmc.Proposal
				wrong func(*mcmc.Config)
				n     int
			}{
				{"parity, right q", parity{}, nil, draws},
				{"parity, q from the drawn cut only", parity{}, mcmc.UseCutOnlyQ, draws / 3},
				{"Uniform, q without p_pos", mcmc.Uniform{}, mcmc.UseNoPositionQ, draws},
				{"Priority, q without p_pos", mcmc.Priority{}, mcmc.UseNoPositionQ, draws / 3},
			}
			for i, c := range cases {
				dist, err := pb.Lang.Chain(c.p, 5)
				if err != nil {
					t.Fatal(err)
				}
				cfg := mcmc.Config{Sample: toy.Config, Proposal: c.p, Steps: 5}
				if c.wrong != nil {
					c.wrong(&cfg)
				}
				res, err := mcmc.Run(toy.Model, toy.Prompt, c.n, cfg, rand.New(rand.NewPCG(uint64(i), 7)))
				if err != nil {
					t.Fatal(err)
				}
				minP := 1.0
				line := fmt.Sprintf("%s: %s:", pb.Toy.Name, c.name)
				for _, k := range []int{1, 2, 5} {
					r := pb.Lang.Test(res.Final(k), dist[k])
					line += fmt.Sprintf(" k=%d: %v |", k, r)
					minP = min(minP, r.P)
				}
				t.Log(line)
				switch {
				case c.wrong == nil && minP < pMin:
					t.Errorf("%s: the right q fails: p = %.3g", c.name, minP)
				case c.wrong != nil && minP > 1e-6:
					t.Errorf("%s: the wrong q is not detected: smallest p = %.3g", c.name, minP)
				}
			}
		})
	}
}

// When the truncation weights at positions up to the common prefix depend
// on that prefix alone, up to the normaliser (Uniform, Restart, Priority,
// PriorityPP and their mixtures), the cut-only q gives exactly the summed
// q's acceptance ratio. Write l = lcp(x, y), A(i) = Π_{i≤j<l} P_GCD(x_j |
// x_{<j}) (shared by x and y), S_y = Π_{j≥l} P_GCD(y_j | y_{<j}), and
// p^x(i) = w(x_{1:i}) / W_x. Then
//
//	q(y|x) = Σ_{i≤l} p^x(i)·A(i)·S_y = S_y · C / W_x,   C = Σ_{i≤l} w(x_{1:i})·A(i),
//
// and likewise q(x|y) = S_x · C / W_y, so q(x|y)/q(y|x) = S_x·W_x / (S_y·W_y),
// which is also what the drawn cut's term alone gives. Chains run with the
// same seed therefore make the same moves.
func TestCutOnlyQHarmless(t *testing.T) {
	for _, pb := range problems(t) {
		for _, p := range []mcmc.Proposal{mcmc.Uniform{}, mcmc.Priority{}, mcmc.PriorityPP{}, mcmc.Mix{P: 0.3}} {
			run := func(wrong bool) *mcmc.Result {
				cfg := mcmc.Config{Sample: pb.Toy.Config, Proposal: p, Steps: 5}
				if wrong {
					mcmc.UseCutOnlyQ(&cfg)
				}
				res, err := mcmc.Run(pb.Toy.Model, pb.Toy.Prompt, 1000, cfg, rand.New(rand.NewPCG(3, 4)))
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			right, wrong := run(false), run(true)
			for c := range right.Chains {
				for k, s := range right.Chains[c].Steps {
					w := wrong.Chains[c].Steps[k]
					if s.Accepted != w.Accepted || math.Abs(s.LogAlpha-w.LogAlpha) > 1e-9 {
						t.Fatalf("%s %s chain %d step %d: log α %v (summed q) vs %v (cut only)", pb.Toy.Name, p, c, k, s.LogAlpha, w.LogAlpha)
					}
				}
			}
		}
	}
}

// With temperature and top-p, P has zeros: GCD, the records, q and the
// oracle must all use the same P.
func TestTransformed(t *testing.T) {
	toy := freshToy(t, "utf8")
	toy.Config.Transform = lm.Transform{Temperature: 2, TopP: 0.95, TopK: 8}
	l, err := exact.Enumerate(toy.Model, toy.Prompt, toy.Config, 100000)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range []mcmc.Proposal{mcmc.Uniform{}, mcmc.PriorityPP{}} {
		dist, err := l.Chain(p, 5)
		if err != nil {
			t.Fatal(err)
		}
		cfg := mcmc.Config{Sample: toy.Config, Proposal: p, Steps: 5}
		res, err := mcmc.Run(toy.Model, toy.Prompt, draws/2, cfg, rand.New(rand.NewPCG(uint64(i), 9)))
		if err != nil {
			t.Fatal(err)
		}
		line := fmt.Sprintf("utf8 with %v (%d sentences, TV(GCD, P^G) = %.3f), %s:", toy.Config.Transform, l.Len(), exact.TV(l.GCD, l.Target), p)
		for _, k := range []int{1, 2, 5} {
			r := l.Test(res.Final(k), dist[k])
			line += fmt.Sprintf(" k=%d: %v |", k, r)
			if r.P < pMin {
				t.Errorf("%s after %d steps: %v", p, k, r)
			}
		}
		t.Log(line)
	}
}

// A chain depends on its random source alone: chain i of a batch equals the
// same chain run alone, evaluation counts included.
func TestRunEachIndependentOfBatch(t *testing.T) {
	toys, err := exact.Toys()
	if err != nil {
		t.Fatal(err)
	}
	rands := func(first, n int) []*rand.Rand {
		out := make([]*rand.Rand, n)
		for i := range out {
			out[i] = sample.NewRand(sample.DeriveSeed(5, first+i))
		}
		return out
	}
	for _, toy := range toys {
		for _, p := range []mcmc.Proposal{mcmc.Uniform{}, mcmc.Priority{}, mcmc.Restart{}} {
			cfg := mcmc.Config{Sample: toy.Config, Proposal: p, Steps: 6}
			all, err := mcmc.RunEach(toy.Model, toy.Prompt, cfg, rands(0, 30))
			if err != nil {
				t.Fatal(err)
			}
			checkAccounting(t, all, len(toy.Prompt))
			sparse := rands(0, 30)
			for i := range sparse {
				if i%4 != 0 {
					sparse[i] = nil
				}
			}
			some, err := mcmc.RunEach(toy.Model, toy.Prompt, cfg, sparse)
			if err != nil {
				t.Fatal(err)
			}
			if some.Stats.Chains != 8 || some.Chains[1].Init != nil || len(some.Chains[1].Steps) != 0 {
				t.Fatalf("idle rows: %d chains, chain 1 %+v", some.Stats.Chains, some.Chains[1])
			}
			if fmt.Sprint(some.Chains[8].At(cfg.Steps).Tokens) != fmt.Sprint(all.Chains[8].At(cfg.Steps).Tokens) {
				t.Fatalf("chain 8 with idle rows: %v, in a full batch %v", some.Chains[8].At(cfg.Steps).Tokens, all.Chains[8].At(cfg.Steps).Tokens)
			}
			for _, i := range []int{0, 11, 29} {
				one, err := mcmc.RunEach(toy.Model, toy.Prompt, cfg, rands(i, 1))
				if err != nil {
					t.Fatal(err)
				}
				a, b := &all.Chains[i], &one.Chains[0]
				for k := 0; k <= cfg.Steps; k++ {
					x, y := a.At(k), b.At(k)
					if fmt.Sprint(x.Tokens) != fmt.Sprint(y.Tokens) || a.EvalsAt(k) != b.EvalsAt(k) {
						t.Fatalf("%s %s chain %d step %d: %v (%d evals) in a batch, %v (%d evals) alone",
							toy.Name, p, i, k, x.Tokens, a.EvalsAt(k), y.Tokens, b.EvalsAt(k))
					}
				}
			}
		}
	}
}
