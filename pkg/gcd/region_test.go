package gcd

import (
	"math/rand/v2"
	"testing"

	"github.com/gasplab/gasp/pkg/earley"
)

// TestFunnelRegions: a key that is one of a few names or any other name
// (as pkg/jsonschema writes an object's other members) reaches its loop
// one character late: after the first character of another name the
// State differs from the loop's (a left-recursive repetition's item has
// its origin there), so the State after the opening quote has a region
// only with funnels. Masks from it, and from every State a random walk
// reaches, must equal brute force.
func TestFunnelRegions(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	v := testVocab(rng)
	src := `root ::= "{" member ( "," member )* "}"
member ::= "\"" key "\":" [0-9]
key ::= "ab\"" | "cd\"" | "a" [c-z] [a-z ]* "\"" | "c" [a-ce-z ] [a-z ]* "\"" | [b0-9 e-z] [a-z ]* "\""`
	g := compile(t, src)
	m := earley.New(g)
	k := NewMasker(m, v, NewTrie(v))
	p := m.NewParser()
	p.FeedBytes([]byte(`{"`))
	if _, _, ok := k.region(p.State(), false); ok {
		t.Fatalf("the State after {\" has a region without funnels: the test does not test them")
	}
	if _, _, ok := k.region(p.State(), true); !ok {
		t.Fatalf("the State after {\" has no region with funnels")
	}
	want, err := bruteMask(g, v, []byte(`{"`))
	if err != nil {
		t.Fatal(err)
	}
	if d := diffMasks(v, k.Mask(p.State()), want); d != "" {
		t.Fatalf(`after {": %s`, d)
	}
	walkRandomly(t, k, g, rng, src, 40, 25)
}
