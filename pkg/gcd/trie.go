package gcd

import (
	"bytes"
	"slices"
)

// Trie is a byte trie over a vocabulary's ordinary (non-special) tokens,
// flattened in depth-first preorder so that a walk is a loop over arrays and
// a subtree is a contiguous range of nodes.
//
// Node 0 is the root (the empty string). For node i > 0: label[i] is the
// byte on the edge into it, depth[i] its length, parent[i] its parent,
// end[i] the node after its subtree, and ids[first[i]:first[i+1]] the tokens whose bytes end there;
// the tokens of the whole subtree are ids[first[i]:first[end[i]]].
type Trie struct {
	label  []byte
	depth  []int32
	parent []int32
	end    []int32
	first  []int32
	ids    []int32
	size   int // vocabulary size
}

// NewTrie builds the trie of v's ordinary tokens. Tokens with no bytes are
// left out: they could never change a parse.
func NewTrie(v *Vocab) *Trie {
	var order []int32
	for id, tok := range v.Tokens {
		if !v.Special[id] && len(tok) > 0 {
			order = append(order, int32(id))
		}
	}
	slices.SortStableFunc(order, func(a, b int32) int { return bytes.Compare(v.Tokens[a], v.Tokens[b]) })

	t := &Trie{size: v.Size()}
	t.label = append(t.label, 0)
	t.depth = append(t.depth, 0)
	t.parent = append(t.parent, 0)
	t.first = append(t.first, 0)
	var path []int32 // path[d] is the node at depth d on the current branch
	path = append(path, 0)
	var prev []byte
	for _, id := range order {
		tok := v.Tokens[id]
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
	return t
}

// Nodes returns the number of trie nodes, the root included.
func (t *Trie) Nodes() int { return len(t.label) }

// VocabSize returns the size of the vocabulary the trie was built from.
func (t *Trie) VocabSize() int { return t.size }

// relabel returns the trie of the same tokens over other labels: each
// byte b becomes class(b), and tokens whose bytes map to the same label
// sequence share a node. With a grammar's byte classes this shrinks the
// trie a walk must visit several times over (every lowercase ASCII word of
// a length is one path inside a JSON string), without changing any answer:
// bytes of one class lead every State to the same State.
func (t *Trie) relabel(class func(b byte) uint8) *Trie {
	n := len(t.label)
	// Map each node to its node in the relabelled tree, numbered in order of
	// creation, with children lists.
	node := make([]int32, n)
	child := make(map[int64]int32, n/4)
	var label []byte
	var firstChild, lastChild, nextSibling []int32
	var tokens [][]int32
	newNode := func(l byte) int32 {
		label = append(label, l)
		firstChild = append(firstChild, -1)
		lastChild = append(lastChild, -1)
		nextSibling = append(nextSibling, -1)
		tokens = append(tokens, nil)
		return int32(len(label) - 1)
	}
	newNode(0)
	for i := 1; i < n; i++ {
		p := node[t.parent[i]]
		l := class(t.label[i])
		key := int64(p)<<8 | int64(l)
		c, ok := child[key]
		if !ok {
			c = newNode(l)
			child[key] = c
			if lastChild[p] < 0 {
				firstChild[p] = c
			} else {
				nextSibling[lastChild[p]] = c
			}
			lastChild[p] = c
		}
		node[i] = c
		tokens[c] = append(tokens[c], t.ids[t.first[i]:t.first[i+1]]...)
	}

	// Lay the new tree out in preorder.
	m := len(label)
	r := &Trie{
		label:  make([]byte, 0, m),
		depth:  make([]int32, 0, m),
		parent: make([]int32, 0, m),
		end:    make([]int32, m),
		first:  make([]int32, 0, m+1),
		ids:    make([]int32, 0, len(t.ids)),
		size:   t.size,
	}
	type frame struct{ node, parent, depth int32 }
	stack := []frame{{0, 0, 0}}
	var open []int32 // preorder indexes whose subtree is not closed yet
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		i := int32(len(r.label))
		for len(open) > 0 && r.depth[open[len(open)-1]] >= f.depth {
			r.end[open[len(open)-1]] = i
			open = open[:len(open)-1]
		}
		open = append(open, i)
		r.label = append(r.label, label[f.node])
		r.depth = append(r.depth, f.depth)
		r.parent = append(r.parent, f.parent)
		r.first = append(r.first, int32(len(r.ids)))
		r.ids = append(r.ids, tokens[f.node]...)
		// Push children in reverse so the first child is visited first.
		var kids []int32
		for c := firstChild[f.node]; c >= 0; c = nextSibling[c] {
			kids = append(kids, c)
		}
		for j := len(kids) - 1; j >= 0; j-- {
			stack = append(stack, frame{kids[j], i, f.depth + 1})
		}
	}
	for _, o := range open {
		r.end[o] = int32(len(r.label))
	}
	r.first = append(r.first, int32(len(r.ids)))
	return r
}
