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
	viewsAfter := func(text string) []State { return m.ScanViews(stateAfter(t, m, text), 1, nil) }
	first := viewsAfter(`{"id":1,"x`)
	later := viewsAfter(`{"id":1,"alpha":1,"x`)
	if !slices.Equal(first, later) {
		t.Errorf("views of an other member's name differ by position: %v after the first member, %v after the second", first, later)
	}
}

// The views of an enum string's next character are the same at every item
// of an array of at most n (pkg/jsonschema's maxItems, a chain of rules
// O_j ::= X O_(j-1) | ε, with the enum a group inside it as there): before
// views stopped at the chain's links, each held its own link, and every
// item's walk was made afresh.
func TestViewsRecurAcrossBoundedItems(t *testing.T) {
	m := New(mustCompile(t, `root ::= "[" ( "\"alpha\"" | "\"beta\"" ) ( "," ( "\"alpha\"" | "\"beta\"" | "\"gamma\"" ) ){0,6} "]"`))
	viewsAfter := func(text string) []State { return m.ScanViews(stateAfter(t, m, text), 1, nil) }
	second := viewsAfter(`["alpha","b`)
	for _, text := range []string{`["alpha","beta","b`, `["alpha","beta","gamma","alpha","b`} {
		if later := viewsAfter(text); !slices.Equal(second, later) {
			t.Errorf("views after %q differ from the second item's: %v, %v", text, later, second)
		}
	}
}

// TestViewsByWaiters: the States where a member name starts differ from
// member to member by the declared names still to come, which wait on
// bytes; their views of another name (key) are kept by the items that
// wait on nonterminals (Machine.waiters), so the second member's are the
// first's. And every view kept, by State or by waiters, is what computing
// it afresh gives.
func TestViewsByWaiters(t *testing.T) {
	m := New(mustCompile(t, `root ::= "{" list "}"
list ::= l3 | l3 more | key ":" v more
l1 ::= "\"alpha\":" v
l2 ::= l1 | l1 "," "\"beta\":" v | "\"beta\":" v
l3 ::= l2 | l2 "," "\"gamma\":" v | "\"gamma\":" v
more ::= ( "," key ":" v )*
key ::= "\"" [a-z]* "\""
v ::= "1" | "[" v "]" | "{" list "}"`))
	viewsAfter := func(text string) []State { return m.ScanViews(stateAfter(t, m, text), 1, nil) }
	first := viewsAfter(`{"alpha":1,"`)
	later := viewsAfter(`{"alpha":1,"beta":1,"`)
	if !slices.ContainsFunc(later, func(v State) bool { return slices.Contains(first, v) }) {
		t.Errorf("no view of the second member's name start is the first's: %v, %v", first, later)
	}
	for _, text := range []string{`{"alpha":[1],"x`, `{"beta":[[1]],"gamma":1,"ab`, `{"q":1,"r":[1],"`, `{"gamma":1}`,
		`{"q":{"r":1,"`, `{"alpha":{"alpha":1,"`, `{"q":[{"r":1,"s":1,"`} {
		for _, d := range []int{1, 2} {
			m.ScanViews(stateAfter(t, m, text), d, nil)
		}
	}
	for key, v := range m.views {
		items := m.viewOf(key.o, key.want, key.depth)
		slices.SortFunc(items, compareItems)
		if fresh := m.add(slices.Compact(items), false); fresh != v {
			t.Errorf("view of %d for %v at depth %d: kept %d, afresh %d", key.o, key.want, key.depth, v, fresh)
		}
	}
	if m.viewsByWaitersHits == 0 {
		t.Errorf("%d views, none served by another State's waiters", len(m.views))
	}
	t.Logf("%d views by State, %d served by waiters", len(m.views), m.viewsByWaitersHits)
}

// stateAfter returns m's State after text, which must be a viable prefix.
func stateAfter(t *testing.T, m *Machine, text string) State {
	t.Helper()
	s := m.Start()
	for i := range len(text) {
		if s = m.Step(s, text[i]); s == Dead {
			t.Fatalf("%q is not a prefix", text[:i+1])
		}
	}
	return s
}
