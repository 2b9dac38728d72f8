package sample

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"
	"testing"
)

// twoNodeTrie is a root with one child, token 5, of alive mass 0.25.
func twoNodeTrie() *Trie {
	t := NewTrie()
	t.root.logAlive = math.Log(0.5)
	t.root.kids = map[int]*trieNode{5: {logAlive: math.Log(0.25)}}
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
// node's header: the root's flags (offset 13, after the magic line and an
// empty Under's length), its log alive (14), a child's flags and log
// alive, a child cut short; and in a version 2 file, its linear P and
// masked mass.
func TestReadTrieCorruptOffsets(t *testing.T) {
	var buf bytes.Buffer
	if _, err := twoNodeTrie().WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	// magic 12, Under's length 12, root: flags 13, log alive 14–21, count
	// 22, token 23, child: flags 24, log alive 25–32, count 33.
	corrupt(t, buf.Bytes(), []corruption{
		{13, 0x80, "unknown node flags at offset 13"},
		{21, 0x7f, "log-probability above 0, NaN, or finite for an invalid prefix at offset 14"},
		{24, 0x01, "log-probability above 0, NaN, or finite for an invalid prefix at offset 25"},
		{24, 0x04, "unknown node flags at offset 24"},
		{32, 0x7f, "log-probability above 0, NaN, or finite for an invalid prefix at offset 25"},
		{-28, 0, "truncated node at offset 24"},
	})
	// magic 12, Under 12–13, root: flags 14, p 15–22, masked 23–30, count
	// 31, token 32, child: flags 33, p 34–41, masked 42–49, count 50.
	corrupt(t, linearTrie(), []corruption{
		{14, 0x80, "unknown node flags at offset 14"},
		{22, 0xff, "probability outside [0, 1] at offset 15"},
		{30, 0xff, "probability outside [0, 1] at offset 23"},
		{33, 0x04, "unknown node flags at offset 33"},
		{41, 0x7f, "probability outside [0, 1] at offset 34"},
		{-37, 0, "truncated node at offset 33"},
	})
}

type corruption struct {
	at   int // the byte set to b; negative: the input cut there
	b    byte
	want string
}

func corrupt(t *testing.T, good []byte, cs []corruption) {
	t.Helper()
	for _, c := range cs {
		b := bytes.Clone(good)
		if c.at < 0 {
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

// linearTrie is a version 2 file, as gasp wrote before version 3: Under
// "u", a known root (P 1, masked mass 0.25) and one fixed child, token 5,
// of P 0.25.
func linearTrie() []byte {
	b := []byte("gasp-trie 2\n\x01u")
	node := func(flags byte, p, masked float64, kids int) {
		b = append(b, flags)
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(p))
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(masked))
		b = binary.AppendUvarint(b, uint64(kids))
	}
	node(2, 1, 0.25, 1)
	b = append(b, 5)
	node(1, 0.25, 0, 0)
	return b
}

// A version 2 trie reads back with the alive mass its samplers computed:
// 1 − (0.25 masked + 0.25 of a dead child) = 0.5, and written again as
// version 3 keeps it.
func TestReadLinearTrie(t *testing.T) {
	tr, err := ReadTrie(bytes.NewReader(linearTrie()))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Under != "u" || tr.Nodes() != 2 || math.Abs(tr.Dead()-0.5) > 1e-15 || !tr.root.known || !tr.root.kids[5].fixed {
		t.Fatalf("read back Under %q, %d nodes, dead %v", tr.Under, tr.Nodes(), tr.Dead())
	}
	var buf bytes.Buffer
	if _, err := tr.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := ReadTrie(&buf)
	if err != nil || back.Dead() != tr.Dead() || back.Under != "u" || back.Nodes() != 2 {
		t.Fatalf("version 3 of it: %v, %+v", err, back)
	}
}
