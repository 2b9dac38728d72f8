package analysis

import (
	"math"
	"testing"

	"github.com/gasplab/gasp/pkg/runs"
)

// protocolRecords is a task by hand: Restart chains start at a (P = .5), b
// (P = .1) and a capped completion; after one step both chains are at a,
// having proposed c (P = .2, rejected) and a (accepted); GCD drew d (P =
// .05) and a.
func protocolRecords() []runs.Record {
	a, b, c, d := []int{1}, []int{2}, []int{3}, []int{4}
	capped := ended(Restart, 0, 2, []int{9, 9}, runs.NoEOS, 0.3)
	capped.Valid, capped.Status = false, runs.StatusCapped
	r1a := ended(Restart, 1, 0, a, 1, 0.5)
	r1a.Proposal = &runs.Proposal{IDs: c, EOS: 1, LogP: math.Log(0.2), LogPGCD: -1, Valid: true, Status: runs.StatusComplete}
	r1b := ended(Restart, 1, 1, a, 1, 0.5)
	r1b.Proposal = &runs.Proposal{IDs: a, EOS: 1, LogP: math.Log(0.5), LogPGCD: -1, Valid: true, Status: runs.StatusComplete, Accepted: true}
	r1c := capped
	r1c.K = 1
	return []runs.Record{
		ended(Restart, 0, 0, a, 1, 0.5), ended(Restart, 0, 1, b, 1, 0.1), capped,
		r1a, r1b, r1c,
		ended(GCD, 0, 0, d, 1, 0.05), ended(GCD, 0, 1, a, 1, 0.5),
	}
}

func TestAuthorsProtocol(t *testing.T) {
	d := Group(protocolRecords())
	get := func(p Protocol, resamples int) *TaskResult {
		rep, err := Analyze(d, Options{Seed: 3, Resamples: resamples, Protocol: p})
		if err != nil {
			t.Fatal(err)
		}
		return &rep.Tasks[0]
	}
	at := func(tr *TaskResult, m string, k int) Point {
		s, ok := tr.Method(m)
		if !ok {
			t.Fatalf("no %s", m)
		}
		p, ok := s.At(k)
		if !ok {
			t.Fatalf("no %s k=%d", m, k)
		}
		return p
	}
	g, a := get(Gasp, 500), get(Authors, 20000)
	// S: gasp {a, b, d} (Z = .65); authors also the proposal c (Z = .85).
	if g.Size != 3 || a.Size != 4 || a.Proposals != 2 || g.Proposals != 0 {
		t.Errorf("|S| gasp %d, authors %d (proposals %d, %d); want 3, 4 (2, 0)", g.Size, a.Size, a.Proposals, g.Proposals)
	}
	if g.GCDFrom != GCD || a.GCDFrom != Restart+" k=0" {
		t.Errorf("GCD line from %q (gasp), %q (authors)", g.GCDFrom, a.GCDFrom)
	}
	// MCMC(1) is a twice: every resample too.
	if p := at(g, Restart, 1); !near(p.KL, math.Log(0.65/0.5), 1e-12) || p.Valid != 2 || p.Runs != 3 {
		t.Errorf("gasp restart(1) %+v, want KL log(.65/.5)", p)
	}
	if p := at(a, Restart, 1); !near(p.KL, math.Log(0.85/0.5), 1e-12) {
		t.Errorf("authors restart(1) %+v, want KL log(.85/.5)", p)
	}
	// gasp's GCD: the gcd runs {d, a}, point estimate.
	wantG := 0.5*math.Log(0.5/(0.05/0.65)) + 0.5*math.Log(0.5/(0.5/0.65))
	if p := at(g, GCD, 0); !near(p.KL, wantG, 1e-12) {
		t.Errorf("gasp GCD %v, want %v", p.KL, wantG)
	}
	// The authors' GCD: Restart's starts {a, b} (the capped one dropped),
	// the mean over resamples: aa, bb with probability 1/4, ab with 1/2.
	kl := func(pa float64) float64 { // KL of p̂ = (pa, 1-pa) over (a, b)
		s := 0.0
		for _, x := range [][2]float64{{pa, 0.5 / 0.85}, {1 - pa, 0.1 / 0.85}} {
			if x[0] > 0 {
				s += x[0] * math.Log(x[0]/x[1])
			}
		}
		return s
	}
	wantA := 0.25*kl(1) + 0.25*kl(0) + 0.5*kl(0.5)
	if p := at(a, GCD, 0); !near(p.KL, wantA, 0.02) || p.Valid != 2 || p.Runs != 3 {
		t.Errorf("authors GCD %+v, want KL ≈ %v (mean of the bootstrap), 2 of 3 records", p, wantA)
	}
	if _, err := Analyze(d, Options{Protocol: "paper"}); err == nil {
		t.Error("unknown protocol accepted")
	}
}

// The authors' GCD line exists from Restart's starts even where the store
// has no gcd runs (the authors' own logs).
func TestAuthorsGCDWithoutGCDRuns(t *testing.T) {
	var recs []runs.Record
	for _, r := range protocolRecords() {
		if r.Method != GCD {
			recs = append(recs, r)
		}
	}
	rep, err := Analyze(Group(recs), Options{Seed: 1, Resamples: 50, Protocol: Authors})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := rep.Tasks[0].Method(GCD); !ok || len(rep.Ratios) != 1 || rep.Ratios[0].NGCD != 1 {
		t.Errorf("methods %v, ratios %+v", rep.Methods, rep.Ratios)
	}
}
