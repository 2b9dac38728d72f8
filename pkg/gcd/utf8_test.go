package gcd

import (
	"math/rand/v2"
	"testing"
	"unicode/utf8"

	"github.com/gasplab/gasp/pkg/earley"
	"github.com/gasplab/gasp/pkg/grammar"
	"github.com/gasplab/gasp/pkg/jsonschema"
)

// runeHeads returns the proper prefixes of every rune's UTF-8 encoding.
func runeHeads() map[string]bool {
	heads := map[string]bool{}
	for r := rune(0x80); r <= utf8.MaxRune; r++ {
		if enc := utf8.AppendRune(nil, r); utf8.ValidRune(r) {
			for k := 1; k < len(enc); k++ {
				heads[string(enc[:k])] = true
			}
		}
	}
	return heads
}

// validPrefix reports whether b starts some valid UTF-8 text, by the
// standard library: b is valid but for an unfinished last character.
func validPrefix(b []byte, heads map[string]bool) bool {
	for k := 0; k < utf8.UTFMax && k <= len(b); k++ {
		head, tail := b[:len(b)-k], b[len(b)-k:]
		if !utf8.Valid(head) {
			continue
		}
		if k == 0 {
			return true
		}
		if heads[string(tail)] {
			return true
		}
	}
	return false
}

// TestTrieUTF8 checks utf8 flags, on a byte trie and a relabelled one,
// against the standard library's UTF-8 validation of every path below.
func TestTrieUTF8(t *testing.T) {
	v := smallVocab("a", "é", "\xc3", "\xc3\xa9x", "\xc3(", "\xe2\x82\xac", "\xe2\x82", "\xed\xa0\x80", "\xf4\x90", "\xbf", "x\xbf", "\xf0\x9f\x98\x80!")
	orig := NewTrie(v)
	heads := runeHeads()
	flags := 0
	for _, tr := range []*Trie{orig, orig.relabel(classTable(func(b byte) uint8 { return b &^ 0x3f }))} {
		for i := 1; i < tr.Nodes(); i++ {
			want := true
			for _, id := range tr.ids[tr.first[i]:tr.first[tr.end[i]]] {
				// The token's bytes from node i's depth on, and every prefix of them.
				tok := v.Token(int(id))[tr.depth[i]-1:]
				for n := 1; n <= len(tok); n++ {
					want = want && validPrefix(tok[:n], heads)
				}
			}
			if tr.utf8[i] {
				flags++
			}
			if tr != orig && tr.utf8[i] && !want {
				t.Errorf("relabelled node %d: utf8 true, a path below is not valid", i)
			}
			if tr == orig && tr.utf8[i] != want {
				t.Errorf("node %d (depth %d): utf8 = %v, want %v", i, tr.depth[i], tr.utf8[i], want)
			}
		}
	}
	if flags == 0 {
		t.Error("no node is valid UTF-8")
	}
}

// TestCharsLikeClass: where the Machine says, from a State's items alone,
// that every multi-byte character leads where an ASCII character of the
// chain does (earley.Machine.CharsLikeClass), stepping every form's class
// paths must agree (charsLead). It must say so inside a JSON string of
// maxLength and a bounded class of letters and non-ASCII characters, and
// not where a character's production goes on past it, leaves forms out,
// or where a second rule takes some characters to another State.
func TestCharsLikeClass(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 15))
	v := testVocab(rng)
	schema, err := jsonschema.Compile("s.json", []byte(`{"type": "object", "properties": {"a": {"type": "string", "maxLength": 12}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		g    *grammar.Grammar
		some bool // CharsLikeClass must hold somewhere
	}{
		{"maxLength", schema, true},
		{"letters", compile(t, `root ::= "{" [a-z\u0080-\U0010FFFF]{0,9} "}"`), true},
		{"goes on", compile(t, `root ::= "{" ( [a-z] | "é" "b" ){0,9} "}"`), false},
		{"part", compile(t, `root ::= "{" [a-z\u0100-\u017F]{0,9} "}"`), false},
		{"two rules", compile(t, `root ::= "{" ( a | b "!" ){0,9} "}"
a ::= [a-z\u0080-\U0010FFFF]
b ::= [\u0080-\u00FF]`), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := earley.New(c.g)
			k := NewMasker(m, v, NewTrie(v))
			walkRandomly(t, k, c.g, rng, c.name, 30, 15)
			held := 0
			for q := earley.State(1); int(q) < m.NumStates(); q++ {
				if !m.InBoundedRepetition(q) {
					continue
				}
				ch := k.chainOf(q)
				if ch.next == earley.Dead || ch.classes == (grammar.ByteSet{}) {
					continue
				}
				one := firstClass(&ch.classes)
				if !m.CharsLikeClass(q, k.utf8Rows, one) {
					continue
				}
				held++
				to, _ := m.StepLocal(q, one)
				if !k.charsLead(q, to) {
					t.Fatalf("State %d: CharsLikeClass says every form leads where class %d does; stepping them says no:\n%s", q, one, m.Describe(q))
				}
			}
			t.Logf("%d States where it held", held)
			if c.some && held == 0 {
				t.Fatal("CharsLikeClass held nowhere: the test does not test it")
			}
		})
	}
}
