package grammar

import (
	"fmt"
	"math/bits"
	"strings"
)

// Grammar is a compiled context-free grammar over bytes.
//
// Every terminal is a set of bytes (a ByteSet); character classes, '.', and
// string literals of the source are compiled to sequences of byte sets that
// spell their UTF-8 encodings. Repetitions, groups and classes become
// generated rules (Rule.Generated). Loops are left-recursive (H ::= H X | ε)
// so that an Earley recognizer reuses one item set while it stays inside a
// loop.
//
// A compiled Grammar is pruned: every rule derives at least one finite string
// and is reachable from Start, so any prefix an Earley recognizer accepts
// extends to a sentence.
type Grammar struct {
	Rules     []Rule    // nonterminals, indexed by Symbol.Rule()
	Prods     []Prod    // all productions; Rules[i].Prods index into it
	Terminals []ByteSet // terminal byte sets, indexed by Symbol.Terminal()
	Start     int       // index of the start rule in Rules
}

// Rule is a nonterminal of a compiled Grammar.
type Rule struct {
	Name      string     // source name, or a generated name such as "value_1_star"
	Pos       Pos        // where the rule (or the expression it was generated from) is defined
	Prods     []int      // indexes into Grammar.Prods
	Generated bool       // made by the compiler (group, repetition, class), not written by the user
	Universal *Universal // the front end's statement about it (RuleDef.Universal), or nil
	Regex     bool       // a regular expression's (RuleDef.Regex); a generated rule has its user rule's
}

// Prod is one production LHS ::= RHS.
type Prod struct {
	LHS int      // rule index
	RHS []Symbol // empty for ε
}

// Symbol is a grammar symbol: a nonterminal (Symbol >= 0, the rule index) or a
// terminal (Symbol < 0, encoding the index -(s+1) into Grammar.Terminals).
type Symbol int32

// NT returns the symbol of rule i.
func NT(i int) Symbol { return Symbol(i) }

// T returns the symbol of terminal i.
func T(i int) Symbol { return Symbol(-i - 1) }

// IsTerminal reports whether s is a terminal.
func (s Symbol) IsTerminal() bool { return s < 0 }

// Rule returns the rule index of a nonterminal symbol.
func (s Symbol) Rule() int { return int(s) }

// Terminal returns the terminal index of a terminal symbol.
func (s Symbol) Terminal() int { return int(-s - 1) }

// ByteSet is a set of bytes, a 256-bit bitmap.
type ByteSet [4]uint64

// Add adds b to the set.
func (s *ByteSet) Add(b byte) { s[b>>6] |= 1 << (b & 63) }

// AddRange adds every byte in [lo, hi].
func (s *ByteSet) AddRange(lo, hi byte) {
	for c := int(lo); c <= int(hi); c++ {
		s.Add(byte(c))
	}
}

// Has reports whether b is in the set.
func (s *ByteSet) Has(b byte) bool { return s[b>>6]&(1<<(b&63)) != 0 }

// Len returns the number of bytes in the set.
func (s *ByteSet) Len() int {
	return bits.OnesCount64(s[0]) + bits.OnesCount64(s[1]) + bits.OnesCount64(s[2]) + bits.OnesCount64(s[3])
}

// String formats the set as a class such as [0-9a-f] or a quoted byte.
func (s ByteSet) String() string {
	var b strings.Builder
	b.WriteByte('[')
	for c := 0; c < 256; c++ {
		if !s.Has(byte(c)) {
			continue
		}
		e := c
		for e+1 < 256 && s.Has(byte(e+1)) {
			e++
		}
		b.WriteString(byteString(byte(c)))
		if e > c {
			if e > c+1 {
				b.WriteByte('-')
			}
			b.WriteString(byteString(byte(e)))
		}
		c = e
	}
	b.WriteByte(']')
	return b.String()
}

func byteString(c byte) string {
	if c > 0x20 && c < 0x7f && c != '\\' && c != ']' && c != '-' && c != '^' {
		return string(rune(c))
	}
	return fmt.Sprintf(`\x%02X`, c)
}

// SymbolString formats a symbol for messages and dumps.
func (g *Grammar) SymbolString(s Symbol) string {
	if s.IsTerminal() {
		return g.Terminals[s.Terminal()].String()
	}
	return g.Rules[s.Rule()].Name
}

// String dumps the grammar, one production per line, in a GBNF-like form.
func (g *Grammar) String() string {
	var b strings.Builder
	for _, r := range g.Rules {
		for i, p := range r.Prods {
			if i == 0 {
				fmt.Fprintf(&b, "%s ::=", r.Name)
			} else {
				fmt.Fprintf(&b, "%s  |", strings.Repeat(" ", len(r.Name)))
			}
			if len(g.Prods[p].RHS) == 0 {
				b.WriteString(` ""`)
			}
			for _, s := range g.Prods[p].RHS {
				b.WriteByte(' ')
				b.WriteString(g.SymbolString(s))
			}
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// Nullable reports, per rule, whether the rule derives the empty string.
func (g *Grammar) Nullable() []bool {
	null := make([]bool, len(g.Rules))
	for changed := true; changed; {
		changed = false
		for _, p := range g.Prods {
			if !null[p.LHS] && allNullable(p.RHS, null) {
				null[p.LHS] = true
				changed = true
			}
		}
	}
	return null
}

// allNullable reports whether every symbol of rhs is a rule marked in null.
func allNullable(rhs []Symbol, null []bool) bool {
	for _, s := range rhs {
		if s.IsTerminal() || !null[s.Rule()] {
			return false
		}
	}
	return true
}
