package analysis

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/runs"
)

func recsOf(task, method string, k int, ids ...[]int) []runs.Record {
	var out []runs.Record
	for i, x := range ids {
		out = append(out, runs.Record{Task: task, Method: method, K: k, Run: i, IDs: x, Valid: x != nil, LogP: -float64(len(x)), Evals: int64(10 * (k + 1))})
	}
	return out
}

// TV and smoothed KL by hand: p̂ = {a: ½, b: ½}, ê = {a: ¾, c: ¼} over
// U = {a, b, c}; ê₊ = {a: 4/7, b: 1/7, c: 2/7}.
func TestDistances(t *testing.T) {
	var c counter
	tv, kl := c.distances([]int{0, 1}, []int{0, 0, 0, 2}, 4) // id 3: seen by neither
	wantKL := 0.5*math.Log(0.5/(4.0/7)) + 0.5*math.Log(0.5/(1.0/7))
	if math.Abs(tv-0.5) > 1e-15 || math.Abs(kl-wantKL) > 1e-15 {
		t.Errorf("distances = %v, %v; want 0.5, %v", tv, kl, wantKL)
	}
	if tv, _ := c.distances([]int{1}, []int{1}, 2); tv != 0 {
		t.Errorf("TV of equal samples %v", tv)
	}
}

func TestExactDistanceAndFloor(t *testing.T) {
	a, b, c := []int{1}, []int{2}, []int{3}
	var exact [][]int
	for i := range 300 {
		exact = append(exact, [][]int{a, a, b, c}[i%4])
	}
	e := NewExact(append(recsOf("t", "cars", 0, exact...), runs.Record{Task: "t", Method: "cars", Valid: false}))
	if e.Len() != 300 {
		t.Fatalf("%d exact samples", e.Len())
	}
	good := recsOf("t", "x", 0, a, b, a, c, a, b, a, c, a, a)
	bad := recsOf("t", "y", 0, c, c, c, c, c, c, c, c, c, b)
	dg, err := e.Distance(good, 200, 1)
	if err != nil {
		t.Fatal(err)
	}
	db, err := e.Distance(bad, 200, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !(dg.TV < db.TV && dg.KL < db.KL) || dg.TVLo > dg.TV || dg.TVHi < dg.TV || db.N != 10 {
		t.Errorf("good %+v, bad %+v", dg, db)
	}
	tv, kl, ok := e.Floor(10, 100, 1)
	if !ok || tv <= 0 || tv > db.TV || kl <= 0 {
		t.Errorf("floor %v %v %v", tv, kl, ok)
	}
	if _, _, ok := e.Floor(200, 10, 1); ok {
		t.Error("a floor from too few exact samples")
	}
	if _, err := e.Distance(recsOf("t", "z", 0, nil), 10, 1); err == nil {
		t.Error("a distance without valid samples")
	}
}

// The proxy and the true distance agree on a clear ordering, and the report
// is deterministic.
func TestAnalyzeTrue(t *testing.T) {
	a, b, c := []int{1}, []int{2}, []int{3}
	var exact [][]int
	for i := range 200 {
		exact = append(exact, [][]int{a, a, b, c}[i%4])
	}
	var recs []runs.Record
	recs = append(recs, recsOf("t", "gcd", 0, c, c, c, c, c, c, c, c, b, a)...)
	recs = append(recs, recsOf("t", "mcmc-uniform", 0, c, c, c, b, c, c, c, b, b, a)...)
	recs = append(recs, recsOf("t", "mcmc-uniform", 1, a, b, a, c, a, b, a, c, a, a)...)
	d := Group(recs)
	ex := Group(recsOf("t", "cars", 0, exact...))
	render := func() []byte {
		rep, err := AnalyzeTrue(d, ex, "cars", TrueOptions{Resamples: 50, Seed: 3, MinExact: 100})
		if err != nil {
			t.Fatal(err)
		}
		files, err := rep.Files("t")
		if err != nil {
			t.Fatal(err)
		}
		ms := rep.Means()
		if len(ms) != 2 || ms[1].Method != "mcmc-uniform" || ms[1].RankTV != 1 || ms[0].RankTV != 2 || ms[1].K != 1 {
			t.Errorf("means %+v", ms)
		}
		return bytes.Join([][]byte{files["README.md"], files["true.csv"], files["tasks.csv"], files["fig_true_vs_evals.svg"]}, nil)
	}
	if !bytes.Equal(render(), render()) {
		t.Error("the report is not deterministic")
	}
}

// TestTrueSelfAndFinalK: a store that holds the exact samples and the methods
// (the authors' imported runs) does not measure the exact series against
// itself; a method's final k is the largest every run reached, not one that a
// single longer chain did.
func TestTrueSelfAndFinalK(t *testing.T) {
	a, b, c := []int{1}, []int{2}, []int{3}
	var exact [][]int
	for i := range 120 {
		exact = append(exact, [][]int{a, b, c}[i%3])
	}
	recs := recsOf("t", "cars", 0, exact...)
	recs = append(recs, recsOf("t", "mcmc-uniform", 0, a, b, c, a)...)
	recs = append(recs, recsOf("t", "mcmc-uniform", 1, b, c, a, b)...)
	recs = append(recs, recsOf("t", "mcmc-uniform", 2, c)...) // one chain ran a step longer
	// A run per attempt, as the authors' rejection sampling: more runs than the exact samples could split
	// into; the floor is for the method with the fewest.
	var attempts [][]int
	for i := range 100 {
		attempts = append(attempts, [][]int{a, nil}[i%2])
	}
	recs = append(recs, recsOf("t", "rejection", 0, attempts...)...)
	d := Group(recs)
	for _, ex := range []*Data{d, Group(recsOf("t", "cars", 0, exact...))} {
		rep, err := AnalyzeTrue(d, ex, "cars", TrueOptions{Resamples: 20, Seed: 1, MinExact: 100})
		if err != nil {
			t.Fatal(err)
		}
		task := rep.Tasks[0]
		var methods []string
		for _, r := range task.FinalByMethods {
			methods = append(methods, fmt.Sprintf("%s@%d", r.Method, r.K))
		}
		if got := strings.Join(methods, " "); got != "mcmc-uniform@1 rejection@0" {
			t.Errorf("final rows %q, want mcmc-uniform@1 rejection@0 (cars is the exact set itself)", got)
		}
		if math.IsNaN(task.FloorTV) {
			t.Errorf("no floor: %+v", task)
		}
	}
}
