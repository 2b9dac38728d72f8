package grammar

// This file defines the parse-level syntax tree that Parse returns. It keeps
// the source's structure (groups, repetitions, classes as written) and
// positions; Compile lowers it to a Grammar.

// File is a parsed grammar source file.
type File struct {
	Filename string
	Rules    []*RuleDef // in source order, duplicates included
}

// RuleDef is a rule definition "name ::= body".
type RuleDef struct {
	Name    string
	NamePos Pos
	Body    Expr
	// Generated marks a rule that a front end made as a part of a larger
	// construct, as Compile makes rules for groups and repetitions
	// (Rule.Generated): a recognizer's views look through it.
	Generated bool
	// Universal, where set, is what the front end states of the rules
	// that share it (see Universal); Compile gives it to the rule.
	Universal *Universal
	// Regex marks a rule that a front end wrote for a regular expression
	// (a JSON schema's pattern). It does not change the language; it
	// tells a recognizer and a masker what such rules are like. Their
	// derivations may begin at many positions that what waits on them
	// cannot tell apart: a search for the pattern may begin at any
	// character, and (a+)+ splits a run of a's many ways; pkg/earley
	// records where each began by what waits on it there (views of
	// origins), so that the ways do not multiply its states. Their loops
	// run over classes of characters, and each schema's are its own:
	// pkg/gcd masks a State inside one over the characters the loop
	// takes rather than walking the trie. Compile gives it to the rule
	// and to the rules it generates for the rule's groups and
	// repetitions.
	Regex bool
}

// A Universal is a front end's statement about the rules that share it:
// wherever a derivation of one of them has read a prefix after which every
// byte of Bytes may come next, any string over Bytes may come next, and,
// if Wide, any string of valid UTF-8 characters of Bytes and of two or
// more bytes. A JSON schema's name of a member that additionalProperties
// allows (any string but the names the schema declares) is so: after
// any prefix at a character's boundary, any characters may follow. A
// recognizer may then take such strings as viable without reading them
// (pkg/gcd masks a member name's start from the tokens over Bytes at
// once); a statement that does not hold makes it allow strings the
// grammar does not, so tests check it against brute force.
type Universal struct {
	Bytes ByteSet
	Wide  bool
}

// Expr is a right-hand-side expression: one of *Alt, *Seq, *Ref, *Lit,
// *Class, *AnyChar, *Group, *Repeat or *BadExpr.
type Expr interface {
	Pos() Pos // position of the first character of the expression
	exprNode()
}

type (
	// Alt is a choice "A | B | ..." of two or more alternatives.
	Alt struct {
		Alts []Expr
	}

	// Seq is a juxtaposition "A B ..." of zero (ε) or two or more items.
	Seq struct {
		Start Pos // where the sequence begins (for an empty one, where it would)
		Items []Expr
	}

	// Ref is a reference to a rule by name.
	Ref struct {
		NamePos Pos
		Name    string
	}

	// Lit is a string literal; Value is its decoded UTF-8 text (possibly "").
	Lit struct {
		ValuePos Pos
		Value    string
	}

	// Class is a character class "[...]" or "[^...]". Ranges are as written
	// (decoded escapes, in source order, possibly overlapping).
	Class struct {
		Lbrack Pos
		Negate bool
		Ranges []RuneRange
	}

	// AnyChar is ".", any Unicode scalar value (newline included).
	AnyChar struct {
		Dot Pos
	}

	// Group is a parenthesized expression "( X )".
	Group struct {
		Lparen Pos
		X      Expr
	}

	// Repeat is a postfix repetition of X: "*" is {0,-1}, "+" is {1,-1},
	// "?" is {0,1}, and "{m,n}" is written out. Max < 0 means unbounded.
	Repeat struct {
		X        Expr
		OpPos    Pos // position of the operator ("*", "+", "?" or "{")
		Min, Max int
	}

	// BadExpr stands for an expression that failed to parse.
	BadExpr struct {
		From Pos
	}
)

// RuneRange is an inclusive range of code points.
type RuneRange struct {
	Lo, Hi rune
}

// Pos implementations.

func (x *Alt) Pos() Pos {
	if len(x.Alts) == 0 {
		return Pos{}
	}
	return x.Alts[0].Pos()
}
func (x *Seq) Pos() Pos     { return x.Start }
func (x *Ref) Pos() Pos     { return x.NamePos }
func (x *Lit) Pos() Pos     { return x.ValuePos }
func (x *Class) Pos() Pos   { return x.Lbrack }
func (x *AnyChar) Pos() Pos { return x.Dot }
func (x *Group) Pos() Pos   { return x.Lparen }
func (x *Repeat) Pos() Pos  { return x.X.Pos() }
func (x *BadExpr) Pos() Pos { return x.From }

func (*Alt) exprNode()     {}
func (*Seq) exprNode()     {}
func (*Ref) exprNode()     {}
func (*Lit) exprNode()     {}
func (*Class) exprNode()   {}
func (*AnyChar) exprNode() {}
func (*Group) exprNode()   {}
func (*Repeat) exprNode()  {}
func (*BadExpr) exprNode() {}
