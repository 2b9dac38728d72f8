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

func writeExpr(b *strings.Builder, x Expr, prec int) {
	paren := func(p int, f func()) {
		if prec > p {
			b.WriteByte('(')
			f()
			b.WriteByte(')')
		} else {
			f()
		}
	}
	switch x := x.(type) {
	case *Alt:
		paren(precAlt, func() {
			for i, y := range x.Alts {
				if i > 0 {
					b.WriteString(" | ")
				}
				writeExpr(b, y, precSeq)
			}
		})
	case *Seq:
		if len(x.Items) == 0 {
			// ε; written out, as an empty alternative at the end of a
			// line would continue the rule onto the next.
			b.WriteString(`""`)
			return
		}
		paren(precSeq, func() {
			for i, y := range x.Items {
				if i > 0 {
					b.WriteByte(' ')
				}
				writeExpr(b, y, precPostfix)
			}
		})
	case *Repeat:
		// The operand of a postfix operator must itself be primary or
		// postfix; Group keeps its own parentheses.
		writeExpr(b, x.X, precPostfix)
		switch {
		case x.Min == 0 && x.Max < 0:
			b.WriteByte('*')
		case x.Min == 1 && x.Max < 0:
			b.WriteByte('+')
		case x.Min == 0 && x.Max == 1:
			b.WriteByte('?')
		case x.Max < 0:
			fmt.Fprintf(b, "{%d,}", x.Min)
		case x.Min == x.Max:
			fmt.Fprintf(b, "{%d}", x.Min)
		default:
			fmt.Fprintf(b, "{%d,%d}", x.Min, x.Max)
		}
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
	case *AnyChar:
		b.WriteByte('.')
	case *BadExpr:
		b.WriteString("<bad>")
	}
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
