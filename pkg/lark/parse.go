package lark

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gasplab/gasp/pkg/grammar"
)

// The parser reads Lark's grammar syntax into a small tree (node) that keeps
// what the language depends on; aliases, rule modifiers and priorities are
// read and dropped.

type node interface{ pos() grammar.Pos }

type (
	altNode struct{ xs []node }
	seqNode struct {
		p  grammar.Pos
		xs []node
	}
	repNode struct {
		p        grammar.Pos
		x        node
		min, max int // max < 0: unbounded
	}
	nameNode struct {
		p    grammar.Pos
		name string
	}
	litNode struct { // a "string", decoded; fold is the i flag
		p    grammar.Pos
		s    string
		fold bool
	}
	reNode struct { // a /regexp/flags, its body decoded as Lark does
		p       grammar.Pos
		pattern string
		flags   string
	}
	rangeNode struct {
		p      grammar.Pos
		lo, hi rune
	}
)

func (x *altNode) pos() grammar.Pos   { return x.xs[0].pos() }
func (x *seqNode) pos() grammar.Pos   { return x.p }
func (x *repNode) pos() grammar.Pos   { return x.p }
func (x *nameNode) pos() grammar.Pos  { return x.p }
func (x *litNode) pos() grammar.Pos   { return x.p }
func (x *reNode) pos() grammar.Pos    { return x.p }
func (x *rangeNode) pos() grammar.Pos { return x.p }

// def is a rule or terminal definition.
type def struct {
	name string
	p    grammar.Pos
	body node
}

// importDecl is one imported name: %import common.NAME [-> ALIAS].
type importDecl struct {
	p        grammar.Pos
	name, as string
}

// file is a parsed grammar.
type file struct {
	defs    []*def
	ignores []node
	imports []importDecl
}

// MaxRepeat bounds the counts of x ~ n and x ~ n..m, as grammar bounds {m,n}.
const MaxRepeat = 1000

// maxDepth bounds the nesting of parentheses and brackets.
const maxDepth = 200

// bail aborts parsing at the first syntax error.
type bail struct{}

type parser struct {
	sc    scanner
	tok   token
	errs  grammar.ErrorList
	depth int
}

// parse reads src; errors are a grammar.ErrorList with the first syntax
// error.
func parse(filename string, src string) (f *file, err error) {
	p := &parser{sc: scanner{filename: filename, src: src, line: 1, col: 1}}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(bail); !ok {
				panic(r)
			}
			f, err = nil, p.errs
		}
	}()
	if !utf8.ValidString(src) {
		p.failf(grammar.Pos{Filename: filename, Line: 1, Col: 1}, "grammar is not valid UTF-8")
	}
	p.next()
	f = &file{}
	for p.tok.kind != tEOF {
		if p.tok.kind == tNewline {
			p.next()
			continue
		}
		p.item(f)
		if p.tok.kind != tNewline && p.tok.kind != tEOF {
			p.failf(p.tok.p, "unexpected %s", p.tok)
		}
	}
	return f, nil
}

func (p *parser) failf(pos grammar.Pos, format string, args ...any) {
	p.errs.Addf(pos, format, args...)
	panic(bail{})
}

func (p *parser) next() {
	t, err := p.sc.next()
	if err != nil {
		p.errs = append(p.errs, err)
		panic(bail{})
	}
	p.tok = t
}

func (p *parser) is(kind tokKind, text string) bool {
	return p.tok.kind == kind && (text == "" || p.tok.text == text)
}

func (p *parser) expect(kind tokKind, text string) token {
	if !p.is(kind, text) {
		want := text
		if want == "" {
			want = kind.String()
		}
		p.failf(p.tok.p, "expected %s, found %s", want, p.tok)
	}
	t := p.tok
	p.next()
	return t
}

func (p *parser) item(f *file) {
	switch {
	case p.tok.kind == tDirective:
		p.directive(f)
	case p.tok.kind == tName || p.is(tPunct, "?") || p.is(tPunct, "!"):
		f.defs = append(f.defs, p.definition())
	default:
		p.failf(p.tok.p, "expected a rule, a terminal or a %%directive, found %s", p.tok)
	}
}

// definition reads [!?]name[.priority]: expansions.
func (p *parser) definition() *def {
	start := p.tok.p
	for p.is(tPunct, "?") || p.is(tPunct, "!") {
		p.next()
	}
	name := p.expect(tName, "")
	if p.is(tPunct, "{") {
		p.failf(p.tok.p, "templates (rule parameters) are not supported")
	}
	if p.is(tPunct, ".") {
		p.next()
		p.expect(tNumber, "") // a priority: it orders parses, not the language
	}
	if name.isTerminal() && start != name.p {
		p.failf(start, "a terminal name cannot have a rule modifier (? or !)")
	}
	p.expect(tPunct, ":")
	return &def{name: name.text, p: name.p, body: p.expansions()}
}

func (p *parser) directive(f *file) {
	d := p.tok
	p.next()
	switch d.text {
	case "%ignore":
		f.ignores = append(f.ignores, p.expansions())
	case "%import":
		p.importDecl(f, d.p)
	default:
		p.failf(d.p, "%s is not supported", d.text)
	}
}

// importDecl reads common.NAME [-> ALIAS] or common (A, B, ...).
func (p *parser) importDecl(f *file, at grammar.Pos) {
	if p.is(tPunct, ".") {
		p.failf(p.tok.p, "relative imports are not supported; only %%import common.NAME is")
	}
	mod := p.expect(tName, "")
	var path []token
	for p.is(tPunct, ".") {
		p.next()
		path = append(path, p.expect(tName, ""))
	}
	if mod.text != "common" || len(path) > 1 {
		p.failf(mod.p, "only the module common can be imported (%%import common.NAME)")
	}
	if len(path) == 1 {
		as := path[0].text
		if p.is(tPunct, "->") {
			p.next()
			as = p.expect(tName, "").text
		}
		f.imports = append(f.imports, importDecl{p: path[0].p, name: path[0].text, as: as})
		return
	}
	p.expect(tPunct, "(")
	for {
		n := p.expect(tName, "")
		f.imports = append(f.imports, importDecl{p: n.p, name: n.text, as: n.text})
		if !p.is(tPunct, ",") {
			break
		}
		p.next()
	}
	p.expect(tPunct, ")")
}

// expansions reads alternatives separated by "|".
func (p *parser) expansions() node {
	p.depth++
	if p.depth > maxDepth {
		p.failf(p.tok.p, "nesting deeper than %d", maxDepth)
	}
	defer func() { p.depth-- }()
	xs := []node{p.alias()}
	for p.is(tPunct, "|") {
		p.next()
		xs = append(xs, p.alias())
	}
	if len(xs) == 1 {
		return xs[0]
	}
	return &altNode{xs: xs}
}

// alias reads an expansion and an optional "-> name", which only names the
// tree node.
func (p *parser) alias() node {
	x := p.expansion()
	if p.is(tPunct, "->") {
		p.next()
		p.expect(tName, "")
	}
	return x
}

func (p *parser) expansion() node {
	s := &seqNode{p: p.tok.p}
	for p.startsAtom() {
		s.xs = append(s.xs, p.expr())
	}
	if len(s.xs) == 1 {
		return s.xs[0]
	}
	return s
}

func (p *parser) startsAtom() bool {
	switch p.tok.kind {
	case tName, tString, tRegexp:
		return true
	case tPunct:
		return p.tok.text == "(" || p.tok.text == "["
	}
	return false
}

// expr reads an atom and at most one operator: ? * + or ~ n[..m].
func (p *parser) expr() node {
	x := p.atom()
	op := p.tok
	switch {
	case p.is(tPunct, "?"), p.is(tPunct, "*"), p.is(tPunct, "+"):
		p.next()
		b := opBounds[op.text]
		return &repNode{p: x.pos(), x: x, min: b[0], max: b[1]}
	case p.is(tPunct, "~"):
		p.next()
		lo := p.count()
		hi := lo
		if p.is(tPunct, "..") {
			p.next()
			hi = p.count()
		}
		if hi < lo {
			p.failf(op.p, "repetition ~ %d..%d: the upper bound is below the lower", lo, hi)
		}
		return &repNode{p: x.pos(), x: x, min: lo, max: hi}
	}
	return x
}

// opBounds are the repetition bounds of ?, * and +.
var opBounds = map[string][2]int{"?": {0, 1}, "*": {0, -1}, "+": {1, -1}}

func (p *parser) count() int {
	t := p.expect(tNumber, "")
	n, err := strconv.Atoi(t.text)
	if err != nil || n < 0 || n > MaxRepeat {
		p.failf(t.p, "repetition count %s: counts must be 0 to %d", t.text, MaxRepeat)
	}
	return n
}

func (p *parser) atom() node {
	t := p.tok
	switch t.kind {
	case tName:
		p.next()
		if p.is(tPunct, "{") {
			p.failf(p.tok.p, "templates are not supported")
		}
		return &nameNode{p: t.p, name: t.text}
	case tRegexp:
		p.next()
		return p.regexp(t)
	case tString:
		p.next()
		lit := p.literal(t)
		if !p.is(tPunct, "..") {
			return lit
		}
		p.next()
		return p.rangeOf(lit, p.literal(p.expect(tString, "")))
	}
	open := p.tok
	p.next()
	x := p.expansions()
	if open.text == "(" {
		p.expect(tPunct, ")")
		return x
	}
	p.expect(tPunct, "]")
	return &repNode{p: open.p, x: x, min: 0, max: 1}
}

// literal decodes a "string" token (with its i flag).
func (p *parser) literal(t token) *litNode {
	body, fold := strings.CutSuffix(t.text, "i")
	s, err := unescape(body[1 : len(body)-1])
	if err != nil {
		p.failf(t.p, "%v", err)
	}
	if s == "" {
		p.failf(t.p, "empty string literals are not allowed (as in Lark)")
	}
	return &litNode{p: t.p, s: strings.ReplaceAll(s, `\\`, `\`), fold: fold}
}

func (p *parser) regexp(t token) *reNode {
	end := strings.LastIndexByte(t.text, '/')
	flags := t.text[end+1:]
	if strings.Contains(t.text, "\n") {
		p.failf(t.p, "a regular expression cannot span lines (Lark allows it only with the x flag, which is not supported)")
	}
	s, err := unescape(t.text[1:end])
	if err != nil {
		p.failf(t.p, "%v", err)
	}
	if s == "" {
		p.failf(t.p, "empty regular expressions are not allowed (as in Lark)")
	}
	return &reNode{p: t.p, pattern: s, flags: flags}
}

func (p *parser) rangeOf(lo, hi *litNode) node {
	a, b := []rune(lo.s), []rune(hi.s)
	switch {
	case lo.fold || hi.fold:
		p.failf(lo.p, "a range cannot have the i flag")
	case len(a) != 1 || len(b) != 1:
		p.failf(lo.p, "range bounds must be single characters")
	case a[0] > b[0]:
		p.failf(lo.p, "range %q..%q is empty", lo.s, hi.s)
	}
	return &rangeNode{p: lo.p, lo: a[0], hi: b[0]}
}

// unescape decodes the body of a string or regexp literal as Lark does
// (load_grammar's eval_escaping): \n \f \t \r \xNN \uNNNN \UNNNNNNNN are
// characters, \\ is two backslashes (a string literal then turns each pair
// into one), \" is a quote, and a backslash before anything else stays.
func unescape(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		if i+1 >= len(s) {
			return "", fmt.Errorf("literal ends with a lone backslash")
		}
		i++
		switch c2 := s[i]; c2 {
		case '\\':
			b.WriteString(`\\`)
		case '"':
			b.WriteByte('"')
		case 'n':
			b.WriteByte('\n')
		case 'f':
			b.WriteByte('\f')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c2]
			if i+1+n > len(s) {
				return "", fmt.Errorf(`truncated \%c escape`, c2)
			}
			v, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32)
			if err != nil || !utf8.ValidRune(rune(v)) {
				return "", fmt.Errorf(`bad \%c escape %q`, c2, s[i-1:i+1+n])
			}
			b.WriteRune(rune(v))
			i += n
		default:
			b.WriteByte('\\')
			b.WriteByte(c2)
		}
	}
	return b.String(), nil
}
