package jsonschema

import (
	"encoding/json"
	"fmt"
	"testing"
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
