package gcd

import (
	"math/rand/v2"
	"testing"

	"github.com/gasplab/gasp/pkg/earley"
	"github.com/gasplab/gasp/pkg/jsonschema"
)

// TestCoresMatchBruteForce: inside strings under unanchored patterns
// (every position a new State, the pattern's leading .* one loop), masks
// made over the loop's core (its mask, and the tokens it lacks walked
// from the State) must equal brute force at every byte of instances; the
// first State of a core is not masked so, later ones are.
func TestCoresMatchBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 38))
	v := testVocab(rng)
	for _, tok := range []string{`1"`, `a1`, `1a"`, `b1",`, `"}`} {
		v.Add([]byte(tok), false, tok)
	}
	g, err := jsonschema.Compile("core.json", []byte(`{"type": "object", "properties": {
		"a": {"type": "string", "pattern": "(ab|b1){2}:(a|1b){2}"},
		"b": {"type": "array", "items": {"type": "string", "pattern": "1a|b1"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	k := NewMasker(earley.New(g), v, NewTrie(v))
	made := 0
	for _, text := range []string{`{"a":"bab1ab:a1b a","b":["b1","aa1a","\"b1é"]}`, `{"a":"€b1ab:1ba\\\\€","b":["1a"]}`} {
		s := k.m.Start()
		for j := 0; j <= len(text); j++ {
			if core, ok := k.m.LoopCore(s); ok {
				b := NewBitset(k.lt.trie.size)
				if k.maskOverCore(s, core, b) {
					made++
					want, err := bruteMask(g, v, []byte(text[:j]))
					if err != nil {
						t.Fatal(err)
					}
					if k.m.Accepting(s) {
						for _, id := range v.EOS {
							b.Set(id)
						}
					}
					if d := diffMasks(v, b, want); d != "" {
						t.Fatalf("after %q: %s", text[:j], d)
					}
				}
			}
			if j < len(text) {
				s = k.m.Step(s, text[j])
			}
		}
	}
	if made == 0 {
		t.Error("no mask made over a loop's core")
	}
	t.Logf("%d masks made over a core", made)
}
