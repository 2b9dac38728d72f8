package lark_test

import (
	"fmt"

	"github.com/gasplab/gasp/pkg/earley"
	"github.com/gasplab/gasp/pkg/lark"
)

// Compile a Lark grammar with common terminals and ignored whitespace, and
// test strings against it with an Earley parser.
func Example() {
	src := `
?start: sum
?sum: product ("+" product)*
?product: atom ("*" atom)*
?atom: NUMBER | "(" sum ")"
%import common.NUMBER
%import common.WS
%ignore WS
`
	g, err := lark.Compile("calc.lark", []byte(src), "")
	if err != nil {
		fmt.Println(err)
		return
	}
	m := earley.New(g)
	for _, s := range []string{"1 + 2.5*(3+4)", " 7 ", "1 +", "1 2"} {
		p := m.NewParser()
		fmt.Printf("%q %v\n", s, p.FeedBytes([]byte(s)) && p.Complete())
	}
	_, err = lark.Compile("bad.lark", []byte("start: A\nA: /a(?=b)/\n"), "")
	fmt.Println(err)
	// Output:
	// "1 + 2.5*(3+4)" true
	// " 7 " true
	// "1 +" false
	// "1 2" false
	// bad.lark:2:4: error parsing regexp: invalid or unsupported Perl syntax: `(?=` (lookaround is not supported)
}
