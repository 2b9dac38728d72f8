package experiment

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

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

// LoadTrieUnder is LoadTrie for a trie that must have been learnt under
// the settings under (Trie.Under; space-separated key=value fields): a new
// trie is marked with them, and a saved one learnt under others, or under
// settings it does not record, is refused, naming the first that differs.
// A trie of another grammar, model or prompt would steer CARS away from
// sentences of this one and leave it nothing to accept.
func LoadTrieUnder(path, under string) (*sample.Trie, error) {
	t, err := LoadTrie(path)
	if err != nil {
		return nil, err
	}
	switch {
	case t.Nodes() == 1 && t.Under == "" && !exists(path):
		t.Under = under
	case t.Under == "":
		return nil, fmt.Errorf("%s: records no settings it was learnt under (saved by an older gasp); name another file to learn a new trie", path)
	case t.Under != under:
		return nil, fmt.Errorf("%s: learnt under %s; a trie holds only for the grammar, model, prompt and settings it was learnt under: name another file to learn a new trie",
			path, fieldDiff(t.Under, under))
	}
	return t, nil
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// fieldDiff names the first key=value field of now that old differs in.
func fieldDiff(old, now string) string {
	was := map[string]string{}
	for _, f := range strings.Fields(old) {
		k, v, _ := strings.Cut(f, "=")
		was[k] = v
	}
	for _, f := range strings.Fields(now) {
		k, v, _ := strings.Cut(f, "=")
		if was[k] != v {
			return fmt.Sprintf("%s=%s, not %s=%s", k, was[k], k, v)
		}
	}
	return fmt.Sprintf("%q, not %q", old, now)
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
