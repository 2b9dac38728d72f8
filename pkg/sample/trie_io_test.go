package sample

import (
	"bytes"
	"strings"
	"testing"
)

// twoNodeTrie is a root with one child, token 5, of P 0.25.
func twoNodeTrie() *Trie {
	t := NewTrie()
	t.root.kids = map[int]*trieNode{5: {p: 0.25}}
	t.nodes = 2
	return t
}

// A saved trie keeps what it was learnt under; a trie saved without it
// (as gasp did before it recorded it) reads back with Under "".
func TestTrieUnderRoundTrip(t *testing.T) {
	for _, under := range []string{"", "model=m grammar=0123 prompt=abcd temperature=1"} {
		tr := twoNodeTrie()
		tr.Under = under
		var buf bytes.Buffer
		if _, err := tr.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		back, err := ReadTrie(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("under %q: %v", under, err)
		}
		if back.Under != under || back.Nodes() != 2 {
			t.Errorf("read back Under %q, %d nodes; want %q, 2", back.Under, back.Nodes(), under)
		}
	}
}

// A corrupt byte is reported at its own offset, not at the end of the
// node's header: the root's flags (offset 12, after the magic line), its
// probability (13) and masked mass (21), a child's flags and probability,
// a child cut short.
func TestReadTrieCorruptOffsets(t *testing.T) {
	var buf bytes.Buffer
	if _, err := twoNodeTrie().WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	// magic 12, root: flags 12, p 13–20, masked 21–28, count 29, token 30,
	// child: flags 31, p 32–39, masked 40–47, count 48.
	for _, c := range []struct {
		at   int
		b    byte
		want string
	}{
		{12, 0x80, "unknown node flags at offset 12"},
		{20, 0xff, "probability outside [0, 1] at offset 13"},
		{28, 0xff, "probability outside [0, 1] at offset 21"},
		{31, 0x04, "unknown node flags at offset 31"},
		{39, 0x7f, "probability outside [0, 1] at offset 32"},
		{-35, 0, "truncated node at offset 31"},
	} {
		b := bytes.Clone(good)
		if c.at < 0 { // cut there
			b = b[:-c.at]
		} else {
			b[c.at] = c.b
		}
		_, err := ReadTrie(bytes.NewReader(b))
		if err == nil || !strings.HasSuffix(err.Error(), c.want) {
			t.Errorf("byte %d set to %#x: err = %v, want %q", c.at, c.b, err, c.want)
		}
	}
}
