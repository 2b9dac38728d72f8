package earley

import (
	"slices"
	"testing"
)

// The views of a member name's next character are the same after every
// member of an object whose optional members are a chain of rules, each
// predicting the next (pkg/jsonschema's form; other members' names start
// with x, none of the declared ones), longer than maxClimb: before
// views stopped climbing, each held the chain from its own member on, so
// no walk from a view was ever reused across members.
func TestViewsRecurAcrossOptionalMembers(t *testing.T) {
	m := New(mustCompile(t, `root ::= "{\"id\":1" e1 "}"
e1 ::= ",\"alpha\":" v e2 | e2
e2 ::= ",\"beta\":" v e3 | e3
e3 ::= ",\"gamma\":" v e4 | e4
e4 ::= ",\"delta\":" v e5 | e5
e5 ::= ",\"eps\":" v e6 | e6
e6 ::= ",\"zeta\":" v e7 | e7
e7 ::= ( "," "\"x" [a-z]* "\"" ":" v )*
v ::= "1"`))
	viewsAfter := func(text string) []State {
		s := m.Start()
		for i := range len(text) {
			if s = m.Step(s, text[i]); s == Dead {
				t.Fatalf("%q is not a prefix", text[:i+1])
			}
		}
		return m.ScanViews(s, 1, nil)
	}
	first := viewsAfter(`{"id":1,"x`)
	later := viewsAfter(`{"id":1,"alpha":1,"x`)
	if !slices.Equal(first, later) {
		t.Errorf("views of an other member's name differ by position: %v after the first member, %v after the second", first, later)
	}
}
