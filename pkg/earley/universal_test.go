package earley

import (
	"testing"

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
