package lark

import (
	"regexp/syntax"
	"sort"
	"unicode"

	"github.com/gasplab/gasp/pkg/grammar"
)

// Character sets of terminals, for matching ignored terminals greedily
// (ignore.go): first is the set of characters a terminal's strings can
// begin with, chars the set of all characters in them. Both are computed
// on the syntax, not the language, and so may be larger than the exact
// sets; what they serve only errs toward refusing a grammar or restricting
// a token by characters it cannot begin with, which changes nothing.

type runeSet []grammar.RuneRange

func (s runeSet) intersects(t runeSet) bool {
	for _, a := range s {
		for _, b := range t {
			if a.Lo <= b.Hi && b.Lo <= a.Hi {
				return true
			}
		}
	}
	return false
}

// sample returns a character in both sets (they must intersect).
func (s runeSet) sample(t runeSet) rune {
	for _, a := range s {
		for _, b := range t {
			if a.Lo <= b.Hi && b.Lo <= a.Hi {
				return max(a.Lo, b.Lo)
			}
		}
	}
	return 0
}

// normal sorts and merges the ranges of s.
func (s runeSet) normal() runeSet {
	t := append(runeSet(nil), s...)
	sort.Slice(t, func(i, j int) bool { return t[i].Lo < t[j].Lo })
	var out runeSet
	for _, r := range t {
		if n := len(out); n > 0 && r.Lo <= out[n-1].Hi+1 {
			out[n-1].Hi = max(out[n-1].Hi, r.Hi)
			continue
		}
		out = append(out, r)
	}
	return out
}

var allRunes = runeSet{{Lo: 0, Hi: unicode.MaxRune}}

func foldSet(r rune, fold bool) runeSet {
	s := runeSet{{Lo: r, Hi: r}}
	if fold {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			s = append(s, grammar.RuneRange{Lo: f, Hi: f})
		}
	}
	return s
}

// charSets returns first and chars of a terminal node.
func (c *compiler) charSets(x node, seen map[string]bool) (first, chars runeSet) {
	switch x := x.(type) {
	case *altNode:
		for _, y := range x.xs {
			f, a := c.charSets(y, seen)
			first, chars = append(first, f...), append(chars, a...)
		}
	case *seqNode:
		open := true
		for _, y := range x.xs {
			f, a := c.charSets(y, seen)
			if open {
				first = append(first, f...)
			}
			chars = append(chars, a...)
			open = open && c.nullable(y, map[string]bool{})
		}
	case *repNode:
		if x.max != 0 {
			return c.charSets(x.x, seen)
		}
	case *nameNode:
		if m, ok := c.setMemo[x.name]; ok {
			return m[0], m[1]
		}
		if d := c.defs[x.name]; d != nil && !seen[x.name] {
			seen[x.name] = true
			defer delete(seen, x.name)
			first, chars = c.charSets(d.body, seen)
			first, chars = first.normal(), chars.normal()
			c.setMemo[x.name] = [2]runeSet{first, chars}
		}
	case *litNode:
		for _, r := range x.s {
			chars = append(chars, foldSet(r, x.fold)...)
		}
		first = foldSet([]rune(x.s)[0], x.fold)
	case *rangeNode:
		first = runeSet{{Lo: x.lo, Hi: x.hi}}
		chars = first
	case *reNode:
		pat, err := pyToGo(x.pattern, x.flags)
		if err != nil {
			return allRunes, allRunes
		}
		re, err := syntax.Parse(pat, syntax.Perl)
		if err != nil {
			return allRunes, allRunes
		}
		return reFirst(re), reChars(re)
	}
	return first, chars
}

func reCharSet(re *syntax.Regexp) runeSet {
	switch re.Op {
	case syntax.OpCharClass:
		return runeSet(pairs(re.Rune))
	case syntax.OpAnyCharNotNL:
		return runeSet{{Lo: 0, Hi: '\n' - 1}, {Lo: '\n' + 1, Hi: unicode.MaxRune}}
	case syntax.OpAnyChar:
		return allRunes
	}
	return nil
}

func reFirst(re *syntax.Regexp) runeSet {
	switch re.Op {
	case syntax.OpLiteral:
		return foldSet(re.Rune[0], re.Flags&syntax.FoldCase != 0)
	case syntax.OpCharClass, syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		return reCharSet(re)
	case syntax.OpCapture, syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		return reFirst(re.Sub[0])
	case syntax.OpConcat:
		var s runeSet
		for _, sub := range re.Sub {
			s = append(s, reFirst(sub)...)
			if !reNullable(sub) {
				break
			}
		}
		return s
	case syntax.OpAlternate:
		var s runeSet
		for _, sub := range re.Sub {
			s = append(s, reFirst(sub)...)
		}
		return s
	}
	return nil
}

func reChars(re *syntax.Regexp) runeSet {
	if re.Op == syntax.OpLiteral {
		var s runeSet
		for _, r := range re.Rune {
			s = append(s, foldSet(r, re.Flags&syntax.FoldCase != 0)...)
		}
		return s
	}
	s := reCharSet(re)
	for _, sub := range re.Sub {
		s = append(s, reChars(sub)...)
	}
	return s
}

func reNullable(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral, syntax.OpCharClass, syntax.OpAnyCharNotNL, syntax.OpAnyChar, syntax.OpNoMatch:
		return false
	case syntax.OpCapture, syntax.OpPlus:
		return reNullable(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min == 0 || reNullable(re.Sub[0])
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !reNullable(sub) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if reNullable(sub) {
				return true
			}
		}
		return false
	}
	return true // empty match, star, quest, assertions
}

func pairs(rs []rune) []grammar.RuneRange {
	out := make([]grammar.RuneRange, 0, len(rs)/2)
	for i := 0; i+1 < len(rs); i += 2 {
		out = append(out, grammar.RuneRange{Lo: rs[i], Hi: rs[i+1]})
	}
	return out
}
