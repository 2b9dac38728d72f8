package grammarfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/earley"
	"github.com/gasplab/gasp/pkg/grammar"
)

// TestCompileByExtension compiles one file of each language and checks a
// member and a non-member of each, and that errors carry their positions.
func TestCompileByExtension(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, src, in, out, badSrc, badErr string
	}{
		{"g.gbnf", `root ::= "a"+`, "aaa", "b", `root ::= x`, "g.gbnf:1:10: undefined rule x"},
		{"p.regex", "[0-9]{2}-x\n", "12-x", "12-x\n", "a(?=b)\n", "p.regex:1:2: error parsing regexp"},
		{"s.schema.json", `{"type":"array","items":{"type":"integer","maximum":5}}`, "[1,-2,5]", "[6]",
			`{"items":{"multipleOf":2}}`, "s.schema.json#/items/multipleOf: keyword multipleOf is not supported"},
		{"l.lark", "start: \"a\" NAME\nNAME: /[a-z]+/\n%ignore \" \"\n", " a  bc ", "abc1", "start: x\n", "l.lark:1:8: undefined rule x"},
	}
	for _, c := range cases {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, []byte(c.src), 0o644); err != nil {
			t.Fatal(err)
		}
		g, _, err := Compile(path, grammar.Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		g2, _, err := CompileSource(c.name, []byte(c.src), grammar.Options{})
		if err != nil {
			t.Fatalf("%s: CompileSource: %v", c.name, err)
		}
		for _, m := range []*earley.Machine{earley.New(g), earley.New(g2)} {
			for s, want := range map[string]bool{c.in: true, c.out: false} {
				p := m.NewParser()
				if got := p.FeedBytes([]byte(s)) && p.Complete(); got != want {
					t.Errorf("%s: %q: got %v, want %v", c.name, s, got, want)
				}
			}
		}
		if err := os.WriteFile(path, []byte(c.badSrc), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err = Compile(path, grammar.Options{})
		if err == nil || !strings.Contains(err.Error(), c.badErr) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.badErr)
		}
	}
	lk := filepath.Join(dir, "s.lark")
	if err := os.WriteFile(lk, []byte("start: \"a\"\nother: \"b\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Compile(lk, grammar.Options{Start: "other"}); err != nil {
		t.Errorf("a start rule for a Lark file: %v", err)
	}
	if _, _, err := Compile(filepath.Join(dir, "p.regex"), grammar.Options{Start: "x"}); err == nil {
		t.Errorf("a start rule for a regex file is not an error")
	}
}
