package earley_test

import (
	"fmt"

	"github.com/gasplab/gasp/pkg/earley"
	"github.com/gasplab/gasp/pkg/grammar"
)

// A Parser answers, byte by byte, whether the input can still become a
// sentence and whether it is one; Rollback undoes bytes in O(1).
func Example() {
	g, _, err := grammar.Compile("list.gbnf", []byte(`root ::= "[" [0-9]+ ("," [0-9]+)* "]"`), grammar.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	p := earley.New(g).NewParser()
	fmt.Println(p.FeedBytes([]byte("[1,2")), p.Complete())
	cp := p.Checkpoint()
	fmt.Println(p.Feed(']'), p.Complete())
	p.Rollback(cp)
	fmt.Println(p.Feed('x'), string(p.Bytes())) // refused: unchanged
	// Output:
	// true false
	// true true
	// false [1,2
}

// Parse gives the parse tree of a complete sentence.
func ExampleParse() {
	g, _, err := grammar.Compile("kv.gbnf", []byte(`root ::= key "=" val
key ::= [a-z]+
val ::= [0-9]+`), grammar.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	input := []byte("ab=12")
	tree, err := earley.Parse(g, input)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range tree.Flatten(g).Children {
		name := c.Name
		if c.Rule < 0 {
			name = "byte"
		}
		fmt.Printf("%s %q\n", name, input[c.Start:c.End])
	}
	// Output:
	// key "ab"
	// byte "="
	// val "12"
}
