package grammar

import (
	"slices"
	"strings"
	"testing"
)

// This file holds small, independent oracles used by the tests: an Earley
// recognizer over bytes and a brute-force enumerator of short sentences.

// mustCompile compiles src (strict unless lenient) and checks Validate.
func mustCompile(t testing.TB, src string, opts Options) (*Grammar, ErrorList) {
	t.Helper()
	g, warns, err := Compile("t.gbnf", []byte(src), opts)
	if err != nil {
		t.Fatalf("Compile(%q): %v", src, err)
	}
	if err := g.Validate(); err != nil {
		t.Fatalf("Compile(%q): invalid grammar: %v\n%s", src, err, g)
	}
	return g, warns
}

// recognize reports whether g derives input, with a textbook Earley
// recognizer (Aycock-Horspool treatment of nullable rules).
func recognize(g *Grammar, input []byte) bool {
	null := g.Nullable()
	type item struct{ prod, dot, origin int }
	sets := make([][]item, len(input)+1)
	seen := make([]map[item]bool, len(input)+1)
	add := func(i int, it item) {
		if seen[i] == nil {
			seen[i] = map[item]bool{}
		}
		if !seen[i][it] {
			seen[i][it] = true
			sets[i] = append(sets[i], it)
		}
	}
	for _, p := range g.Rules[g.Start].Prods {
		add(0, item{p, 0, 0})
	}
	for i := 0; i <= len(input); i++ {
		for j := 0; j < len(sets[i]); j++ {
			it := sets[i][j]
			rhs := g.Prods[it.prod].RHS
			if it.dot == len(rhs) {
				lhs := NT(g.Prods[it.prod].LHS)
				for k := 0; k < len(sets[it.origin]); k++ {
					o := sets[it.origin][k]
					if r := g.Prods[o.prod].RHS; o.dot < len(r) && r[o.dot] == lhs {
						add(i, item{o.prod, o.dot + 1, o.origin})
					}
				}
				continue
			}
			s := rhs[it.dot]
			if s.IsTerminal() {
				if i < len(input) && g.Terminals[s.Terminal()].Has(input[i]) {
					add(i+1, item{it.prod, it.dot + 1, it.origin})
				}
				continue
			}
			for _, p := range g.Rules[s.Rule()].Prods {
				add(i, item{p, 0, i})
			}
			if null[s.Rule()] {
				add(i, item{it.prod, it.dot + 1, it.origin})
			}
		}
	}
	for _, it := range sets[len(input)] {
		if it.origin == 0 && g.Prods[it.prod].LHS == g.Start && it.dot == len(g.Prods[it.prod].RHS) {
			return true
		}
	}
	return false
}

// enumerate returns the sorted sentences of g of length at most maxLen, by a
// fixpoint over sets of strings (which handles left recursion).
func enumerate(g *Grammar, maxLen int) []string {
	lang := make([]map[string]bool, len(g.Rules))
	for i := range lang {
		lang[i] = map[string]bool{}
	}
	strs := func(s Symbol) []string {
		if s.IsTerminal() {
			var out []string
			ts := g.Terminals[s.Terminal()]
			for c := 0; c < 256; c++ {
				if ts.Has(byte(c)) {
					out = append(out, string([]byte{byte(c)}))
				}
			}
			return out
		}
		var out []string
		for w := range lang[s.Rule()] {
			out = append(out, w)
		}
		return out
	}
	for changed := true; changed; {
		changed = false
		for _, p := range g.Prods {
			cur := []string{""}
			for _, s := range p.RHS {
				var next []string
				for _, a := range cur {
					for _, b := range strs(s) {
						if len(a)+len(b) <= maxLen {
							next = append(next, a+b)
						}
					}
				}
				cur = next
			}
			for _, w := range cur {
				if !lang[p.LHS][w] {
					lang[p.LHS][w] = true
					changed = true
				}
			}
		}
	}
	var out []string
	for w := range lang[g.Start] {
		out = append(out, w)
	}
	slices.Sort(out)
	return out
}

// words splits a space-separated list; "ε" stands for the empty string.
func words(s string) []string {
	out := strings.Fields(s)
	for i, w := range out {
		if w == "ε" {
			out[i] = ""
		}
	}
	slices.Sort(out)
	return out
}
