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
	v, id := wordVocab([]string{"a", "<", ">", "\"", "\\", "é", "\xc3"}, 4)
	grammars := []string{
		`root ::= ( "<" [^>] [^>]* ">" | "a" | "\"" | "\\" )+`,
		`root ::= "a"* "\"" ( [^"\\] | "\\" ["\\] )* "\"" ">"?`,
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for gi, src := range grammars {
		g := compile(t, src)
		for _, few := range []int{1, 2} {
			// A trie each: Maskers of one trie share its region shapes' walks.
			k := NewMasker(earley.New(g), v, NewTrie(v))
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

// TestLoopLeaversMatchBruteForce is TestLeaversMatchBruteForce for walks
// that are not a region's: from views of scan items, where a step of a
// name's loop escapes the view and leaves pending the classes that may
// follow the name (a space, a parenthesis, a semicolon), which must be
// walked as leavers where the loop takes them, and are the pending set
// at a leaver's parent.
func TestLoopLeaversMatchBruteForce(t *testing.T) {
	v, _ := wordVocab([]string{"a", "b", "1", "_", " ", "(", ")", ";"}, 4)
	src := `root ::= stmt ( ";" ws stmt )*
stmt ::= "ab " expr ( " " expr )* | "ba " name " " value
expr ::= name | name "(" expr ")" | [0-9]+
name ::= [a-z_] [a-z0-9_]*
value ::= [a-z]+ | "(" [^)]* ")"
ws ::= [ ]*`
	g := compile(t, src)
	rng := rand.New(rand.NewPCG(9, 10))
	for _, few := range []int{1, 2} {
		k := NewMasker(earley.New(g), v, NewTrie(v)) // a trie each, as above
		k.leaversMin, k.leaversFew = 1, few
		walkRandomly(t, k, g, rng, fmt.Sprintf("few %d", few), 20, 10)
		if k.Stats.Leavers == 0 {
			t.Errorf("few %d: no walk over a loop's leavers", few)
		}
	}
}

// wordVocab returns the vocabulary of every word of 1 to maxLen letters
// of alphabet, with an end-of-sequence token, and the ids of the words.
func wordVocab(alphabet []string, maxLen int) (*Vocab, map[string]int) {
	v := &Vocab{}
	id := map[string]int{}
	eachWord(alphabet, maxLen, func(w string, _ int) {
		id[w] = v.Size()
		v.Add([]byte(w), false, w)
	})
	v.Add([]byte("<eos>"), true, "<eos>")
	v.EOS = []int{v.Size() - 1}
	return v, id
}

// TestLeaversOnWorkloads steps through the benchmark workloads on the
// Llama-3 vocabulary with walks over a loop's leavers off, as the Masker
// takes them, and forced on every subtree where they are exact, and
// requires the same mask from all three at every step: on real grammars
// and a real vocabulary, whose loops escape views and leave classes
// pending in ways small grammars do not.
func TestLeaversOnWorkloads(t *testing.T) {
	v, trie := llama3Trie(t)
	forced := 0
	for _, name := range workloads {
		t.Run(name, func(t *testing.T) {
			w := loadWorkload(t, name)
			var sts []*State
			var ks []*Masker
			for _, s := range [][2]int{{1 << 30, 8}, {1024, 8}, {1, 1}} {
				k := NewMasker(earley.New(w.g), v, trie)
				k.leaversMin, k.leaversFew = int32(s[0]), s[1]
				ks = append(ks, k)
				sts = append(sts, k.NewState())
			}
			for i := 0; i <= len(w.ids); i++ {
				want := sts[0].Allowed()
				for j, st := range sts[1:] {
					if d := diffMasks(v, st.Allowed(), want); d != "" {
						t.Fatalf("step %d after %.60q, setting %d: %s", i, st.Bytes(), j+1, d)
					}
				}
				if i == len(w.ids) {
					break
				}
				for _, st := range sts {
					if err := st.Advance(w.ids[i]); err != nil {
						t.Fatalf("step %d: %v", i, err)
					}
				}
			}
			if ks[0].Stats.Leavers != 0 {
				t.Errorf("%d walks over leavers with them off", ks[0].Stats.Leavers)
			}
			forced += ks[2].Stats.Leavers
		})
	}
	if forced == 0 {
		t.Error("no walk over a loop's leavers")
	}
}
