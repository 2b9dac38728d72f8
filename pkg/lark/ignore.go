package lark

import (
	"fmt"

	"github.com/gasplab/gasp/pkg/grammar"
)

// Ignored terminals (%ignore), matched as Lark's Earley parser matches
// them: at a position between tokens, each ignored terminal is matched
// once, by Python's re.match, that is greedily, and parsing goes on where
// that match ends. The grammar derives the ignored terminals zero or more
// times before every token and after the start rule, and makes each match
// greedy by what it lets follow: a match that stops where a longer one
// was possible must not be followed by the character that extends it.
//
// That takes one character of lookahead when, after every complete match,
// a character that can begin what follows either extends the match to a
// complete longer one at once (whitespace after WS, anything but a newline
// after a # comment) or cannot extend it at all, and these characters are
// the same after every complete match. The ignored terminal's restriction
// is then that set (R below); the grammar is refused otherwise.
//
// The matches before a token form a regular language over the ignored
// terminals, tracked by a small automaton whose state is the restriction
// of the last match (0: none): a match that follows state s is restricted
// to strings not beginning with a character of R_s, and so is the token.
// Rule lark-ignore-S-T derives the matches that lead from state S to state
// T; lark-ignore derives the matches from state 0 to any state, and is the
// whole story when no token can begin with a restricted character.

// ignoreSet is the compiled form of a grammar's %ignore declarations.
type ignoreSet struct {
	items    []node
	class    []int     // by item: the index of its restriction in restrict
	restrict []runeSet // restrict[0] is empty
	live     [][]bool  // live[s][t]: lark-ignore-s-t derives some string
	memo     map[string]string
}

func ignoreRule(s, t int) string { return fmt.Sprintf("lark-ignore-%d-%d", s, t) }

// setupIgnore classifies the ignored terminals and emits the rules of the
// automaton; it must run before the rules are lowered.
func (c *compiler) setupIgnore(f *file) {
	ig := &ignoreSet{restrict: []runeSet{nil}, memo: map[string]string{}}
	var exprs []grammar.Expr
	for _, x := range f.ignores {
		if e := c.token(x, "%ignore"); e != nil {
			ig.items = append(ig.items, x)
			exprs = append(exprs, e)
		}
	}
	if len(ig.items) == 0 {
		return
	}
	follow := c.followers(f, ig.items)
	for _, x := range ig.items {
		ig.class = append(ig.class, ig.classOf(c.restriction(x, follow)))
	}
	if err := c.errs.Err(); err != nil {
		return
	}
	c.ign = ig
	// Items as they may follow state s: rule lark-ignore-item-K-S.
	n := len(ig.restrict)
	item := make([][]string, len(ig.items))
	for k, x := range ig.items {
		item[k] = make([]string, n)
		for s := range n {
			var e grammar.Expr
			if s == 0 {
				e = exprs[k]
			} else {
				e = c.firstNotIn(x, ig.restrict[s])
			}
			if e != nil {
				item[k][s] = fmt.Sprintf("lark-ignore-item-%d-%d", k, s)
				c.rules = append(c.rules, &grammar.RuleDef{Name: item[k][s], NamePos: x.pos(), Body: e})
			}
		}
	}
	ig.live = ig.liveRules(item)
	p := ig.items[0].pos()
	for s := range n {
		for t := range n {
			if !ig.live[s][t] {
				continue
			}
			var alts []grammar.Expr
			if s == t {
				alts = append(alts, &grammar.Seq{Start: p})
			}
			for k := range ig.items {
				if next := ig.class[k]; item[k][s] != "" && ig.live[next][t] {
					alts = append(alts, seq(p, []grammar.Expr{ref(p, item[k][s]), ref(p, ignoreRule(next, t))}))
				}
			}
			c.rules = append(c.rules, &grammar.RuleDef{Name: ignoreRule(s, t), NamePos: p, Body: alt(alts)})
		}
	}
	var all []grammar.Expr
	for t := range n {
		if ig.live[0][t] {
			all = append(all, ref(p, ignoreRule(0, t)))
		}
	}
	c.rules = append(c.rules, &grammar.RuleDef{Name: ignoreAll, NamePos: p, Body: alt(all)})
}

// liveRules computes which rules lark-ignore-S-T derive a string, as a
// least fixed point.
func (ig *ignoreSet) liveRules(item [][]string) [][]bool {
	n := len(ig.restrict)
	live := make([][]bool, n)
	for s := range live {
		live[s] = make([]bool, n)
		live[s][s] = true
	}
	for changed := true; changed; {
		changed = false
		for s := range n {
			for t := range n {
				for k := range ig.items {
					if !live[s][t] && item[k][s] != "" && live[ig.class[k]][t] {
						live[s][t], changed = true, true
					}
				}
			}
		}
	}
	return live
}

// classOf returns the index of the restriction r, adding it if new.
func (ig *ignoreSet) classOf(r runeSet) int {
	if len(r) == 0 {
		return 0
	}
	for i, q := range ig.restrict {
		if i > 0 && q.equal(r) {
			return i
		}
	}
	ig.restrict = append(ig.restrict, r)
	return len(ig.restrict) - 1
}

// followers returns the characters that can begin what follows an ignored
// terminal: a token of a rule or an ignored terminal.
func (c *compiler) followers(f *file, items []node) runeSet {
	var s runeSet
	add := func(x node) {
		first, _ := c.charSets(x, map[string]bool{})
		s = append(s, first...)
	}
	for _, x := range items {
		add(x)
	}
	var walk func(x node)
	walk = func(x node) {
		switch x := x.(type) {
		case *altNode:
			for _, y := range x.xs {
				walk(y)
			}
		case *seqNode:
			for _, y := range x.xs {
				walk(y)
			}
		case *repNode:
			walk(x.x)
		case *nameNode:
			if isTerminalName(x.name) {
				add(x)
			}
		case *litNode:
			if x.s != "" {
				add(x)
			}
		case *reNode, *rangeNode:
			add(x)
		}
	}
	for _, d := range f.defs {
		if !isTerminalName(d.name) {
			walk(d.body)
		}
	}
	return s.normal()
}

// restriction returns the characters that, among those in follow, must not
// follow a match of the ignored terminal x (see the comment at the top),
// or reports why there is no such set.
func (c *compiler) restriction(x node, follow runeSet) runeSet {
	ss, ok := c.stops(x)
	if !ok {
		if _, chars := c.charSets(x, map[string]bool{}); chars.intersects(follow) {
			c.errs.Addf(x.pos(), "%s is too large to analyse where Lark's greedy match of it stops", describe(x))
		}
		return nil
	}
	var r runeSet
	for i, s := range ss {
		if mid := s.mid.and(follow); len(mid) > 0 {
			c.errs.Addf(x.pos(), "after some match of %s (ignored), %q can begin a longer match that needs more characters still, and a token or ignored terminal can begin with it: whether Lark's greedy match goes on depends on more than the next character, which this front end cannot express (see the package doc)",
				describe(x), mid[0].Lo)
			return nil
		}
		acc := s.acc.and(follow)
		if i > 0 && !acc.equal(r) {
			c.errs.Addf(x.pos(), "the characters that extend a match of %s (ignored) and can begin a token or ignored terminal depend on the match, which this front end cannot express (see the package doc)", describe(x))
			return nil
		}
		r = acc
	}
	return r
}

// firstNotIn returns the terminal x restricted to strings that do not
// begin with a character of r (x itself when none does), or nil.
func (c *compiler) firstNotIn(x node, r runeSet) grammar.Expr {
	if first, _ := c.charSets(x, map[string]bool{}); !first.intersects(r) {
		return c.lower(x, true)
	}
	return c.restricted(x, r)
}

// before returns the token x, lowered to e, preceded by the ignored
// terminals that may come before it.
func (c *compiler) before(x node, e grammar.Expr) grammar.Expr {
	ig, p := c.ign, e.Pos()
	first, _ := c.charSets(x, map[string]bool{})
	var bad []int
	for t := 1; t < len(ig.restrict); t++ {
		if ig.live[0][t] && first.intersects(ig.restrict[t]) {
			bad = append(bad, t)
		}
	}
	if len(bad) == 0 {
		return seq(p, []grammar.Expr{ref(p, ignoreAll), e})
	}
	tok := fmt.Sprintf("lark-token-%d", len(c.rules))
	c.rules = append(c.rules, &grammar.RuleDef{Name: tok, NamePos: p, Body: e})
	var alts []grammar.Expr
	for t := range ig.restrict {
		if !ig.live[0][t] {
			continue
		}
		var te grammar.Expr = ref(p, tok)
		if first.intersects(ig.restrict[t]) {
			if te = c.restrictedToken(x, t); te == nil {
				continue
			}
		}
		alts = append(alts, seq(p, []grammar.Expr{ref(p, ignoreRule(0, t)), te}))
	}
	return alt(alts)
}

// restrictedToken returns x restricted by the restriction t, as a rule
// shared by the uses of a named terminal; nil when no string is left.
func (c *compiler) restrictedToken(x node, t int) grammar.Expr {
	ig := c.ign
	key := ""
	if n, ok := x.(*nameNode); ok {
		key = fmt.Sprintf("%s/%d", n.name, t)
		if name, ok := ig.memo[key]; ok {
			if name == "" {
				return nil
			}
			return ref(x.pos(), name)
		}
	}
	e := c.restricted(x, ig.restrict[t])
	name := ""
	if e != nil {
		name = fmt.Sprintf("lark-first-%d-%d", t, len(c.rules))
		c.rules = append(c.rules, &grammar.RuleDef{Name: name, NamePos: x.pos(), Body: e})
	}
	if key != "" {
		ig.memo[key] = name
	}
	if e == nil {
		return nil
	}
	return ref(x.pos(), name)
}

func ref(p grammar.Pos, name string) grammar.Expr { return &grammar.Ref{NamePos: p, Name: name} }
