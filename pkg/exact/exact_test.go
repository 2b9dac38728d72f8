package exact_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/exact"
	"github.com/gasplab/gasp/pkg/mcmc"
	"github.com/gasplab/gasp/pkg/sample"
)

// suffixOnly never restarts: it cuts uniformly at 1..|x|-1, so p_pos(0) = 0
// (paper App. D asks for p_pos(0) > 0).
type suffixOnly struct{}

func (suffixOnly) Weights(x *sample.Record, w []float64) {
	for i := 1; i < len(w); i++ {
		w[i] = 1
	}
	if len(w) == 1 {
		w[0] = 1
	}
}

func (suffixOnly) String() string { return "suffix-only" }

func langs(t *testing.T) ([]*exact.Toy, []*exact.Lang) {
	t.Helper()
	toys, err := exact.Toys()
	if err != nil {
		t.Fatal(err)
	}
	var ls []*exact.Lang
	for _, toy := range toys {
		l, err := exact.Enumerate(toy.Model, toy.Prompt, toy.Config, 100000)
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
	}
	return toys, ls
}

func TestEnumerate(t *testing.T) {
	toys, ls := langs(t)
	for i, l := range ls {
		sumGCD, sumT := 0.0, 0.0
		for j, x := range l.Sentences {
			sumGCD += math.Exp(x.LogQProb())
			sumT += l.Target[j]
			if l.Index(x.Tokens) != j {
				t.Errorf("%s: Index of sentence %d is %d", toys[i].Name, j, l.Index(x.Tokens))
			}
			if !x.Valid() || !slices.Contains(toys[i].Vocab.EOS, x.Tokens[len(x.Tokens)-1]) || len(x.Tokens) > toys[i].Config.Cap() {
				t.Errorf("%s: bad sentence %v", toys[i].Name, x.Tokens)
			}
		}
		// GCD's paths: the sentences and the invalid runs make up all its mass.
		if math.Abs(sumGCD+l.GCDInvalid-1) > 1e-12 || math.Abs(sumT-1) > 1e-12 {
			t.Errorf("%s: GCD mass %v + invalid %v, target mass %v", toys[i].Name, sumGCD, l.GCDInvalid, sumT)
		}
		t.Logf("%s: %d sentences, %d prefixes; TV(GCD, P^G) = %.4f; GCD invalid %.4f; rejection acceptance %.4f",
			toys[i].Name, l.Len(), l.Prefixes, exact.TV(l.GCD, l.Target), l.GCDInvalid, l.Mass)
	}
}

// P^G is stationary for every proposal's transition matrix, and the
// matrices are stochastic.
func TestStationary(t *testing.T) {
	toys, ls := langs(t)
	for i, l := range ls {
		for _, p := range []mcmc.Proposal{mcmc.Uniform{}, mcmc.Priority{}, mcmc.PriorityPP{}, mcmc.Restart{}, mcmc.Mix{P: 0.5}, suffixOnly{}} {
			T, err := l.Transition(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, row := range T {
				for _, v := range row {
					if v < -1e-15 {
						t.Fatalf("%s %s: negative transition probability %v", toys[i].Name, p, v)
					}
				}
			}
			if d := exact.TV(exact.Step(l.Target, T), l.Target); d > 1e-13 {
				t.Errorf("%s %s: P^G moves by %v in one step", toys[i].Name, p, d)
			}
		}
	}
}

// TV(MCMC_k, P^G) on every toy for every proposal: non-increasing in k and
// tending to 0 (paper App. D). Run with -v for the tables.
//
// Priority (the authors' p(i) ∝ exp(H_i) − 1) has p_pos(0) = 0 on "forced",
// whose first token is always "<", yet it converges there: a cut where the
// grammar leaves a single token regenerates that token, so it is the same
// move as the cut one position later, and every sentence's first branching
// position (shared by all sentences) keeps positive weight. The chain stays
// irreducible; App. D's condition p_pos(0) > 0 is sufficient, not
// necessary. What does break convergence is p_pos(0) = 0 at a real branch
// point: suffixOnly on "skew", "utf8" and "twoeos" can never change the first token,
// and TV stops falling at the first-token error GCD started with.
func TestTVTables(t *testing.T) {
	toys, ls := langs(t)
	ks := []int{0, 1, 2, 3, 4, 5, 10, 20, 50, 100, 200, 500, 1000}
	const K = 2000
	for i, l := range ls {
		toy := toys[i]
		var b strings.Builder
		fmt.Fprintf(&b, "TV(MCMC_k, P^G) on %q (%d sentences):\n%-12s", toy.Name, l.Len(), "k")
		for _, k := range ks {
			fmt.Fprintf(&b, " %8d", k)
		}
		for _, p := range []mcmc.Proposal{mcmc.Uniform{}, mcmc.Priority{}, mcmc.PriorityPP{}, mcmc.Restart{}, mcmc.Mix{P: 0.5}, suffixOnly{}} {
			d, err := l.Chain(p, K)
			if err != nil {
				t.Fatal(err)
			}
			tv := make([]float64, K+1)
			for k := range tv {
				tv[k] = exact.TV(d[k], l.Target)
				if k > 0 && tv[k] > tv[k-1]+1e-12 {
					t.Errorf("%s %s: TV rises from %v to %v at step %d", toy.Name, p, tv[k-1], tv[k], k)
				}
			}
			fmt.Fprintf(&b, "\n%-12s", p)
			for _, k := range ks {
				fmt.Fprintf(&b, " %8.2g", tv[k])
			}
			stalls := p == suffixOnly{} && toy.Name != "forced"
			switch {
			case stalls && tv[K] < min(0.3, tv[0]/2):
				t.Errorf("%s %s: TV_%d = %v; expected it to stall (first token never resampled)", toy.Name, p, K, tv[K])
			case !stalls && tv[K] > 1e-9:
				t.Errorf("%s %s: TV_%d = %v, not converging", toy.Name, p, K, tv[K])
			}
		}
		t.Log(b.String())
	}
	// The premise of the Priority comment above.
	forced := ls[2]
	for _, x := range forced.Sentences {
		p, err := mcmc.Positions(mcmc.Priority{}, x)
		if err != nil {
			t.Fatal(err)
		}
		if p[0] != 0 {
			t.Errorf("forced: Priority gives p_pos(0) = %v for %v", p[0], x.Tokens)
		}
	}
}

// The distribution tests of GCD, MCMC and ASAp draw 30,000 samples: enough
// to see an error of 2 % (mass 0.02 moved from the most probable sentence to
// the next, TV 0.02) in the distributions they test, at the p < 1e-4
// threshold, in at least 95 % of trials. The rejection sampling test, slow
// by nature, draws 15,000 and has less power: it is logged, not required.
func TestPower(t *testing.T) {
	const delta, trials = 0.02, 40
	toys, ls := langs(t)
	r := rand.New(rand.NewPCG(1, 1))
	type target struct {
		name string
		dist []float64
		n    int
	}
	for i, l := range ls {
		targets := []target{{"GCD", l.GCD, 30000}, {"P^G", l.Target, 30000}}
		for _, p := range []mcmc.Proposal{mcmc.Uniform{}, mcmc.Priority{}, mcmc.Restart{}} {
			d, err := l.Chain(p, 5)
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range []int{1, 2, 5} {
				targets = append(targets, target{fmt.Sprintf("%s k=%d", p, k), d[k], 30000})
			}
		}
		power := func(tg target) int {
			alt := exact.Perturb(tg.dist, delta)
			hits := 0
			for range trials {
				if exact.ChiSquare(multinomial(r, alt, tg.n), tg.dist).P < 1e-4 {
					hits++
				}
			}
			return hits
		}
		worst, worstName := trials+1, ""
		for _, tg := range targets {
			if hits := power(tg); hits < worst {
				worst, worstName = hits, tg.name
			}
		}
		t.Logf("%s: rejection sampling's 15,000 draws see it in %d/%d trials", toys[i].Name, power(target{"", l.Target, 15000}), trials)
		t.Logf("%s: a 2 %% error is detected in %d/%d trials or more (fewest: %s)", toys[i].Name, worst, trials, worstName)
		if worst < trials*95/100 {
			t.Errorf("%s %s: a 2 %% error detected in only %d of %d trials", toys[i].Name, worstName, worst, trials)
		}
	}
}

func multinomial(r *rand.Rand, p []float64, n int) []int {
	cdf := make([]float64, len(p))
	s := 0.0
	for i, v := range p {
		s += v
		cdf[i] = s
	}
	counts := make([]int, len(p))
	for range n {
		u := r.Float64() * s
		lo, hi := 0, len(cdf)-1
		for lo < hi {
			m := (lo + hi) / 2
			if cdf[m] > u {
				hi = m
			} else {
				lo = m + 1
			}
		}
		counts[lo]++
	}
	return counts
}

// Under the null, p-values are roughly uniform: few below 0.01.
func TestChiSquareNull(t *testing.T) {
	_, ls := langs(t)
	r := rand.New(rand.NewPCG(2, 2))
	low := 0
	const trials = 300
	for range trials {
		if exact.ChiSquare(multinomial(r, ls[0].Target, 2000), ls[0].Target).P < 0.01 {
			low++
		}
	}
	if low > 12 {
		t.Errorf("%d of %d null tests had p < 0.01", low, trials)
	}
}

func TestChiSquareSF(t *testing.T) {
	for _, c := range []struct {
		x    float64
		df   int
		want float64
	}{
		{3.841459, 1, 0.05}, {18.307038, 10, 0.05}, {59.703058, 30, 0.001}, {0.5, 3, 0.918891}, {124.342, 100, 0.05}, {2, 2, math.Exp(-1)},
	} {
		if got := exact.ChiSquareSF(c.x, c.df); math.Abs(got-c.want) > 1e-4*c.want {
			t.Errorf("ChiSquareSF(%v, %d) = %v, want %v", c.x, c.df, got, c.want)
		}
	}
}
