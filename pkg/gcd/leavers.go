package gcd

import (
	"math/bits"
	"slices"

	"github.com/gasplab/gasp/pkg/grammar"
)

// A leaverIndex finds, for a loop, the edges of the trie that may leave it.
//
// A walk below a State that loops on most classes (a string body, a
// comment, XML text, a name) keeps most of the subtree, but a walk of the
// trie must still visit every ancestor of an edge that leaves the loop,
// and every sibling of those ancestors, to find them: 14,000 of the XML
// grammar's 215,000 nodes for a comment, for about 1,000 edges labelled
// "-". The index lists the nodes by the label of their edge, so that a
// walk can visit the edges that leave the loop alone (see
// Masker.overLeavers).
//
// Nodes below an edge of a class of bytes 80-FF only are left out: such
// an edge leaves an ASCII loop itself, and a walk from it covers its
// subtree. It is built once per relabelled trie (labels.go) with one pass
// over it, 4 bytes a node indexed (0.3 to 0.9 MB and under a millisecond
// on the workloads of data/bench/masks).
//
// An index is not modified once built: Maskers that walk one trie share it,
// each with its own leaverMarks.
type leaverIndex struct {
	start []int32 // by label l, nodes[start[l]:start[l+1]] are l's nodes
	nodes []int32 // grouped by label, in preorder within a label
}

// leaverMarks is a Masker's scratch for walks over an index's leavers.
type leaverMarks struct {
	x     *leaverIndex
	marks []uint64  // a bit a trie node, all zero between walks
	span  [][]int32 // scratch
	busy  bool      // the marks are in use
}

func newLeaverIndex(t *Trie, nc int, high *grammar.ByteSet) leaverIndex {
	x := leaverIndex{start: make([]int32, nc+1)}
	// each calls f on the indexed nodes, in preorder.
	each := func(f func(i int32)) {
		for i := int32(1); i < t.end[0]; {
			f(i)
			if high.Has(t.label[i]) {
				i = t.end[i]
			} else {
				i++
			}
		}
	}
	each(func(i int32) { x.start[t.label[i]+1]++ })
	for c := 1; c <= nc; c++ {
		x.start[c] += x.start[c-1]
	}
	x.nodes = make([]int32, x.start[nc])
	next := append([]int32(nil), x.start[:nc]...)
	each(func(i int32) {
		c := t.label[i]
		x.nodes[next[c]] = i
		next[c]++
	})
	return x
}

// count returns the number of indexed nodes whose label is in labels.
func (x *leaverIndex) count(labels *grammar.ByteSet) int {
	n := 0
	for l := 0; l+1 < len(x.start); l++ {
		if labels.Has(uint8(l)) {
			n += int(x.start[l+1] - x.start[l])
		}
	}
	return n
}

// markBelow sets the marks of the indexed nodes in the subtree below
// trie node n whose class is not in loop, the leavers of loop there, and
// returns the range of marks' words that holds them, if a walk over the
// leavers is exact and worth it: n's path has no edge of a class of bytes
// 80-FF only (else nothing below it is indexed), nor has loop such a
// class (those edges must leave it, since the index leaves out the nodes
// below them), and the leavers are fewer than 1/few of the subtree's nodes.
// The caller clears the marks.
func (lm *leaverMarks) markBelow(t *Trie, n int32, loop, high *grammar.ByteSet, few int) (lo, hi int, ok bool) {
	x := lm.x
	for w := range loop {
		if loop[w]&high[w] != 0 {
			return 0, 0, false
		}
	}
	for p := n; p != 0; p = t.parent[p] {
		if high.Has(t.label[p]) {
			return 0, 0, false
		}
	}
	from, to := n+1, t.end[n]
	lm.span = lm.span[:0]
	count := 0
	for c := 0; c+1 < len(x.start); c++ {
		if loop.Has(uint8(c)) {
			continue
		}
		group := x.nodes[x.start[c]:x.start[c+1]]
		a, _ := slices.BinarySearch(group, from)
		b, _ := slices.BinarySearch(group, to)
		if a < b {
			lm.span = append(lm.span, group[a:b])
			count += b - a
		}
	}
	if count*few >= int(to-from) {
		return 0, 0, false
	}
	for _, group := range lm.span {
		for _, i := range group {
			lm.marks[i>>6] |= 1 << (i & 63)
		}
	}
	return int(from >> 6), int((to-1)>>6) + 1, true
}

// overLeavers walks the subtree below trie node n, whose State loops on
// the classes of loop, by visiting only the leavers of loop there (see
// leaverIndex), if that is exact and worth it, and reports whether it did.
// Every other node's path stays in the loop: its tokens are allowed, and
// they are the runs of the trie's tokens between the leavers' subtrees
// (tokens are in preorder), which it adds to out. It calls walk for each
// leaver that is the first on its path, in preorder, to walk the leaver
// and its subtree from the loop's State.
func (k *Masker) overLeavers(n int32, loop *grammar.ByteSet, out *sink, walk func(leaver int32)) bool {
	t, x := k.lt.trie, &k.leavers
	if x.busy {
		return false // inside another walk over leavers
	}
	lo, hi, ok := x.markBelow(t, n, loop, &k.lt.high, k.leaversFew)
	if !ok {
		return false
	}
	x.busy = true
	k.Stats.Leavers++
	skip := int32(0)
	kept := t.first[n+1] // the first token after n's own not added yet
	for wi := lo; wi < hi; wi++ {
		word := x.marks[wi]
		if word == 0 {
			continue
		}
		x.marks[wi] = 0
		for ; word != 0; word &= word - 1 {
			i := int32(wi<<6 | bits.TrailingZeros64(word))
			if i < skip {
				continue // below a leaver already walked
			}
			out.add(t.ids[kept:t.first[i]])
			walk(i)
			skip, kept = t.end[i], t.first[t.end[i]]
		}
	}
	out.add(t.ids[kept:t.first[t.end[n]]])
	x.busy = false
	return true
}
