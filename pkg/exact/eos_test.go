package exact_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gasplab/gasp/pkg/exact"
	"github.com/gasplab/gasp/pkg/mcmc"
	"github.com/gasplab/gasp/pkg/sample"
)

// On "twoeos" the same text ended by each EOS token is its own sentence
// with its own probability, and GCD and MCMC sample the sentences, EOS
// included, with the exact distributions.
func TestSeveralEOS(t *testing.T) {
	toys, ls := langs(t)
	var toy *exact.Toy
	var l *exact.Lang
	for i := range toys {
		if toys[i].Name == "twoeos" {
			toy, l = toys[i], ls[i]
		}
	}
	if toy == nil || len(toy.Vocab.EOS) != 2 {
		t.Fatal("no toy with two EOS tokens")
	}
	x, eos, eot := 0, toy.Vocab.EOS[0], toy.Vocab.EOS[1]
	a, b := l.Index([]int{x, eos}), l.Index([]int{x, eot})
	if a < 0 || b < 0 || a == b {
		t.Fatalf("x·</s> and x·<eot>: sentences %d and %d", a, b)
	}
	// The ratio of the two endings is the bigram row's .39/.01.
	if r := l.P[a] / l.P[b]; math.Abs(r-39) > 1e-3 {
		t.Errorf("P(x </s>)/P(x <eot>) = %v, want 39", r)
	}
	if l.Len() != 8 {
		t.Errorf("%d sentences, want 8 (x, x·y, xy, z, each with two endings)", l.Len())
	}
	const n = 4000
	rands := make([]*rand.Rand, n)
	for i := range rands {
		rands[i] = sample.NewRand(sample.DeriveSeed(7, i))
	}
	recs, _, err := toy.Config.GCDEach(toy.Model, toy.Prompt, rands)
	if err != nil {
		t.Fatal(err)
	}
	if c, out := l.Counts(recs); out > 0 || exact.ChiSquare(c, l.GCD).P < 1e-3 {
		t.Errorf("GCD: %d outside, chi-square %+v", out, exact.ChiSquare(c, l.GCD))
	}
	dists, err := l.Chain(mcmc.Uniform{}, 3)
	if err != nil {
		t.Fatal(err)
	}
	for i := range rands {
		rands[i] = sample.NewRand(sample.DeriveSeed(8, i))
	}
	res, err := mcmc.RunEach(toy.Model, toy.Prompt, mcmc.Config{Sample: toy.Config, Proposal: mcmc.Uniform{}, Steps: 3}, rands)
	if err != nil {
		t.Fatal(err)
	}
	finals := make([]*sample.Record, len(res.Chains))
	for i := range res.Chains {
		finals[i] = res.Chains[i].At(3)
	}
	if c, out := l.Counts(finals); out > 0 || exact.ChiSquare(c, dists[3]).P < 1e-3 {
		t.Errorf("MCMC(3): %d outside, chi-square %+v", out, exact.ChiSquare(c, dists[3]))
	}
}
