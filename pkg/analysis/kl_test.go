package analysis

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/exact"
	"github.com/gasplab/gasp/pkg/method"
	"github.com/gasplab/gasp/pkg/runs"
	"github.com/gasplab/gasp/pkg/sample"
)

// rec returns a record of task "t".
func rec(method string, run int, ids []int, p float64, valid bool) runs.Record {
	st := runs.StatusComplete
	if !valid {
		st = runs.StatusCapped
	}
	return runs.Record{Task: "t", Method: method, Run: run, IDs: ids, LogP: math.Log(p), Valid: valid, Status: st}
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestKLByHand(t *testing.T) {
	a, b, c := []int{1}, []int{2, 3}, []int{2}
	// S = {a, b, c} with P = .5, .25, .05 (mass .8): ref = .625, .3125, .0625.
	other := []runs.Record{
		rec("gcd", 0, c, 0.05, true),
		rec("gcd", 1, []int{9, 9}, 0.3, false), // capped: in neither S nor p̂
	}
	m := []runs.Record{
		rec("mcmc", 0, a, 0.5, true),
		rec("mcmc", 1, a, 0.5, true),
		rec("mcmc", 2, b, 0.25, true),
		rec("mcmc", 3, c, 0.05, true),
		rec("mcmc", 4, []int{7}, 0.4, false),
	}
	ref := NewReference(append(append([]runs.Record{}, other...), m...))
	if ref.Size() != 3 {
		t.Fatalf("Size = %d, want 3", ref.Size())
	}
	if !near(ref.LogZ(), math.Log(0.8), 1e-12) {
		t.Errorf("LogZ = %v, want log .8", ref.LogZ())
	}
	if lp, ok := ref.LogProb(b, 0, math.Log(0.25)); !ok || !near(lp, math.Log(0.3125), 1e-12) {
		t.Errorf("LogProb(b) = %v, %v; want log .3125", lp, ok)
	}
	if _, ok := ref.LogProb([]int{9, 9}, 0, math.Log(0.3)); ok {
		t.Error("a capped sample is in S")
	}
	// p̂ = .5, .25, .25: KL = .5 log(.5/.625) + .25 log(.25/.3125) + .25 log(.25/.0625)
	// = .75 log .8 + .25 log 4.
	kl, err := ref.KL(m)
	if err != nil {
		t.Fatal(err)
	}
	if want := 0.179215926794; !near(kl, want, 1e-11) {
		t.Errorf("KL = %.12f, want %.12f", kl, want)
	}
	if got := Counts(m); got != (Count{Records: 5, Valid: 4}) {
		t.Errorf("Counts = %+v", got)
	}
	// p̂ = ref exactly: 10 draws of a, 5 of b, 1 of c (ref .625, .3125, .0625).
	var exactRecs []runs.Record
	for i := range 16 {
		switch {
		case i < 10:
			exactRecs = append(exactRecs, rec("x", i, a, 0.5, true))
		case i < 15:
			exactRecs = append(exactRecs, rec("x", i, b, 0.25, true))
		default:
			exactRecs = append(exactRecs, rec("x", i, c, 0.05, true))
		}
	}
	if kl, err := ref.KL(exactRecs); err != nil || !near(kl, 0, 1e-12) {
		t.Errorf("KL(ref ‖ ref) = %v, %v; want 0", kl, err)
	}
}

func TestReferenceOrderIndependent(t *testing.T) {
	// The same sample with log P differing by rounding: the smallest is used,
	// whatever the order.
	x1 := rec("a", 0, []int{1}, 0.5, true)
	x2 := rec("b", 0, []int{1}, 0.5, true)
	x2.LogP = math.Nextafter(x1.LogP, math.Inf(-1))
	y := rec("a", 1, []int{2}, 0.1, true)
	r1 := NewReference([]runs.Record{x1, x2, y})
	r2 := NewReference([]runs.Record{y, x2, x1})
	if r1.LogZ() != r2.LogZ() {
		t.Errorf("LogZ depends on order: %v vs %v", r1.LogZ(), r2.LogZ())
	}
	if lp, _ := r1.LogProb([]int{1}, 0, x1.LogP); lp != x2.LogP-r1.LogZ() {
		t.Errorf("LogProb = %v, want the smallest log P", lp)
	}
}

func TestKLErrors(t *testing.T) {
	ref := NewReference([]runs.Record{rec("gcd", 0, []int{1}, 0.5, true)})
	cases := []struct {
		name string
		recs []runs.Record
		want string
	}{
		{"none", nil, "no records"},
		{"no valid", []runs.Record{rec("gcd", 0, []int{1}, 0.5, false)}, "none of 1 records is valid"},
		{"not in S", []runs.Record{rec("gcd", 0, []int{2}, 0.5, true)}, "not in the reference"},
		{"other task", []runs.Record{{Task: "u", Method: "gcd", IDs: []int{1}, Valid: true}}, "task not in the reference"},
	}
	for _, c := range cases {
		if _, err := ref.KL(c.recs); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: KL error %v, want %q", c.name, err, c.want)
		}
		if _, _, err := ref.Bootstrap(c.recs, 10, 1); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Bootstrap error %v, want %q", c.name, err, c.want)
		}
	}
	if _, _, err := ref.Bootstrap([]runs.Record{rec("gcd", 0, []int{1}, 0.5, true)}, 0, 1); err == nil {
		t.Error("Bootstrap with 0 resamples: no error")
	}
}

func TestPercentile(t *testing.T) {
	xs := []float64{4, 1, 3, 2}
	for _, c := range []struct{ p, want float64 }{{0, 1}, {2.5, 1.075}, {50, 2.5}, {97.5, 3.925}, {100, 4}} {
		if got := percentile(xs, c.p); !near(got, c.want, 1e-12) {
			t.Errorf("percentile(%v) = %v, want %v", c.p, got, c.want)
		}
	}
	if xs[0] != 4 {
		t.Error("percentile sorted its argument")
	}
}

func TestBootstrapByHand(t *testing.T) {
	// Two runs, samples a and b with ref .5 each. A resample is {a,a} or
	// {b,b} (KL log 2) with probability 1/2, else {a,b} (KL 0): with 500
	// resamples the percentiles are 0 and log 2.
	recs := []runs.Record{rec("m", 0, []int{1}, 0.2, true), rec("m", 1, []int{2}, 0.2, true)}
	ref := NewReference(recs)
	lo, hi, err := ref.Bootstrap(recs, 500, 7)
	if err != nil {
		t.Fatal(err)
	}
	if lo != 0 || !near(hi, math.Log(2), 1e-12) {
		t.Errorf("Bootstrap = [%v, %v], want [0, log 2]", lo, hi)
	}
	lo2, hi2, _ := ref.Bootstrap(recs, 500, 7)
	if lo2 != lo || hi2 != hi {
		t.Error("Bootstrap is not reproducible with the same seed")
	}
	// One distinct sample: every resample has KL = -log ref = 0.
	one := []runs.Record{rec("m", 0, []int{1}, 0.2, true), rec("m", 1, []int{1}, 0.2, true)}
	if lo, hi, err := NewReference(one).Bootstrap(one, 50, 1); err != nil || lo != 0 || hi != 0 {
		t.Errorf("Bootstrap of a point mass = [%v, %v], %v", lo, hi, err)
	}
}

// drawFrom returns n records drawn from dist over the sentences of lang.
func drawFrom(lang *exact.Lang, dist []float64, method string, n int, rng *rand.Rand) []runs.Record {
	out := make([]runs.Record, n)
	for j := range out {
		u, i := rng.Float64(), 0
		for ; i < len(dist)-1; i++ {
			if u -= dist[i]; u < 0 {
				break
			}
		}
		out[j] = sentence(lang, i, method, j)
	}
	return out
}

func sentence(lang *exact.Lang, i int, method string, run int) runs.Record {
	s := lang.Sentences[i]
	ids, eos := s.Tokens, runs.NoEOS
	if s.Status == sample.Complete {
		ids, eos = ids[:len(ids)-1], ids[len(ids)-1]
	}
	return runs.Record{Task: "toy", Method: method, Run: run, IDs: ids, EOS: eos, LogP: math.Log(lang.P[i]), Valid: true, Status: runs.StatusComplete}
}

// exactKL returns KL(p ‖ q).
func exactKL(p, q []float64) float64 {
	s := 0.0
	for i := range p {
		if p[i] > 0 {
			s += p[i] * math.Log(p[i]/q[i])
		}
	}
	return s
}

// TestKLConverges checks the estimator against pkg/exact: with S the whole
// language, ref is P^G, and KL of many GCD draws tends to KL(GCD ‖ P^G),
// inside the bootstrap interval; KL of draws from P^G itself tends to 0.
func TestKLConverges(t *testing.T) {
	toys, err := exact.Toys()
	if err != nil {
		t.Fatal(err)
	}
	for _, toy := range toys {
		lang, err := exact.Enumerate(toy.Model, toy.Prompt, toy.Config, 100000)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(1, 2))
		const n = 20000
		all := make([]runs.Record, 0, lang.Len()+2*n)
		for i := range lang.Len() {
			all = append(all, sentence(lang, i, "enum", i))
		}
		g := drawFrom(lang, lang.GCD, "gcd", n, rng)
		tgt := drawFrom(lang, lang.Target, "target", n, rng)
		ref := NewReference(append(append(all, g...), tgt...))
		if ref.Size() != lang.Len() {
			t.Fatalf("%s: |S| = %d, want %d", toy.Name, ref.Size(), lang.Len())
		}
		want := exactKL(lang.GCD, lang.Target)
		got, err := ref.KL(g)
		if err != nil {
			t.Fatal(err)
		}
		lo, hi, err := ref.Bootstrap(g, 500, 3)
		if err != nil {
			t.Fatal(err)
		}
		// The plug-in estimator's bias is about (|S|−1)/(2n).
		bias := float64(lang.Len()-1) / (2 * n)
		t.Logf("%s: |S|=%d KL(GCD‖P^G) = %.4f, estimate %.4f [%.4f, %.4f]", toy.Name, lang.Len(), want, got, lo, hi)
		if !near(got, want, 0.02+bias) {
			t.Errorf("%s: KL estimate %.4f, exact %.4f", toy.Name, got, want)
		}
		if !(lo <= got && got <= hi) || !(lo-bias <= want && want <= hi+bias) {
			t.Errorf("%s: bootstrap [%.4f, %.4f] misses estimate %.4f or exact %.4f", toy.Name, lo, hi, got, want)
		}
		if kl, err := ref.KL(tgt); err != nil || kl > 0.01+2*bias {
			t.Errorf("%s: KL of P^G draws = %v, %v; want ≈ 0", toy.Name, kl, err)
		}
	}
}

func TestKendall(t *testing.T) {
	for _, c := range []struct {
		y    []float64
		want float64
	}{
		{[]float64{4, 3, 2, 1}, -1},
		{[]float64{1, 2, 3, 4}, 1},
		{[]float64{3, 1, 2, 0}, -2.0 / 3}, // 1 concordant, 5 discordant pairs
		{[]float64{1, 1, 1, 1}, math.NaN()},
		{[]float64{2, 1, 1, 0}, -5 / math.Sqrt(30)}, // τ_b: 5 discordant, 1 tie in y
	} {
		got := kendall([]float64{1, 2, 3, 4}, c.y)
		if !(near(got, c.want, 1e-12) || math.IsNaN(got) && math.IsNaN(c.want)) {
			t.Errorf("kendall(%v) = %v, want %v", c.y, got, c.want)
		}
	}
}

// TestRatiosByHand builds KLs directly: two tasks whose MCMC KL is 4x and
// 1x below GCD's (geomean 2), and 2x and 8x below ASAp(2)'s (geomean 4); a
// third task where MCMC's KL is 0 is skipped.
func TestRatiosByHand(t *testing.T) {
	series := func(gcd, asap, mcmc float64) []Series {
		return []Series{
			{Method: ASAp, Points: []Point{{K: 1, KL: 9}, {K: 2, KL: asap}}},
			{Method: GCD, Points: []Point{{K: 0, KL: gcd}}},
			{Method: "floor", Points: []Point{{K: 0, KL: 9}, {K: 1, KL: 3}, {K: 2, KL: mcmc}}},
		}
	}
	// "floor" is a user's chain: no "mcmc-" in its name, Steps says what it is.
	steps := map[string]method.Steps{ASAp: method.Samples, GCD: method.None, "floor": method.Chain}
	rep := &Report{Methods: []string{ASAp, GCD, "floor"}, Steps: steps, Tasks: []TaskResult{
		{Task: "a", Series: series(2, 1, 0.5)},
		{Task: "b", Series: series(1, 8, 1)},
		{Task: "c", Series: series(1, 1, 0)},
	}}
	rs := ratios(rep)
	if len(rs) != 1 {
		t.Fatalf("ratios %v", rs)
	}
	r := rs[0]
	if r.K != 2 || r.NGCD != 2 || r.NASAp != 2 || r.Skipped != 1 || !near(r.VsGCD, 2, 1e-12) || !near(r.VsASAp, 4, 1e-12) {
		t.Errorf("ratio %+v, want k=2 vs GCD 2, vs ASAp 4 over 2 tasks, 1 skipped", r)
	}
	rep.Options.K = 1 // compare at k = 1: MCMC 3 vs GCD 2, 1, 1 and ASAp 9, 9, 9
	r = ratios(rep)[0]
	if r.K != 1 || !near(r.VsGCD, math.Cbrt(2.0/27), 1e-12) || !near(r.VsASAp, 3, 1e-12) || r.NGCD != 3 {
		t.Errorf("ratio at k=1 %+v", r)
	}
	mono := monotonicity(rep)
	if len(mono) != 6 || mono[1].Method != "floor" || mono[1].Increases != 0 || mono[1].Tau != -1 || mono[1].First != 3 {
		t.Errorf("monotonicity %+v", mono)
	}
}
