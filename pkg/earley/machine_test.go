package earley

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/grammar"
)

// lit builds a terminal-per-byte grammar from rules written as
// name -> alternatives, each a sequence of words: a word that names a rule is
// a nonterminal, any other word is a literal whose bytes are terminals.
func lit(start string, rules map[string][]string, order []string) *grammar.Grammar {
	g := &grammar.Grammar{}
	idx := map[string]int{}
	for i, name := range order {
		idx[name] = i
		g.Rules = append(g.Rules, grammar.Rule{Name: name})
	}
	terms := map[byte]int{}
	term := func(b byte) grammar.Symbol {
		t, ok := terms[b]
		if !ok {
			var s grammar.ByteSet
			s.Add(b)
			t = len(g.Terminals)
			g.Terminals = append(g.Terminals, s)
			terms[b] = t
		}
		return grammar.T(t)
	}
	for _, name := range order {
		for _, alt := range rules[name] {
			var rhs []grammar.Symbol
			for _, w := range splitWords(alt) {
				if r, ok := idx[w]; ok {
					rhs = append(rhs, grammar.NT(r))
					continue
				}
				for i := 0; i < len(w); i++ {
					rhs = append(rhs, term(w[i]))
				}
			}
			g.Rules[idx[name]].Prods = append(g.Rules[idx[name]].Prods, len(g.Prods))
			g.Prods = append(g.Prods, grammar.Prod{LHS: idx[name], RHS: rhs})
		}
	}
	g.Start = idx[start]
	return g
}

func splitWords(s string) []string {
	var out []string
	w := ""
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' {
			if w != "" {
				out = append(out, w)
			}
			w = ""
			continue
		}
		w += string(s[i])
	}
	if w != "" {
		out = append(out, w)
	}
	return out
}

func TestMachineSmall(t *testing.T) {
	g := lit("S", map[string][]string{
		"S": {"a S b", "", "L"},
		"L": {"L c", "c"},
	}, []string{"S", "L"})
	m := New(g)
	cases := []struct {
		in               string
		viable, complete bool
	}{
		{"", true, true},
		{"ab", true, true},
		{"aabb", true, true},
		{"aab", true, false},
		{"abb", false, false},
		{"ccc", true, true},
		{"acccb", true, true},
		{"acb", true, true},
		{"acbb", false, false},
		{"ca", false, false},
	}
	for _, c := range cases {
		p := m.NewParser()
		ok := p.FeedBytes([]byte(c.in))
		if ok != c.viable {
			t.Errorf("%q: viable=%v, want %v", c.in, ok, c.viable)
			continue
		}
		if ok && p.Complete() != c.complete {
			t.Errorf("%q: complete=%v, want %v", c.in, p.Complete(), c.complete)
		}
	}
}

func TestLoopReusesState(t *testing.T) {
	g := lit("S", map[string][]string{
		"S": {"x H y"},
		"H": {"H a", ""},
	}, []string{"S", "H"})
	m := New(g)
	p := m.NewParser()
	p.FeedBytes([]byte("xa"))
	s := p.State()
	for i := 0; i < 100; i++ {
		if !p.Feed('a') || p.State() != s {
			t.Fatalf("after %d more a: state %d, want %d", i+1, p.State(), s)
		}
	}
	if !p.Feed('y') || !p.Complete() {
		t.Fatal("xa...ay not complete")
	}
}

// TestAmbiguousRunReusesState checks that a run that can be split in many
// ways (spaces inside misc*, each misc a run of spaces, as XML's prolog
// has) is one State at every position from the fourth on: the items of the
// splits differ only in origins whose views are equal (see
// Machine.mergeOrigins). Without that, each position is a new State with one
// more item.
func TestAmbiguousRunReusesState(t *testing.T) {
	g, _, err := grammar.Compile("t.gbnf", []byte(`root ::= "<" misc* "x" misc*
misc ::= s | "<!" [a-z]* ">"
s ::= [ \t\n]+`), grammar.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := New(g)
	p := m.NewParser()
	p.FeedBytes([]byte("<    "))
	s, n := p.State(), m.NumStates()
	for i := 0; i < 100; i++ {
		if !p.Feed(" \t\n"[i%3]) || p.State() != s {
			t.Fatalf("after %d more spaces: State %d, want %d", i+1, p.State(), s)
		}
	}
	if m.NumStates() != n {
		t.Errorf("a run of spaces built %d States", m.NumStates()-n)
	}
	if !p.FeedBytes([]byte("<!ab> x  ")) || !p.Complete() {
		t.Fatalf("%q: not a sentence", p.Bytes())
	}
	if p.Feed('x') {
		t.Fatalf("%q is viable", p.Bytes())
	}
}

// TestKernelsShared checks the kernel look-up (see kernelStep): steps from
// different States that complete one rule at one origin reach one State
// with one closure, and the same completion at another origin does not
// take its result (with origins left out of the key, "[bx)" would pass).
func TestKernelsShared(t *testing.T) {
	g := lit("S", map[string][]string{
		"S":    {"( Free )", "[ Free ]"},
		"Free": {"Pa x", "Pb x"},
		"Pa":   {"a"},
		"Pb":   {"b"},
	}, []string{"S", "Free", "Pa", "Pb"})
	m := New(g)
	state := func(s string) State {
		p := m.NewParser()
		if !p.FeedBytes([]byte(s)) {
			t.Fatalf("%q not viable", s)
		}
		return p.State()
	}
	ax := state("(ax")
	state("(b")
	kept := len(m.kernels)
	if bx := state("(bx"); bx != ax || len(m.kernels) != kept {
		t.Errorf("(bx: State %d, kernels %d; want (ax's %d and %d kept", bx, len(m.kernels), ax, kept)
	}
	for s, want := range map[string]bool{"[ax]": true, "[bx]": true, "(bx)": true, "[bx)": false, "(ax]": false} {
		p := m.NewParser()
		if got := p.FeedBytes([]byte(s)) && p.Complete(); got != want {
			t.Errorf("%q: sentence %v, want %v", s, got, want)
		}
	}
}

// TestCountWaiting checks that counting a large State's waiting items by
// rule orders them as sorting does: by nonterminal, then by place.
func TestCountWaiting(t *testing.T) {
	var src strings.Builder
	src.WriteString("root ::= ")
	for i := range 300 {
		if i > 0 {
			src.WriteString(" | ")
		}
		fmt.Fprintf(&src, "r%d \"%d\"", (i*7)%300, i)
	}
	for i := range 300 {
		fmt.Fprintf(&src, "\nr%d ::= r%d \"a\" | \"b\" | r%d \"c\"", i, i, (i+1)%300)
	}
	g, _, err := grammar.Compile("t.gbnf", []byte(src.String()), grammar.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := New(g)
	st := m.states.at(m.Start())
	if m.buildWaiting(st); len(st.wait) < countingMin {
		t.Fatalf("%d waiting items: too few to count", len(st.wait))
	}
	counted, syms := slices.Clone(st.wait), slices.Clone(st.waitSym)
	m.sortWaiting(st)
	if !slices.Equal(counted, st.wait) || !slices.Equal(syms, st.waitSym) {
		t.Errorf("counted %v\nsorted  %v", counted, st.wait)
	}
}

// TestRegexOrigins: in a search for ([0-9a-f]{2}:){4}[0-9a-f]{2}, each
// partial match's group began at a State that holds the partial matches
// before it; where the grammar marks the pattern's rules as a regular
// expression's, their items' origins are written as views, and the States
// stay few whatever the text.
func TestRegexOrigins(t *testing.T) {
	src := `root ::= "\"" pat "\""
pat ::= any* (hex hex [:-]){4} hex hex any*
hex ::= [0-9a-f]
any ::= [^"]`
	for _, regex := range []bool{false, true} {
		f, errs := grammar.Parse("mac.gbnf", []byte(src))
		if errs != nil {
			t.Fatal(errs)
		}
		f.Rules[1].Regex = regex // pat
		g, _, err := grammar.CompileSyntax(f, grammar.Options{})
		if err != nil {
			t.Fatal(err)
		}
		m := New(g)
		p := m.NewParser()
		p.FeedBytes([]byte(`"`))
		seen := map[State]bool{p.State(): true}
		for todo := []State{p.State()}; len(todo) > 0 && len(seen) < 2000; todo = todo[1:] {
			for _, b := range []byte("0a:-x") {
				if q := m.Step(todo[0], b); !seen[q] {
					seen[q] = true
					todo = append(todo, q)
				}
			}
		}
		t.Logf("Regex %v: %d States reached", regex, len(seen))
		if n := len(seen); regex && n > 100 || !regex && n < 1000 {
			t.Errorf("Regex %v: %d States", regex, n)
		}
	}
}
