package gcd

import (
	"testing"
	"unicode/utf8"
)

// runeHeads returns the proper prefixes of every rune's UTF-8 encoding.
func runeHeads() map[string]bool {
	heads := map[string]bool{}
	for r := rune(0x80); r <= utf8.MaxRune; r++ {
		if enc := utf8.AppendRune(nil, r); utf8.ValidRune(r) {
			for k := 1; k < len(enc); k++ {
				heads[string(enc[:k])] = true
			}
		}
	}
	return heads
}

// validPrefix reports whether b starts some valid UTF-8 text, by the
// standard library: b is valid but for an unfinished last character.
func validPrefix(b []byte, heads map[string]bool) bool {
	for k := 0; k < utf8.UTFMax && k <= len(b); k++ {
		head, tail := b[:len(b)-k], b[len(b)-k:]
		if !utf8.Valid(head) {
			continue
		}
		if k == 0 {
			return true
		}
		if heads[string(tail)] {
			return true
		}
	}
	return false
}

// TestTrieUTF8 checks utf8 flags, on a byte trie and a relabelled one,
// against the standard library's UTF-8 validation of every path below.
func TestTrieUTF8(t *testing.T) {
	v := smallVocab("a", "é", "\xc3", "\xc3\xa9x", "\xc3(", "\xe2\x82\xac", "\xe2\x82", "\xed\xa0\x80", "\xf4\x90", "\xbf", "x\xbf", "\xf0\x9f\x98\x80!")
	orig := NewTrie(v)
	heads := runeHeads()
	flags := 0
	for _, tr := range []*Trie{orig, orig.relabel(classTable(func(b byte) uint8 { return b &^ 0x3f }))} {
		for i := 1; i < tr.Nodes(); i++ {
			want := true
			for _, id := range tr.ids[tr.first[i]:tr.first[tr.end[i]]] {
				// The token's bytes from node i's depth on, and every prefix of them.
				tok := v.Token(int(id))[tr.depth[i]-1:]
				for n := 1; n <= len(tok); n++ {
					want = want && validPrefix(tok[:n], heads)
				}
			}
			if tr.utf8[i] {
				flags++
			}
			if tr != orig && tr.utf8[i] && !want {
				t.Errorf("relabelled node %d: utf8 true, a path below is not valid", i)
			}
			if tr == orig && tr.utf8[i] != want {
				t.Errorf("node %d (depth %d): utf8 = %v, want %v", i, tr.depth[i], tr.utf8[i], want)
			}
		}
	}
	if flags == 0 {
		t.Error("no node is valid UTF-8")
	}
}
