package gcd

import (
	"testing"

	"github.com/gasplab/gasp/pkg/earley"
)

// TestSharedLabels checks the shared labels' partition: at most 128 labels
// (a subtree's classSet holds them exactly), and bytes of one label alike
// in every way the trie's indexes tell bytes apart (ASCII or not,
// continuation byte or not, and each range of a UTF-8 form).
func TestSharedLabels(t *testing.T) {
	if sharedLabels > 128 {
		t.Fatalf("%d shared labels", sharedLabels)
	}
	kind := func(b int) int {
		k := 0
		if b >= 0x80 {
			k |= 1
		}
		if b >= 0x80 && b <= 0xBF {
			k |= 2
		}
		for f, seq := range utf8Seqs {
			for j, r := range seq {
				if b >= int(r[0]) && b <= int(r[1]) {
					k |= 1 << (2 + 4*f + j)
				}
			}
		}
		return k
	}
	first := map[uint8]int{}
	for b := range 256 {
		l := sharedLabel[b]
		if a, ok := first[l]; ok && kind(a) != kind(b) {
			t.Errorf("bytes %#x and %#x share label %d", a, b, l)
		} else if !ok {
			first[l] = b
		}
	}
}

// TestSharedTrieChosen checks which trie a Masker walks: the shared labels'
// where the grammar's classes are unions of them (every character but the
// quote; a class of non-ASCII characters with UTF-8's own boundaries), its
// own where a class splits a label (é apart from the other two-byte
// characters), or when asked.
func TestSharedTrieChosen(t *testing.T) {
	v := smallVocab("a", "b", "é", "ü", `"`, "<eos>")
	v.Special[5], v.EOS = true, []int{5}
	trie := NewTrie(v)
	for _, c := range []struct {
		src    string
		labels int
		shared bool
	}{
		{`root ::= "\"" [^"]* "\""`, labelsShared, true},
		{`root ::= [^\x00-\x7F]+`, labelsShared, true},
		{`root ::= "a" [é]`, labelsShared, false},
		{`root ::= "\"" [^"]* "\""`, labelsOwn, false},
	} {
		k := newMasker(earley.New(compile(t, c.src)), v, trie, c.labels)
		if got := k.lt == trie.shared; got != c.shared {
			t.Errorf("%s, labels %d: shared trie %v, want %v", c.src, c.labels, got, c.shared)
		}
	}
}
