package fuzz

import (
	"bytes"
	"fmt"
	"sort"

	"github.com/gasplab/gasp/pkg/grammar"
)

// Dictionary returns an AFL++ dictionary (afl-fuzz -x) of the string
// literals of a grammar that are at least two bytes long — keywords,
// punctuation pairs, Tcl commands — one "..." line each, sorted, with bytes
// other than printable ASCII, '"' and '\' written as \xNN. Single bytes are
// left to afl-fuzz's own mutations.
func Dictionary(f *grammar.File) []byte {
	seen := map[string]bool{}
	var walk func(x grammar.Expr)
	walk = func(x grammar.Expr) {
		switch x := x.(type) {
		case *grammar.Lit:
			if len(x.Value) >= 2 {
				seen[x.Value] = true
			}
		case *grammar.Seq:
			for _, y := range x.Items {
				walk(y)
			}
		case *grammar.Alt:
			for _, y := range x.Alts {
				walk(y)
			}
		case *grammar.Group:
			walk(x.X)
		case *grammar.Repeat:
			walk(x.X)
		}
	}
	for _, r := range f.Rules {
		walk(r.Body)
	}
	lits := make([]string, 0, len(seen))
	for s := range seen {
		lits = append(lits, s)
	}
	sort.Strings(lits)
	var b bytes.Buffer
	for _, s := range lits {
		b.WriteByte('"')
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
				fmt.Fprintf(&b, `\x%02x`, c)
			} else {
				b.WriteByte(c)
			}
		}
		b.WriteString("\"\n")
	}
	return b.Bytes()
}
