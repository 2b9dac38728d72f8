package grammar_test

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/gasplab/gasp/pkg/grammar"
)

// Compile a GBNF grammar and sample sentences from it (uniformly over
// alternatives, depth-bounded: a fuzzing baseline, not a language model).
func Example() {
	src := []byte(`root ::= "(" expr ")"
expr ::= [0-9]+ | expr "+" expr`)
	g, warnings, err := grammar.Compile("sum.gbnf", src, grammar.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("warnings:", len(warnings))
	rng := rand.New(rand.NewPCG(1, 2))
	s, err := grammar.SampleLimit(g, rng, 10, 100)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s[0] == '(' && s[len(s)-1] == ')')
	// Output:
	// warnings: 0
	// true
}

// Errors carry their positions, one "file:line:col: message" each, as
// go/scanner's do.
func ExampleCompile_errors() {
	src := []byte(`root ::= item+
item ::= "a" | missing
item ::= "b"`)
	_, _, err := grammar.Compile("bad.gbnf", src, grammar.Options{})
	var list grammar.ErrorList
	if errors.As(err, &list) {
		for _, e := range list {
			fmt.Println(e)
		}
	}
	// Output:
	// bad.gbnf:2:16: undefined rule missing
	// bad.gbnf:3:1: duplicate definition of rule item (first defined at 2:1)
}
