package grammar

import "fmt"

const (
	maxErrors  = 10      // at most this many errors are reported, then "too many errors", as in go/parser
	maxNesting = 500     // groups and postfix operators nest at most this deep, to bound recursion
	maxRepeat  = 1000    // the largest bound allowed in {m,n}
	maxSize    = 1 << 20 // the most grammar symbols (RHS symbols plus productions) a compiled grammar may have
)

// bailout is panicked (and recovered in Parse) to stop parsing early.
type bailout struct{}

type parser struct {
	sc   scanner
	errs ErrorList

	tok token
	pos Pos
	lit string

	nest        int // parenthesis depth: newlines are insignificant inside parentheses
	depth       int // expression nesting depth, bounded by maxNesting
	lastErrLine int // parser errors are reported at most once per line
}

// Parse parses GBNF source into a syntax tree. It returns the tree and the
// syntax errors, sorted by position. The tree is always non-nil; with errors,
// it holds what could be parsed (with *BadExpr in place of broken
// expressions). Parse checks syntax only: undefined and duplicate rules are
// found by Compile.
func Parse(filename string, src []byte) (f *File, errs ErrorList) {
	p := &parser{}
	p.sc = newScanner(filename, src, &p.errs)
	f = &File{Filename: filename}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(bailout); !ok {
				panic(r)
			}
		}
		errs = limitErrors(p.errs)
	}()
	p.next()
	for p.tok != tEOF {
		if p.tok == tNewline {
			p.next()
			continue
		}
		if r := p.parseRule(); r != nil {
			f.Rules = append(f.Rules, r)
		}
	}
	return f, nil
}

// limitErrors sorts a list and cuts it to maxErrors errors followed by a
// "too many errors" entry at the position of the first one left out.
func limitErrors(l ErrorList) ErrorList {
	l.Sort()
	if len(l) > maxErrors {
		l = append(l[:maxErrors:maxErrors], &Error{Pos: l[maxErrors].Pos, Msg: "too many errors"})
	}
	return l
}

// next advances to the next token, skipping newlines inside parentheses and
// illegal characters (which the scanner has reported).
func (p *parser) next() {
	for {
		p.tok, p.pos, p.lit = p.sc.scan()
		if len(p.errs) > maxErrors {
			panic(bailout{})
		}
		if p.tok == tIllegal || p.tok == tNewline && p.nest > 0 {
			continue
		}
		return
	}
}

// peek returns the token after the current one without consuming anything.
// If skipNewlines is set, it looks past newlines.
func (p *parser) peek(skipNewlines bool) token {
	sc := p.sc
	sc.quiet = true
	for {
		tok, _, _ := sc.scan()
		if tok == tIllegal || tok == tNewline && skipNewlines {
			continue
		}
		return tok
	}
}

func (p *parser) skipNewlines() {
	for p.tok == tNewline {
		p.next()
	}
}

func (p *parser) errorf(pos Pos, format string, args ...any) {
	// One syntax error per line: the rest are usually consequences, of it
	// or of an error the scanner reported on the same line.
	if n := len(p.errs); pos.Line == p.lastErrLine || n > 0 && p.errs[n-1].Pos.Line == pos.Line {
		return
	}
	p.lastErrLine = pos.Line
	p.errs.Addf(pos, format, args...)
	if len(p.errs) > maxErrors {
		panic(bailout{})
	}
}

// found describes the current token for messages.
func (p *parser) found() string {
	switch p.tok {
	case tIdent:
		return fmt.Sprintf("name %s", p.lit)
	}
	return p.tok.String()
}

func (p *parser) errorExpected(what string) {
	p.errorf(p.pos, "expected %s, found %s", what, p.found())
}

// sync skips to the start of the next line that begins a rule definition
// ("name ::="), or to the end of the file.
func (p *parser) sync() {
	p.nest = 0
	for p.tok != tEOF {
		if p.tok == tNewline {
			p.next()
			if p.tok == tIdent && p.peek(false) == tDefine {
				return
			}
			continue
		}
		p.next()
	}
}

// parseRule parses "name ::= body" up to (not including) the newline that
// ends it. It returns the rule even if the body has errors, so that the name
// counts as defined; it returns nil if there is no "name ::=".
func (p *parser) parseRule() *RuleDef {
	if p.tok != tIdent {
		p.errorExpected("rule name")
		p.sync()
		return nil
	}
	r := &RuleDef{Name: p.lit, NamePos: p.pos}
	p.next()
	if p.tok != tDefine {
		p.errorf(p.pos, `expected "::=" after rule name %s, found %s`, r.Name, p.found())
		p.sync()
		return nil
	}
	p.next()
	p.skipNewlines() // a rule may start on the line after "::="
	r.Body = p.parseAlt()
	switch p.tok {
	case tNewline, tEOF:
		return r
	case tDefine:
		p.errorf(p.pos, `unexpected "::=" (a rule definition must start on a new line)`)
	case tStar, tPlus, tQuest, tLbrace:
		p.errorf(p.pos, "%s has nothing to repeat", p.tok)
	default:
		p.errorf(p.pos, "unexpected %s", p.found())
	}
	p.sync()
	return r
}

// parseAlt parses alternatives separated by "|". A newline after "|" does
// not end the rule, and neither does one before a line that starts with "|".
func (p *parser) parseAlt() Expr {
	var alts []Expr
	for {
		alts = append(alts, p.parseSeq())
		if p.tok == tNewline && p.peek(true) == tPipe {
			p.skipNewlines()
		}
		if p.tok != tPipe {
			break
		}
		p.next()
		p.skipNewlines()
	}
	if len(alts) == 1 {
		return alts[0]
	}
	return &Alt{Alts: alts}
}

// parseSeq parses a possibly empty sequence of postfix expressions.
func (p *parser) parseSeq() Expr {
	start := p.pos
	var items []Expr
	for {
		x := p.parsePostfix()
		if x == nil {
			break
		}
		items = append(items, x)
	}
	if len(items) == 1 {
		return items[0]
	}
	return &Seq{Start: start, Items: items}
}

func (p *parser) enter() {
	p.depth++
	if p.depth > maxNesting {
		p.errs.Addf(p.pos, "expression nested too deeply (limit %d)", maxNesting) // unfiltered: parsing stops here
		panic(bailout{})
	}
}

// parsePostfix parses a primary expression followed by any number of
// repetition operators; it returns nil if no expression starts here.
func (p *parser) parsePostfix() Expr {
	x := p.parsePrimary()
	if x == nil {
		return nil
	}
	depth := p.depth
	defer func() { p.depth = depth }()
	for {
		switch p.tok {
		case tStar:
			x = &Repeat{X: x, OpPos: p.pos, Min: 0, Max: -1}
			p.next()
		case tPlus:
			x = &Repeat{X: x, OpPos: p.pos, Min: 1, Max: -1}
			p.next()
		case tQuest:
			x = &Repeat{X: x, OpPos: p.pos, Min: 0, Max: 1}
			p.next()
		case tLbrace:
			x = p.parseBounds(x)
		default:
			return x
		}
		p.enter()
	}
}

func (p *parser) parsePrimary() Expr {
	var x Expr
	switch p.tok {
	case tIdent:
		x = &Ref{NamePos: p.pos, Name: p.lit}
	case tString:
		x = &Lit{ValuePos: p.pos, Value: p.lit}
	case tClass:
		x = &Class{Lbrack: p.pos, Negate: p.sc.negate, Ranges: p.sc.ranges}
	case tDot:
		x = &AnyChar{Dot: p.pos}
	case tLparen:
		return p.parseGroup()
	default:
		return nil
	}
	p.next()
	return x
}

func (p *parser) parseGroup() Expr {
	g := &Group{Lparen: p.pos}
	p.enter()
	defer func() { p.depth-- }()
	p.nest++
	p.next()
	g.X = p.parseAlt()
	p.nest-- // before scanning past ")": a newline after it counts again
	if p.tok != tRparen {
		p.errorExpected(`")"`)
		return &BadExpr{From: g.Lparen}
	}
	p.next()
	return g
}

// parseBounds parses "{m}", "{m,}", "{m,n}" or "{,n}" after x.
func (p *parser) parseBounds(x Expr) Expr {
	lbrace := p.pos
	p.next()
	min, max := -1, -1 // -1: not written
	bad := false
	number := func() int {
		n := 0
		for i := 0; i < len(p.lit); i++ {
			c := p.lit[i]
			if c < '0' || c > '9' {
				p.errorf(p.pos, "expected number in repetition bounds, found %s", p.found())
				bad = true
				return 0
			}
			if n = n*10 + int(c-'0'); n > maxRepeat {
				p.errorf(p.pos, "repetition bound %s exceeds the limit of %d", p.lit, maxRepeat)
				bad = true
				return 0
			}
		}
		return n
	}
	if p.tok == tIdent {
		min = number()
		p.next()
	}
	comma := p.tok == tComma
	if comma {
		p.next()
		if p.tok == tIdent {
			max = number()
			p.next()
		}
	}
	if p.tok != tRbrace {
		p.errorExpected(`"}"`)
		return &BadExpr{From: x.Pos()}
	}
	p.next()
	switch {
	case bad:
		return &BadExpr{From: x.Pos()}
	case !comma && min < 0:
		p.errorf(lbrace, "missing repetition count in {}")
		return &BadExpr{From: x.Pos()}
	case !comma:
		max = min
	case min < 0 && max < 0:
		p.errorf(lbrace, "missing repetition bounds in {,}")
		return &BadExpr{From: x.Pos()}
	case min < 0:
		min = 0
	case max >= 0 && min > max:
		p.errorf(lbrace, "invalid repetition bounds {%d,%d}: minimum exceeds maximum", min, max)
		return &BadExpr{From: x.Pos()}
	}
	return &Repeat{X: x, OpPos: lbrace, Min: min, Max: max}
}
