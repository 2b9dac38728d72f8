package tokenizer

import (
	"math"
	"slices"
	"strings"
	"sync"
)

// noMerge is the merges value of a pair that has no merge: above every
// rank<<32 | id.
const noMerge = math.MaxUint64

func pairKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

// merge returns rank<<32 | merged id for the pair (a, b), or noMerge.
func (t *Tokenizer) merge(a, b int32) uint64 {
	if v, ok := t.merges[pairKey(a, b)]; ok {
		return v
	}
	return noMerge
}

// shortPiece is the length up to which bpe rescans all pairs after each
// merge; longer pieces use a heap, so that a long run of letters or
// punctuation costs O(n log n), not O(n²).
const shortPiece = 64

// bpe returns the ids of the piece w (two bytes or more) by byte-pair
// encoding: starting from one token per byte, it merges the adjacent pair
// whose merge has the lowest rank, the leftmost such pair first, until no
// pair has a merge.
func (t *Tokenizer) bpe(w string) []int32 {
	if len(w) > shortPiece {
		return t.bpeLong(w)
	}
	var idBuf [shortPiece]int32
	var rankBuf [shortPiece]uint64
	ids := idBuf[:len(w)]
	for i := range len(w) {
		ids[i] = t.byteIDs[w[i]]
	}
	// ranks[i] is the merge of ids[i] and ids[i+1].
	ranks := rankBuf[:len(w)-1]
	for i := range ranks {
		ranks[i] = t.bytePairs[int(w[i])<<8|int(w[i+1])]
	}
	return mergeShort(t, ids, ranks)
}

// mergeIDs is bpe for a piece given as its initial tokens (SentencePiece:
// one per character, or its bytes' fallback tokens).
func (t *Tokenizer) mergeIDs(ids []int32) []int32 {
	if len(ids) < 2 {
		return ids
	}
	if len(ids) > shortPiece {
		return t.bpeLongIDs(ids)
	}
	var rankBuf [shortPiece]uint64
	ranks := rankBuf[:len(ids)-1]
	for i := range ranks {
		ranks[i] = t.merge(ids[i], ids[i+1])
	}
	return mergeShort(t, ids, ranks)
}

// mergeShort merges the adjacent pair with the lowest rank, leftmost
// first, until none has a merge; ranks[i] is the merge of ids[i] and
// ids[i+1]. It returns a copy of the merged ids.
func mergeShort(t *Tokenizer, ids []int32, ranks []uint64) []int32 {
	for {
		best, bestRank := -1, uint64(noMerge)
		for i, r := range ranks {
			if r < bestRank { // strict: the leftmost of equal pairs
				best, bestRank = i, r
			}
		}
		if best < 0 {
			break
		}
		ids[best] = int32(uint32(bestRank))
		ids = slices.Delete(ids, best+1, best+2)
		ranks = slices.Delete(ranks, best, best+1)
		if best > 0 {
			ranks[best-1] = t.merge(ids[best-1], ids[best])
		}
		if best < len(ranks) {
			ranks[best] = t.merge(ids[best], ids[best+1])
		}
	}
	return slices.Clone(ids)
}

// A symbol is a token in a piece being merged by bpeLong: a node of a
// doubly linked list over the piece's byte positions.
type symbol struct {
	id         int32 // -1 once merged into the symbol before it
	prev, next int32 // positions, -1 at the ends
}

// A candidate is a possible merge of the symbol at pos with the one after
// it, which had ids left and right when the candidate was pushed.
type candidate struct {
	rank        uint32
	pos         int32
	merged      int32
	left, right int32
}

func (a candidate) less(b candidate) bool {
	return a.rank < b.rank || a.rank == b.rank && a.pos < b.pos
}

// bpeLong is bpe with a priority queue of candidate merges, ordered by rank
// and then position, as in Hugging Face's BPE. Candidates that merges made
// stale are skipped when popped: a symbol's id changes whenever it grows,
// so a candidate is current exactly when both ids still match.
func (t *Tokenizer) bpeLong(w string) []int32 {
	ids := make([]int32, len(w))
	for i := range len(w) {
		ids[i] = t.byteIDs[w[i]]
	}
	return t.bpeLongIDs(ids)
}

// bpeLongIDs is bpeLong from the initial tokens of a piece.
func (t *Tokenizer) bpeLongIDs(ids []int32) []int32 {
	n := len(ids)
	syms := make([]symbol, n)
	for i, id := range ids {
		syms[i] = symbol{id: id, prev: int32(i - 1), next: int32(i + 1)}
	}
	syms[n-1].next = -1
	var h candHeap
	push := func(pos int32) {
		next := syms[pos].next
		if next < 0 {
			return
		}
		a, b := syms[pos].id, syms[next].id
		if v := t.merge(a, b); v != noMerge {
			h.push(candidate{rank: uint32(v >> 32), pos: pos, merged: int32(uint32(v)), left: a, right: b})
		}
	}
	for i := range n - 1 {
		push(int32(i))
	}
	for len(h) > 0 {
		c := h.pop()
		s := &syms[c.pos]
		if s.id != c.left || s.next < 0 || syms[s.next].id != c.right {
			continue
		}
		gone := s.next
		s.id = c.merged
		s.next = syms[gone].next
		if s.next >= 0 {
			syms[s.next].prev = c.pos
		}
		syms[gone].id = -1
		if s.prev >= 0 {
			push(s.prev)
		}
		push(c.pos)
	}
	ids = ids[:0]
	for i := int32(0); i >= 0; i = syms[i].next {
		ids = append(ids, syms[i].id)
	}
	return ids
}

// candHeap is a binary min-heap of candidates.
type candHeap []candidate

func (h *candHeap) push(c candidate) {
	*h = append(*h, c)
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if !a[i].less(a[p]) {
			break
		}
		a[i], a[p] = a[p], a[i]
		i = p
	}
}

func (h *candHeap) pop() candidate {
	a := *h
	top := a[0]
	last := len(a) - 1
	a[0] = a[last]
	a = a[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(a) && a[l].less(a[m]) {
			m = l
		}
		if r < len(a) && a[r].less(a[m]) {
			m = r
		}
		if m == i {
			break
		}
		a[i], a[m] = a[m], a[i]
		i = m
	}
	*h = a
	return top
}

// Limits of the BPE cache: it keeps pieces up to cacheMaxLen bytes and is
// emptied when it reaches cacheMaxEntries (Hugging Face keeps 10,000
// words).
const (
	cacheMaxEntries = 1 << 16
	cacheMaxLen     = 256
)

// cache remembers the BPE result of pieces that are not tokens themselves.
type cache struct {
	mu sync.RWMutex
	m  map[string][]int32
}

func newCache() *cache { return &cache{m: make(map[string][]int32)} }

func (c *cache) get(w string) ([]int32, bool) {
	c.mu.RLock()
	ids, ok := c.m[w]
	c.mu.RUnlock()
	return ids, ok
}

func (c *cache) put(w string, ids []int32) {
	if len(w) > cacheMaxLen {
		return
	}
	w = strings.Clone(w) // w is part of the caller's text: don't keep all of it
	c.mu.Lock()
	if len(c.m) >= cacheMaxEntries {
		clear(c.m)
	}
	c.m[w] = ids
	c.mu.Unlock()
}
