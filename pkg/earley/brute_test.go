package earley

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/grammar"
)

// This file checks the incremental recognizer and Parse against a
// brute-force reference that shares no code with Earley parsing: a CYK-like
// span table for derivations and a fixpoint for viable prefixes.

// bruteTable holds, for an input w, which rules derive each span of w.
type bruteTable struct {
	g   *grammar.Grammar
	w   []byte
	der [][][]bool // der[i][j][r]: rule r derives w[i:j], for i <= j
}

// bruteDerives computes the span table of w. Spans are filled by increasing
// length; within a span, unit and ε productions make rules depend on each
// other for the same span, so each span is iterated to a fixpoint.
func bruteDerives(g *grammar.Grammar, w []byte) *bruteTable {
	n := len(w)
	t := &bruteTable{g: g, w: w, der: make([][][]bool, n+1)}
	for i := range t.der {
		t.der[i] = make([][]bool, n+1)
		for j := i; j <= n; j++ {
			t.der[i][j] = make([]bool, len(g.Rules))
		}
	}
	for l := 0; l <= n; l++ {
		for i := 0; i+l <= n; i++ {
			j := i + l
			for changed := true; changed; {
				changed = false
				for _, p := range g.Prods {
					if !t.der[i][j][p.LHS] && t.reach(p.RHS, i, j)[j] {
						t.der[i][j][p.LHS] = true
						changed = true
					}
				}
			}
		}
	}
	return t
}

// symDerives reports whether symbol s derives w[i:j] according to the table
// filled so far.
func (t *bruteTable) symDerives(s grammar.Symbol, i, j int) bool {
	if s.IsTerminal() {
		return j == i+1 && t.g.Terminals[s.Terminal()].Has(t.w[i])
	}
	return t.der[i][j][s.Rule()]
}

// reach returns the set of positions k <= end such that the symbols seq
// derive w[i:k], by dynamic programming over split points.
func (t *bruteTable) reach(seq []grammar.Symbol, i, end int) []bool {
	cur := make([]bool, end+1)
	cur[i] = true
	for _, s := range seq {
		next := make([]bool, end+1)
		for k := i; k <= end; k++ {
			if !cur[k] {
				continue
			}
			for k2 := k; k2 <= end; k2++ {
				if t.symDerives(s, k, k2) {
					next[k2] = true
				}
			}
		}
		cur = next
	}
	return cur
}

// complete reports whether the start rule derives all of w.
func (t *bruteTable) complete() bool { return t.der[0][len(t.w)][t.g.Start] }

// viable reports whether w is a prefix of some sentence: Start ⇒* w·v.
//
// pre[i][r] says that rule r derives w[i:]·v for some v. For a production
// α of r, that holds if α derives all of w[i:], or if α = β Y γ where β
// derives w[i:k] and Y derives w[k:]·v (γ derives something: the grammar is
// pruned). At i == n every rule qualifies, since every rule is productive.
func (t *bruteTable) viable() bool {
	g, n := t.g, len(t.w)
	pre := make([][]bool, n+1)
	for i := range pre {
		pre[i] = make([]bool, len(g.Rules))
	}
	for r := range g.Rules {
		pre[n][r] = true
	}
	preSym := func(s grammar.Symbol, k int) bool {
		if s.IsTerminal() {
			return k == n || k == n-1 && g.Terminals[s.Terminal()].Has(t.w[k])
		}
		return pre[k][s.Rule()]
	}
	for i := n - 1; i >= 0; i-- {
		for changed := true; changed; {
			changed = false
			for _, p := range g.Prods {
				if pre[i][p.LHS] {
					continue
				}
				ok := t.reach(p.RHS, i, n)[n]
				for d := 0; d < len(p.RHS) && !ok; d++ {
					for k, r := range t.reach(p.RHS[:d], i, n) {
						if r && preSym(p.RHS[d], k) {
							ok = true
							break
						}
					}
				}
				if ok {
					pre[i][p.LHS] = true
					changed = true
				}
			}
		}
	}
	return pre[0][g.Start]
}

// bruteViable reports whether w is a viable prefix of g.
func bruteViable(g *grammar.Grammar, w []byte) bool { return bruteDerives(g, w).viable() }

// bruteSets are the terminal byte sets random grammars draw from.
var bruteSets = []string{"a", "b", "c", "ab", "bc", "ac"}

// randomGrammar returns a small random pruned grammar over {a,b,c}, or nil if
// its start rule derives nothing.
func randomGrammar(r *rand.Rand) *grammar.Grammar {
	nrules := 1 + r.IntN(4)
	var rules [][][]int // rules[i][p] is a production: ≥ 0 a rule, < 0 -(set index)-1
	for range nrules {
		var prods [][]int
		for range 1 + r.IntN(3) {
			var rhs []int
			for range r.IntN(4) {
				if r.IntN(100) < 45 {
					rhs = append(rhs, r.IntN(nrules))
				} else {
					rhs = append(rhs, -1-r.IntN(len(bruteSets)))
				}
			}
			prods = append(prods, rhs)
		}
		rules = append(rules, prods)
	}
	// Make left and right recursion and unit cycles more common than chance.
	switch i := r.IntN(nrules); r.IntN(5) {
	case 0:
		rules[i][0] = append([]int{i}, rules[i][0]...)
	case 1:
		rules[i][0] = append(rules[i][0], i)
	case 2:
		rules[i] = append(rules[i], []int{r.IntN(nrules)})
	}
	return bruteGrammar(rules)
}

// bruteGrammar builds a pruned grammar from a description as randomGrammar
// makes, with rule 0 as the start rule, or returns nil if rule 0 derives
// nothing.
func bruteGrammar(rules [][][]int) *grammar.Grammar {
	// Productive rules, by fixpoint.
	productive := make([]bool, len(rules))
	for changed := true; changed; {
		changed = false
		for i, prods := range rules {
			for _, rhs := range prods {
				if !productive[i] && !slices.ContainsFunc(rhs, func(s int) bool { return s >= 0 && !productive[s] }) {
					productive[i] = true
					changed = true
				}
			}
		}
	}
	if !productive[0] {
		return nil
	}
	usable := func(rhs []int) bool {
		return !slices.ContainsFunc(rhs, func(s int) bool { return s >= 0 && !productive[s] })
	}
	// Rules reachable from the start through usable productions.
	reachable := make([]bool, len(rules))
	reachable[0] = true
	for stack := []int{0}; len(stack) > 0; {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, rhs := range rules[i] {
			if !usable(rhs) {
				continue
			}
			for _, s := range rhs {
				if s >= 0 && !reachable[s] {
					reachable[s] = true
					stack = append(stack, s)
				}
			}
		}
	}
	g := &grammar.Grammar{}
	ruleIndex := make([]int, len(rules))
	for i := range rules {
		if reachable[i] {
			ruleIndex[i] = len(g.Rules)
			g.Rules = append(g.Rules, grammar.Rule{Name: fmt.Sprintf("R%d", i)})
		}
	}
	termIndex := map[int]int{}
	for i, prods := range rules {
		if !reachable[i] {
			continue
		}
		for _, rhs := range prods {
			if !usable(rhs) {
				continue
			}
			p := grammar.Prod{LHS: ruleIndex[i]}
			for _, s := range rhs {
				if s >= 0 {
					p.RHS = append(p.RHS, grammar.NT(ruleIndex[s]))
					continue
				}
				ti, ok := termIndex[s]
				if !ok {
					var set grammar.ByteSet
					for _, c := range []byte(bruteSets[-s-1]) {
						set.Add(c)
					}
					ti = len(g.Terminals)
					termIndex[s] = ti
					g.Terminals = append(g.Terminals, set)
				}
				p.RHS = append(p.RHS, grammar.T(ti))
			}
			g.Rules[p.LHS].Prods = append(g.Rules[p.LHS].Prods, len(g.Prods))
			g.Prods = append(g.Prods, p)
		}
	}
	return g
}

// checkPruned verifies the compiled-grammar invariants the recognizers rely
// on: every rule has a production, derives some string, and is reachable.
func checkPruned(g *grammar.Grammar) error {
	productive := make([]bool, len(g.Rules))
	for changed := true; changed; {
		changed = false
		for _, p := range g.Prods {
			if !productive[p.LHS] && !slices.ContainsFunc(p.RHS, func(s grammar.Symbol) bool { return !s.IsTerminal() && !productive[s.Rule()] }) {
				productive[p.LHS] = true
				changed = true
			}
		}
	}
	reachable := make([]bool, len(g.Rules))
	reachable[g.Start] = true
	for stack := []int{g.Start}; len(stack) > 0; {
		r := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, pi := range g.Rules[r].Prods {
			for _, s := range g.Prods[pi].RHS {
				if !s.IsTerminal() && !reachable[s.Rule()] {
					reachable[s.Rule()] = true
					stack = append(stack, s.Rule())
				}
			}
		}
	}
	for r, rule := range g.Rules {
		if len(rule.Prods) == 0 || !productive[r] || !reachable[r] {
			return fmt.Errorf("rule %s: %d productions, productive %v, reachable %v", rule.Name, len(rule.Prods), productive[r], reachable[r])
		}
	}
	return nil
}

// randomSentence derives a random sentence of g, or nil if it grows past
// maxLen. Past a depth limit it takes, for each rule, a production that
// leads to a shortest derivation, so that it ends.
func randomSentence(r *rand.Rand, g *grammar.Grammar, maxLen int) []byte {
	// height[x]: the height of a lowest derivation tree of rule x;
	// lowProd[x]: a production achieving it.
	const inf = 1 << 30
	height := make([]int, len(g.Rules))
	lowProd := make([]int, len(g.Rules))
	for i := range height {
		height[i] = inf
	}
	for changed := true; changed; {
		changed = false
		for pi, p := range g.Prods {
			h := 1
			for _, s := range p.RHS {
				if !s.IsTerminal() {
					h = max(h, height[s.Rule()]+1)
				}
			}
			if h < height[p.LHS] {
				height[p.LHS], lowProd[p.LHS] = h, pi
				changed = true
			}
		}
	}
	var out []byte
	var expand func(x, depth int) bool
	expand = func(x, depth int) bool {
		pi := lowProd[x]
		if depth < 6 {
			prods := g.Rules[x].Prods
			pi = prods[r.IntN(len(prods))]
		}
		for _, s := range g.Prods[pi].RHS {
			if s.IsTerminal() {
				set := g.Terminals[s.Terminal()]
				var bs []byte
				for c := range 256 {
					if set.Has(byte(c)) {
						bs = append(bs, byte(c))
					}
				}
				out = append(out, bs[r.IntN(len(bs))])
				if len(out) > maxLen {
					return false
				}
			} else if !expand(s.Rule(), depth+1) {
				return false
			}
		}
		return true
	}
	if !expand(g.Start, 0) {
		return nil
	}
	return out
}

// bruteChecker compares the incremental recognizer and Parse with the brute
// force for one grammar, counting what it compared.
type bruteChecker struct {
	t      testing.TB
	g      *grammar.Grammar
	m      *Machine
	feeds  int // Feed results compared
	parses int // Parse results compared
	failed bool
}

func (c *bruteChecker) errorf(format string, args ...any) {
	c.t.Helper()
	if !c.failed {
		c.t.Errorf("grammar:\n%s%s", c.g, fmt.Sprintf(format, args...))
	}
	c.failed = true
}

// feed feeds b to p, which has consumed prefix, and checks the answers
// against the brute force. It returns the new prefix.
func (c *bruteChecker) feed(p *Parser, prefix []byte, b byte) []byte {
	c.t.Helper()
	w := append(slices.Clip(prefix), b)
	want := bruteViable(c.g, w)
	c.feeds++
	if got := p.Feed(b); got != want {
		c.errorf("after %q: Feed(%q) = %v, want %v", prefix, b, got, want)
	}
	if want {
		prefix = w
	}
	c.checkState(p, prefix)
	return prefix
}

// checkState checks that p has consumed exactly prefix and that Complete
// agrees with the brute force.
func (c *bruteChecker) checkState(p *Parser, prefix []byte) {
	c.t.Helper()
	if p.Len() != len(prefix) {
		c.errorf("after %q: Len() = %d", prefix, p.Len())
	}
	if got, want := p.Complete(), bruteDerives(c.g, prefix).complete(); got != want {
		c.errorf("after %q: Complete() = %v, want %v", prefix, got, want)
	}
}

// parse checks Parse on w against the brute force and validates its tree.
func (c *bruteChecker) parse(w []byte) {
	c.t.Helper()
	c.parses++
	tab := bruteDerives(c.g, w)
	n, err := Parse(c.g, w)
	if (err == nil) != tab.complete() {
		c.errorf("Parse(%q) error = %v, want complete = %v", w, err, tab.complete())
		return
	}
	if err == nil {
		if err := checkTree(c.g, n, w); err != nil {
			c.errorf("Parse(%q): %v\n%s", w, err, n.Format(w))
		}
		return
	}
	// The error names the first offset at which the input stops being
	// viable, or says that all of it is a viable prefix.
	off := len(w)
	for k := 1; k <= len(w); k++ {
		if !bruteViable(c.g, w[:k]) {
			off = k - 1
			break
		}
	}
	want := "incomplete prefix"
	if off < len(w) {
		want = fmt.Sprintf("offset %d ", off)
	}
	if !strings.Contains(err.Error(), want) {
		c.errorf("Parse(%q) error = %v, want one containing %q", w, err, want)
	}
}

// attempts feeds the bytes of try one at a time to a fresh parser; the
// rejected ones are skipped, so the consumed prefix stays viable.
func (c *bruteChecker) attempts(try []byte) {
	p := c.m.NewParser()
	var prefix []byte
	c.checkState(p, prefix)
	for _, b := range try {
		prefix = c.feed(p, prefix, b)
	}
	c.parse(prefix)
	c.parse(try)
}

// exhaustive feeds every string over {a,b,c} up to depth bytes in a depth
// first walk of one parser, moving between them with Checkpoint and Rollback.
func (c *bruteChecker) exhaustive(depth int) {
	p := c.m.NewParser()
	var walk func(prefix []byte)
	walk = func(prefix []byte) {
		for _, b := range []byte("abc") {
			cp := p.Checkpoint()
			next := c.feed(p, prefix, b)
			if len(next) > len(prefix) {
				if len(next) < depth {
					walk(next)
				} else {
					c.parse(next)
				}
			}
			p.Rollback(cp)
			c.checkState(p, prefix)
		}
	}
	walk(nil)
}

// rollbacks interleaves Feed, Checkpoint and Rollback at random and compares
// the parser with a fresh one fed the same bytes.
func (c *bruteChecker) rollbacks(r *rand.Rand, ops int) {
	p := c.m.NewParser()
	type mark struct {
		cp  Checkpoint
		len int
	}
	marks := []mark{{p.Checkpoint(), 0}}
	var prefix []byte
	for range ops {
		switch k := r.IntN(10); {
		case k < 6:
			prefix = c.feed(p, prefix, "abcd"[r.IntN(4)])
		case k < 8:
			marks = append(marks, mark{p.Checkpoint(), len(prefix)})
		default:
			i := r.IntN(len(marks))
			p.Rollback(marks[i].cp)
			prefix = prefix[:marks[i].len]
			marks = marks[:i+1] // later checkpoints are gone with their bytes
		}
		fresh := c.m.NewParser()
		for _, b := range prefix {
			if !fresh.Feed(b) {
				c.errorf("fresh parser rejects %q of accepted prefix %q", b, prefix)
			}
		}
		if p.Len() != fresh.Len() || p.Complete() != fresh.Complete() {
			c.errorf("after rollbacks at %q: Len, Complete = %d, %v; fresh parser: %d, %v", prefix, p.Len(), p.Complete(), fresh.Len(), fresh.Complete())
		}
		c.checkState(p, prefix)
		// The next byte must get the same answer as from the fresh parser.
		b := "abc"[r.IntN(3)]
		cp := p.Checkpoint()
		if got, want := p.Feed(b), fresh.Feed(b); got != want {
			c.errorf("after rollbacks at %q: Feed(%q) = %v, fresh parser says %v", prefix, b, got, want)
		}
		p.Rollback(cp)
		if c.failed {
			return
		}
	}
}

func TestBruteSelfCheck(t *testing.T) {
	// The brute force itself, on cases worked out by hand.
	g := specGrammar(t, `
S ::= S "+" S | "(" S ")" | "a" | E
E ::= E E | ""
`)
	for _, tc := range []struct {
		w                string
		viable, complete bool
	}{
		{"", true, true}, {"a", true, true}, {"(", true, false}, {"()", true, true},
		{"a+", true, true}, {"a+a", true, true}, {")", false, false}, {"a)", false, false},
		{"((a+)", true, false}, {"(a))", false, false}, {"((a+", true, false}, {"++", true, true},
		{"a(", false, false}, {"(a)+(", true, false}, {"(+)", true, true},
	} {
		tab := bruteDerives(g, []byte(tc.w))
		if tab.viable() != tc.viable || tab.complete() != tc.complete {
			t.Errorf("%q: viable, complete = %v, %v; want %v, %v", tc.w, tab.viable(), tab.complete(), tc.viable, tc.complete)
		}
	}
	// A nullable Y after a derived prefix, and prefixes ending inside a
	// production's later symbol.
	g = specGrammar(t, `
S ::= A "x" B
A ::= "a" A | ""
B ::= "by" | "bz" B
`)
	for w, want := range map[string]bool{"": true, "x": true, "aax": true, "aaxb": true, "aaxbz": true,
		"aaxbzby": true, "xa": false, "aaxbb": false, "aaxby": true, "aaxbyb": false} {
		if got := bruteViable(g, []byte(w)); got != want {
			t.Errorf("bruteViable(%q) = %v, want %v", w, got, want)
		}
	}
}

// bruteGrammars is how many random grammars the property tests try.
func bruteGrammars() int {
	if testing.Short() {
		return 200
	}
	return 2000
}

// prunedGrammar returns the next grammar randomGrammar makes, failing
// the test if it is not pruned.
func prunedGrammar(t *testing.T, r *rand.Rand) *grammar.Grammar {
	for {
		if g := randomGrammar(r); g != nil {
			if err := checkPruned(g); err != nil {
				t.Fatalf("generator made an unpruned grammar: %v\n%s", err, g)
			}
			return g
		}
	}
}

// randomWord returns up to 8 bytes drawn from alphabet.
func randomWord(r *rand.Rand, alphabet string) []byte {
	w := make([]byte, r.IntN(9))
	for i := range w {
		w[i] = alphabet[r.IntN(len(alphabet))]
	}
	return w
}

func TestParseMatchesBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	grammars, parses := 0, 0
	for grammars < bruteGrammars() {
		g := prunedGrammar(t, r)
		grammars++
		c := &bruteChecker{t: t, g: g}
		for range 10 {
			c.parse(randomWord(r, "abc"))
		}
		for range 5 {
			if w := randomSentence(r, g, 10); w != nil {
				c.parse(w)
			}
		}
		parses += c.parses
		if c.failed {
			return
		}
	}
	t.Logf("%d grammars, %d Parse calls compared", grammars, parses)
}

func TestIncrementalMatchesBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	grammars, feeds, parses, exhaustive := 0, 0, 0, 0
	for grammars < bruteGrammars() {
		g := prunedGrammar(t, r)
		grammars++
		c := &bruteChecker{t: t, g: g, m: New(g)}
		for range 8 {
			c.attempts(randomWord(r, "abcd"))
		}
		for range 4 {
			if w := randomSentence(r, g, 10); w != nil {
				c.attempts(w)
				// A sentence must be accepted byte by byte and complete.
				p := c.m.NewParser()
				if !p.FeedBytes(w) || !p.Complete() {
					c.errorf("sentence %q: not accepted as complete", w)
				}
			}
		}
		if grammars%4 == 0 {
			c.exhaustive(4)
			exhaustive++
		}
		c.rollbacks(r, 30)
		feeds += c.feeds
		parses += c.parses
		if c.failed {
			return
		}
	}
	t.Logf("%d grammars (%d walked exhaustively to depth 4), %d Feed and %d Parse results compared", grammars, exhaustive, feeds, parses)
}

// FuzzIncremental decodes a grammar and an input from the fuzz bytes and
// compares the recognizer and Parse with the brute force on it.
func FuzzIncremental(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0}, []byte("a"))
	f.Add([]byte{3, 2, 3, 0, 5, 2, 17, 1, 1, 4, 2, 9, 6, 1, 0}, []byte("abcab"))
	f.Add([]byte{1, 1, 2, 0, 2, 2, 1, 3, 1, 5, 0, 0}, []byte("aabbcc"))
	f.Add([]byte{2, 2, 1, 1, 0, 2, 3, 6, 1, 8, 2}, []byte("cbacba"))
	f.Fuzz(func(t *testing.T, desc, input []byte) {
		g := decodeGrammar(desc)
		if g == nil {
			return
		}
		if len(input) > 10 {
			input = input[:10]
		}
		for i := range input {
			input[i] = "abcd"[input[i]%4]
		}
		c := &bruteChecker{t: t, g: g, m: New(g)}
		c.attempts(input)
		c.rollbacks(rand.New(rand.NewPCG(uint64(len(desc)), uint64(len(input)))), 10)
	})
}

// decodeGrammar reads a small grammar from bytes: the rule count, then per
// rule a production count and per production a length and symbols. Missing
// bytes read as zero.
func decodeGrammar(desc []byte) *grammar.Grammar {
	next := func() int {
		if len(desc) == 0 {
			return 0
		}
		b := int(desc[0])
		desc = desc[1:]
		return b
	}
	nrules := 1 + next()%4
	rules := make([][][]int, nrules)
	for i := range rules {
		for range 1 + next()%3 {
			rhs := []int{}
			for range next() % 4 {
				s := next()
				if s&1 == 1 {
					rhs = append(rhs, (s>>1)%nrules)
				} else {
					rhs = append(rhs, -1-(s>>1)%len(bruteSets))
				}
			}
			rules[i] = append(rules[i], rhs)
		}
	}
	return bruteGrammar(rules)
}

// TestParseMatchesMachine compares Parse and the incremental recognizer, two
// independent Earley implementations, on realistic grammars and inputs too
// long for the brute force: sampled sentences and mutations of them.
func TestParseMatchesMachine(t *testing.T) {
	files, _ := filepath.Glob("../grammar/testdata/*.gbnf")
	srcs := map[string]string{
		"inline": `root ::= (pair ";")* expr?
pair ::= [a-z]+ "=" expr
expr ::= term (("+" | "-") term)*
term ::= [0-9]+ | "(" expr ")" | [a-z]+ | "-" term`,
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs[filepath.Base(f)] = string(src)
	}
	r := rand.New(rand.NewPCG(5, 6))
	sentences, mutants, bytes := 0, 0, 0
	for _, name := range slices.Sorted(maps.Keys(srcs)) {
		g, _, err := grammar.Compile(name, []byte(srcs[name]), grammar.Options{})
		if err != nil {
			continue // bad.gbnf and the like
		}
		m := New(g)
		var inputs [][]byte
		if txt, err := os.ReadFile(strings.TrimSuffix(filepath.Join("../grammar/testdata", name), ".gbnf") + ".txt"); err == nil {
			inputs = append(inputs, txt)
		}
		for range 40 {
			if w := grammar.Sample(g, r, 8); len(w) <= 4096 {
				inputs = append(inputs, w)
			}
		}
		for _, w := range inputs {
			sentences++
			bytes += len(w)
			n, err := Parse(g, w)
			if err != nil {
				t.Fatalf("%s: Parse(%q): %v", name, w, err)
			}
			if err := checkTree(g, n, w); err != nil {
				t.Fatalf("%s: Parse(%q): %v", name, w, err)
			}
			if p := m.NewParser(); !p.FeedBytes(w) || !p.Complete() {
				t.Fatalf("%s: Machine does not accept sentence %q", name, w)
			}
			for range 5 {
				mutants++
				v := slices.Clone(w)
				switch k := r.IntN(len(v) + 1); r.IntN(3) {
				case 0:
					v = v[:k]
				case 1:
					v = slices.Insert(v, k, byte(r.IntN(128)))
				default:
					if k < len(v) {
						v[k] = byte(r.IntN(128))
					}
				}
				// The Machine's verdict: "" for a sentence, else what
				// Parse's error must say.
				want := ""
				p := m.NewParser()
				if !p.FeedBytes(v) {
					for i := range v {
						if !p.Feed(v[i]) {
							want = fmt.Sprintf("offset %d ", i)
							break
						}
					}
				} else if !p.Complete() {
					want = "incomplete prefix"
				}
				_, err := Parse(g, v)
				if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
					t.Errorf("%s: Parse(%q) error = %v; Machine says %q", name, v, err, want)
				}
			}
		}
	}
	t.Logf("%d sentences (%d bytes) and %d mutants compared", sentences, bytes, mutants)
}
