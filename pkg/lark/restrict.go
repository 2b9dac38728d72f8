package lark

import (
	"regexp/syntax"

	"github.com/gasplab/gasp/pkg/grammar"
	rx "github.com/gasplab/gasp/pkg/regex"
)

// First-character restriction of terminals: the strings of a terminal
// that do not begin with a character of a set. A token that follows an
// ignored terminal is restricted so (see ignore.go).

// restricted returns the lowered expression of the non-empty strings of
// the terminal x whose first character is not in bad, or nil when there
// are none.
func (c *compiler) restricted(x node, bad runeSet) grammar.Expr {
	pat, ok := c.toGo(x, map[string]bool{})
	if !ok {
		c.errs.Addf(x.pos(), "cannot restrict %s to the characters that may follow an ignored terminal", describe(x))
		return nil
	}
	re, err := syntax.Parse(pat, syntax.Perl)
	if err != nil {
		c.errs.Addf(x.pos(), "%v", err)
		return nil
	}
	r := restrictFirst(re, bad)
	if r == nil {
		return nil
	}
	e, err := rx.Expr(c.filename, r.String(), rx.Options{Pos: x.pos()})
	if err != nil {
		c.errs.Addf(x.pos(), "%s restricted to the characters that may follow an ignored terminal: %v", describe(x), err)
		return nil
	}
	return e
}

// restrictFirst returns a regular expression for the non-empty strings of
// re whose first character is not in bad, or nil when there are none. re
// holds no assertions (they are refused before).
func restrictFirst(re *syntax.Regexp, bad runeSet) *syntax.Regexp {
	switch re.Op {
	case syntax.OpLiteral:
		firsts := foldSet(re.Rune[0], re.Flags&syntax.FoldCase != 0).minus(bad)
		if len(firsts) == 0 {
			return nil
		}
		head := charClass(firsts)
		if len(re.Rune) == 1 {
			return head
		}
		rest := &syntax.Regexp{Op: syntax.OpLiteral, Flags: re.Flags, Rune: re.Rune[1:]}
		return concat(head, rest)
	case syntax.OpCharClass, syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		s := reCharSet(re).normal().minus(bad)
		if len(s) == 0 {
			return nil
		}
		return charClass(s)
	case syntax.OpCapture:
		return restrictFirst(re.Sub[0], bad)
	case syntax.OpConcat:
		return restrictConcat(re.Sub, bad)
	case syntax.OpAlternate:
		var alts []*syntax.Regexp
		for _, sub := range re.Sub {
			if r := restrictFirst(sub, bad); r != nil {
				alts = append(alts, r)
			}
		}
		return alternate(alts)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		// The first non-empty iteration gives the first character; the
		// empty ones before it can be dropped.
		lo, hi := repeatBounds(re)
		if hi == 0 {
			return nil
		}
		head := restrictFirst(re.Sub[0], bad)
		if head == nil {
			return nil
		}
		if hi > 0 {
			hi--
		}
		if hi == 0 {
			return head
		}
		return concat(head, &syntax.Regexp{Op: syntax.OpRepeat, Min: max(lo-1, 0), Max: hi, Sub: []*syntax.Regexp{re.Sub[0]}})
	}
	return nil // the empty string, no string, or an assertion
}

// restrictConcat restricts the concatenation of subs: the first character
// comes from subs[0], or from what follows it when subs[0] can be empty.
func restrictConcat(subs []*syntax.Regexp, bad runeSet) *syntax.Regexp {
	if len(subs) == 0 {
		return nil
	}
	var alts []*syntax.Regexp
	if head := restrictFirst(subs[0], bad); head != nil {
		alts = append(alts, concat(append([]*syntax.Regexp{head}, subs[1:]...)...))
	}
	if reNullable(subs[0]) {
		if r := restrictConcat(subs[1:], bad); r != nil {
			alts = append(alts, r)
		}
	}
	return alternate(alts)
}

// repeatBounds returns the bounds of a repetition (hi < 0: unbounded).
func repeatBounds(re *syntax.Regexp) (lo, hi int) {
	switch re.Op {
	case syntax.OpStar:
		return 0, -1
	case syntax.OpPlus:
		return 1, -1
	case syntax.OpQuest:
		return 0, 1
	}
	return re.Min, re.Max
}

func charClass(s runeSet) *syntax.Regexp {
	re := &syntax.Regexp{Op: syntax.OpCharClass}
	for _, r := range s {
		re.Rune = append(re.Rune, r.Lo, r.Hi)
	}
	return re
}

func concat(subs ...*syntax.Regexp) *syntax.Regexp {
	if len(subs) == 1 {
		return subs[0]
	}
	return &syntax.Regexp{Op: syntax.OpConcat, Sub: subs}
}

func alternate(subs []*syntax.Regexp) *syntax.Regexp {
	switch len(subs) {
	case 0:
		return nil
	case 1:
		return subs[0]
	}
	return &syntax.Regexp{Op: syntax.OpAlternate, Sub: subs}
}

// minus returns the characters of s (normalized) that are not in t.
func (s runeSet) minus(t runeSet) runeSet {
	t = t.normal()
	var out runeSet
	for _, a := range s.normal() {
		lo := a.Lo
		for _, b := range t {
			if b.Hi < lo || b.Lo > a.Hi {
				continue
			}
			if b.Lo > lo {
				out = append(out, runeRange(lo, b.Lo-1))
			}
			lo = b.Hi + 1
		}
		if lo <= a.Hi {
			out = append(out, runeRange(lo, a.Hi))
		}
	}
	return out
}

// and returns the characters in both s and t.
func (s runeSet) and(t runeSet) runeSet {
	return s.minus(allRunes.minus(t))
}

// equal reports whether s and t hold the same characters.
func (s runeSet) equal(t runeSet) bool {
	return len(s.minus(t)) == 0 && len(t.minus(s)) == 0
}
