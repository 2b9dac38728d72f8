package earley

import (
	"slices"

	"github.com/gasplab/gasp/pkg/grammar"
)

// Universal returns the statement u (grammar.Universal) that a front end
// made of the rules of s's scan items, where s is at a point of which it
// speaks: every scan item of s is in a rule of u, all of them have one
// origin (they read one derivation), and together they scan every byte
// of u.Bytes. Then every string over u.Bytes is viable from s (and, with
// u.Wide, every string of them and of valid multi-byte UTF-8 characters).
func (m *Machine) Universal(s State) (u *grammar.Universal, ok bool) {
	st := m.states.at(s)
	if len(st.scan) == 0 {
		return nil, false
	}
	origin := int32(s)
	for i, it := range st.scan {
		o := it.origin
		switch o {
		case opaque:
			return nil, false
		case self:
			o = int32(s)
		}
		r := m.g.Rules[m.lrLHS[it.lr]].Universal
		if r == nil || i > 0 && (r != u || o != origin) {
			return nil, false
		}
		u, origin = r, o
	}
	for b := range 256 {
		if u.Bytes.Has(byte(b)) && !st.scanClasses.Has(m.classOf[b]) {
			return nil, false
		}
	}
	return u, true
}

// A Loop is an item X ::= X • Y of a State whose origin is a State (not
// a view's opaque one): X goes on after every Y, so every string of the
// characters Y derives is viable from the State (each leaves the item as
// it was). A search pattern's leading .* inside a JSON string is such a
// loop at every position of the string, whatever the pattern's partial
// matches are.
type Loop struct {
	Rule int // X, an index into the grammar's Rules
	// Chars are the characters Y derives, as a statement: its Bytes are
	// those of Y's one-byte strings, and it is Wide where Y derives every
	// multi-byte UTF-8 character.
	Chars *grammar.Universal
}

// Absorbing returns the loop of s whose characters hold the most bytes,
// if s has one that takes any.
func (m *Machine) Absorbing(s State) (l Loop, ok bool) {
	for _, it := range m.states.at(s).items {
		if it.origin == opaque || !m.loopItems[it.lr] {
			continue
		}
		c := m.charsOf(m.lrNext[it.lr])
		if n := c.Bytes.Len(); n > 0 && (!ok || n > l.Chars.Bytes.Len() || n == l.Chars.Bytes.Len() && c.Wide && !l.Chars.Wide) {
			l, ok = Loop{Rule: int(m.lrLHS[it.lr]), Chars: c}, true
		}
	}
	return l, ok
}

// InRegex reports whether a scan item of s is in a regular expression's
// rule (grammar.Rule.Regex).
func (m *Machine) InRegex(s State) bool {
	for _, it := range m.states.at(s).scan {
		if m.regexRules[m.lrLHS[it.lr]] {
			return true
		}
	}
	return false
}

// loopItemsOf returns, by LR(0) item, whether it is X ::= X • Y.
func (m *Machine) loopItemsOf() []bool {
	loops := make([]bool, len(m.lrNext))
	for p, prod := range m.g.Prods {
		rhs := prod.RHS
		if len(rhs) == 2 && rhs[0] == grammar.NT(prod.LHS) {
			loops[m.prodBase[p]+1] = true
		}
	}
	return loops
}

// charsOf returns the characters y derives as a statement: the bytes of
// its one-byte strings (see singleBytes), and whether it derives every
// multi-byte UTF-8 character (see wideChars); found the first time.
func (m *Machine) charsOf(y grammar.Symbol) *grammar.Universal {
	if u, ok := m.loopChars[y]; ok {
		return u
	}
	var classes grammar.ByteSet
	m.singleBytes(y, &classes, make(map[int]bool))
	u := &grammar.Universal{Wide: m.wideChars(y)}
	for b := range 256 {
		if classes.Has(m.classOf[b]) {
			u.Bytes.Add(byte(b))
		}
	}
	if m.loopChars == nil {
		m.loopChars = make(map[grammar.Symbol]*grammar.Universal)
	}
	m.loopChars[y] = u
	return u
}

// utf8Forms are the valid multi-byte UTF-8 characters, as the ranges of
// their bytes (see wideChars).
var utf8Forms = grammar.UTF8Forms()

// wideChars reports whether y derives every multi-byte UTF-8 character:
// each form of utf8Forms lies within one production of terminals alone
// that y reaches by productions of one symbol (the rule the grammar
// compiler writes for a class of them all: a JSON string's character).
func (m *Machine) wideChars(y grammar.Symbol) bool {
	var prods [][]grammar.Symbol
	seen := map[int]bool{}
	var collect func(x grammar.Symbol)
	collect = func(x grammar.Symbol) {
		if x.IsTerminal() || seen[x.Rule()] {
			return
		}
		seen[x.Rule()] = true
		for _, p := range m.g.Rules[x.Rule()].Prods {
			switch rhs := m.g.Prods[p].RHS; {
			case len(rhs) == 1:
				collect(rhs[0])
			case !slices.ContainsFunc(rhs, func(z grammar.Symbol) bool { return !z.IsTerminal() }):
				prods = append(prods, rhs)
			}
		}
	}
	collect(y)
	for _, form := range utf8Forms {
		if !slices.ContainsFunc(prods, func(rhs []grammar.Symbol) bool { return m.holdsForm(rhs, form) }) {
			return false
		}
	}
	return true
}

// holdsForm reports whether the terminals rhs accept every byte string
// of form.
func (m *Machine) holdsForm(rhs []grammar.Symbol, form [][2]byte) bool {
	if len(rhs) != len(form) {
		return false
	}
	for i, r := range form {
		t := m.g.Terminals[rhs[i].Terminal()]
		for b := int(r[0]); b <= int(r[1]); b++ {
			if !t.Has(byte(b)) {
				return false
			}
		}
	}
	return true
}
