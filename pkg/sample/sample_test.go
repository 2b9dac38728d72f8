package sample_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gasplab/gasp/pkg/exact"
	"github.com/gasplab/gasp/pkg/lm"
	"github.com/gasplab/gasp/pkg/sample"
)

const (
	draws = 30000 // enough to see a 2 % error (see exact's TestPower)
	pMin  = 1e-4  // a p-value below this fails a distribution test
)

func problems(t *testing.T) []exact.Problem {
	pbs, err := exact.Problems()
	if err != nil {
		t.Fatal(err)
	}
	return pbs
}

// zOK reports whether k successes in n trials fit probability p (|z| < 4.5).
func zOK(t *testing.T, what string, k, n int, p float64) {
	t.Helper()
	z := (float64(k) - float64(n)*p) / math.Sqrt(float64(n)*p*(1-p)+1e-12)
	t.Logf("%s: %d/%d = %.4f, exact %.4f (z = %.2f)", what, k, n, float64(k)/float64(n), p, z)
	if math.Abs(z) > 4.5 {
		t.Errorf("%s: %d of %d, expected probability %.4f (z = %.2f)", what, k, n, p, z)
	}
}

func TestGCDMatchesExact(t *testing.T) {
	for i, pb := range problems(t) {
		// Enough runs for about draws valid ones.
		n := int(math.Ceil(draws / (1 - pb.Lang.GCDInvalid)))
		recs, st, err := pb.Toy.Config.GCD(pb.Toy.Model, pb.Toy.Prompt, n, rand.New(rand.NewPCG(uint64(i), 1)))
		if err != nil {
			t.Fatal(err)
		}
		var valid []*sample.Record
		evals := len(pb.Toy.Prompt)
		for _, r := range recs {
			if r.Valid() {
				valid = append(valid, r)
			} else if r.Status != sample.Capped {
				t.Errorf("%s: unexpected status %v", pb.Toy.Name, r.Status)
			}
			evals += len(r.Tokens) - 1 // the first token reuses the prompt's logits, the last is never evaluated
		}
		if st.Samples != n || st.Complete != len(valid) || st.Capped != n-len(valid) {
			t.Errorf("%s: stats %+v for %d valid of %d", pb.Toy.Name, st, len(valid), n)
		}
		if st.Evals != evals {
			t.Errorf("%s: %d evaluations, want %d", pb.Toy.Name, st.Evals, evals)
		}
		zOK(t, pb.Toy.Name+": GCD capped", st.Capped, n, pb.Lang.GCDInvalid)
		r := pb.Lang.Test(valid, pb.Lang.GCD)
		t.Logf("%s: GCD vs exact: %v", pb.Toy.Name, r)
		if r.P < pMin {
			t.Errorf("%s: GCD samples do not match the exact GCD distribution: %v", pb.Toy.Name, r)
		}
	}
}

func TestRejectionMatchesExact(t *testing.T) {
	for i, pb := range problems(t) {
		const want = 15000
		recs, st, err := pb.Toy.Config.Rejection(pb.Toy.Model, pb.Toy.Prompt, sample.RejectionOptions{Want: want, Budget: 5_000_000, Rows: 2000}, rand.New(rand.NewPCG(uint64(i), 2)))
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != want {
			t.Fatalf("%s: %d accepted, want %d", pb.Toy.Name, len(recs), want)
		}
		zOK(t, pb.Toy.Name+": rejection acceptance", st.Complete, st.Samples, pb.Lang.Mass)
		r := pb.Lang.Test(recs, pb.Lang.Target)
		t.Logf("%s: rejection sampling vs P^G: %v (%d attempts, %d evaluations)", pb.Toy.Name, r, st.Samples, st.Evals)
		if r.P < pMin {
			t.Errorf("%s: rejection samples do not match P^G: %v", pb.Toy.Name, r)
		}
	}
}

// ASAp's first sample is a GCD sample; after many samples a run draws from
// P^G (the trie then holds exact expected future grammaticality).
func TestASAp(t *testing.T) {
	for i, pb := range problems(t) {
		n := int(math.Ceil(draws / (1 - pb.Lang.GCDInvalid)))
		out, _, err := pb.Toy.Config.ASAp(pb.Toy.Model, pb.Toy.Prompt, n, 1, rand.New(rand.NewPCG(uint64(i), 3)))
		if err != nil {
			t.Fatal(err)
		}
		var first []*sample.Record
		for _, run := range out {
			if run[0].Valid() {
				first = append(first, run[0])
			}
		}
		r := pb.Lang.Test(first, pb.Lang.GCD)
		t.Logf("%s: ASAp(1) vs GCD: %v", pb.Toy.Name, r)
		if r.P < pMin {
			t.Errorf("%s: ASAp(1) does not match GCD: %v", pb.Toy.Name, r)
		}

		const runs, k, burn = 10, 25000, 20000
		out, st, err := pb.Toy.Config.ASAp(pb.Toy.Model, pb.Toy.Prompt, runs, k, rand.New(rand.NewPCG(uint64(i), 4)))
		if err != nil {
			t.Fatal(err)
		}
		var late []*sample.Record
		invalid := 0
		for _, run := range out {
			if len(run) != k {
				t.Fatalf("%s: a run has %d samples, want %d", pb.Toy.Name, len(run), k)
			}
			for _, r := range run[burn:] {
				if r.Valid() {
					late = append(late, r)
				} else {
					invalid++
				}
			}
		}
		r = pb.Lang.Test(late, pb.Lang.Target)
		t.Logf("%s: ASAp samples %d..%d vs P^G: %v; invalid: %d late, %d in all (of %d); TV(ASAp(1..100), P^G) = %.3f", pb.Toy.Name, burn+1, k, r,
			invalid, st.Samples-st.Complete, st.Samples, exact.TV(pb.Lang.Empirical(firstN(out, 100)), pb.Lang.Target))
		// Unvisited prefixes keep c̃ = 1, so a rare path to the cap can still
		// be taken late; it must be rare.
		if float64(invalid) > 0.002*float64(runs*(k-burn)) {
			t.Errorf("%s: %d late ASAp samples invalid", pb.Toy.Name, invalid)
		}
		if r.P < pMin {
			t.Errorf("%s: ASAp's late samples do not match P^G: %v", pb.Toy.Name, r)
		}
	}
}

func firstN(out [][]*sample.Record, n int) []*sample.Record {
	var recs []*sample.Record
	for _, run := range out {
		recs = append(recs, run[:n]...)
	}
	return recs
}

// A completion that reaches the cap without EOS is flagged and never valid.
func TestCap(t *testing.T) {
	toys, err := exact.Toys()
	if err != nil {
		t.Fatal(err)
	}
	toy := toys[1] // utf8: most GCD runs are long
	cfg := toy.Config
	cfg.MaxNew = 2
	recs, st, err := cfg.GCD(toy.Model, toy.Prompt, 500, rand.New(rand.NewPCG(5, 5)))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if len(r.Tokens) > 2 || (r.Valid() != (r.Status == sample.Complete)) || (r.Status == sample.Capped && r.Valid()) {
			t.Fatalf("record %v status %v", r.Tokens, r.Status)
		}
		if r.Status == sample.Capped && len(r.Tokens) != 2 {
			t.Fatalf("capped record of %d tokens", len(r.Tokens))
		}
	}
	if st.Capped == 0 || st.Complete == 0 || st.Capped+st.Complete != 500 {
		t.Errorf("stats %+v", st)
	}
}

// With top-k 1 the grammar can leave no token of positive probability.
func TestDeadEnd(t *testing.T) {
	toys, err := exact.Toys()
	if err != nil {
		t.Fatal(err)
	}
	toy := toys[0] // skew: after "1" the model's favourite is "0"
	cfg := toy.Config
	cfg.Transform = lm.Transform{TopK: 1}
	recs, st, err := cfg.GCD(toy.Model, toy.Prompt, 10, rand.New(rand.NewPCG(6, 6)))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Status != sample.DeadEnd || !slices.Equal(r.Tokens, []int{1}) {
			t.Fatalf("record %v status %v, want [1] dead end", r.Tokens, r.Status)
		}
	}
	if st.DeadEnd != 10 {
		t.Errorf("stats %+v", st)
	}
}

// Records carry consistent scores, and equal seeds give equal samples.
func TestRecords(t *testing.T) {
	for _, pb := range problems(t) {
		run := func() []*sample.Record {
			recs, _, err := pb.Toy.Config.GCD(pb.Toy.Model, pb.Toy.Prompt, 200, rand.New(rand.NewPCG(9, 9)))
			if err != nil {
				t.Fatal(err)
			}
			return recs
		}
		a, b := run(), run()
		for i, r := range a {
			if !slices.Equal(r.Tokens, b[i].Tokens) {
				t.Fatalf("%s: same seed, different samples", pb.Toy.Name)
			}
			if !r.Valid() {
				continue
			}
			j := pb.Lang.Index(r.Tokens)
			x := pb.Lang.Sentences[j]
			for _, pair := range [][2][]float64{{r.LogP, x.LogP}, {r.LogQ, x.LogQ}, {r.Entropy, x.Entropy}, {r.RawEntropy, x.RawEntropy}} {
				for k := range pair[0] {
					if math.Abs(pair[0][k]-pair[1][k]) > 1e-12 {
						t.Fatalf("%s: record of %v differs from the enumeration at %d", pb.Toy.Name, r.Tokens, k)
					}
				}
			}
			if r.LogQ[len(r.LogQ)-1] > 0 || r.LogQ[len(r.LogQ)-1] < r.LogP[len(r.LogP)-1] {
				t.Fatalf("%s: log P_GCD must lie in [log P, 0]", pb.Toy.Name)
			}
		}
	}
}
