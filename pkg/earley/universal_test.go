package earley

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gasplab/gasp/pkg/grammar"
)

// TestUniversal: a State is universal where its scan items are all in
// rules of one statement, of one derivation (the name's rule is
// left-recursive, as a JSON schema's names not declared are), and scan
// all its bytes: at a name's start and after its letters, not inside an
// escape or a multi-byte character, nor where a rule the statement does
// not speak of scans too.
func TestUniversal(t *testing.T) {
	src := `root ::= "<" key | "[" key2 | "[a]"
key ::= name ">"
key2 ::= name "]"
name ::= name [a-z] | name "\\" [n"] | name [\u00e9] | ""`
	f, errs := grammar.Parse("u.gbnf", []byte(src))
	if errs != nil {
		t.Fatal(errs)
	}
	u := &grammar.Universal{Wide: false}
	for b := 'a'; b <= 'z'; b++ {
		u.Bytes.Add(byte(b))
	}
	for _, r := range f.Rules {
		if r.Name != "root" {
			r.Universal = u
		}
	}
	g, _, err := grammar.CompileSyntax(f, grammar.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := New(g)
	for _, c := range []struct {
		prefix string
		want   bool
	}{
		{"<", true},      // the name's start
		{"<ab", true},    // after letters
		{`<a\`, false},   // inside an escape
		{"<\xc3", false}, // inside é
		{"<é", true},
		{"[", false}, // "[a]" scans a too, and is no name
		{"[b", true},
	} {
		p := m.NewParser()
		if !p.FeedBytes([]byte(c.prefix)) {
			t.Fatalf("%q: not a prefix", c.prefix)
		}
		if got, ok := m.Universal(p.State()); ok != c.want || ok && got != u {
			t.Errorf("after %q: Universal %v, want %v", c.prefix, ok, c.want)
		}
	}
}

// TestAbsorbing: a State with a loop X ::= X • Y absorbs the characters Y
// derives (wide where Y derives every multi-byte character), and every
// string of them is viable from it; a loop that needs more than Y after
// each turn, a State inside a character, and a State with no loop absorb
// nothing.
func TestAbsorbing(t *testing.T) {
	src := `root ::= "\"" body "\"" | "<" list ">" | "{" pairs "}" | "(" [a-z] ")" | "[" word "]"
body ::= any* "ab" any*
any ::= [^"\\] | "\\" ["\\n]
list ::= list "," [a-z] | [a-z]
pairs ::= pairs [a-z] "=" | ""
word ::= word [a-z] | ""`
	g, _, err := grammar.Compile("a.gbnf", []byte(src), grammar.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := New(g)
	var strBytes grammar.ByteSet
	for b := 0x00; b < 0x80; b++ {
		if b != '"' && b != '\\' {
			strBytes.Add(byte(b))
		}
	}
	var letters grammar.ByteSet
	for b := 'a'; b <= 'z'; b++ {
		letters.Add(byte(b))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		prefix string
		want   bool
		bytes  grammar.ByteSet
		wide   bool
		rule   string // the loop's rule, or one it generated
	}{
		{prefix: `"`, want: true, bytes: strBytes, wide: true, rule: "body"}, // the search's start
		{prefix: `"xa`, want: true, bytes: strBytes, wide: true, rule: "body"},
		{prefix: `"xab\n`, want: true, bytes: strBytes, wide: true, rule: "body"}, // after the match
		{prefix: `"x\`, want: false},     // inside an escape
		{prefix: "\"x\xc3", want: false}, // inside é
		{prefix: "<a", want: false},      // list ::= list • "," [a-z] needs a letter after each comma
		{prefix: "{", want: false},       // pairs ::= pairs • [a-z] "="
		{prefix: "(", want: false},       // no loop
		{prefix: "[ab", want: true, bytes: letters, rule: "word"},
	} {
		p := m.NewParser()
		if !p.FeedBytes([]byte(c.prefix)) {
			t.Fatalf("%q: not a prefix", c.prefix)
		}
		s := p.State()
		l, ok := m.Absorbing(s)
		if ok != c.want {
			t.Errorf("after %q: Absorbing %v, want %v", c.prefix, ok, c.want)
			continue
		}
		if !ok {
			continue
		}
		u := l.Chars
		if name := g.Rules[l.Rule].Name; !strings.HasPrefix(name, c.rule) {
			t.Errorf("after %q: the loop of %s, want %s", c.prefix, name, c.rule)
		}
		if u.Bytes != c.bytes || u.Wide != c.wide {
			t.Errorf("after %q: absorbs %v wide %v, want %v wide %v", c.prefix, u.Bytes, u.Wide, c.bytes, c.wide)
		}
		for range 200 {
			str := absorbedString(rng, u)
			if q := feed(m, s, str); q == Dead {
				t.Fatalf("after %q: %q is not viable, though absorbed", c.prefix, str)
			}
		}
	}
}

// absorbedString returns a random string of up to 12 characters of u.
func absorbedString(rng *rand.Rand, u *grammar.Universal) []byte {
	var one []byte
	for b := range 256 {
		if u.Bytes.Has(byte(b)) {
			one = append(one, byte(b))
		}
	}
	var out []byte
	for range rng.IntN(13) {
		if u.Wide && rng.IntN(3) == 0 {
			// A surrogate is written as U+FFFD, valid too.
			out = utf8.AppendRune(out, rune(0x80+rng.IntN(0x10FFFF-0x80)))
			continue
		}
		out = append(out, one[rng.IntN(len(one))])
	}
	return out
}

// feed returns the State s leads to after bs, or Dead.
func feed(m *Machine, s State, bs []byte) State {
	for _, b := range bs {
		if s = m.Step(s, b); s == Dead {
			return Dead
		}
	}
	return s
}
