package analysis

import (
	"math"
	"testing"

	"github.com/gasplab/gasp/pkg/runs"
)

// ended returns a valid record of task "t" whose completion ids end with
// the end-of-sequence token eos and have probability p.
func ended(method string, k, run int, ids []int, eos int, p float64) runs.Record {
	return runs.Record{Task: "t", Method: method, K: k, Run: run, IDs: ids, EOS: eos, LogP: math.Log(p),
		Valid: true, Status: runs.StatusComplete}
}

// issue13 is the reproduction of issue #13: 55 MCMC draws of w (P = .5)
// and 45 of v (P = .4), both ended by EOS 1, and one GCD draw of w ended by
// the rare EOS 2 (P = .0005).
func issue13(eos func(int) int) (mcmc, all []runs.Record) {
	w, v := []int{10, 11}, []int{12}
	for i := range 100 {
		if i < 55 {
			mcmc = append(mcmc, ended("mcmc-uniform", 10, i, w, eos(1), 0.5))
		} else {
			mcmc = append(mcmc, ended("mcmc-uniform", 10, i, v, eos(1), 0.4))
		}
	}
	all = append(append(all, mcmc...), ended(GCD, 0, 0, w, eos(2), 0.0005))
	return mcmc, all
}

// The same ids ended by two EOS tokens are two samples of S: ref(w·1)
// stays .5/.9005 and MCMC's KL is tiny (merged, it would be 2.99).
func TestSeveralEOSAreSeveralSamples(t *testing.T) {
	z := 0.5 + 0.4 + 0.0005
	want := 0.55*math.Log(0.55/(0.5/z)) + 0.45*math.Log(0.45/(0.4/z))
	for _, tc := range []struct {
		name string
		eos  func(int) int
	}{
		{"eos recorded", func(e int) int { return e }},
		{"schema 2: no eos, told apart by log P", func(int) int { return runs.NoEOS }},
	} {
		mc, all := issue13(tc.eos)
		ref := NewReference(all)
		if ref.Size() != 3 {
			t.Errorf("%s: |S| = %d, want 3", tc.name, ref.Size())
		}
		if lp, ok := ref.LogProb([]int{10, 11}, tc.eos(1), math.Log(0.5)); !ok || !near(math.Exp(lp), 0.5/z, 1e-12) {
			t.Errorf("%s: ref(w·1) = %v, want %v", tc.name, math.Exp(lp), 0.5/z)
		}
		kl, err := ref.KL(mc)
		if err != nil || !near(kl, want, 1e-12) || kl > 0.001 {
			t.Errorf("%s: KL = %v, %v; want %v", tc.name, kl, err, want)
		}
	}
}

// A record without its EOS whose log P is within LegacyTolerance of a
// sample with the same ids is that sample (rounding), whatever the order.
func TestLegacyRounding(t *testing.T) {
	a := ended("a", 0, 0, []int{1}, runs.NoEOS, 0.5)
	b := a
	b.Method, b.LogP = "b", a.LogP+1e-9
	c := ended("c", 0, 0, []int{1}, 7, 0.5) // the same sample, EOS recorded (a resumed old store)
	c.LogP = a.LogP - 1e-9
	d := ended("d", 0, 0, []int{1}, runs.NoEOS, 0.01) // the same ids, another ending
	for _, recs := range [][]runs.Record{{a, b, d}, {d, b, a}, {a, b, c, d}, {c, d, b, a}} {
		ref := NewReference(recs)
		want := 2
		if ref.Size() != want {
			t.Errorf("|S| = %d, want %d", ref.Size(), want)
		}
		for _, r := range recs {
			if _, ok := ref.LogProb(r.IDs, r.EOS, r.LogP); !ok {
				t.Errorf("record %s not in S", r.Method)
			}
		}
		if lp, _ := ref.LogProb(d.IDs, d.EOS, d.LogP); !near(math.Exp(lp), 0.01/(0.5+0.01), 1e-6) {
			t.Errorf("ref(d) = %v", math.Exp(lp))
		}
	}
}

// A store written before records carried their EOS (schema 2) analyses as
// the same samples written with it: testdata/store-schema2 and
// testdata/store hold the same runs of the single-EOS toys.
func TestSchema2StoreSameAnalysis(t *testing.T) {
	load := func(dir string) *Report {
		d, err := LoadDirs(dir)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Analyze(d, Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	old, cur := load("testdata/store-schema2"), load(storeDir)
	for _, ot := range old.Tasks {
		var ct *TaskResult
		for i := range cur.Tasks {
			if cur.Tasks[i].Task == ot.Task {
				ct = &cur.Tasks[i]
			}
		}
		if ct == nil || ct.Size != ot.Size || len(ct.Series) != len(ot.Series) {
			t.Fatalf("%s: schema-2 analysis %+v, schema 3 %+v", ot.Task, ot, ct)
		}
		for i, s := range ot.Series {
			for j, p := range s.Points {
				if q := ct.Series[i].Points[j]; p != q {
					t.Errorf("%s %s: schema 2 %+v, schema 3 %+v", ot.Task, s.Method, p, q)
				}
			}
		}
	}
}
