package gcd

import (
	"bytes"
	"slices"

	"github.com/gasplab/gasp/pkg/grammar"
)

// Trie is a byte trie over a vocabulary's ordinary (non-special) tokens,
// flattened in depth-first preorder so that a walk is a loop over arrays and
// a subtree is a contiguous range of nodes.
//
// Node 0 is the root (the empty string). For node i > 0: label[i] is the
// byte on the edge into it, depth[i] its length, parent[i] its parent,
// end[i] the node after its subtree, and ids[first[i]:first[i+1]] the tokens whose bytes end there;
// the tokens of the whole subtree are ids[first[i]:first[end[i]]];
// utf8[i] whether every path from i down is valid UTF-8 from a character
// boundary (see utf8.go).
//
// Build one Trie per vocabulary and give it to every Masker of that
// vocabulary, in any goroutines: what their walks keep with it (labels.go)
// is kept under locks, and serves them all.
type Trie struct {
	label  []byte
	depth  []int32
	parent []int32
	end    []int32
	first  []int32
	ids    []int32
	utf8   []bool
	size   int // vocabulary size
	// longest is the most bytes a token has (see earley.Machine.RoomKey).
	longest int

	shared *labelled // relabelled by the shared labels (labels.go); nil in a relabelled Trie
}

// NewTrie builds the trie of v's ordinary tokens, and its relabelling by
// the shared labels that most grammars' Maskers walk (labels.go). Tokens
// with no bytes are left out: they could never change a parse.
func NewTrie(v *Vocab) *Trie {
	var order []int32
	for id := range v.Size() {
		if !v.Special[id] && len(v.Token(id)) > 0 {
			order = append(order, int32(id))
		}
	}
	slices.SortStableFunc(order, func(a, b int32) int { return bytes.Compare(v.Token(int(a)), v.Token(int(b))) })

	t := &Trie{size: v.Size()}
	t.label = append(t.label, 0)
	t.depth = append(t.depth, 0)
	t.parent = append(t.parent, 0)
	t.first = append(t.first, 0)
	var path []int32 // path[d] is the node at depth d on the current branch
	path = append(path, 0)
	var prev []byte
	for _, id := range order {
		tok := v.Token(int(id))
		common := 0
		for common < len(prev) && common < len(tok) && prev[common] == tok[common] {
			common++
		}
		path = path[:common+1]
		for d := common; d < len(tok); d++ {
			n := int32(len(t.label))
			t.label = append(t.label, tok[d])
			t.depth = append(t.depth, int32(d+1))
			t.parent = append(t.parent, path[d])
			t.first = append(t.first, int32(len(t.ids)))
			path = append(path, n)
		}
		t.ids = append(t.ids, id)
		t.longest = max(t.longest, len(tok))
		prev = tok
	}
	t.first = append(t.first, int32(len(t.ids)))
	// end[i]: the first later node that is not deeper than i.
	n := len(t.label)
	t.end = make([]int32, n)
	var stack []int32
	for i := 0; i < n; i++ {
		for len(stack) > 0 && t.depth[stack[len(stack)-1]] >= t.depth[i] {
			t.end[stack[len(stack)-1]] = int32(i)
			stack = stack[:len(stack)-1]
		}
		stack = append(stack, int32(i))
	}
	for _, s := range stack {
		t.end[s] = int32(n)
	}
	t.utf8 = t.utf8Flags()
	t.shared = newLabelled(t, &sharedLabel, sharedLabels)
	// The run table of the characters a JSON string (or most languages'
	// string literals) writes as themselves, which a bounded string's
	// masks use (runs.go): built on first use, it would make that first
	// mask 5-7 ms.
	plain := plainLabels()
	t.shared.runTable(&plain, true)
	return t
}

// plainLabels returns the shared labels of the ASCII characters a JSON
// string writes as themselves: 20-7F but the quote and the backslash.
func plainLabels() grammar.ByteSet {
	var plain grammar.ByteSet
	for b := 0x20; b < 0x80; b++ {
		if b != '"' && b != '\\' {
			plain.Add(sharedLabel[b])
		}
	}
	return plain
}

// forgetWalks empties what walks kept with t's shared labels' trie (the
// walks of region shapes, universes' tables, the run tables built on first
// use), but NewTrie's run table: benchmarks of a grammar's cold masks call
// it between passes, while no Masker of t runs.
func (t *Trie) forgetWalks() {
	lt, plain := t.shared, plainLabels()
	lt.shapes = newShapeCache(maxShapeBytes)
	lt.univMu.Lock()
	clear(lt.univ)
	lt.univMu.Unlock()
	lt.runsMu.Lock()
	defer lt.runsMu.Unlock()
	for set := range lt.runs {
		if set != plain {
			delete(lt.runs, set)
		}
	}
}

// Nodes returns the number of trie nodes, the root included.
func (t *Trie) Nodes() int { return len(t.label) }

// VocabSize returns the size of the vocabulary the trie was built from.
func (t *Trie) VocabSize() int { return t.size }

// relabel returns the trie of the same tokens over other labels: each
// byte b becomes class[b], and tokens whose bytes map to the same label
// sequence share a node. With a grammar's byte classes this shrinks the
// trie a walk must visit (every lowercase word of a length is one path
// inside a JSON string) without changing any answer: bytes of one class lead
// every State to the same State.
//
// It builds the new trie depth first: a new node stands for the set of old
// nodes that map to it, and its children are found by grouping the old
// nodes' children by label. No maps, and each old node is touched once.
func (t *Trie) relabel(class *[256]uint8) *Trie {
	n := len(t.label)
	r := &Trie{
		label:   make([]byte, 0, n/2),
		depth:   make([]int32, 0, n/2),
		parent:  make([]int32, 0, n/2),
		first:   make([]int32, 0, n/2),
		ids:     make([]int32, 0, len(t.ids)),
		utf8:    make([]bool, 0, n/2),
		size:    t.size,
		longest: t.longest,
	}
	end := make([]int32, 0, n/2)
	// A pending node: its label, depth, parent, and its old nodes, which
	// are members[off:off+len] of an arena that only grows.
	type pending struct {
		label         byte
		depth, parent int32
		off, len      int32
	}
	members := make([]int32, 1, n)
	stack := []pending{{0, 0, 0, 0, 1}}
	var bucket [256][]int32
	var touched []uint8
	var open []int32 // new nodes whose subtree is not closed yet
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		i := int32(len(r.label))
		for len(open) > 0 && r.depth[open[len(open)-1]] >= p.depth {
			end[open[len(open)-1]] = i
			open = open[:len(open)-1]
		}
		open = append(open, i)
		r.label = append(r.label, p.label)
		r.depth = append(r.depth, p.depth)
		r.parent = append(r.parent, p.parent)
		r.first = append(r.first, int32(len(r.ids)))
		end = append(end, 0)
		touched = touched[:0]
		valid := true
		for _, m := range members[p.off : p.off+p.len] {
			valid = valid && t.utf8[m]
			if a, b := t.first[m], t.first[m+1]; a < b { // most nodes end no token
				r.ids = append(r.ids, t.ids[a:b]...)
			}
			for c := m + 1; c < t.end[m]; c = t.end[c] {
				l := class[t.label[c]]
				if len(bucket[l]) == 0 {
					touched = append(touched, l)
				}
				bucket[l] = append(bucket[l], c)
			}
		}
		// Push children last-first so that they come out in the order their
		// labels were first seen.
		for j := len(touched) - 1; j >= 0; j-- {
			l := touched[j]
			off := int32(len(members))
			members = append(members, bucket[l]...)
			stack = append(stack, pending{l, p.depth + 1, i, off, int32(len(bucket[l]))})
			bucket[l] = bucket[l][:0]
		}
		r.utf8 = append(r.utf8, valid)
	}
	for _, o := range open {
		end[o] = int32(len(r.label))
	}
	r.end = end
	r.first = append(r.first, int32(len(r.ids)))
	return r
}
