package regex_test

import (
	"fmt"

	"github.com/gasplab/gasp/pkg/earley"
	"github.com/gasplab/gasp/pkg/regex"
)

// Compile a pattern in Search mode (JSON Schema's "pattern" semantics) and
// test strings against the grammar with an Earley parser.
func Example() {
	g, err := regex.Compile("p.regex", `^\d{3}-[a-z]+`, regex.Search)
	if err != nil {
		fmt.Println(err)
		return
	}
	m := earley.New(g)
	for _, s := range []string{"123-abc", "123-abc!", "x123-abc", "12-ab"} {
		p := m.NewParser()
		fmt.Println(s, p.FeedBytes([]byte(s)) && p.Complete())
	}
	_, err = regex.Compile("p.regex", `a(?=b)`, regex.Full)
	fmt.Println(err)
	// Output:
	// 123-abc true
	// 123-abc! true
	// x123-abc false
	// 12-ab false
	// p.regex:1:2: error parsing regexp: invalid or unsupported Perl syntax: `(?=` (lookaround is not supported)
}
