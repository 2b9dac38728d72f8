package tiny_test

import (
	"fmt"

	"github.com/gasplab/gasp/pkg/tiny"
)

// The embedded model's held-out perplexity, measured as "gasp eval-tiny"
// does: on the completions of the training corpus it never saw.
func Example() {
	opts := tiny.DefaultOptions()
	opts.Sources = tiny.DefaultSources("../..")
	ppl, tokens, err := tiny.HeldOutPerplexity("../../data/models/tiny", opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("perplexity %.2f over %d held-out tokens\n", ppl, tokens)
	// Output:
	// perplexity 3.16 over 5979 held-out tokens
}
