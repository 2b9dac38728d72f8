package sample_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gasplab/gasp/pkg/sample"
)

// seededRands returns the sources of runs first … first+n−1 of seed.
func seededRands(seed uint64, first, n int) []*rand.Rand {
	out := make([]*rand.Rand, n)
	for i := range out {
		out[i] = sample.NewRand(sample.DeriveSeed(seed, first+i))
	}
	return out
}

// A run's output depends on its seed alone: run i drawn in a batch of 40
// equals run i drawn alone, for every sampler with per-run sources; and the
// records' Evals add up to the batch's evaluations.
func TestEachIndependentOfBatch(t *testing.T) {
	pbs := problems(t)
	const n, k, budget = 40, 3, 50
	for _, pb := range pbs {
		c := pb.Toy.Config
		ended := 0
		c.Ended = func(int, *sample.Record) { ended++ }
		P := len(pb.Toy.Prompt)

		gcd, st, err := c.GCDEach(pb.Toy.Model, pb.Toy.Prompt, seededRands(1, 0, n))
		if err != nil {
			t.Fatal(err)
		}
		if ended != n || sumEvals(gcd)+P != st.Evals {
			t.Errorf("%s: GCD: Ended called %d times for %d rows; Evals sum %d + prompt %d, batch %d", pb.Toy.Name, ended, n, sumEvals(gcd), P, st.Evals)
		}
		asap, ast, err := c.ASApEach(pb.Toy.Model, pb.Toy.Prompt, k, seededRands(2, 0, n))
		if err != nil {
			t.Fatal(err)
		}
		if s := sumEvals(slices.Concat(asap...)); s+P != ast.Evals {
			t.Errorf("%s: ASAp: Evals sum %d + prompt %d, batch %d", pb.Toy.Name, s, P, ast.Evals)
		}
		rej, rst, err := c.RejectionEach(pb.Toy.Model, pb.Toy.Prompt, budget, seededRands(3, 0, n))
		if err != nil {
			t.Fatal(err)
		}
		if sumEvals(rej)+P != rst.Evals {
			t.Errorf("%s: rejection: Evals sum %d + prompt %d, batch %d", pb.Toy.Name, sumEvals(rej), P, rst.Evals)
		}
		// The same runs on their rows of a batch whose other rows idle.
		sparse := seededRands(1, 0, n)
		for i := range sparse {
			if i%3 != 1 {
				sparse[i] = nil
			}
		}
		some, _, err := c.GCDEach(pb.Toy.Model, pb.Toy.Prompt, sparse)
		if err != nil {
			t.Fatal(err)
		}
		asome, _, err := c.ASApEach(pb.Toy.Model, pb.Toy.Prompt, k, sparse)
		if err != nil {
			t.Fatal(err)
		}
		rsome, _, err := c.RejectionEach(pb.Toy.Model, pb.Toy.Prompt, budget, sparse)
		if err != nil {
			t.Fatal(err)
		}
		for i := range sparse {
			if sparse[i] == nil {
				if some[i] != nil || asome[i] != nil || rsome[i] != nil {
					t.Fatalf("%s: idle row %d has samples", pb.Toy.Name, i)
				}
				continue
			}
			sameRecord(t, pb.Toy.Name+": GCD, idle rows", i, gcd[i], some[i])
		}
		for _, i := range []int{0, 17, n - 1} {
			one, _, err := c.GCDEach(pb.Toy.Model, pb.Toy.Prompt, seededRands(1, i, 1))
			if err != nil {
				t.Fatal(err)
			}
			sameRecord(t, pb.Toy.Name+": GCD", i, gcd[i], one[0])
			a1, _, err := c.ASApEach(pb.Toy.Model, pb.Toy.Prompt, k, seededRands(2, i, 1))
			if err != nil {
				t.Fatal(err)
			}
			for j := range k {
				sameRecord(t, pb.Toy.Name+": ASAp", i, asap[i][j], a1[0][j])
			}
			r1, _, err := c.RejectionEach(pb.Toy.Model, pb.Toy.Prompt, budget, seededRands(3, i, 1))
			if err != nil {
				t.Fatal(err)
			}
			sameRecord(t, pb.Toy.Name+": rejection", i, rej[i], r1[0])
		}
	}
}

func sumEvals(recs []*sample.Record) (s int) {
	for _, r := range recs {
		s += r.Evals
	}
	return s
}

func sameRecord(t *testing.T, what string, run int, a, b *sample.Record) {
	t.Helper()
	if !slices.Equal(a.Tokens, b.Tokens) || !slices.Equal(a.LogP, b.LogP) || !slices.Equal(a.LogQ, b.LogQ) ||
		a.Status != b.Status || a.Evals != b.Evals {
		t.Errorf("%s: run %d in a batch: %v %v (%d evals); alone: %v %v (%d evals)", what, run,
			a.Tokens, a.Status, a.Evals, b.Tokens, b.Status, b.Evals)
	}
}

// Each rejection run returns a sample of P^G, or its last attempt when the
// budget runs out.
func TestRejectionEachMatchesExact(t *testing.T) {
	for i, pb := range problems(t) {
		const n = 15000
		recs, st, err := pb.Toy.Config.RejectionEach(pb.Toy.Model, pb.Toy.Prompt, 1000, seededRands(uint64(i), 0, n))
		if err != nil {
			t.Fatal(err)
		}
		var valid []*sample.Record
		for _, r := range recs {
			if r.Valid() {
				valid = append(valid, r)
			}
		}
		if len(valid) != n {
			t.Fatalf("%s: %d of %d runs accepted within the budget", pb.Toy.Name, len(valid), n)
		}
		zOK(t, pb.Toy.Name+": rejection acceptance", st.Complete, st.Samples, pb.Lang.Mass)
		r := pb.Lang.Test(valid, pb.Lang.Target)
		if r.P < pMin {
			t.Errorf("%s: RejectionEach samples do not match P^G: %v", pb.Toy.Name, r)
		}
	}
	// A budget of one attempt: failures come back flagged.
	pb := problems(t)[0]
	recs, st, err := pb.Toy.Config.RejectionEach(pb.Toy.Model, pb.Toy.Prompt, 1, seededRands(9, 0, 200))
	if err != nil {
		t.Fatal(err)
	}
	bad := 0
	for _, r := range recs {
		if !r.Valid() {
			bad++
		}
	}
	if st.Samples != 200 || bad != st.Samples-st.Complete || bad == 0 {
		t.Errorf("budget 1: %d invalid of %d, stats %+v", bad, len(recs), st)
	}
}

func TestDeriveSeed(t *testing.T) {
	seen := map[uint64]bool{}
	for _, seed := range []uint64{0, 1, 2} {
		for run := range 1000 {
			s := sample.DeriveSeed(seed, run)
			if seen[s] {
				t.Fatalf("DeriveSeed(%d, %d) = %d repeats an earlier seed", seed, run, s)
			}
			seen[s] = true
		}
	}
}
