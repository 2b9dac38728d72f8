package cli

import (
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/earley"
	"github.com/gasplab/gasp/pkg/gcd"
	"github.com/gasplab/gasp/pkg/grammar"
)

// TestVerifyKeptMasks: the masks a pass keeps are checked after it, and a
// wrong one is reported with its step.
func TestVerifyKeptMasks(t *testing.T) {
	g, _, err := grammar.Compile("t.gbnf", []byte(`root ::= "ab" "c"*`), grammar.Options{})
	if err != nil {
		t.Fatal(err)
	}
	v := &gcd.Vocab{}
	for _, tok := range []string{"a", "b", "c", "ab", "bc", "x"} {
		v.Add([]byte(tok), false, tok)
	}
	v.EOS = []int{v.Add(nil, true, "<eos>")}
	run := func(corrupt bool) (*maskRun, error) {
		k := gcd.NewMasker(earley.New(g), v, gcd.NewTrie(v))
		w := &maskWorkload{ids: []int{3, 2, 2}, vocab: v} // "ab" "c" "c"
		rep := maskReport{StepUS: make([]float64, len(w.ids)+1)}
		r := &maskRun{o: maskBench{verify: 2}, w: w, g: g, rep: &rep, first: true}
		err := r.stepAll(k.NewState())
		if corrupt {
			r.kept[1].mask.Set(5) // "x" after "abc"
		}
		if verr := r.verifyKept(); verr != nil {
			return r, verr
		}
		return r, err
	}
	r, err := run(false)
	if err != nil {
		t.Fatal(err)
	}
	if got := []int{r.kept[0].step, r.kept[1].step, r.kept[2].step}; len(r.kept) != 3 || got[1] != 2 || got[2] != 3 {
		t.Fatalf("kept steps %v, want 0, 2 and the last, 3", got)
	}
	if r.rep.Verified != 3 || string(r.kept[1].prefix) != "abc" {
		t.Errorf("%d verified, step 2's prefix %q", r.rep.Verified, r.kept[1].prefix)
	}
	if _, err := run(true); err == nil || !strings.HasPrefix(err.Error(), "step 2: token 5") {
		t.Errorf("corrupt mask: %v", err)
	}
}
