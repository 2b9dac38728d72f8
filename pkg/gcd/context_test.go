package gcd

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/gasplab/gasp/pkg/earley"
	"github.com/gasplab/gasp/pkg/grammar"
	"github.com/gasplab/gasp/pkg/jsonschema"
)

// contextSchemas hold States of one context key in several contexts:
// strings of one maxLength after members that differ in what may follow
// them, strings of several maxLengths longer than any token (their
// positions far from the bound share links, and keys: see
// grammar.Compile's repetitions), in an object kind under several names,
// and inside and outside an array, where a quote is followed by a comma,
// a bracket or a brace.
var contextSchemas = []string{
	`{"type": "object", "properties": {
		"a": {"type": "string", "maxLength": 4},
		"b": {"type": "string", "maxLength": 4},
		"ab": {"type": "integer"},
		"c": {"type": "array", "items": {"type": "string", "maxLength": 4}},
		"d": {"type": "string", "minLength": 2, "maxLength": 4}},
	  "required": ["a", "b"], "additionalProperties": {"type": "string", "maxLength": 4}}`,
	`{"type": "object", "properties": {
		"a": {"type": "string", "maxLength": 24},
		"b": {"type": "array", "items": {"type": "string", "maxLength": 31}},
		"ab": {"type": "string", "maxLength": 20}},
	  "additionalProperties": {"type": "string", "maxLength": 27}}`,
	`{"$defs": {"o": {"type": "object", "properties": {"a": {"type": "integer"}, "ab": {"type": "string", "maxLength": 3}},
		"additionalProperties": {"type": "integer"}}},
	  "type": "object", "properties": {"a": {"$ref": "#/$defs/o"}, "b": {"$ref": "#/$defs/o"},
		"ba": {"type": "array", "items": {"$ref": "#/$defs/o"}}, "é": {"type": "string", "maxLength": 3}}}`,
}

// TestContextMasksMatchBruteForce: masks served by a context key (the
// own part kept from another State of the key, the tokens with a leaving
// byte walked) must equal brute force, after every byte of instances that
// reach States of one key in several contexts and along random walks; and
// some must be served so.
func TestContextMasksMatchBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	v := testVocab(rng)
	texts := [][]string{
		{`{"a":"ab","b":"b","ab":1,"c":["a","ab"],"d":"aa","x":"b"}`, `{"a":"","b":"ab","d":"abab","ba":"ba","é":"a"}`},
		{`{"a":"abababababab\\\"€é","b":["ab","abab€€€€€€€","a"],"ab":"b","x":"ababababababab"}`},
		{`{"a":{"a":1,"ab":"b","b":1},"b":{"a":2,"ab":""},"ba":[{"a":1},{"ab":"a"}],"é":"a"}`},
	}
	for i, st := range checkSchemas(t, v, rng, contextSchemas, texts) {
		if st.ContextHits == 0 {
			t.Errorf("schema %d: no mask served by a context key", i)
		}
	}
}

// checkSchemas compares masks with brute force after every byte of the
// texts of each schema and along random walks, with every mask's own part
// kept, and returns each schema's Masker's Stats.
func checkSchemas(t *testing.T, v *Vocab, rng *rand.Rand, schemas []string, texts [][]string) []MaskStats {
	t.Helper()
	var stats []MaskStats
	for i, schema := range schemas {
		g, err := jsonschema.Compile(fmt.Sprintf("schema%d.json", i), []byte(schema))
		if err != nil {
			t.Fatal(err)
		}
		k := NewMasker(earley.New(g), v, NewTrie(v))
		k.contextMin = 0
		for _, text := range texts[i] {
			checkEveryByte(t, k, g, text)
		}
		walkRandomly(t, k, g, rng, fmt.Sprint("schema ", i), 40, 30)
		t.Logf("schema %d: %d masks, %d of parts, %d by context keys", i, k.Stats.Masks, k.Stats.Parts, k.Stats.ContextHits)
		stats = append(stats, k.Stats)
	}
	return stats
}

// checkEveryByte compares k's mask with brute force after every byte of
// text, a sentence of g.
func checkEveryByte(t *testing.T, k *Masker, g *grammar.Grammar, text string) {
	t.Helper()
	s := k.m.Start()
	for j := 0; j <= len(text); j++ {
		want, err := bruteMask(g, k.vocab, []byte(text[:j]))
		if err != nil {
			t.Fatal(err)
		}
		if d := diffMasks(k.vocab, k.Mask(s), want); d != "" {
			t.Fatalf("after %q: %s", text[:j], d)
		}
		if j < len(text) {
			if s = k.m.Step(s, text[j]); s == earley.Dead {
				t.Fatalf("%q is not a prefix", text[:j+1])
			}
		}
	}
}

// contextGrammars hold bounded repetitions in several contexts: one
// followed by a rule whose own follower differs by context (the leaving
// classes must hold what may come after q, not only what context items
// scan), and one rule of a repetition followed in each context by a rule
// of its own (the key must hold the items predicted in the State: x's or
// y's).
var contextGrammars = []string{
	`root ::= "{" s "}" | "," s ":" | "{" s "," s "}" ; s ::= [ab]{0,4} q ; q ::= "1" | "é"`,
	`root ::= "{" o x "}" | "," o y "}" | ":" o x o y ; o ::= [ab]{0,4} ; x ::= "1" | "1" x ; y ::= "é"`,
}

// TestContextMasksOnGrammars runs random walks of the mask grammars and
// the context grammars with every mask's own part kept.
func TestContextMasksOnGrammars(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	v := testVocab(rng)
	hits := 0
	trie := NewTrie(v)
	for i, src := range append(contextGrammars, maskGrammars...) {
		g := compile(t, strings.ReplaceAll(src, " ; ", "\n"))
		for _, labels := range []int{labelsShared, labelsOwn} {
			k := newMasker(earley.New(g), v, trie, labels)
			k.contextMin = 0
			walkRandomly(t, k, g, rng, fmt.Sprintf("grammar %d, labels %d", i, labels), 40, 30)
			hits += k.Stats.ContextHits
			t.Logf("grammar %d, labels %d: %d masks, %d by context keys", i, labels, k.Stats.Masks, k.Stats.ContextHits)
		}
	}
	if hits == 0 {
		t.Error("no mask served by a context key")
	}
}

// TestContextMasksConcurrently: Maskers of one trie, in parallel
// subtests, share its leavings (leavingOf, under its lock); each one's
// masks must still equal brute force (run with -race).
func TestContextMasksConcurrently(t *testing.T) {
	stats := walkConcurrently(t, contextSchemas[0], 27)
	if stats.ContextHits == 0 {
		t.Error("no mask served by a context key")
	}
}

// walkConcurrently walks the grammar of schema randomly with 4 Maskers
// of one trie in parallel subtests, checking every mask against brute
// force, and returns the sum of their Stats' ContextHits and Parts.
func walkConcurrently(t *testing.T, schema string, seed uint64) MaskStats {
	v := testVocab(rand.New(rand.NewPCG(seed, seed+1)))
	trie := NewTrie(v)
	g, err := jsonschema.Compile("concurrent.json", []byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var sum MaskStats
	t.Run("maskers", func(t *testing.T) {
		for w := range 4 {
			t.Run(fmt.Sprint(w), func(t *testing.T) {
				t.Parallel()
				k := NewMasker(earley.New(g), v, trie)
				k.contextMin = 0
				walkRandomly(t, k, g, rand.New(rand.NewPCG(seed+2, uint64(w))), "concurrent", 10, 25)
				mu.Lock()
				sum.ContextHits += k.Stats.ContextHits
				sum.Parts += k.Stats.Parts
				mu.Unlock()
			})
		}
	})
	return sum
}
