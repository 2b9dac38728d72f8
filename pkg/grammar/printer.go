package grammar

import (
	"fmt"
	"strings"
)

// String formats the file as GBNF, one rule per line, comments and layout
// dropped. Parsing the result gives an equivalent tree.
func (f *File) String() string {
	var b strings.Builder
	for _, r := range f.Rules {
		b.WriteString(r.Name)
		b.WriteString(" ::= ")
		b.WriteString(ExprString(r.Body))
		b.WriteByte('\n')
	}
	return b.String()
}

// ExprString formats an expression as GBNF.
func ExprString(x Expr) string {
	var b strings.Builder
	writeExpr(&b, x, precAlt)
	return b.String()
}

// Precedence levels, loosest first: an expression printed in a context of
// higher precedence than its own is parenthesized.
const (
	precAlt = iota
	precSeq
	precPostfix
)

// writeExpr writes x in a context of precedence prec.
func writeExpr(b *strings.Builder, x Expr, prec int) {
	switch x := x.(type) {
	case *Alt:
		writeList(b, x.Alts, " | ", precAlt, prec)
	case *Seq:
		if len(x.Items) == 0 {
			// ε; written out, as an empty alternative at the end of a
			// line would continue the rule onto the next.
			b.WriteString(`""`)
			return
		}
		writeList(b, x.Items, " ", precSeq, prec)
	case *Repeat:
		// The operand of a postfix operator must itself be primary or
		// postfix; Group keeps its own parentheses.
		writeExpr(b, x.X, precPostfix)
		writeRepeatOp(b, x.Min, x.Max)
	case *Group:
		b.WriteByte('(')
		writeExpr(b, x.X, precAlt)
		b.WriteByte(')')
	case *Ref:
		b.WriteString(x.Name)
	case *Lit:
		b.WriteByte('"')
		for _, r := range x.Value {
			writeChar(b, r, `"\`)
		}
		b.WriteByte('"')
	case *Class:
		writeClass(b, x)
	case *AnyChar:
		b.WriteByte('.')
	case *BadExpr:
		b.WriteString("<bad>")
	}
}

// writeList writes the operands of an alternation or sequence, whose
// precedence is own, separated by sep; each operand binds one level
// tighter. It parenthesizes the list in a context of higher precedence
// than own.
func writeList(b *strings.Builder, xs []Expr, sep string, own, prec int) {
	if prec > own {
		b.WriteByte('(')
		defer b.WriteByte(')')
	}
	for i, y := range xs {
		if i > 0 {
			b.WriteString(sep)
		}
		writeExpr(b, y, own+1)
	}
}

// writeRepeatOp writes the postfix operator of a repetition from min to
// max times (max < 0: unbounded).
func writeRepeatOp(b *strings.Builder, min, max int) {
	switch {
	case min == 0 && max < 0:
		b.WriteByte('*')
	case min == 1 && max < 0:
		b.WriteByte('+')
	case min == 0 && max == 1:
		b.WriteByte('?')
	case max < 0:
		fmt.Fprintf(b, "{%d,}", min)
	case min == max:
		fmt.Fprintf(b, "{%d}", min)
	default:
		fmt.Fprintf(b, "{%d,%d}", min, max)
	}
}

// writeClass writes a character class.
func writeClass(b *strings.Builder, x *Class) {
	b.WriteByte('[')
	if x.Negate {
		b.WriteByte('^')
	}
	for _, r := range x.Ranges {
		writeChar(b, r.Lo, `]\-^[`)
		if r.Hi != r.Lo {
			b.WriteByte('-')
			writeChar(b, r.Hi, `]\-^[`)
		}
	}
	b.WriteByte(']')
}

// writeChar writes r for a literal or class, escaping the characters in
// special, control characters, and what has no UTF-8 encoding.
func writeChar(b *strings.Builder, r rune, special string) {
	switch {
	case r == '\n':
		b.WriteString(`\n`)
	case r == '\t':
		b.WriteString(`\t`)
	case r == '\r':
		b.WriteString(`\r`)
	case strings.ContainsRune(special, r):
		b.WriteByte('\\')
		b.WriteRune(r)
	case r < 0x20 || r == 0x7F:
		fmt.Fprintf(b, `\x%02X`, r)
	case surrogateMin <= r && r <= surrogateMax || r == 0xFEFF:
		fmt.Fprintf(b, `\u%04X`, r)
	default:
		b.WriteRune(r)
	}
}
