package grammar

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gasplab/gasp/pkg/infile"
)

// Options control Compile.
type Options struct {
	Start   string // start rule name; "" means "root"
	Lenient bool   // undefined rule references become rules with no alternatives (pruned), with a warning each, instead of errors
}

// Compile parses GBNF source and compiles it. warnings holds non-fatal
// problems (pruned rules/alternatives, unreachable rules, lenient undefined
// refs). err is an ErrorList (sorted, file:line:col) when there are errors;
// then g is nil.
func Compile(filename string, src []byte, opts Options) (g *Grammar, warnings ErrorList, err error) {
	f, errs := Parse(filename, src)
	if len(errs) > 0 {
		return nil, nil, errs
	}
	return compileFile(f, opts)
}

// MaxSourceBytes bounds a grammar file: the largest in the repository has
// a few KB, and a grammar of /dev/zero would never end.
const MaxSourceBytes = 16 << 20

// CompileFile reads and compiles the grammar file at path, a regular file
// of at most MaxSourceBytes.
func CompileFile(path string, opts Options) (*Grammar, ErrorList, error) {
	src, err := infile.Read(path, MaxSourceBytes)
	if err != nil {
		return nil, nil, fmt.Errorf("grammar: %w", err) // *infile.Error names the path
	}
	return Compile(path, src, opts)
}

// compiler lowers a syntax tree to a Grammar. It first builds an unpruned
// grammar in which a lenient undefined rule is a rule without productions,
// then prunes it.
type compiler struct {
	file  *File
	opts  Options
	errs  ErrorList
	warns ErrorList

	g        Grammar
	prodPos  []Pos          // position of each production's alternative, for warnings
	userRule map[string]int // user-written (and lenient placeholder) rules by name
	names    map[string]bool
	undef    map[string]bool // lenient placeholders
	terms    map[ByteSet]int
	classes  map[string]Symbol // multi-alternative class rules, by their ranges
	links    map[[2]int]Symbol // the links O_j of bounded repetitions, by item and j (see repeat)
	counter  map[int]int       // per parent rule, for generated names
	size     int               // RHS symbols plus productions so far
}

// CompileSyntax compiles a syntax tree that a front end built (the regular
// expression and JSON Schema packages do, instead of printing GBNF and
// parsing it again). The tree must be free of *BadExpr; positions in it are
// those the front end wants its errors to carry. Results are as Compile's.
func CompileSyntax(f *File, opts Options) (*Grammar, ErrorList, error) {
	return compileFile(f, opts)
}

func compileFile(f *File, opts Options) (*Grammar, ErrorList, error) {
	if opts.Start == "" {
		opts.Start = "root"
	}
	c := &compiler{
		file:     f,
		opts:     opts,
		userRule: map[string]int{},
		names:    map[string]bool{},
		undef:    map[string]bool{},
		terms:    map[ByteSet]int{},
		classes:  map[string]Symbol{},
		links:    map[[2]int]Symbol{},
		counter:  map[int]int{},
	}
	c.declare()
	if len(c.errs) > 0 {
		return nil, nil, limitErrors(c.errs)
	}
	c.presize()
	if !c.lower() {
		return nil, nil, limitErrors(c.errs)
	}
	g := c.prune()
	c.warns.Sort()
	if len(c.errs) > 0 {
		return nil, c.warns, limitErrors(c.errs)
	}
	return g, c.warns, nil
}

// tooLarge is panicked by addProd (and recovered by lower) when the grammar
// outgrows maxSize.
type tooLarge struct{}

// lower builds the productions of every user rule, and of the rules
// generated for their expressions. It reports false if the result would be
// too large.
func (c *compiler) lower() (ok bool) {
	i := 0
	defer func() {
		if r := recover(); r != nil {
			if _, big := r.(tooLarge); !big {
				panic(r)
			}
			c.errs.Addf(c.file.Rules[i].NamePos, "grammar too large: more than %d symbols after expanding repetitions", maxSize)
			ok = false
		}
	}()
	for ; i < len(c.file.Rules); i++ {
		for _, a := range c.alts(c.file.Rules[i].Body, i) {
			c.addProd(i, a)
		}
	}
	return true
}

// presize makes room for about as many rules and productions as lowering
// will make: a front end's tree (a JSON schema's) may lower to 10^5 rules,
// and growing the slices by appending copied them several times over.
func (c *compiler) presize() {
	rules, prods := 0, len(c.file.Rules)
	for _, r := range c.file.Rules {
		walk(r.Body, func(x Expr) {
			switch x := x.(type) {
			case *Alt:
				rules, prods = rules+1, prods+len(x.Alts)
			case *Group, *Class, *AnyChar:
				rules, prods = rules+1, prods+2
			case *Repeat:
				rules, prods = rules+2, prods+3
				if x.Max > x.Min {
					rules, prods = rules+x.Max-x.Min, prods+2*(x.Max-x.Min)
				}
			}
		})
	}
	// More than maxSize is an error that lowering reports.
	rules, prods = min(rules, maxSize), min(prods, maxSize)
	c.g.Rules = slices.Grow(c.g.Rules, rules)
	c.g.Prods = slices.Grow(c.g.Prods, prods)
	c.prodPos = slices.Grow(c.prodPos, prods)
}

// declare creates the user rules, in source order, and checks names:
// duplicates, undefined references, the start rule, empty classes.
func (c *compiler) declare() {
	for _, r := range c.file.Rules {
		if i, dup := c.userRule[r.Name]; dup {
			c.errs.Addf(r.NamePos, "duplicate definition of rule %s (first defined at %d:%d)",
				r.Name, c.g.Rules[i].Pos.Line, c.g.Rules[i].Pos.Col)
			continue
		}
		c.userRule[r.Name] = len(c.g.Rules)
		c.names[r.Name] = true
		c.g.Rules = append(c.g.Rules, Rule{Name: r.Name, Pos: r.NamePos, Generated: r.Generated, Universal: r.Universal, Regex: r.Regex})
	}
	if _, ok := c.userRule[c.opts.Start]; !ok {
		pos := Pos{Filename: c.file.Filename, Line: 1, Col: 1}
		c.errs.Addf(pos, "start rule %s is not defined", c.opts.Start)
	}
	reported := map[string]bool{}
	for _, r := range c.file.Rules {
		walk(r.Body, func(x Expr) {
			switch x := x.(type) {
			case *Ref:
				if _, ok := c.userRule[x.Name]; ok || reported[x.Name] {
					return
				}
				reported[x.Name] = true // once per name, at its first use
				c.names[x.Name] = true  // no generated rule takes the name
				if c.opts.Lenient {
					c.warns.Addf(x.NamePos, "undefined rule %s (treated as a rule with no alternatives)", x.Name)
				} else {
					c.errs.Addf(x.NamePos, "undefined rule %s", x.Name)
				}
			case *Class:
				if len(normalizeRanges(x.Ranges, x.Negate)) == 0 {
					c.errs.Addf(x.Lbrack, "character class matches no character")
				}
			}
		})
	}
}

// walk calls f for x and every expression inside it, in source order.
func walk(x Expr, f func(Expr)) {
	f(x)
	switch x := x.(type) {
	case *Alt:
		for _, y := range x.Alts {
			walk(y, f)
		}
	case *Seq:
		for _, y := range x.Items {
			walk(y, f)
		}
	case *Group:
		walk(x.X, f)
	case *Repeat:
		walk(x.X, f)
	}
}

// alt is one lowered alternative.
type alt struct {
	pos  Pos
	syms []Symbol
}

func (c *compiler) addProd(rule int, a alt) {
	if c.size += len(a.syms) + 1; c.size > maxSize {
		panic(tooLarge{})
	}
	c.g.Rules[rule].Prods = append(c.g.Rules[rule].Prods, len(c.g.Prods))
	c.g.Prods = append(c.g.Prods, Prod{LHS: rule, RHS: a.syms})
	c.prodPos = append(c.prodPos, a.pos)
}

// newRule adds a generated rule named after the user rule it comes from.
func (c *compiler) newRule(parent int, kind string, pos Pos) int {
	base := c.g.Rules[parent].Name
	var name string
	for {
		c.counter[parent]++
		name = fmt.Sprintf("%s_%s_%d", base, kind, c.counter[parent])
		if !c.names[name] {
			break
		}
	}
	c.names[name] = true
	// No Universal: a class's rule is shared by every use of the class;
	// nor Regex for it, whose hints are for rules longer than a character.
	regex := c.g.Rules[parent].Regex && kind != "class"
	c.g.Rules = append(c.g.Rules, Rule{Name: name, Pos: pos, Generated: true, Regex: regex})
	return len(c.g.Rules) - 1
}

// alts lowers x to a list of alternatives; parent is the user rule x is in.
func (c *compiler) alts(x Expr, parent int) []alt {
	switch x := x.(type) {
	case *Alt:
		out := make([]alt, len(x.Alts))
		for i, y := range x.Alts {
			out[i] = alt{y.Pos(), c.seq(y, parent, nil)}
		}
		return out
	case *Group:
		return c.alts(x.X, parent)
	}
	return []alt{{x.Pos(), c.seq(x, parent, nil)}}
}

// ruleFor makes alternatives into a symbol: a generated rule, unless there is
// a single alternative of a single symbol.
func (c *compiler) ruleFor(as []alt, parent int, kind string, pos Pos) Symbol {
	if len(as) == 1 && len(as[0].syms) == 1 {
		return as[0].syms[0]
	}
	r := c.newRule(parent, kind, pos)
	for _, a := range as {
		c.addProd(r, a)
	}
	return NT(r)
}

func (c *compiler) terminal(s ByteSet) Symbol {
	i, ok := c.terms[s]
	if !ok {
		i = len(c.g.Terminals)
		c.terms[s] = i
		c.g.Terminals = append(c.g.Terminals, s)
	}
	return T(i)
}

// seq appends the symbols of x, used as an item of a sequence, to out.
func (c *compiler) seq(x Expr, parent int, out []Symbol) []Symbol {
	switch x := x.(type) {
	case *Seq:
		for _, y := range x.Items {
			out = c.seq(y, parent, out)
		}
	case *Lit:
		for i := 0; i < len(x.Value); i++ {
			var s ByteSet
			s.Add(x.Value[i])
			out = append(out, c.terminal(s))
		}
	case *Ref:
		i, ok := c.userRule[x.Name]
		if !ok { // lenient: a placeholder without productions
			i = len(c.g.Rules)
			c.userRule[x.Name] = i
			c.undef[x.Name] = true
			c.g.Rules = append(c.g.Rules, Rule{Name: x.Name, Pos: x.NamePos})
		}
		out = append(out, NT(i))
	case *Class:
		out = c.class(normalizeRanges(x.Ranges, x.Negate), parent, x.Lbrack, out)
	case *AnyChar:
		out = c.class(anyRanges, parent, x.Dot, out)
	case *Group, *Alt:
		as := c.alts(x, parent)
		if len(as) == 1 {
			return append(out, as[0].syms...)
		}
		out = append(out, c.ruleFor(as, parent, "group", x.Pos()))
	case *Repeat:
		out = c.repeat(x, parent, out)
	default:
		panic(fmt.Sprintf("grammar: unexpected %T in compile", x)) // Parse errors stop Compile before this
	}
	return out
}

// class appends the byte-level form of a set of scalar values: one terminal
// if it is all ASCII, the terminals of the one sequence if it is a single
// byte-range sequence, otherwise a (shared) generated rule whose alternatives
// are the ASCII terminal and the multi-byte sequences.
func (c *compiler) class(rs []RuneRange, parent int, pos Pos, out []Symbol) []Symbol {
	ascii, seqs := utf8Sequences(rs)
	var as []alt
	if ascii.Len() > 0 {
		as = append(as, alt{pos, []Symbol{c.terminal(ascii)}})
	}
	for _, sq := range seqs {
		syms := make([]Symbol, len(sq))
		for i, br := range sq {
			var s ByteSet
			s.AddRange(br.lo, br.hi)
			syms[i] = c.terminal(s)
		}
		as = append(as, alt{pos, syms})
	}
	if len(as) == 1 {
		return append(out, as[0].syms...)
	}
	var key strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&key, "%x-%x,", r.Lo, r.Hi)
	}
	s, ok := c.classes[key.String()]
	if !ok {
		s = c.ruleFor(as, parent, "class", pos)
		c.classes[key.String()] = s
	}
	return append(out, s)
}

// repeat appends the lowering of a repetition. Loops are left-recursive.
func (c *compiler) repeat(x *Repeat, parent int, out []Symbol) []Symbol {
	as := c.alts(x.X, parent)
	if len(as) == 1 && len(as[0].syms) == 0 {
		return out // a repetition of ε is ε
	}
	if x.Max == 0 {
		return out
	}
	if c.size+len(out)+x.Min > maxSize {
		panic(tooLarge{}) // before copying X min times into one production
	}
	pos := x.Pos()
	item := c.ruleFor(as, parent, "group", pos)
	star := func(kind string, min int) Symbol { // H ::= H item | item^min
		h := c.newRule(parent, kind, pos)
		c.addProd(h, alt{pos, []Symbol{NT(h), item}})
		base := []Symbol{}
		if min == 1 {
			base = []Symbol{item}
		}
		c.addProd(h, alt{pos, base})
		return NT(h)
	}
	switch {
	case x.Min == 0 && x.Max < 0:
		return append(out, star("star", 0))
	case x.Min == 1 && x.Max < 0:
		return append(out, star("plus", 1))
	case x.Max < 0:
		// X{m,} = X{m-1} X+: the same language, without an ε rule.
		for i := 0; i < x.Min-1; i++ {
			out = append(out, item)
		}
		return append(out, star("plus", 1))
	}
	for i := 0; i < x.Min; i++ {
		out = append(out, item)
	}
	// Up to k = max-min more: O_1 ::= item | ε, O_j ::= item O_(j-1) | ε.
	// Right-nested, so that an Earley parser predicts O_(j-1) only after
	// an item has been read (presize made room for the rules). O_j is one
	// rule for every repetition of the item: a JSON string of maxLength
	// 200 and one of 300 share their links, and far from their bounds
	// their positions are alike (earley.Machine.RoomKey).
	kind := "rep"
	if x.Min == 0 && x.Max == 1 {
		kind = "opt"
	}
	var prev Symbol
	for j := 1; j <= x.Max-x.Min; j++ {
		key := [2]int{int(item), j}
		if o, ok := c.links[key]; ok {
			prev = o
			continue
		}
		o := c.newRule(parent, kind, pos)
		if j == 1 {
			c.addProd(o, alt{pos, []Symbol{item}})
		} else {
			c.addProd(o, alt{pos, []Symbol{item, prev}})
		}
		c.addProd(o, alt{pos, nil})
		prev = NT(o)
		c.links[key] = prev
	}
	if x.Max > x.Min {
		out = append(out, prev)
	}
	return out
}

// prune removes what derives no finite string and what the start rule does
// not reach, renumbering rules, productions and terminals in their original
// order.
func (c *compiler) prune() *Grammar {
	g := &c.g
	start := c.userRule[c.opts.Start]
	productive := g.productive()
	if !productive[start] {
		c.errs.Addf(g.Rules[start].Pos, "empty language: start rule %s derives no finite string", g.Rules[start].Name)
		return nil
	}
	keep := make([]bool, len(g.Prods))
	for i, r := range g.Rules {
		if !productive[i] {
			if !r.Generated && !c.undef[r.Name] {
				c.warns.Addf(r.Pos, "rule %s derives no finite string; removed", r.Name)
			}
			continue
		}
		for _, p := range r.Prods {
			keep[p] = true
			for _, s := range g.Prods[p].RHS {
				if !s.IsTerminal() && !productive[s.Rule()] {
					keep[p] = false
				}
			}
			if !keep[p] {
				c.warns.Addf(c.prodPos[p], "alternative of rule %s derives no finite string; removed", r.Name)
			}
		}
	}
	reach := g.reachable(start, keep)
	ruleMap := make([]int, len(g.Rules))
	// Sized ahead: a JSON schema's maxLength makes grammars of 10⁵ rules,
	// which growing by appends copies over and over.
	nRules, nProds, nSyms := 0, 0, 0
	for i, r := range g.Rules {
		if productive[i] && reach[i] {
			nRules++
			for _, p := range r.Prods {
				if keep[p] {
					nProds++
					nSyms += len(g.Prods[p].RHS)
				}
			}
		}
	}
	out := &Grammar{Rules: make([]Rule, 0, nRules), Prods: make([]Prod, 0, nProds)}
	syms := make([]Symbol, nSyms) // the productions' right-hand sides, carved in order
	for i, r := range g.Rules {
		ruleMap[i] = -1
		if productive[i] && !reach[i] && !r.Generated {
			c.warns.Addf(r.Pos, "rule %s is unreachable from %s; removed", r.Name, c.opts.Start)
		}
		if productive[i] && reach[i] {
			ruleMap[i] = len(out.Rules)
			out.Rules = append(out.Rules, Rule{Name: r.Name, Pos: r.Pos, Generated: r.Generated, Universal: r.Universal, Regex: r.Regex})
		}
	}
	termMap := make([]int, len(g.Terminals))
	for i := range termMap {
		termMap[i] = -1
	}
	for i, r := range g.Rules {
		if ruleMap[i] < 0 {
			continue
		}
		nr := &out.Rules[ruleMap[i]]
		for _, p := range r.Prods {
			if !keep[p] {
				continue
			}
			rhs := syms[:len(g.Prods[p].RHS):len(g.Prods[p].RHS)]
			syms = syms[len(rhs):]
			for k, s := range g.Prods[p].RHS {
				if s.IsTerminal() {
					t := s.Terminal()
					if termMap[t] < 0 {
						termMap[t] = len(out.Terminals)
						out.Terminals = append(out.Terminals, g.Terminals[t])
					}
					rhs[k] = T(termMap[t])
				} else {
					rhs[k] = NT(ruleMap[s.Rule()])
				}
			}
			nr.Prods = append(nr.Prods, len(out.Prods))
			out.Prods = append(out.Prods, Prod{LHS: ruleMap[i], RHS: rhs})
		}
	}
	out.Start = ruleMap[start]
	return out
}

// productive reports for each rule whether it derives some finite string
// (terminals are assumed non-empty). Linear time: each production counts
// its nonterminal occurrences not yet known to be productive.
func (g *Grammar) productive() []bool {
	prod := make([]bool, len(g.Rules))
	pending := make([]int, len(g.Prods))
	uses := make([][]int, len(g.Rules)) // productions, once per occurrence
	var queue []int
	for p, pr := range g.Prods {
		for _, s := range pr.RHS {
			if !s.IsTerminal() && s.Rule() >= 0 && s.Rule() < len(g.Rules) {
				pending[p]++
				uses[s.Rule()] = append(uses[s.Rule()], p)
			}
		}
	}
	mark := func(p int) {
		if l := g.Prods[p].LHS; l >= 0 && l < len(g.Rules) && !prod[l] {
			prod[l] = true
			queue = append(queue, l)
		}
	}
	for p := range g.Prods {
		if pending[p] == 0 {
			mark(p)
		}
	}
	for len(queue) > 0 {
		r := queue[0]
		queue = queue[1:]
		for _, p := range uses[r] {
			if pending[p]--; pending[p] == 0 {
				mark(p)
			}
		}
	}
	return prod
}

// reachable reports which rules the start rule reaches through the
// productions for which keep is true (all if keep is nil).
func (g *Grammar) reachable(start int, keep []bool) []bool {
	seen := make([]bool, len(g.Rules))
	seen[start] = true
	stack := []int{start}
	for len(stack) > 0 {
		r := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, p := range g.Rules[r].Prods {
			if keep != nil && !keep[p] {
				continue
			}
			for _, s := range g.Prods[p].RHS {
				if !s.IsTerminal() && !seen[s.Rule()] {
					seen[s.Rule()] = true
					stack = append(stack, s.Rule())
				}
			}
		}
	}
	return seen
}
