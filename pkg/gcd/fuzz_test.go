package gcd

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/earley"
	"github.com/gasplab/gasp/pkg/grammar"
)

// randomGrammar writes a random GBNF grammar over the alphabet of testVocab:
// literals, character classes (negated ones make the wide positions that
// regions serve), repetitions (bounded ones too, which chains serve),
// options and rules that refer to each other, recursively.
func randomGrammar(rng *rand.Rand) string {
	literals := []string{`"a"`, `"b"`, `"ab"`, `"é"`, `"€"`, `"{"`, `"}"`, `" "`, `"\""`, `"\\"`, `","`, `":"`, `"1"`}
	classes := []string{`[ab]`, `[^"\\]`, `[^a]`, `[a-z0-9]`, `[^\x00-\x7f]`, `["\\{}]`, `[ ]`, `[^ ]`, `[é€]`}
	nRules := 1 + rng.IntN(4)
	var b strings.Builder
	var element func(depth int) string
	element = func(depth int) string {
		switch r := rng.IntN(10); {
		case r < 3:
			return literals[rng.IntN(len(literals))]
		case r < 6:
			return classes[rng.IntN(len(classes))]
		case r < 8:
			return fmt.Sprintf("r%d", rng.IntN(nRules))
		default:
			if depth > 2 {
				return literals[rng.IntN(len(literals))]
			}
			var seq []string
			for n := 1 + rng.IntN(3); n > 0; n-- {
				seq = append(seq, element(depth+1))
			}
			return "(" + strings.Join(seq, " ") + ")" + []string{"*", "+", "?", "", "{0,5}", "{2,4}"}[rng.IntN(6)]
		}
	}
	for r := 0; r < nRules; r++ {
		var alts []string
		for n := 1 + rng.IntN(3); n > 0; n-- {
			var seq []string
			for m := 1 + rng.IntN(3); m > 0; m-- {
				e := element(0)
				if rng.IntN(4) == 0 {
					e += []string{"*", "+", "?", "{0,12}", "{1,5}"}[rng.IntN(5)]
				}
				seq = append(seq, e)
			}
			alts = append(alts, strings.Join(seq, " "))
		}
		name := fmt.Sprintf("r%d", r)
		if r == 0 {
			name = "root"
		}
		fmt.Fprintf(&b, "%s ::= %s\n", name, strings.Join(alts, " | "))
	}
	return strings.ReplaceAll(b.String(), "r0", "root")
}

// FuzzMaskMatchesBruteForce compiles a random grammar (from seed), follows
// a path of tokens chosen by choices (each byte picks an allowed token; a
// byte ≥ 0xF0 rolls back instead) and compares the mask of every State on
// the way, cached or not, with brute force. Bit 0 of flags gives the
// Masker a tiny cache bound, so that caches are emptied in the middle of
// masks; bit 1 turns views off (LocalDepth 0); bit 2 walks a loop's
// leavers wherever that is exact, in subtrees of any size; bit 3 walks the
// trie relabelled by the grammar's own classes (labels.go); bit 4 marks
// every rule a regular expression's (grammar.Rule.Regex: views of origins,
// masks over what a loop absorbs first, universes searched for).
func FuzzMaskMatchesBruteForce(f *testing.F) {
	f.Add(uint64(1), uint8(0), []byte{0, 1, 2, 3, 4, 5, 6, 7})
	f.Add(uint64(2), uint8(1), []byte{9, 200, 3, 0xF3, 17, 4})
	f.Add(uint64(3), uint8(2), []byte{1, 1, 1, 1, 1, 1, 1, 1, 1, 1})
	f.Add(uint64(7), uint8(3), []byte{5, 0xF1, 5, 5, 80, 2})
	f.Add(uint64(11), uint8(4), []byte{3, 1, 4, 1, 5, 9, 2, 6})
	f.Add(uint64(11), uint8(12), []byte{3, 1, 4, 1, 5, 9, 2, 6})
	f.Add(uint64(5), uint8(16), []byte{2, 7, 1, 8, 2, 8, 1, 8})
	f.Add(uint64(13), uint8(24), []byte{1, 4, 1, 4, 2, 1, 3, 5})
	vocabRNG := rand.New(rand.NewPCG(1, 2))
	v := testVocab(vocabRNG)
	trie := NewTrie(v)
	f.Fuzz(func(t *testing.T, seed uint64, flags uint8, choices []byte) {
		if len(choices) > 64 {
			choices = choices[:64]
		}
		src := randomGrammar(rand.New(rand.NewPCG(seed, 0)))
		g, _, err := grammar.Compile("fuzz.gbnf", []byte(src), grammar.Options{})
		if err != nil {
			return // e.g. a grammar whose start rule derives nothing
		}
		if flags&16 != 0 {
			for i := range g.Rules {
				g.Rules[i].Regex = true
			}
		}
		labels := labelsShared
		if flags&8 != 0 {
			labels = labelsOwn
		}
		k := newMasker(earley.New(g), v, trie, labels)
		if flags&1 != 0 {
			k.MaxCacheBytes = 2048
		}
		if flags&2 != 0 {
			k.LocalDepth = 0
		}
		if flags&4 != 0 {
			k.leaversMin, k.leaversFew = 1, 1
		}
		st := k.NewState()
		for _, c := range choices {
			if st.Ended() {
				return // nothing is allowed after EOS
			}
			got := st.Allowed()
			want, err := bruteMask(g, v, st.Bytes())
			if err != nil {
				t.Fatalf("%v\ngrammar:\n%s", err, src)
			}
			if d := diffMasks(v, got, want); d != "" {
				t.Fatalf("after %q: %s\ngrammar:\n%s", st.Bytes(), d, src)
			}
			if c >= 0xF0 {
				st.Rollback(int(c-0xF0) % (len(st.Tokens()) + 1))
				continue
			}
			ids := got.AppendIDs(nil)
			if len(ids) == 0 {
				return
			}
			if err := st.Advance(ids[int(c)%len(ids)]); err != nil {
				t.Fatalf("allowed token rejected: %v\ngrammar:\n%s", err, src)
			}
		}
	})
}
