package gcd

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gasplab/gasp/pkg/earley"
)

// TestLeaversMatchBruteForce follows random paths through grammars with
// wide loops (a tag's body, whose first character is its own State, and a
// string with escapes) over a vocabulary of every word of up to four
// characters, ASCII and not, with walks of a loop's leavers forced on
// every subtree where they are exact (with few 1, as long as there are
// fewer leavers than nodes; with few 2, fewer than half). Where State 0
// has no loop (after a tag's "<"), walks over the leavers start below the
// first bytes, and those below a multi-byte character must not be taken
// (nothing there is in the index). Each mask is compared with the
// definition.
func TestLeaversMatchBruteForce(t *testing.T) {
	v := &Vocab{}
	id := map[string]int{}
	words := []string{""}
	for range 4 {
		var next []string
		for _, w := range words {
			for _, a := range []string{"a", "<", ">", "\"", "\\", "é", "\xc3"} {
				next = append(next, w+a)
			}
		}
		words = next
		for _, w := range words {
			id[w] = v.Size()
			v.Add([]byte(w), false, w)
		}
	}
	v.Add([]byte("<eos>"), true, "<eos>")
	v.EOS = []int{v.Size() - 1}
	trie := NewTrie(v)
	grammars := []string{
		`root ::= ( "<" [^>] [^>]* ">" | "a" | "\"" | "\\" )+`,
		`root ::= "a"* "\"" ( [^"\\] | "\\" ["\\] )* "\"" ">"?`,
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for gi, src := range grammars {
		g := compile(t, src)
		for _, few := range []int{1, 2} {
			k := NewMasker(earley.New(g), v, trie)
			k.leaversMin, k.leaversFew = 1, few
			// After "<" first, where State 0 has no loop.
			st := k.NewState()
			if err := st.Advance(id["<"]); gi == 0 && err != nil {
				t.Fatal(err)
			}
			want, err := bruteMask(g, v, st.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if d := diffMasks(v, st.Allowed(), want); d != "" {
				t.Fatalf("grammar %d, few %d, after %q: %s", gi, few, st.Bytes(), d)
			}
			walkRandomly(t, k, g, rng, fmt.Sprintf("grammar %d, few %d", gi, few), 20, 10)
			if k.Stats.Leavers == 0 {
				t.Errorf("grammar %d, few %d: no walk over a loop's leavers", gi, few)
			}
		}
	}
}
