package earley

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/gasplab/gasp/pkg/grammar"
)

// followByPasses is the textbook computation of FOLLOW over byte classes:
// FIRST, then FOLLOW, each by passes over every production until nothing
// changes. followClasses must find the same sets.
func followByPasses(g *grammar.Grammar, nullable []bool, termClass []grammar.ByteSet) []grammar.ByteSet {
	first := make([]grammar.ByteSet, len(g.Rules))
	follow := make([]grammar.ByteSet, len(g.Rules))
	firstOf := func(rhs []grammar.Symbol) (set grammar.ByteSet, null bool) {
		for _, sym := range rhs {
			if sym.IsTerminal() {
				orSet(&set, &termClass[sym.Terminal()])
				return set, false
			}
			orSet(&set, &first[sym.Rule()])
			if !nullable[sym.Rule()] {
				return set, false
			}
		}
		return set, true
	}
	for changed := true; changed; {
		changed = false
		for _, p := range g.Prods {
			f, _ := firstOf(p.RHS)
			changed = orSet(&first[p.LHS], &f) || changed
		}
	}
	for changed := true; changed; {
		changed = false
		for _, p := range g.Prods {
			for i, sym := range p.RHS {
				if sym.IsTerminal() {
					continue
				}
				f, null := firstOf(p.RHS[i+1:])
				if null {
					orSet(&f, &follow[p.LHS])
				}
				changed = orSet(&follow[sym.Rule()], &f) || changed
			}
		}
	}
	return follow
}

func checkFollow(t *testing.T, name string, g *grammar.Grammar) {
	t.Helper()
	m := New(g)
	want := followByPasses(g, m.nullable, m.termClass)
	for r := range g.Rules {
		if m.follow[r] != want[r] {
			t.Fatalf("%s: FOLLOW(%s) = %v, passes give %v", name, g.Rules[r].Name, m.follow[r], want[r])
		}
	}
}

func TestFollowClassesMatchesPasses(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 0xf0))
	for i := range bruteGrammars() {
		checkFollow(t, fmt.Sprintf("random grammar %d", i), prunedGrammar(t, r))
	}
	files, err := filepath.Glob(filepath.Join("..", "..", "grammar", "*.gbnf"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no grammars: %v", err)
	}
	for _, f := range files {
		g, _, err := grammar.CompileFile(f, grammar.Options{})
		if err != nil {
			t.Fatal(err)
		}
		checkFollow(t, f, g)
	}
}
