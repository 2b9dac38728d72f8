package lark

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/gasplab/gasp/pkg/grammar"
	"github.com/gasplab/gasp/pkg/infile"
	rx "github.com/gasplab/gasp/pkg/regex"
)

// DefaultStart is the rule a grammar starts from unless told otherwise, as
// in Lark.
const DefaultStart = "start"

// MaxFileBytes bounds a .lark file.
const MaxFileBytes = 1 << 20

// Names of the rules this package adds; "-" cannot occur in Lark names.
const (
	rootRule   = "lark-root"
	ignoreAll  = "lark-ignore"
	commonFile = "common.lark"
)

// Compile compiles a Lark grammar from src (named filename in errors),
// starting from the rule start ("" means DefaultStart). Errors are a
// grammar.ErrorList whose entries name file:line:col.
func Compile(filename string, src []byte, start string) (*grammar.Grammar, error) {
	if start == "" {
		start = DefaultStart
	}
	f, err := parse(filename, string(src))
	if err != nil {
		return nil, err
	}
	c := &compiler{filename: filename, defs: map[string]*def{}, lowered: map[string]bool{},
		nullMemo: map[string]bool{}, nullBusy: map[string]bool{}, acyclic: map[string]bool{}, setMemo: map[string][2]runeSet{}}
	if err := c.collect(f); err != nil {
		return nil, err
	}
	return c.compile(f, start)
}

// CompileFile compiles the grammar in the file at path, as Compile does.
func CompileFile(path, start string) (*grammar.Grammar, error) {
	src, err := infile.Read(path, MaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("lark: %w", err)
	}
	return Compile(path, src, start)
}

type compiler struct {
	filename string
	defs     map[string]*def // by name: the file's, and imported ones
	lowered  map[string]bool // definitions emitted so far
	rules    []*grammar.RuleDef
	ign      *ignoreSet // the ignored terminals; nil if none
	// Memos by terminal name: nullability (busy while being computed),
	// names known not to be recursive, and character sets.
	nullMemo, nullBusy, acyclic map[string]bool
	setMemo                     map[string][2]runeSet
	errs                        grammar.ErrorList
}

var common = func() *file {
	f, err := parse(commonFile, commonSource)
	if err != nil {
		panic("lark: common terminals: " + err.Error())
	}
	return f
}()

// collect gathers the definitions: the file's, then imported ones. An
// imported NAME is known internally as common.NAME (so that its own
// dependencies cannot clash with the file's names); the name it is
// imported as refers to it.
func (c *compiler) collect(f *file) error {
	for _, d := range f.defs {
		if prev, ok := c.defs[d.name]; ok {
			c.errs.Addf(d.p, "%s is defined twice (first at %s)", d.name, prev.p)
			continue
		}
		c.defs[d.name] = d
	}
	for _, d := range common.defs {
		c.defs["common."+d.name] = &def{name: "common." + d.name, p: d.p, body: renameCommon(d.body)}
	}
	for _, im := range f.imports {
		switch {
		case c.defs["common."+im.name] == nil || strings.HasPrefix(im.name, "_"):
			c.errs.Addf(im.p, "common has no terminal %s (it has %s)", im.name, commonNames)
		case !isTerminalName(im.as):
			c.errs.Addf(im.p, "terminal %s cannot be imported as the rule name %s", im.name, im.as)
		case c.defs[im.as] != nil:
			c.errs.Addf(im.p, "%s is defined twice (first at %s)", im.as, c.defs[im.as].p)
		default:
			c.defs[im.as] = &def{name: im.as, p: im.p, body: &nameNode{p: im.p, name: "common." + im.name}}
		}
	}
	return c.errs.Err()
}

// renameCommon points the names in a common definition at common.NAME.
func renameCommon(x node) node {
	switch x := x.(type) {
	case *nameNode:
		return &nameNode{p: x.p, name: "common." + x.name}
	case *altNode:
		out := &altNode{}
		for _, y := range x.xs {
			out.xs = append(out.xs, renameCommon(y))
		}
		return out
	case *seqNode:
		out := &seqNode{p: x.p}
		for _, y := range x.xs {
			out.xs = append(out.xs, renameCommon(y))
		}
		return out
	case *repNode:
		return &repNode{p: x.p, x: renameCommon(x.x), min: x.min, max: x.max}
	}
	return x
}

func (c *compiler) compile(f *file, start string) (*grammar.Grammar, error) {
	sd := c.defs[start]
	if sd == nil || isTerminalName(start) {
		var l grammar.ErrorList
		l.Addf(grammar.Pos{Filename: c.filename, Line: 1, Col: 1}, "no start rule %q", start)
		return nil, l
	}
	c.setupIgnore(f)
	root := grammar.Expr(&grammar.Ref{NamePos: sd.p, Name: start})
	if c.ign != nil {
		root = seq(sd.p, []grammar.Expr{root, ref(sd.p, ignoreAll)})
	}
	c.rules = append(c.rules, &grammar.RuleDef{Name: rootRule, NamePos: sd.p, Body: root})
	// Every rule of the file is compiled (as in Lark, an unused rule must
	// be valid too); terminals and common definitions as they are used.
	names := make([]string, 0, len(f.defs))
	for _, d := range f.defs {
		if !isTerminalName(d.name) {
			names = append(names, d.name)
		}
	}
	for _, n := range names {
		c.emit(n, false)
	}
	if err := c.errs.Err(); err != nil {
		return nil, err
	}
	g, _, err := grammar.CompileSyntax(&grammar.File{Filename: c.filename, Rules: c.rules}, grammar.Options{Start: rootRule})
	return g, err
}

// emit lowers the definition of name once.
func (c *compiler) emit(name string, term bool) {
	if c.lowered[name] {
		return
	}
	c.lowered[name] = true
	d := c.defs[name]
	var body grammar.Expr
	if term {
		body = c.terminal(d.body, name)
	} else {
		body = c.lower(d.body, false)
	}
	if body != nil {
		c.rules = append(c.rules, &grammar.RuleDef{Name: name, NamePos: d.p, Body: body})
	}
}

// token lowers x as a token of the input (the %ignore terminals): as a
// terminal that does not match the empty string.
func (c *compiler) token(x node, what string) grammar.Expr {
	if c.nullable(x, map[string]bool{}) {
		c.errs.Addf(x.pos(), "terminal %s matches the empty string, which Lark's lexer never produces as a token", what)
		return nil
	}
	return c.terminal(x, what)
}

// terminal lowers x as (the body of) a terminal: no ignore inside, no rule
// references, no recursion.
func (c *compiler) terminal(x node, what string) grammar.Expr {
	if n := c.recursion(x, []string{strings.TrimPrefix(what, "%")}); n != "" {
		c.errs.Addf(x.pos(), "terminal %s is recursive (through %s)", what, n)
		return nil
	}
	return c.lower(x, true)
}

// lower turns x into a grammar expression. In a rule (inTerm false) each
// terminal is preceded by the ignored terminals that may come before it
// (see ignore.go), so that with those after the start rule they may occur
// between any two tokens and at both ends.
func (c *compiler) lower(x node, inTerm bool) grammar.Expr {
	token := func(e grammar.Expr) grammar.Expr {
		if inTerm || c.ign == nil || e == nil {
			return e
		}
		return c.before(x, e)
	}
	switch x := x.(type) {
	case *altNode:
		var xs []grammar.Expr
		for _, y := range x.xs {
			if e := c.lower(y, inTerm); e != nil {
				xs = append(xs, e)
			}
		}
		return alt(xs)
	case *seqNode:
		xs := make([]grammar.Expr, 0, len(x.xs))
		for _, y := range x.xs {
			xs = append(xs, c.lower(y, inTerm))
		}
		return seq(x.p, xs)
	case *repNode:
		return &grammar.Repeat{X: c.lower(x.x, inTerm), OpPos: x.p, Min: x.min, Max: x.max}
	case *nameNode:
		return c.name(x, inTerm, token)
	case *litNode:
		if !inTerm && c.nullable(x, nil) {
			return nil
		}
		return token(c.literal(x))
	case *reNode:
		if !inTerm && c.nullable(x, nil) {
			c.errs.Addf(x.p, "regular expression matches the empty string, which Lark's lexer never produces as a token")
			return nil
		}
		return token(c.regexp(x))
	case *rangeNode:
		return token(&grammar.Class{Lbrack: x.p, Ranges: []grammar.RuneRange{{Lo: x.lo, Hi: x.hi}}})
	}
	panic(fmt.Sprintf("lark: unexpected node %T", x))
}

func (c *compiler) name(x *nameNode, inTerm bool, token func(grammar.Expr) grammar.Expr) grammar.Expr {
	d := c.defs[x.name]
	term := isTerminalName(strings.TrimPrefix(x.name, "common."))
	switch {
	case d == nil:
		kind := "rule"
		if term {
			kind = "terminal"
		}
		c.errs.Addf(x.p, "undefined %s %s", kind, x.name)
		return nil
	case inTerm && !term:
		c.errs.Addf(x.p, "a terminal cannot use the rule %s", x.name)
		return nil
	}
	c.emit(x.name, term)
	ref := &grammar.Ref{NamePos: x.p, Name: x.name}
	if term && !inTerm {
		if c.nullable(d.body, map[string]bool{}) {
			c.errs.Addf(x.p, "terminal %s matches the empty string, which Lark's lexer never produces as a token", x.name)
			return nil
		}
		return token(ref)
	}
	return ref
}

func (c *compiler) literal(x *litNode) grammar.Expr {
	if !x.fold {
		return &grammar.Lit{ValuePos: x.p, Value: x.s}
	}
	e, err := rx.Expr(c.filename, "(?i)"+regexp.QuoteMeta(x.s), rx.Options{Pos: x.p})
	if err != nil {
		c.errs.Addf(x.p, "%v", err)
		return nil
	}
	return e
}

func (c *compiler) regexp(x *reNode) grammar.Expr {
	pat, err := pyToGo(x.pattern, x.flags)
	if err == nil {
		err = checkRE(pat)
	}
	if err != nil {
		c.errs.Addf(x.p, "%v", err)
		return nil
	}
	e, err := rx.Expr(c.filename, pat, rx.Options{Pos: x.p})
	if err != nil {
		if l, ok := err.(grammar.ErrorList); ok && len(l) > 0 {
			c.errs.Addf(x.p, "%s", l[0].Msg)
		} else {
			c.errs.Addf(x.p, "%v", err)
		}
		return nil
	}
	return e
}

// nullable reports whether a terminal expression matches "". A name being
// computed counts as not nullable (recursion is reported elsewhere). seen
// is unused.
func (c *compiler) nullable(x node, seen map[string]bool) bool {
	switch x := x.(type) {
	case *altNode:
		for _, y := range x.xs {
			if c.nullable(y, seen) {
				return true
			}
		}
		return false
	case *seqNode:
		for _, y := range x.xs {
			if !c.nullable(y, seen) {
				return false
			}
		}
		return true
	case *repNode:
		return x.min == 0 || c.nullable(x.x, seen)
	case *nameNode:
		d := c.defs[x.name]
		if d == nil || c.nullBusy[x.name] || !isTerminalName(strings.TrimPrefix(x.name, "common.")) {
			return false
		}
		if v, ok := c.nullMemo[x.name]; ok {
			return v
		}
		c.nullBusy[x.name] = true
		v := c.nullable(d.body, seen)
		c.nullBusy[x.name] = false
		c.nullMemo[x.name] = v
		return v
	case *litNode:
		return x.s == ""
	case *reNode:
		pat, err := pyToGo(x.pattern, x.flags)
		if err != nil {
			return false
		}
		re, err := regexp.Compile(`^(?:` + pat + `)$`)
		return err == nil && re.MatchString("")
	}
	return false
}

// recursion returns the name through which x refers back to a terminal on
// path, or "".
func (c *compiler) recursion(x node, path []string) string {
	switch x := x.(type) {
	case *altNode:
		return c.recursionAll(x.xs, path)
	case *seqNode:
		return c.recursionAll(x.xs, path)
	case *repNode:
		return c.recursion(x.x, path)
	case *nameNode:
		for _, p := range path {
			if p == x.name {
				return x.name
			}
		}
		if d := c.defs[x.name]; d != nil && !c.acyclic[x.name] && isTerminalName(strings.TrimPrefix(x.name, "common.")) {
			n := c.recursion(d.body, append(path, x.name))
			c.acyclic[x.name] = n == ""
			return n
		}
	}
	return ""
}

func (c *compiler) recursionAll(xs []node, path []string) string {
	for _, y := range xs {
		if n := c.recursion(y, path); n != "" {
			return n
		}
	}
	return ""
}

func seq(p grammar.Pos, xs []grammar.Expr) grammar.Expr {
	out := xs[:0:0]
	for _, x := range xs {
		if x == nil {
			return nil
		}
		out = append(out, x)
	}
	if len(out) == 1 {
		return out[0]
	}
	return &grammar.Seq{Start: p, Items: out}
}

func alt(xs []grammar.Expr) grammar.Expr {
	switch len(xs) {
	case 0:
		return nil
	case 1:
		return xs[0]
	}
	return &grammar.Alt{Alts: xs}
}

// describe names a terminal node for errors.
func describe(x node) string {
	switch x := x.(type) {
	case *nameNode:
		return "terminal " + x.name
	case *litNode:
		return fmt.Sprintf("the literal %q", x.s)
	case *reNode:
		return fmt.Sprintf("the regular expression /%s/", x.pattern)
	case *rangeNode:
		return fmt.Sprintf("the range %q..%q", x.lo, x.hi)
	}
	return "the ignored terminal"
}
