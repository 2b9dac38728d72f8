// Package regex compiles regular expressions to gasp's byte-level grammars
// (pkg/grammar), so that every mask, sampler and analysis that runs on a GBNF
// grammar runs on a regular expression too.
//
// # Dialect
//
// Patterns are parsed by Go's regexp/syntax with its Perl flags: RE2 syntax,
// the dialect of Go's regexp package, and the one JSON Schema's "pattern" and
// Lark's /regex/ terminals are written in, up to the differences below. The
// language compiled is exactly the set of valid UTF-8 strings that Go's
// regexp matches (the package's tests check this against regexp on random
// and mutated strings): literals, classes ([a-z], [^…], \d \w \s, [[:alpha:]]),
// Unicode classes (\p{L}, \pN, \P{Greek}), case folding ((?i), Unicode
// simple folding, as regexp does), "." (any character but "\n"; with (?s)
// any character), alternation, groups, and repetition * + ? {m} {m,} {m,n}
// (bounds up to 1000; lazy forms such as *? are the same language).
//
// Go's regexp differs from ECMA-262, the dialect JSON Schema names: "." in
// ECMA-262 also excludes "\r", U+2028 and U+2029, and ECMA's \s includes
// Unicode spaces. This package follows Go.
//
// # Anchors and modes
//
// In Full mode (Lark terminals, .regex files) a string is in the language if
// the whole string matches. In Search mode (JSON Schema's "pattern", which is
// not implicitly anchored) a string is in the language if some substring
// matches: the pattern is compiled as .*(pattern).* where "." is any
// character, written so that a string has as few ways to match as the
// language allows (an Earley State tracks each): an unanchored side takes
// what it would absorb (.*a+b is .*ab), .*C.* for one set of characters C
// is [^C]*C.*, and the plain words that alternatives look for are one
// automaton (words.go). In both modes "^" and "$" (and \A, \z) are handled
// exactly when they lead or end a top-level alternative: "^a|b$" in Search
// mode is a.* | .*b; in Full mode they change nothing. An anchor anywhere
// else, a word boundary (\b, \B), and the multi-line flag (?m) are errors,
// as are the lookarounds and backreferences that regexp/syntax itself
// refuses. Every error names the position of the offending text:
// file:1:col.
//
// # How
//
// The regexp/syntax tree is lowered to the grammar package's syntax tree
// (grammar.Expr: Lit, Class, Alt, Seq, Repeat) and compiled by
// grammar.CompileSyntax, which turns classes into UTF-8 byte sequences.
// Options.Char lets a caller spell each character differently: the JSON
// Schema front end uses it to write characters as they appear inside a JSON
// string (a quote as \", a newline as \n).
package regex

import (
	"fmt"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gasplab/gasp/pkg/grammar"
	"github.com/gasplab/gasp/pkg/infile"
)

// Mode says which strings a pattern's language holds.
type Mode int

const (
	Full   Mode = iota // strings the pattern matches as a whole
	Search             // strings with a substring the pattern matches
)

// Options control Expr.
type Options struct {
	Mode Mode
	// Pos is where the pattern starts in its source; error columns count
	// from it. The zero Pos means line 1, column 1 of Filename.
	Pos grammar.Pos
	// Char, if not nil, spells a set of characters (a non-empty set of
	// inclusive ranges) as an expression; nil means a grammar.Class.
	Char func(rs []grammar.RuneRange, pos grammar.Pos) grammar.Expr
	// Rules, if not nil, is where Expr appends the rules its expression
	// refers to (named "re", a number and a dash: unique while the
	// caller's own names have no dash, and marked grammar.RuleDef.Regex):
	// in Search mode, the automaton of the words that alternatives look
	// for (words.go). nil: each alternative is written .*(alternative).*.
	// The caller marks the rule it puts the expression in.
	Rules *[]*grammar.RuleDef
}

// Compile compiles pattern to a grammar whose start rule "root" derives
// exactly the pattern's language in the given mode. filename is used in
// positions. Errors are a grammar.ErrorList.
func Compile(filename, pattern string, mode Mode) (*grammar.Grammar, error) {
	var rules []*grammar.RuleDef
	x, err := Expr(filename, pattern, Options{Mode: mode, Rules: &rules})
	if err != nil {
		return nil, err
	}
	f := &grammar.File{Filename: filename, Rules: append([]*grammar.RuleDef{{Name: "root", NamePos: x.Pos(), Body: x, Regex: true}}, rules...)}
	g, _, err := grammar.CompileSyntax(f, grammar.Options{})
	return g, err
}

// MaxFileBytes bounds a .regex file.
const MaxFileBytes = 1 << 20

// CompileFile compiles the pattern in the file at path, in Full mode. The
// file holds one pattern; one trailing newline ("\n" or "\r\n"), which
// editors add, is not part of it.
func CompileFile(path string) (*grammar.Grammar, error) {
	src, err := infile.Read(path, MaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("regex: %w", err)
	}
	return Compile(path, TrimNewline(string(src)), Full)
}

// TrimNewline removes the one trailing newline ("\n" or "\r\n") a .regex
// file's pattern ends with, if any.
func TrimNewline(s string) string {
	if t, ok := strings.CutSuffix(s, "\n"); ok {
		return strings.TrimSuffix(t, "\r")
	}
	return s
}

// Expr parses pattern and returns its language as a grammar expression.
func Expr(filename, pattern string, opts Options) (grammar.Expr, error) {
	if !opts.Pos.IsValid() {
		opts.Pos = grammar.Pos{Filename: filename, Line: 1, Col: 1}
	}
	l := &lowerer{opts: opts, pattern: pattern}
	if !utf8.ValidString(pattern) {
		return nil, l.errorf(0, "pattern is not valid UTF-8")
	}
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, l.syntaxError(err)
	}
	var alts []grammar.Expr
	var words, atEnd [][]rune
	for _, a := range alternatives(re) {
		its, begin, end := anchors(a)
		if l.opts.Mode == Search {
			its = trimSearch(its, begin, end)
			if w, last, ok := searchWord(its, begin, end); ok && l.opts.Rules != nil {
				if last {
					atEnd = append(atEnd, w)
				} else {
					words = append(words, w)
				}
				continue
			}
		}
		x, err := l.anchored(its, begin, end)
		if err != nil {
			return nil, err
		}
		if x != nil {
			alts = append(alts, x)
		}
	}
	if len(words)+len(atEnd) > 0 {
		alts = append(alts, l.searchWordsExpr(words, atEnd))
	}
	if len(alts) == 0 {
		return nil, l.errorf(0, "pattern matches no string")
	}
	return l.alt(alts), nil
}

// lowerer turns a regexp/syntax tree into a grammar.Expr. A nil Expr stands
// for the empty language (regexp's OpNoMatch and what it propagates to).
type lowerer struct {
	opts    Options
	pattern string
}

// pos returns the position of byte off of the pattern (one line).
func (l *lowerer) pos(off int) grammar.Pos {
	p := l.opts.Pos
	p.Offset += off
	if p.Line > 0 {
		p.Col += off
	}
	return p
}

func (l *lowerer) errorf(off int, format string, args ...any) error {
	var list grammar.ErrorList
	list.Addf(l.pos(off), format, args...)
	return list
}

// syntaxError turns a regexp/syntax error into one with the position of the
// offending text, saying why lookarounds and backreferences fail.
func (l *lowerer) syntaxError(err error) error {
	se, ok := err.(*syntax.Error)
	if !ok {
		return l.errorf(0, "%v", err)
	}
	off := max(strings.Index(l.pattern, se.Expr), 0)
	msg := se.Error()
	switch {
	case strings.HasPrefix(se.Expr, "(?=") || strings.HasPrefix(se.Expr, "(?!") ||
		strings.HasPrefix(se.Expr, "(?<=") || strings.HasPrefix(se.Expr, "(?<!"):
		msg += " (lookaround is not supported)"
	case len(se.Expr) == 2 && se.Expr[0] == '\\' && se.Expr[1] >= '1' && se.Expr[1] <= '9',
		strings.HasPrefix(se.Expr, `\k`):
		msg += " (backreferences are not supported)"
	}
	return l.errorf(off, "%s", msg)
}

// alternatives splits re at its top-level alternation, through groups.
func alternatives(re *syntax.Regexp) []*syntax.Regexp {
	switch re.Op {
	case syntax.OpCapture:
		return alternatives(re.Sub[0])
	case syntax.OpAlternate:
		var out []*syntax.Regexp
		for _, s := range re.Sub {
			out = append(out, alternatives(s)...)
		}
		return out
	}
	return []*syntax.Regexp{re}
}

// items flattens re into the items of its top-level concatenation, through
// groups.
func items(re *syntax.Regexp) []*syntax.Regexp {
	switch re.Op {
	case syntax.OpCapture:
		if re.Sub[0].Op == syntax.OpConcat || re.Sub[0].Op == syntax.OpCapture {
			return items(re.Sub[0])
		}
	case syntax.OpConcat:
		var out []*syntax.Regexp
		for _, s := range re.Sub {
			out = append(out, items(s)...)
		}
		return out
	}
	return []*syntax.Regexp{re}
}

func isBegin(re *syntax.Regexp) bool { return re.Op == syntax.OpBeginText }
func isEnd(re *syntax.Regexp) bool   { return re.Op == syntax.OpEndText }

// anchors returns the items of one top-level alternative without its
// leading "^" and trailing "$", and whether it had them.
func anchors(re *syntax.Regexp) (its []*syntax.Regexp, begin, end bool) {
	its = items(re)
	for len(its) > 0 && isBegin(its[0]) {
		its, begin = its[1:], true
	}
	for len(its) > 0 && isEnd(its[len(its)-1]) {
		its, end = its[:len(its)-1], true
	}
	return its, begin, end
}

// anchored lowers the items of one top-level alternative (see anchors; in
// Search mode trimmed, see trimSearch): in Search mode an unanchored side
// gets ".*".
func (l *lowerer) anchored(its []*syntax.Regexp, begin, end bool) (grammar.Expr, error) {
	if l.opts.Mode == Search {
		if len(its) == 0 && (!begin || !end) { // every string has an empty substring there
			return l.anyStar(), nil
		}
		if len(its) == 1 && !begin && !end {
			if rs := runeSet(its[0]); len(rs) > 0 {
				return l.firstOccurrence(rs), nil
			}
		}
	}
	var seq []grammar.Expr
	if l.opts.Mode == Search && !begin {
		seq = append(seq, l.anyStar())
	}
	for _, it := range its {
		x, err := l.lower(it)
		if err != nil || x == nil {
			return nil, err
		}
		seq = append(seq, x)
	}
	if l.opts.Mode == Search && !end {
		seq = append(seq, l.anyStar())
	}
	return l.seq(seq), nil
}

// trimSearch returns the items of a Search-mode alternative without what
// an unanchored side absorbs: there ".*" takes a nullable item (X*, X?,
// X{0,n}) whole and the copies of X{m,n} beyond m, so .*X{m,n}Y is .*X{m}Y
// and .*X*Y is .*Y. The language is the same; an Earley State no longer
// tracks the ways a substring can match (after each letter of [a-z]+, one
// more).
func trimSearch(its []*syntax.Regexp, begin, end bool) []*syntax.Regexp {
	its = slices.Clone(its)
	for !begin && len(its) > 0 {
		if nullable(its[0]) {
			its = its[1:]
			continue
		}
		its[0] = leastCopies(its[0])
		break
	}
	for !end && len(its) > 0 {
		if last := len(its) - 1; nullable(its[last]) {
			its = its[:last]
			continue
		}
		its[len(its)-1] = leastCopies(its[len(its)-1])
		break
	}
	return its
}

// nullable reports whether re is a repetition that may match nothing.
func nullable(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpStar, syntax.OpQuest, syntax.OpEmptyMatch:
		return true
	case syntax.OpRepeat:
		return re.Min == 0
	}
	return false
}

// leastCopies returns X{m} for X+ (m = 1) and X{m,n}, else re.
func leastCopies(re *syntax.Regexp) *syntax.Regexp {
	switch {
	case re.Op == syntax.OpPlus:
		return re.Sub[0]
	case re.Op == syntax.OpRepeat && re.Max != re.Min:
		x := *re
		x.Max = x.Min
		return &x
	}
	return re
}

// runeSet returns the characters re matches if it matches one character
// of a set (a class, a literal character, "."), else nil.
func runeSet(re *syntax.Regexp) []grammar.RuneRange {
	switch {
	case re.Op == syntax.OpCharClass:
		return pairs(re.Rune)
	case re.Op == syntax.OpLiteral && len(re.Rune) == 1 && re.Flags&syntax.FoldCase == 0:
		return []grammar.RuneRange{{Lo: re.Rune[0], Hi: re.Rune[0]}}
	case re.Op == syntax.OpAnyCharNotNL:
		return []grammar.RuneRange{{Lo: 0, Hi: '\n' - 1}, {Lo: '\n' + 1, Hi: unicode.MaxRune}}
	}
	return nil
}

// firstOccurrence returns .*C.* for a set of characters C written as its
// first occurrence, [^C]*C.*: one way to match each string, where .*C.*
// has one for each C in it.
func (l *lowerer) firstOccurrence(c []grammar.RuneRange) grammar.Expr {
	var seq []grammar.Expr
	if rest := grammar.Complement(c); len(rest) > 0 {
		seq = append(seq, &grammar.Repeat{X: l.chars(rest), Min: 0, Max: -1, OpPos: l.pos(0)})
	}
	return l.seq(append(seq, l.chars(c), l.anyStar()))
}

// anyStar is (any character)*.
func (l *lowerer) anyStar() grammar.Expr {
	return &grammar.Repeat{X: l.chars([]grammar.RuneRange{{Lo: 0, Hi: unicode.MaxRune}}), Min: 0, Max: -1, OpPos: l.pos(0)}
}

func (l *lowerer) chars(rs []grammar.RuneRange) grammar.Expr {
	if l.opts.Char != nil {
		return l.opts.Char(rs, l.pos(0))
	}
	return &grammar.Class{Lbrack: l.pos(0), Ranges: rs}
}

func (l *lowerer) seq(xs []grammar.Expr) grammar.Expr {
	if len(xs) == 1 {
		return xs[0]
	}
	return &grammar.Seq{Start: l.pos(0), Items: xs}
}

func (l *lowerer) alt(xs []grammar.Expr) grammar.Expr {
	if len(xs) == 1 {
		return xs[0]
	}
	return &grammar.Alt{Alts: xs}
}

// lower returns re's language as an expression, or nil for the empty
// language.
func (l *lowerer) lower(re *syntax.Regexp) (grammar.Expr, error) {
	switch re.Op {
	case syntax.OpNoMatch:
		return nil, nil
	case syntax.OpEmptyMatch:
		return l.seq(nil), nil
	case syntax.OpLiteral:
		return l.literal(re), nil
	case syntax.OpCharClass:
		rs := pairs(re.Rune)
		if len(rs) == 0 {
			return nil, nil
		}
		return l.chars(rs), nil
	case syntax.OpAnyCharNotNL:
		return l.chars([]grammar.RuneRange{{Lo: 0, Hi: '\n' - 1}, {Lo: '\n' + 1, Hi: unicode.MaxRune}}), nil
	case syntax.OpAnyChar:
		return l.chars([]grammar.RuneRange{{Lo: 0, Hi: unicode.MaxRune}}), nil
	case syntax.OpCapture:
		return l.lower(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		return l.repeat(re)
	case syntax.OpConcat:
		return l.concat(re.Sub)
	case syntax.OpAlternate:
		var xs []grammar.Expr
		for _, s := range re.Sub {
			x, err := l.lower(s)
			if err != nil {
				return nil, err
			}
			if x != nil {
				xs = append(xs, x)
			}
		}
		if len(xs) == 0 {
			return nil, nil
		}
		return l.alt(xs), nil
	}
	return nil, l.unsupported(re)
}

// unsupported reports an assertion that is not a leading "^" or trailing
// "$" of a top-level alternative.
func (l *lowerer) unsupported(re *syntax.Regexp) error {
	var what string
	var marks []string
	switch re.Op {
	case syntax.OpBeginText:
		what, marks = `start anchor (^ or \A) that does not lead a top-level alternative`, []string{"^", `\A`}
	case syntax.OpEndText:
		what, marks = `end anchor ($ or \z) that does not end a top-level alternative`, []string{"$", `\z`}
	case syntax.OpBeginLine, syntax.OpEndLine:
		what, marks = "multi-line anchor (flag m)", []string{"(?m", "(?", "^", "$"}
	case syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		what, marks = "word boundary "+re.String(), []string{`\b`, `\B`}
	default:
		what = "operator " + re.Op.String()
	}
	return l.errorf(l.find(marks...), "%s is not supported", what)
}

// find returns the offset of the first of marks, outside of the pattern's
// first character, that occurs in it (0 if none does): a best effort at
// locating a node, since regexp/syntax keeps no positions.
func (l *lowerer) find(marks ...string) int {
	for _, m := range marks {
		if i := strings.Index(l.pattern[min(1, len(l.pattern)):], m); i >= 0 {
			return i + min(1, len(l.pattern))
		}
	}
	return 0
}

func (l *lowerer) concat(subs []*syntax.Regexp) (grammar.Expr, error) {
	var xs []grammar.Expr
	for _, s := range subs {
		x, err := l.lower(s)
		if err != nil || x == nil {
			return nil, err
		}
		xs = append(xs, x)
	}
	return l.seq(xs), nil
}

// literal spells a literal string, rune by rune when case folds or Char is
// set.
func (l *lowerer) literal(re *syntax.Regexp) grammar.Expr {
	fold := re.Flags&syntax.FoldCase != 0
	if !fold && l.opts.Char == nil {
		return &grammar.Lit{ValuePos: l.pos(0), Value: string(re.Rune)}
	}
	xs := make([]grammar.Expr, len(re.Rune))
	for i, r := range re.Rune {
		rs := []grammar.RuneRange{{Lo: r, Hi: r}}
		if fold {
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				rs = append(rs, grammar.RuneRange{Lo: f, Hi: f})
			}
		}
		xs[i] = l.chars(rs)
	}
	return l.seq(xs)
}

func (l *lowerer) repeat(re *syntax.Regexp) (grammar.Expr, error) {
	lo, hi := re.Min, re.Max
	switch re.Op {
	case syntax.OpStar:
		lo, hi = 0, -1
	case syntax.OpPlus:
		lo, hi = 1, -1
	case syntax.OpQuest:
		lo, hi = 0, 1
	}
	x, err := l.lower(re.Sub[0])
	if err != nil {
		return nil, err
	}
	if x == nil { // X{0,…} of the empty language is ε
		if lo == 0 {
			return l.seq(nil), nil
		}
		return nil, nil
	}
	return &grammar.Repeat{X: x, OpPos: l.pos(0), Min: lo, Max: hi}, nil
}

// pairs converts regexp/syntax's flat [lo, hi, lo, hi, …] to ranges.
func pairs(rs []rune) []grammar.RuneRange {
	out := make([]grammar.RuneRange, 0, len(rs)/2)
	for i := 0; i+1 < len(rs); i += 2 {
		out = append(out, grammar.RuneRange{Lo: rs[i], Hi: rs[i+1]})
	}
	return out
}
