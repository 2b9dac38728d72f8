package analysis

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gasplab/gasp/pkg/exact"
	"github.com/gasplab/gasp/pkg/runs"
)

// TestProfileByHand checks Profile's sums on two records worked out by hand.
func TestProfileByHand(t *testing.T) {
	recs := []runs.Record{
		{IDs: []int{1, 2}, Status: runs.StatusComplete, Valid: true, LogP: -5, LogPGCD: -2}, // 3 tokens
		{IDs: []int{1, 2, 3, 4}, Status: runs.StatusCapped, LogP: -7, LogPGCD: -4},          // 4 tokens
	}
	p, err := Profile(recs)
	if err != nil {
		t.Fatal(err)
	}
	want := GrammarProfile{Records: 2, Tokens: 3.5, Entropy: 6.0 / 7, Removed: 6.0 / 7, Valid: 1}
	if p != want {
		t.Fatalf("Profile = %+v, want %+v", p, want)
	}
	recs[1].LogP = math.Inf(-1)
	if _, err := Profile(recs); err == nil {
		t.Fatal("a record of probability zero was profiled")
	}
	if _, err := Profile(nil); err == nil {
		t.Fatal("no records: no error")
	}
}

// TestProfileEntropyIsMaskedEntropy checks, on the toy problems, that
// Profile's Entropy from log P_GCD alone estimates the mean entropy of the
// grammar-masked distribution, which the sampler records step by step
// (sample.Record.Entropy): per sample, −log P_GCD(x) and Σ_t H_t have the
// same expectation, so their mean difference over many GCD samples is
// within a few standard errors of 0.
func TestProfileEntropyIsMaskedEntropy(t *testing.T) {
	pbs, err := exact.Problems()
	if err != nil {
		t.Fatal(err)
	}
	for i, pb := range pbs {
		const n = 20000
		xs, _, err := pb.Toy.Config.GCD(pb.Toy.Model, pb.Toy.Prompt, n, rand.New(rand.NewPCG(uint64(i), 7)))
		if err != nil {
			t.Fatal(err)
		}
		var recs []runs.Record
		var sumH, sumD, sumD2, tokens float64
		for _, x := range xs {
			r := runs.Record{IDs: x.Tokens, LogP: x.LogProb(), LogPGCD: x.LogQProb(), Status: runs.StatusCapped}
			if x.Valid() {
				r.IDs, r.Status, r.Valid = x.Tokens[:len(x.Tokens)-1], runs.StatusComplete, true
			}
			recs = append(recs, r)
			h := 0.0
			for _, e := range x.Entropy {
				h += e
			}
			d := -x.LogQProb() - h
			sumH, sumD, sumD2, tokens = sumH+h, sumD+d, sumD2+d*d, tokens+float64(len(x.Tokens))
		}
		p, err := Profile(recs)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(p.Tokens*n-tokens) > 1e-6 {
			t.Errorf("%s: %g tokens per record, want %g", pb.Toy.Name, p.Tokens, tokens/n)
		}
		mean := sumD / n
		se := math.Sqrt((sumD2/n - mean*mean) / n)
		t.Logf("%s: profile entropy %.4f nats/token, recorded %.4f; mean difference %.4f ± %.4f per sample",
			pb.Toy.Name, p.Entropy, sumH/tokens, mean, se)
		if math.Abs(mean) > 4.5*se+1e-9 {
			t.Errorf("%s: −log P_GCD and Σ H_t differ by %.4f per sample (se %.4f)", pb.Toy.Name, mean, se)
		}
		if math.Abs(p.Entropy-sumH/tokens) > 4.5*se*n/tokens+1e-9 {
			t.Errorf("%s: entropy per token %.4f, recorded %.4f", pb.Toy.Name, p.Entropy, sumH/tokens)
		}
	}
}
