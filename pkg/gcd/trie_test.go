package gcd

import (
	"bytes"
	"testing"
)

func smallVocab(tokens ...string) *Vocab {
	v := &Vocab{}
	for _, t := range tokens {
		v.Add([]byte(t), false, t)
	}
	return v
}

// checkTrie verifies the trie against its vocabulary: every ordinary token
// ends at the node its bytes spell, and subtree ranges hold exactly the
// tokens with that prefix.
func checkTrie(t *testing.T, v *Vocab, tr *Trie) {
	t.Helper()
	n := tr.Nodes()
	spell := make([][]byte, n)
	var path [][]byte
	for i := 1; i < n; i++ {
		d := int(tr.depth[i])
		if d < 1 || d > len(path)+1 {
			t.Fatalf("node %d: depth %d after depth %d", i, d, len(path))
		}
		path = path[:d-1]
		var prev []byte
		if d > 1 {
			prev = path[d-2]
		}
		spell[i] = append(bytes.Clone(prev), tr.label[i])
		path = append(path, spell[i])
	}
	seen := map[int32]bool{}
	for i := 1; i < n; i++ {
		for _, id := range tr.ids[tr.first[i]:tr.first[i+1]] {
			if !bytes.Equal(v.Token(int(id)), spell[i]) {
				t.Errorf("token %d %q at node spelling %q", id, v.Token(int(id)), spell[i])
			}
			seen[id] = true
		}
		for _, id := range tr.ids[tr.first[i]:tr.first[tr.end[i]]] {
			if !bytes.HasPrefix(v.Token(int(id)), spell[i]) {
				t.Errorf("token %d %q in subtree of %q", id, v.Token(int(id)), spell[i])
			}
		}
		for j := int(tr.end[i]); j < n && j < int(tr.end[i])+1; j++ {
			if bytes.HasPrefix(spell[j], spell[i]) {
				t.Errorf("node %d %q after the subtree of %q", j, spell[j], spell[i])
			}
		}
	}
	for id := range v.Size() {
		if tok := v.Token(id); !v.Special[id] && len(tok) > 0 && !seen[int32(id)] {
			t.Errorf("token %d %q missing", id, tok)
		}
	}
}

func TestTrieSmall(t *testing.T) {
	v := smallVocab("a", "ab", "abc", "b", "", "ab", "ba", "\xff")
	v.Special[3] = true
	tr := NewTrie(v)
	checkTrie(t, v, tr)
	if tr.Nodes() != 1+3+1+1+1 { // root, a ab abc, b(ba path), ba, \xff
		t.Errorf("nodes = %d", tr.Nodes())
	}
}

func TestTrieLlama3(t *testing.T) {
	v := loadLlama3(t)
	tr := NewTrie(v)
	checkTrie(t, v, tr)
	t.Logf("%d tokens, %d trie nodes", v.Size(), tr.Nodes())
}

// TestRelabel checks a relabelled trie against one built directly from the
// relabelled tokens.
func TestRelabel(t *testing.T) {
	v := smallVocab("ab", "ba", "a", "bb", "abc", "cab", "xyz", "c", "aa")
	class := func(b byte) uint8 {
		if b == 'a' || b == 'b' {
			return 'a'
		}
		return b
	}
	r := NewTrie(v).relabel(classTable(class))
	w := smallVocab()
	for id := range v.Size() {
		var rt []byte
		for _, b := range v.Token(id) {
			rt = append(rt, class(b))
		}
		w.Add(rt, false, "")
	}
	checkTrie(t, w, r)
	// root, a, aa, aac, c, ca, caa, x, xy, xyz
	if r.Nodes() != 10 {
		t.Errorf("nodes = %d, want 10", r.Nodes())
	}
}

// classTable tabulates class for Trie.relabel.
func classTable(class func(b byte) uint8) *[256]uint8 {
	var t [256]uint8
	for b := range t {
		t[b] = class(byte(b))
	}
	return &t
}
