package experiment

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gasplab/gasp/pkg/atomicfile"
	"github.com/gasplab/gasp/pkg/infile"
	"github.com/gasplab/gasp/pkg/sample"
)

// MaxTrieBytes bounds a saved trie: a node takes about 20 bytes of the
// file and 100 of memory, so that the largest trie read needs about 5 GB;
// a trie of 10^5 samples of 100 tokens has at most 10^7 nodes, 200 MB.
const MaxTrieBytes = 1 << 30

// LoadTrie reads the trie saved at path, a regular file of at most
// MaxTrieBytes, or returns a new one when there is none.
func LoadTrie(path string) (*sample.Trie, error) {
	f, err := infile.Open(path, MaxTrieBytes)
	if errors.Is(err, os.ErrNotExist) {
		return sample.NewTrie(), nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := sample.ReadTrie(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// SaveTrie writes t to path atomically (a new file renamed over the old),
// so that a killed run leaves the old trie or the new one.
func SaveTrie(path string, t *sample.Trie) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := t.WriteTo(w)
		return err
	})
}

// TriePath is where an experiment's store keeps the trie of an adaptive
// method on a task: <store>/tries/<method>/<task>.trie.
func TriePath(store, method, task string) string {
	return filepath.Join(store, "tries", method, filepath.FromSlash(task)+".trie")
}
