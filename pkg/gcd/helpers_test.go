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
