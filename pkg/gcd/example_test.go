package gcd_test

import (
	"fmt"

	"github.com/gasplab/gasp/pkg/earley"
	"github.com/gasplab/gasp/pkg/gcd"
	"github.com/gasplab/gasp/pkg/grammar"
)

// The exact set of tokens that keep the text inside a grammar, step by step.
// A real vocabulary comes from a model's tokenizer.json (LoadVocab); this
// one is built by hand.
func Example() {
	var v gcd.Vocab
	for _, t := range []string{"a", "b", "ab", "ba", "c"} {
		v.Add([]byte(t), false, t)
	}
	v.EOS = []int{v.Add(nil, true, "<eos>")}

	g, _, err := grammar.Compile("ab.gbnf", []byte(`root ::= "a"+ "b"`), grammar.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	masker := gcd.NewMasker(earley.New(g), &v, gcd.NewTrie(&v))
	st := masker.NewState()
	for _, id := range []int{0, 2} { // "a", then "ab"
		fmt.Println(names(&v, st.Allowed()))
		if err := st.Advance(id); err != nil {
			fmt.Println(err)
			return
		}
	}
	fmt.Println(names(&v, st.Allowed()), string(st.Bytes()), st.Complete())
	// Output:
	// [a ab]
	// [a b ab]
	// [<eos>] aab true
}

func names(v *gcd.Vocab, allowed gcd.Bitset) []string {
	var out []string
	allowed.Each(func(id int) { out = append(out, v.Name(id)) })
	return out
}
