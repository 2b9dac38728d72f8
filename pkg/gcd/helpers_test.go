package gcd

import (
	"os"
	"path/filepath"
	"testing"
)

// loadLlama3 loads the Llama-3 vocabulary that scripts/fetch-tokenizer.sh puts
// in the repository's .cache, or skips the test when it is not there.
func loadLlama3(t testing.TB) *Vocab {
	t.Helper()
	path := filepath.Join("..", "..", ".cache", "llama3", "tokenizer.json")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no Llama-3 tokenizer (run scripts/fetch-tokenizer.sh): %v", err)
	}
	v, err := LoadVocab(path)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
