package jsonschema

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/earley"
)

// TestSharedRules checks that what a schema repeats is lowered once:
// strings of one length range (forty properties of maxLength 100 would be
// 4,000 rules lowered one by one), and the names of the members that
// additionalProperties allows (a trie of the declared names, which the
// member list refers to in four places).
func TestSharedRules(t *testing.T) {
	props := map[string]any{}
	for i := range 40 {
		props[fmt.Sprintf("name%d", i)] = map[string]any{"type": "string", "maxLength": 100}
	}
	rules := func(extra any) int {
		schema, _ := json.Marshal(map[string]any{"type": "object", "properties": props, "additionalProperties": extra})
		g, err := Compile("shared.json", schema)
		if err != nil {
			t.Fatal(err)
		}
		return len(g.Rules)
	}
	closed, open := rules(false), rules(map[string]any{"type": "integer"})
	t.Logf("rules: %d closed, %d with other members", closed, open)
	if closed > 400 {
		t.Errorf("%d rules for forty strings of maxLength 100: the strings are not one rule", closed)
	}
	if open-closed > 200 {
		t.Errorf("other members' names add %d rules: their trie is lowered more than once", open-closed)
	}
}

// TestKeyStatesShared checks that once a member name has left the trie of
// declared names, its Earley States do not depend on where it left it:
// after any prefix, the same loop, the same State inside a multi-byte
// character and inside an escape (written right-linear, each prefix had
// its own, a dozen new States for every token of a name). It also checks
// that a State inside a string holds a handful of items, not one for each
// escape of a control character.
func TestKeyStatesShared(t *testing.T) {
	schema := `{"type": "object", "properties": {"abc": {"type": "string"}, "bcd": {"type": "integer"}},
		"additionalProperties": {"type": "integer"}}`
	g, err := Compile("keys.json", []byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	m := earley.New(g)
	state := func(text string) earley.State {
		p := m.NewParser()
		if !p.FeedBytes([]byte(text)) {
			t.Fatalf("%q is not a viable prefix", text)
		}
		return p.State()
	}
	for _, tails := range [][]string{{"x", "é"[:1], `\`}, {"xy", "é", `\n`}} {
		for _, tail := range tails {
			var first earley.State
			for i, prefix := range []string{`{"`, `{"a`, `{"ab`, `{"b`, `{"bc`, `{"q`} {
				s := state(prefix + tail)
				if i == 0 {
					first = s
				} else if s != first {
					t.Errorf("%q and %q reach different States:\n%s\n---\n%s", `{"`+tail, prefix+tail, m.Describe(first), m.Describe(s))
				}
			}
		}
	}
	if n := strings.Count(m.Describe(state(`{"abc":"x`)), "\n"); n > 20 {
		t.Errorf("a State inside a string holds %d items:\n%s", n, m.Describe(state(`{"abc":"x`)))
	}
}
