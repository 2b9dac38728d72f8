package gcd

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/earley"
	"github.com/gasplab/gasp/pkg/grammar"
	"github.com/gasplab/gasp/pkg/jsonschema"
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

// TestSharedShapes: Maskers of one trie share the walks of region shapes
// (shapeCache), so a grammar's string bodies are served by a walk another
// grammar made, whose strings end differently and are followed by other
// things. Its masks, from the State after the opening quote and from every
// State a random walk reaches, must equal brute force, and the string
// body must not have been walked again.
func TestSharedShapes(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	v := testVocab(rng)
	trie := NewTrie(v)
	first := `root ::= "\"" [^"\\]* "\"" ( "," root | ":1" | " " )?`
	second := `root ::= "{" item ( ":" item )* "}"
item ::= "\"" [^"\\]* "\"" | "1"+`
	a := NewMasker(earley.New(compile(t, first)), v, trie)
	walkRandomly(t, a, compile(t, first), rng, "first", 20, 15)
	if a.Stats.ShapeWalks == 0 {
		t.Fatal("the first grammar walked no region shape: the test does not test them")
	}
	g := compile(t, second)
	b := NewMasker(earley.New(g), v, trie)
	st := b.NewState()
	for _, tok := range []string{"{", "\""} {
		id, _ := v.ID(tok) // testVocab names a token by its bytes
		if err := st.Advance(id); err != nil {
			t.Fatal(err)
		}
	}
	want, err := bruteMask(g, v, st.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if d := diffMasks(v, st.Allowed(), want); d != "" {
		t.Fatalf(`after {": %s`, d)
	}
	if b.Stats.ShapeWalks != 0 {
		t.Errorf("the second grammar walked its string body's shape again (%d walks)", b.Stats.ShapeWalks)
	}
	walkRandomly(t, b, g, rng, "second", 20, 15)
}

// TestSharedShapesConcurrently walks two grammars with Maskers of one
// trie at once: the shape walks they share are kept under a lock (go test
// -race checks it).
func TestSharedShapesConcurrently(t *testing.T) {
	v := testVocab(rand.New(rand.NewPCG(9, 10)))
	trie := NewTrie(v)
	for i, src := range []string{
		`root ::= "\"" [^"\\]* "\"" ( "," root | ":1" | " " )?`,
		`root ::= "{" item ( ":" item )* "}"
item ::= "\"" [^"\\]* "\"" | "1"+`,
	} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			g := compile(t, src)
			k := NewMasker(earley.New(g), v, trie)
			walkRandomly(t, k, g, rand.New(rand.NewPCG(uint64(i), 11)), src, 20, 15)
		})
	}
}

// TestRegionsBySignature: the States of the prefixes of an object's member
// names (pkg/jsonschema's trie of the names that are not declared) share
// the rest of their regions, which is kept by the signature of the first
// State (regionSig). Masks from every State a random walk reaches must
// equal brute force, some regions must have been found that way, and
// every region found must equal the one findRegion finds afresh.
func TestRegionsBySignature(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	v := testVocab(rng)
	schema := `{"type": "object", "additionalProperties": {"type": "integer"},
		"properties": {"ab": {"type": "integer"}, "aab": {"type": "integer"}, "ba": {"type": "integer"}, "bbab": {"type": "integer"},
		"abba": {"type": "integer"}, "babb": {"type": "integer"}, "aaaa": {"type": "integer"}}}`
	g, err := jsonschema.Compile("names.json", []byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	k := NewMasker(earley.New(g), v, NewTrie(v))
	walkRandomly(t, k, g, rng, "names", 150, 25)
	if k.Stats.RegionsBySig == 0 {
		t.Fatal("no region was kept by its first State's signature: the test does not test them")
	}
	for f, funnels := range []bool{false, true} {
		for s, r := range k.regions[f] {
			states, key, ok := k.findRegion(s, funnels)
			if ok != r.ok || ok && (!slices.Equal(states, r.states) || !slices.Equal(key, r.key)) {
				t.Errorf("State %d (funnels %v): kept region %v %v, found %v %v", s, funnels, r.states, r.ok, states, ok)
			}
		}
	}
	t.Logf("%d of the regions by signature", k.Stats.RegionsBySig)
}

// TestDetourRegions: inside a string that must contain a word ("ab" or
// "xy", as an unanchored pattern asks), the first letter of a word leads
// out of the loop to a State from which most classes lead back (see
// returnsTo). That detour joins the loop's region, so a token that
// starts a word and leaves it again stays inside the region's walk. Masks
// from every State a random walk reaches must equal brute force. (The
// alternatives after the string split digits and space from the letters:
// a detour returns by at least minLoopClasses classes.)
func TestDetourRegions(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	v := testVocab(rng)
	src := `root ::= "\"" [a-z0-9 ]* ( "ab" | "xy" ) [a-z0-9 ]* "\"" ( "," root | ";" [0-9] | "!" " " )?`
	g := compile(t, src)
	m := earley.New(g)
	k := NewMasker(m, v, NewTrie(v))
	state := func(s string) earley.State {
		p := m.NewParser()
		if !p.FeedBytes([]byte(s)) {
			t.Fatalf("%q not viable", s)
		}
		return p.State()
	}
	loop, detour := state(`"q`), state(`"qa`)
	k.Mask(loop)
	states, _, ok := k.region(loop, true)
	if !ok || states[0] != loop {
		t.Fatalf("no region at the loop")
	}
	if !slices.Contains(states, detour) {
		t.Errorf("the State after the first letter of a word is not in the loop's region (%d States)", len(states))
	}
	walkRandomly(t, k, g, rng, src, 40, 25)
}

// TestNameStartsFromViews: where an object declares many optional members
// and allows others (a JSON schema's properties with additionalProperties),
// each member name's start is a new State with a region of its own, but
// its views, the trie of names and the names still to come, are those of
// the member before (viewsSeen): later members are masked from them, with
// the wide view's walk over its own region (maskRegion of a view). The mask
// after every byte of an object of declared and other members, and of
// random walks, must equal brute force.
func TestNameStartsFromViews(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	v := testVocab(rng)
	var props, names []string
	eachWord([]string{"a", "b", "1"}, 3, func(w string, _ int) {
		props = append(props, fmt.Sprintf("%q: {\"type\": \"integer\"}", w))
		names = append(names, w)
	})
	schema := `{"type": "object", "additionalProperties": {"type": "integer"}, "properties": {` + strings.Join(props, ", ") + `}}`
	g, err := jsonschema.Compile("many.json", []byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	k := NewMasker(earley.New(g), v, NewTrie(v))
	// Every other declared member, with other members between.
	text := "{"
	for i := 0; i < len(names); i += 2 {
		text += fmt.Sprintf("%q:1,", names[i])
	}
	text += `"ba1b":1,"":1}`
	s := k.m.Start()
	for i := 0; i < len(text); i++ {
		got := k.Mask(s)
		want, err := bruteMask(g, v, []byte(text[:i]))
		if err != nil {
			t.Fatal(err)
		}
		if d := diffMasks(v, got, want); d != "" {
			t.Fatalf("after %q: %s", text[:i], d)
		}
		if s = k.m.Step(s, text[i]); s == earley.Dead {
			t.Fatalf("%q is not a prefix", text[:i+1])
		}
	}
	if k.Stats.ViewMasks == 0 {
		t.Fatalf("no name start masked from its views (%d properties)", len(props))
	}
	walkRandomly(t, k, g, rng, "many", 30, 30)
	t.Logf("%d masks from views, %d view walks", k.Stats.ViewMasks, k.Stats.ViewWalks)
}

// TestFunnelsShareTheLoop: the start of a member name in an object that
// allows other members is a funnel (each letter leads into the loop of
// names, or into a declared name), and so is each prefix of a declared
// name. Their shapes are walked by the trie root's children (walkFunnel),
// the walks below each child kept by the loop's own shape: a second
// schema, with other names, takes them from the first. Masks after every
// byte of objects of both, and of random walks, must equal brute force.
func TestFunnelsShareTheLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	v := testVocab(rng)
	trie := NewTrie(v)
	for i, names := range [][]string{{"ab", "aab", "a1"}, {"b", "bba", "b1a"}} {
		var props []string
		for _, n := range names {
			props = append(props, fmt.Sprintf("%q: {\"type\": \"integer\"}", n))
		}
		schema := `{"type": "object", "additionalProperties": {"type": "integer"}, "properties": {` + strings.Join(props, ", ") + `}}`
		g, err := jsonschema.Compile("names.json", []byte(schema))
		if err != nil {
			t.Fatal(err)
		}
		k := NewMasker(earley.New(g), v, trie)
		text := fmt.Sprintf(`{%q:1,%q:1,%q:1,"ba":1,"aéb":1}`, names[0], names[1], names[2])
		s := k.m.Start()
		for j := 0; j < len(text); j++ {
			want, err := bruteMask(g, v, []byte(text[:j]))
			if err != nil {
				t.Fatal(err)
			}
			if d := diffMasks(v, k.Mask(s), want); d != "" {
				t.Fatalf("schema %d, after %q: %s", i, text[:j], d)
			}
			if s = k.m.Step(s, text[j]); s == earley.Dead {
				t.Fatalf("%q is not a prefix", text[:j+1])
			}
		}
		walkRandomly(t, k, g, rng, "names", 20, 20)
		if k.Stats.Funnels == 0 {
			t.Errorf("schema %d: no shape walked by its children", i)
		}
		if i == 1 && k.Stats.FunnelsKept == 0 {
			t.Error("the second schema's funnels walked the trie again")
		}
		t.Logf("schema %d: %d funnels, %d from kept walks, %d shape walks", i, k.Stats.Funnels, k.Stats.FunnelsKept, k.Stats.ShapeWalks)
	}
}

// TestViewRegionsMatchBruteForce: the views that start a name after a
// space escape at every letter (the name may end there, and what follows
// it differs by context: a newline, a parenthesis, a space and an
// operator), so their walks go over regions of States and pending classes
// (viewRegion). In the first grammar a name's loop is reached one letter
// late, as GBNF's [a-z_] [a-z0-9_]* compiles; in the second a name has at
// most four characters, a bounded repetition whose positions join the
// region, and longer words are tokens after a space. The vocabulary is
// every word over letters, a digit, a space and the classes that follow a
// name: the space's subtree is large enough to be split into views. Every
// mask after every byte of a sentence and of random walks must equal
// brute force.
func TestViewRegionsMatchBruteForce(t *testing.T) {
	tests := []struct {
		name     string
		alphabet []string
		maxLen   int
		src      string
		sentence string
		found    func(k *Masker, r regionOf) bool // a region of the kind the test is for
	}{{
		name:     "names",
		alphabet: []string{"a", "b", "1", "_", " ", "(", ")", "\n", "="},
		maxLen:   4,
		src: `root ::= "set " name "\n" stmt+
stmt ::= "x" " " expr ( " " op " " expr )* "\n"
expr ::= name | name "(" expr ")" | [0-9]+ | "(" expr ")"
op ::= "=" | "=="
name ::= [a-z_] [a-z0-9_]*`,
		sentence: "set ab_1\nx a1 = b(ab) == (_a)\nx 11\n",
		found: func(_ *Masker, r regionOf) bool {
			return slices.ContainsFunc(r.pends, func(p grammar.ByteSet) bool { return p != grammar.ByteSet{} })
		},
	}, {
		name:     "bounded names",
		alphabet: []string{"a", "b", "1", " ", "(", "\n"},
		maxLen:   5,
		src: `root ::= "set " name "\n" stmt+
stmt ::= "x" " " expr ( " " expr )* "\n"
expr ::= name | name "(" expr ")" | [0-9]+
name ::= [a-z] [a-z0-9_]{0,3}`,
		sentence: "set ab1b\nx a1 b(ab1) 11\nx abbb\n",
		found:    func(k *Masker, r regionOf) bool { return slices.ContainsFunc(r.states, k.m.InBoundedRepetition) },
	}}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, _ := wordVocab(tc.alphabet, tc.maxLen)
			g := compile(t, tc.src)
			newMasker := func() *Masker {
				k := NewMasker(earley.New(g), v, NewTrie(v))
				k.viewRegionMin = 1
				return k
			}
			k := newMasker()
			checkEveryByte(t, k, g, tc.sentence)
			found := false
			for _, r := range k.viewRegions {
				found = found || r.ok && tc.found(k, r)
			}
			if !found {
				t.Fatal("no region of the kind the test is for")
			}
			rng := rand.New(rand.NewPCG(31, uint64(i)))
			walkRandomly(t, newMasker(), g, rng, tc.name, 30, 12)
		})
	}
}
