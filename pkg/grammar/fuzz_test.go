package grammar

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzCompile checks that no input makes Parse, Compile or Sample panic,
// that errors are sorted ErrorLists with positions, and that every
// compiled grammar satisfies Validate, compiles deterministically, and
// accepts its own samples.
func FuzzCompile(f *testing.F) {
	seeds := []string{
		`root ::= "a" | b* [^x-z] . ("c" | "")+ "d"{2,5} "e"{,3} "f"{2,}`,
		"root ::= x\nx ::= \"\\x41\\u00e9\\U0001F600\" [\\t\\r\\n\\\\\\\"\\[\\]\\-] # c\n  | \"y\"",
		"root ::= (\n  a |\n  b\n)\na ::= a \"a\" | \"\"\nb ::= undefined",
		"root ::= [",
		"root ::= \"a\"{3,2} {",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	files, _ := filepath.Glob("testdata/*.gbnf")
	gad, _ := filepath.Glob(filepath.Join(gadDir, "*", "*", "grammar.ebnf"))
	for _, path := range append(files, gad...) {
		if src, err := os.ReadFile(path); err == nil {
			f.Add(src)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 1<<14 {
			return // keep runs fast; size is not what is under test
		}
		f, perrs := Parse("f.gbnf", src)
		checkErrorList(t, perrs)
		if len(perrs) == 0 {
			// Printing is a fixpoint after one round and parses cleanly.
			out := f.String()
			f2, errs2 := Parse("f.gbnf", []byte(out))
			if len(errs2) > 0 || f2.String() != out {
				t.Fatalf("printed grammar does not reparse to itself:\n%s\nerrors: %v\nreprinted:\n%s", out, errs2, f2)
			}
		}
		for _, lenient := range []bool{false, true} {
			opts := Options{Lenient: lenient}
			g, warns, err := Compile("f.gbnf", src, opts)
			checkErrorList(t, warns)
			if err != nil {
				var list ErrorList
				if !errors.As(err, &list) || len(list) == 0 {
					t.Fatalf("error %v (%T) is not a non-empty ErrorList", err, err)
				}
				checkErrorList(t, list)
				if g != nil {
					t.Fatalf("grammar returned with errors")
				}
				continue
			}
			if err := g.Validate(); err != nil {
				t.Fatalf("invalid grammar: %v\n%s", err, g)
			}
			g2, _, _ := Compile("f.gbnf", src, opts)
			if !reflect.DeepEqual(g, g2) {
				t.Fatalf("compilation is not deterministic")
			}
			const maxDepth = 4
			if bound := sampleBound(g, maxDepth); bound <= 1<<16 {
				rng := rand.New(rand.NewPCG(uint64(len(src)), 1))
				s := Sample(g, rng, maxDepth)
				if len(s) > bound {
					t.Fatalf("sample of %d bytes exceeds bound %d", len(s), bound)
				}
				if len(s) <= 64 && len(g.Prods) <= 2000 && !recognize(g, s) {
					t.Fatalf("grammar rejects its sample %q\n%s", s, g)
				}
			}
		}
	})
}

func checkErrorList(t *testing.T, list ErrorList) {
	t.Helper()
	for i, e := range list {
		if !e.Pos.IsValid() || e.Pos.Col < 1 || e.Msg == "" {
			t.Fatalf("error without position or message: %q", e.Error())
		}
		if i > 0 {
			a, b := list[i-1].Pos, e.Pos
			if a.Line > b.Line || a.Line == b.Line && a.Col > b.Col {
				t.Fatalf("errors not sorted: %v", list)
			}
		}
	}
}

// sampleBound returns the largest output Sample(g, _, maxDepth) can
// produce (saturating at 1<<30), so that the fuzzer only samples grammars
// whose samples fit in memory.
func sampleBound(g *Grammar, maxDepth int) int {
	const inf = 1 << 30
	add := func(a, b int) int { return min(a+b, inf) }
	minProds := g.minHeightProds()
	// Past maxDepth only minimal productions are used; they strictly
	// descend in height, so memoized recursion terminates.
	low := make([]int, len(g.Rules))
	for i := range low {
		low[i] = -1
	}
	var lowOf func(r int) int
	lowOf = func(r int) int {
		if low[r] >= 0 {
			return low[r]
		}
		best := 0
		for _, p := range minProds[r] {
			n := 0
			for _, s := range g.Prods[p].RHS {
				if s.IsTerminal() {
					n = add(n, 1)
				} else {
					n = add(n, lowOf(s.Rule()))
				}
			}
			best = max(best, n)
		}
		low[r] = best
		return best
	}
	// up[r] bounds a rule expanded at depth d, for d from maxDepth+1 down to 0.
	up := make([]int, len(g.Rules))
	for r := range up {
		up[r] = lowOf(r)
	}
	for d := maxDepth; d >= 0; d-- {
		next := make([]int, len(g.Rules))
		for r, rule := range g.Rules {
			for _, p := range rule.Prods {
				n := 0
				for _, s := range g.Prods[p].RHS {
					if s.IsTerminal() {
						n = add(n, 1)
					} else {
						n = add(n, up[s.Rule()])
					}
				}
				next[r] = max(next[r], n)
			}
		}
		up = next
	}
	return up[g.Start]
}
