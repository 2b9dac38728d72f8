package tokenizer_test

import (
	"fmt"

	"github.com/gasplab/gasp/pkg/tokenizer"
)

// Encode and decode with the embedded model's tokenizer (a byte-level BPE
// tokenizer.json of Llama 3's kind, with a small vocabulary).
func Example() {
	tok, err := tokenizer.Load("../../data/models/tiny/tokenizer.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	ids := tok.Encode("(str.++ name \" \")", false)
	text, err := tok.Decode(ids)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(ids) > 0, text)
	// Output:
	// true (str.++ name " ")
}
