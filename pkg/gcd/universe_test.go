package gcd

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gasplab/gasp/pkg/earley"
	"github.com/gasplab/gasp/pkg/grammar"
	"github.com/gasplab/gasp/pkg/jsonschema"
)

// TestUniversesMatchBruteForce: inside a JSON string that must hold a
// match of a pattern somewhere, a match's characters lead one position on
// and the others back, so masks are made over the States' universes. They
// match the definition, with every multi-byte character in the universe or
// none (where é may not come before the match). The States of searched
// words' automaton, a regular expression's, have universes too; a string
// of at most 8 characters has none (a chain).
func TestUniversesMatchBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	v := testVocab(rng)
	trie := NewTrie(v)
	for _, c := range []struct {
		schema    string
		universes bool
		wide      int // 1: every universe is wide, -1: none is, 0: either
	}{
		{`{"type": "string", "pattern": "[a1]{3}"}`, true, 1},
		{`{"type": "string", "pattern": "^[^é]*[a1]{2}"}`, true, -1},
		{`{"type": "string", "pattern": "ab|1a|b1$"}`, true, 0}, // searched words' automaton
		{`{"type": "string", "maxLength": 8}`, false, 0},
	} {
		g, err := jsonschema.Compile("universe.json", []byte(c.schema))
		if err != nil {
			t.Fatal(err)
		}
		for _, labels := range []int{labelsShared, labelsOwn} {
			k := newMasker(earley.New(g), v, trie, labels)
			walkRandomly(t, k, g, rng, c.schema, 30, 25)
			if got := k.Stats.Universes > 0; got != c.universes {
				t.Errorf("%s, labels %d: masks over universes %d", c.schema, labels, k.Stats.Universes)
			}
			for s := range k.m.NumStates() {
				if u, ok := k.hasUniverse(earley.State(s)); ok && c.wide != 0 && u.wide != (c.wide > 0) {
					t.Errorf("%s, labels %d: State %d's universe wide %v", c.schema, labels, s, u.wide)
				}
			}
		}
	}
}

// TestUniverseTable compares a universe's table with its definition, token
// by token: base holds the tokens over its labels (wide: and valid UTF-8
// characters, the last one maybe unfinished), and nodes the paths of the
// others.
func TestUniverseTable(t *testing.T) {
	v := testVocab(rand.New(rand.NewPCG(9, 10)))
	lt := NewTrie(v).shared
	var labels grammar.ByteSet
	for _, b := range []byte("ab1 :{},") {
		labels.Add(sharedLabel[b])
	}
	nodeOf := lt.nodesOf()
	for _, wide := range []bool{false, true} {
		ut := lt.universeTable(&labels, wide)
		inNodes := map[int32]bool{}
		for _, n := range ut.nodes {
			inNodes[n] = true
		}
		for id := range v.Size() {
			tok := v.Token(id)
			if v.Special[id] || len(tok) == 0 {
				continue
			}
			want := overUniverse(tok, &labels, wide)
			if ut.base.Has(id) != want {
				t.Errorf("wide %v: token %q in base %v, want %v", wide, tok, ut.base.Has(id), want)
			}
			if !want {
				for n := nodeOf[id]; n != 0; n = lt.trie.parent[n] {
					if !inNodes[n] {
						t.Errorf("wide %v: token %q: node %d of its path not listed", wide, tok, n)
						break
					}
				}
			}
		}
	}
}

// overUniverse is the definition universeTable is tested against.
func overUniverse(tok []byte, labels *grammar.ByteSet, wide bool) bool {
	for len(tok) > 0 {
		if tok[0] < 0x80 {
			if !labels.Has(sharedLabel[tok[0]]) {
				return false
			}
			tok = tok[1:]
			continue
		}
		r, size := utf8.DecodeRune(tok)
		switch {
		case !wide:
			return false
		case r == utf8.RuneError && size <= 1:
			return !utf8.FullRune(tok) && completable(tok)
		}
		tok = tok[size:]
	}
	return true
}

// TestStatedUniversesMatchBruteForce: a member name that
// additionalProperties allows is any string but the declared names, and
// the JSON Schema front end says so (grammar.Universal): its masks are
// made over that universe without a search, and match the definition,
// with names that are prefixes of each other, the empty name, names with
// an escaped quote or a multi-byte character, and nested objects. Where
// additionalProperties is false there is no such name.
func TestStatedUniversesMatchBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	v := testVocab(rng)
	trie := NewTrie(v)
	for _, c := range []struct {
		schema string
		stated bool
		text   string // a sentence to check byte by byte, besides the random walks
	}{
		{`{"type": "object", "properties": {"a": {"type": "integer"}, "ab": {"type": "string"}, "b1": {"type": "integer"}}}`, true, ""},
		{`{"type": "object", "properties": {"é": {"type": "integer"}, "a\"b": {"type": "string"}, "": {"type": "integer"}},
		  "additionalProperties": {"type": "integer"}}`, true, ""},
		{`{"type": "object", "properties": {"a": {"type": "object", "properties": {"b\\": {"type": "integer"}}}}, "required": ["a"]}`, true, ""},
		{`{"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": false}`, false, ""},
		// Many declared names, members in order: from the third name's
		// start on, most of the start's views were seen at the others'.
		{manyNames(), true, `{"a":1,"b":1,"aa":1,"ab":1,"a1":1,"ba":1,"bb":11}`},
	} {
		g, err := jsonschema.Compile("stated.json", []byte(c.schema))
		if err != nil {
			t.Fatal(err)
		}
		for _, labels := range []int{labelsShared, labelsOwn} {
			k := newMasker(earley.New(g), v, trie, labels)
			walkRandomly(t, k, g, rng, c.schema, 40, 20)
			if c.text != "" {
				checkEveryByte(t, k, g, c.text)
			}
			if got := k.Stats.Stated > 0; got != c.stated {
				t.Errorf("%s, labels %d: %d masks over stated universes", c.schema, labels, k.Stats.Stated)
			}
		}
	}
}

// manyNames returns an object schema of 38 integer members named by the
// strings of one to three of a, b and 1 but "1".
func manyNames() string {
	var b strings.Builder
	b.WriteString(`{"type": "object", "properties": {`)
	n := 0
	for _, x := range []string{"", "a", "b", "1"} {
		for _, y := range []string{"", "a", "b", "1"} {
			for _, z := range []string{"a", "b", "1"} {
				if name := x + y + z; name != "1" && (x == "" || y != "") {
					if n++; n > 1 {
						b.WriteString(", ")
					}
					fmt.Fprintf(&b, "%q: {\"type\": \"integer\"}", name)
				}
			}
		}
	}
	b.WriteString("}}")
	return b.String()
}

// TestAbsorbedMatchBruteForce: inside a JSON string under a pattern, a
// State whose regular expression loops over every character (a search's
// leading .*, a .* inside an anchored pattern) is masked over what the
// loop takes, with the other tokens (a quote, a backslash) walked along
// their paths; the masks match the definition before, inside and after a
// match, and inside an escape; where the loop takes not every multi-byte
// character, those are walked too. The MAC address's pattern repeats a
// group, so its States (few with views of origins: grammar.Rule.Regex)
// have universes, found first.
func TestAbsorbedMatchBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	v := testVocab(rng)
	trie := NewTrie(v)
	for _, c := range []struct {
		schema, text string
		universes    bool
	}{
		{`{"type": "string", "pattern": "([0-9a-fA-F][0-9a-fA-F](:|-)){4}[0-9a-fA-F][0-9a-fA-F]"}`, `"é\"00:11-22:33:44\\n"`, true},
		{`{"type": "string", "pattern": "^a.*b$"}`, `"a1\"bb"`, false},
		{`{"type": "string", "pattern": "(ab|a)+c"}`, `"xaabac\tz"`, false},
		{`{"type": "string", "pattern": "^[^é]*$"}`, `"aü\"b"`, false}, // no é: not wide
	} {
		g, err := jsonschema.Compile("absorbed.json", []byte(c.schema))
		if err != nil {
			t.Fatal(err)
		}
		for _, labels := range []int{labelsShared, labelsOwn} {
			k := newMasker(earley.New(g), v, trie, labels)
			checkEveryByte(t, k, g, c.text)
			walkRandomly(t, k, g, rng, c.schema, 30, 25)
			if c.universes && k.Stats.Universes == 0 || !c.universes && k.Stats.Absorbed == 0 {
				t.Errorf("%s, labels %d: %d masks over universes, %d over what a loop absorbs", c.schema, labels, k.Stats.Universes, k.Stats.Absorbed)
			}
		}
	}
}
