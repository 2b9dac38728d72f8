package sample_test

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/exact"
	"github.com/gasplab/gasp/pkg/lm"
	"github.com/gasplab/gasp/pkg/sample"
)

var variants = []sample.Variant{sample.RS, sample.RSFT, sample.ARS, sample.CARS}

// Every variant's accepted samples are exactly P^G on every toy, with the
// trie shared by all rows (so that rows thin their attempts with what the
// others learnt meanwhile); evaluations and rejections add up.
func TestCARSMatchesExact(t *testing.T) {
	for i, pb := range problems(t) {
		for _, v := range variants {
			const rows, k = 300, 50
			recs, st, err := pb.Toy.Config.CARS(pb.Toy.Model, pb.Toy.Prompt, sample.RejectionSampler{Variant: v}, k, seededRands(uint64(10*i)+uint64(v), 0, rows))
			if err != nil {
				t.Fatal(err)
			}
			var all []*sample.Record
			evals, rejections := 0, 0
			for _, run := range recs {
				if len(run) != k {
					t.Fatalf("%s %v: a run has %d samples, want %d", pb.Toy.Name, v, len(run), k)
				}
				all = append(all, run...)
				evals += sumEvals(run)
				for _, r := range run {
					rejections += r.Rejections
				}
			}
			name := pb.Toy.Name + " " + v.String()
			if evals+len(pb.Toy.Prompt) != st.Evals || rejections+rows*k != st.Samples || st.Complete != rows*k {
				t.Errorf("%s: records' evals %d + prompt, rejections %d; stats %+v", name, evals, rejections, st)
			}
			r := pb.Lang.Test(all, pb.Lang.Target)
			t.Logf("%s: %v; acceptance %.3f, %.2f evaluations per sample (exact RS acceptance %.3f)",
				name, r, st.AcceptanceRate(), float64(st.Evals)/float64(rows*k), pb.Lang.Mass)
			if r.P < pMin {
				t.Errorf("%s: samples do not match P^G: %v", name, r)
			}
			if v == sample.RS {
				zOK(t, name+" acceptance", st.Complete, st.Samples, pb.Lang.Mass)
			}
		}
	}
}

// The adaptive variants learn: a trie never rules out the mass of the
// language, P(L), later attempts are accepted more often, and a saved and
// reloaded trie continues where it stopped, still exact.
func TestCARSLearnsAndResumes(t *testing.T) {
	for i, pb := range problems(t) {
		for _, v := range []sample.Variant{sample.ARS, sample.CARS} {
			name := pb.Toy.Name + " " + v.String()
			trie := sample.NewTrie()
			rs := sample.RejectionSampler{Variant: v, Trie: trie}
			_, st1, err := pb.Toy.Config.CARS(pb.Toy.Model, pb.Toy.Prompt, rs, 200, seededRands(uint64(i), 100, 20))
			if err != nil {
				t.Fatal(err)
			}
			if known := 1 - trie.Dead(); known < pb.Lang.Mass-1e-9 {
				t.Fatalf("%s: the trie leaves %v of P's mass, less than P(L) = %v", name, known, pb.Lang.Mass)
			}
			var buf bytes.Buffer
			if _, err := trie.WriteTo(&buf); err != nil {
				t.Fatal(err)
			}
			back, err := sample.ReadTrie(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(back.Dead()-trie.Dead()) > 1e-12 || back.Nodes() != trie.Nodes() {
				t.Fatalf("%s: reloaded trie: dead %v, %d nodes; saved %v, %d", name, back.Dead(), back.Nodes(), trie.Dead(), trie.Nodes())
			}
			rs.Trie = back
			recs, st2, err := pb.Toy.Config.CARS(pb.Toy.Model, pb.Toy.Prompt, rs, 100, seededRands(uint64(i), 200, 150))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: trie of %d nodes leaves %.4f of P (P(L) = %.4f); acceptance %.3f, then %.3f", name, trie.Nodes(),
				1-trie.Dead(), pb.Lang.Mass, st1.AcceptanceRate(), st2.AcceptanceRate())
			if st2.AcceptanceRate() < st1.AcceptanceRate() {
				t.Errorf("%s: acceptance fell from %.3f to %.3f", name, st1.AcceptanceRate(), st2.AcceptanceRate())
			}
			r := pb.Lang.Test(slices.Concat(recs...), pb.Lang.Target)
			if r.P < pMin {
				t.Errorf("%s: samples from a reloaded trie do not match P^G: %v", name, r)
			}
		}
	}
}

func TestCARSBudgetAndErrors(t *testing.T) {
	pb := problems(t)[2] // forced: plain rejection accepts rarely
	recs, _, err := pb.Toy.Config.CARS(pb.Toy.Model, pb.Toy.Prompt, sample.RejectionSampler{Variant: sample.RS, Budget: 1}, 3, seededRands(1, 0, 100))
	if err != nil {
		t.Fatal(err)
	}
	bad := 0
	for _, run := range recs {
		if n := len(run); n == 0 || n > 3 || (n < 3 && run[n-1].Valid()) {
			t.Fatalf("budget 1: a run of %d records, last valid %v", n, run[n-1].Valid())
		}
		if !run[len(run)-1].Valid() {
			bad++
		}
	}
	if bad == 0 {
		t.Errorf("budget 1: no run ran out")
	}
	if _, _, err := pb.Toy.Config.CARS(pb.Toy.Model, pb.Toy.Prompt, sample.RejectionSampler{Variant: 9}, 1, seededRands(1, 0, 1)); err == nil {
		t.Error("unknown variant accepted")
	}
	for _, in := range []string{"", "gasp-trie 1\n", "gasp-trie 1\n\x04", "gasp-trie 2\n"} {
		if _, err := sample.ReadTrie(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), "offset") {
			t.Errorf("ReadTrie(%q): error %v, want one with an offset", in, err)
		}
	}
	if _, err := sample.ParseVariant("cars"); err != nil {
		t.Error(err)
	}
}

// When top-k leaves no sentence within the cap, ARS and CARS without a
// budget learn that the language is empty and stop, although the dead mass
// their trie sums up may round to just below 1.
func TestCARSEmptyLanguage(t *testing.T) {
	for _, v := range []sample.Variant{sample.ARS, sample.CARS} {
		pb := problems(t)[1] // utf8
		c := pb.Toy.Config
		c.Transform, c.MaxNew = lm.Transform{TopK: 3}, 5
		if _, err := exact.Enumerate(pb.Toy.Model, pb.Toy.Prompt, c, 100000); err == nil {
			t.Fatal("utf8 under top-k 3 and a cap of 5: the language is not empty")
		}
		tr := sample.NewTrie()
		out, _, err := c.CARS(pb.Toy.Model, pb.Toy.Prompt, sample.RejectionSampler{Variant: v, Trie: tr}, 3, seededRands(1, 0, 4))
		if err != nil {
			t.Fatal(err)
		}
		for _, run := range out {
			if len(run) != 1 || run[0].Valid() {
				t.Fatalf("%v: a run of %d records, want one invalid attempt", v, len(run))
			}
		}
		t.Logf("%v: dead mass 1 − %g, %d nodes", v, 1-tr.Dead(), tr.Nodes())
		if _, _, err := c.CARS(pb.Toy.Model, pb.Toy.Prompt, sample.RejectionSampler{Variant: v, Trie: tr}, 3, seededRands(1, 0, 1)); err == nil {
			t.Errorf("%v: CARS with a trie that holds the language empty: no error", v)
		}
	}
}
