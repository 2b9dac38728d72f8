package sample_test

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/gasplab/gasp/pkg/exact"
	"github.com/gasplab/gasp/pkg/sample"
)

// coldTemps are temperatures at which P(L) underflows in linear space on
// most toys, and every allowed token's P at some prefix, though P^G is
// well defined: nearly a point mass on the most likely sentence, or at
// 0.001 on "forced" uniform over the four sentences whose tokens' logits
// tie.
var coldTemps = []float64{0.005, 0.001}

// coldProblem is a toy at temperature temp with its language enumerated
// there (in log space).
type coldProblem struct {
	name string
	toy  *exact.Toy
	cfg  sample.Config
	lang *exact.Lang
	mode int // the index of the most likely sentence
}

func coldProblems(t *testing.T, temp float64) []coldProblem {
	t.Helper()
	var out []coldProblem
	for _, pb := range problems(t) {
		c := pb.Toy.Config
		c.Transform.Temperature = temp
		l, err := exact.Enumerate(pb.Toy.Model, pb.Toy.Prompt, c, 100000)
		if err != nil {
			t.Fatal(err)
		}
		mode := 0
		for i, p := range l.Target {
			if p > l.Target[mode] {
				mode = i
			}
		}
		name := fmt.Sprintf("%s at T=%g", pb.Toy.Name, temp)
		t.Logf("%s: log P(L) = %.1f, P^G(%v) = %.6f", name, l.LogMass, l.Sentences[mode].Tokens, l.Target[mode])
		if !(l.Target[mode] >= 0.25) {
			t.Fatalf("%s: P^G is not concentrated: %v", name, l.Target)
		}
		out = append(out, coldProblem{name, pb.Toy, c, l, mode})
	}
	return out
}

// checkCold fails unless every record is a complete sentence (no dead end,
// no capped or rejected record) and they match P^G: the most likely
// sentence as often as it should be, and the chi-square test.
func (cp *coldProblem) checkCold(t *testing.T, what string, recs []*sample.Record) {
	t.Helper()
	name := cp.name + " " + what
	var valid []*sample.Record
	for _, r := range recs {
		if r.Status != sample.Complete {
			t.Errorf("%s: a %v record %v", name, r.Status, r.Tokens)
			continue
		}
		valid = append(valid, r)
	}
	if len(valid) == 0 {
		t.Errorf("%s: no sample", name)
		return
	}
	k := 0
	for _, r := range valid {
		if slices.Equal(r.Tokens, cp.lang.Sentences[cp.mode].Tokens) {
			k++
		}
	}
	zOK(t, name+": the most likely sentence", k, len(valid), cp.lang.Target[cp.mode])
	if r := cp.lang.Test(valid, cp.lang.Target); r.P < pMin {
		t.Errorf("%s: samples do not match P^G: %v", name, r)
	}
}

// At temperatures where every allowed token's P underflows, CARS and its
// adaptive variants still give exact samples of P^G, and never a dead end
// (they worked in linear space: every attempt was thinned or a dead end,
// or the trie held the language empty).
func TestColdCARS(t *testing.T) {
	for _, temp := range coldTemps {
		for i, cp := range coldProblems(t, temp) {
			for _, v := range []sample.Variant{sample.ARS, sample.CARS} {
				const rows, k = 20, 50
				tr := sample.NewTrie()
				out, st, err := cp.cfg.CARS(cp.toy.Model, cp.toy.Prompt, sample.RejectionSampler{Variant: v, Trie: tr, Budget: 10000}, k, seededRands(uint64(i), 0, rows))
				if err != nil {
					t.Fatal(err)
				}
				cp.checkCold(t, v.String(), slices.Concat(out...))
				t.Logf("%s %v: acceptance %.3f; log alive %.1f, log P(L) %.1f", cp.name, v, st.AcceptanceRate(), tr.LogAlive(), cp.lang.LogMass)
				if tr.LogAlive() < cp.lang.LogMass-1e-9 {
					t.Errorf("%s %v: the trie leaves log %v of P's mass, less than log P(L) = %v", cp.name, v, tr.LogAlive(), cp.lang.LogMass)
				}
			}
		}
	}
}

// RSFT draws its first token from P masked by the grammar, in log space
// too: where P(L) is not negligible it still samples P^G, and the first
// draw is never a dead end.
func TestColdRSFT(t *testing.T) {
	for i, cp := range coldProblems(t, 0.005) {
		if cp.lang.LogMass < math.Log(0.01) {
			continue // P(L) is negligible: rejection sampling cannot accept
		}
		out, _, err := cp.cfg.CARS(cp.toy.Model, cp.toy.Prompt, sample.RejectionSampler{Variant: sample.RSFT}, 20, seededRands(uint64(i), 0, 20))
		if err != nil {
			t.Fatal(err)
		}
		cp.checkCold(t, "rsft", slices.Concat(out...))
	}
}

// ASAp at a small temperature: its first sample is GCD's (in log space),
// and its later ones P^G's; no sample is a dead end.
func TestColdASAp(t *testing.T) {
	for _, temp := range coldTemps {
		for i, cp := range coldProblems(t, temp) {
			const runs, k = 20, 60
			out, _, err := cp.cfg.ASAp(cp.toy.Model, cp.toy.Prompt, runs, k, seededRands(uint64(i), 0, 1)[0])
			if err != nil {
				t.Fatal(err)
			}
			var first, late []*sample.Record
			for _, run := range out {
				if run[0].Valid() {
					first = append(first, run[0])
				} else if run[0].Status != sample.Capped {
					t.Errorf("%s: ASAp(1) is a %v record", cp.name, run[0].Status)
				}
				late = append(late, run[k/2:]...)
			}
			if r := cp.lang.Test(first, cp.lang.GCD); r.P < pMin {
				t.Errorf("%s: ASAp(1) does not match GCD: %v", cp.name, r)
			}
			cp.checkCold(t, "asap late", late)
		}
	}
}

// SMC, with and without AWRS, at a small temperature: no particle is a
// dead end, and a complete particle's weight is finite: without AWRS
// exactly P(x)/P_GCD(x) (no resampling), with AWRS a positive estimate of
// it. (Ẑ is unbiased there too, but so heavy-tailed that a mean over runs
// shows nothing: AWRS weighs the allowed mass ε behind one excluded token
// ε/2, and 1/2 with probability ε.)
func TestColdSMC(t *testing.T) {
	for _, temp := range coldTemps {
		for i, cp := range coldProblems(t, temp) {
			for _, awrs := range []bool{false, true} {
				const runs = 50
				rands := seededRands(uint64(i), 0, runs)
				out, _, err := cp.cfg.SMC(cp.toy.Model, cp.toy.Prompt, sample.SMCOptions{Particles: 4, AWRS: awrs}, rands)
				if err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("%s smc awrs=%v", cp.name, awrs)
				complete := 0
				for _, r := range out {
					for j, p := range r.Particles {
						w := r.LogW[j]
						switch {
						case p.Status == sample.Complete && (math.IsInf(w, 0) || math.IsNaN(w)):
							t.Errorf("%s: a sentence of weight %v", name, w)
						case p.Status == sample.Complete && !awrs && math.Abs(w-(p.LogProb()-p.LogQProb())) > 1e-9*math.Abs(w):
							t.Errorf("%s: a sentence of log weight %v, want log P/P_GCD = %v", name, w, p.LogProb()-p.LogQProb())
						case p.Status == sample.Complete:
							complete++
						case p.Status != sample.Capped:
							t.Errorf("%s: a %v particle %v", name, p.Status, p.Tokens)
						}
					}
				}
				t.Logf("%s: %d of %d particles complete; GCD capped with probability %.3f", name, complete, 4*runs, cp.lang.GCDInvalid)
				if complete == 0 && cp.lang.GCDInvalid < 0.5 {
					t.Errorf("%s: no particle is a sentence", name)
				}
			}
		}
	}
}
