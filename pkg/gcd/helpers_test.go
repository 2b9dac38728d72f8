package gcd

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

var llama3Path = filepath.Join("..", "..", ".cache", "llama3", "tokenizer.json")

// llama3 loads the Llama-3 vocabulary once for all tests.
var llama3 = sync.OnceValues(func() (*Vocab, error) { return LoadVocab(llama3Path) })

// loadLlama3 returns the Llama-3 vocabulary that scripts/fetch-tokenizer.sh
// puts in the repository's .cache, or skips the test when it is not there.
// Each caller gets its own EOS list (tests set it); the tokens are shared
// and must not be modified.
func loadLlama3(t testing.TB) *Vocab {
	t.Helper()
	if _, err := os.Stat(llama3Path); err != nil {
		t.Skipf("no Llama-3 tokenizer (run scripts/fetch-tokenizer.sh): %v", err)
	}
	v, err := llama3()
	if err != nil {
		t.Fatal(err)
	}
	c := *v
	c.EOS = slices.Clone(v.EOS)
	return &c
}

// llama3Trie returns the Llama-3 vocabulary with the workloads' EOS
// (<|end_of_text|>, 128001) and its trie.
func llama3Trie(t testing.TB) (*Vocab, *Trie) {
	t.Helper()
	v := loadLlama3(t)
	v.EOS = []int{128001}
	return v, NewTrie(v)
}

// stepThrough takes ids in st, checking that the mask allows each, and
// then asks for the mask after the last.
func stepThrough(t testing.TB, st *State, ids []int) {
	t.Helper()
	for _, id := range ids {
		if !st.Allowed().Has(id) {
			t.Fatalf("token %d rejected after %q", id, st.Bytes())
		}
		if err := st.Advance(id); err != nil {
			t.Fatal(err)
		}
	}
	st.Allowed()
}

// eachWord calls f with every word of 1 to maxLen letters of alphabet
// and its number of letters, shorter words first.
func eachWord(alphabet []string, maxLen int, f func(w string, letters int)) {
	words := []string{""}
	for n := 1; n <= maxLen; n++ {
		var next []string
		for _, w := range words {
			for _, a := range alphabet {
				next = append(next, w+a)
			}
		}
		words = next
		for _, w := range words {
			f(w, n)
		}
	}
}
