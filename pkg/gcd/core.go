package gcd

import (
	"math/bits"
	"slices"

	"github.com/gasplab/gasp/pkg/earley"
)

// maskOverCore sets b to the mask of s from its loop's core (see
// earley.Machine.LoopCore): the core's mask, which s allows too, and the
// tokens the core does not allow, walked from s along their paths alone.
// It does nothing and returns false for a core met the first time (a
// core pays where it recurs: at every position of a string under a search
// pattern) and one whose mask lacks too many tokens.
func (k *Masker) maskOverCore(s, core earley.State, b Bitset) bool {
	nodes, met := k.coreNodes[core]
	switch {
	case !met:
		k.coreNodes[core] = nil
		k.remember(16)
		return false
	case nodes == nil:
		nodes = k.complementNodes(k.Mask(core))
		if nodes == nil {
			nodes = []int32{} // too many: never again
		}
		k.coreNodes[core] = nodes
		k.remember(4 * len(nodes))
	}
	if len(nodes) == 0 {
		return false
	}
	copy(b, k.Mask(core))
	k.addAlong(s, nodes, b)
	k.Stats.Cores++
	return true
}

// addAlong adds to b the tokens at the given trie nodes, in preorder and
// each with its ancestors, that are viable from s, stepped along their
// paths.
func (k *Masker) addAlong(s earley.State, nodes []int32, b Bitset) {
	t := k.lt.trie
	states := append(k.ctxStates[:0], s)
	for _, j := range nodes {
		d := int(t.depth[j])
		q := states[d-1]
		if q != earley.Dead {
			q, _ = k.m.StepLocal(q, int(k.class[t.label[j]]))
			k.Stats.Nodes++
		}
		states = append(states[:d], q)
		if q != earley.Dead {
			for _, id := range t.ids[t.first[j]:t.first[j+1]] {
				b[id>>6] |= 1 << (id & 63)
			}
		}
	}
	k.ctxStates = states
}

// maxComplement is the most ordinary tokens a loop's core may lack for
// masks to be made over it (a string body's core lacks ~5,000 of Llama 3's
// 128,000: those with a quote, a control character or a bad escape).
const maxComplement = 1 << 13

// complementNodes returns, in preorder, the trie nodes on the paths of the
// ordinary tokens not in base, or nil if they are more than maxComplement.
func (k *Masker) complementNodes(base Bitset) []int32 {
	t := k.lt.trie
	nodeOf := k.lt.nodesOf()
	var ids []int32
	for w, word := range k.ordinary {
		for rest := word &^ base[w]; rest != 0; rest &= rest - 1 {
			if len(ids) == maxComplement {
				return nil
			}
			ids = append(ids, int32(w*64+bits.TrailingZeros64(rest)))
		}
	}
	marked := make([]bool, len(t.label))
	nodes := []int32{}
	for _, id := range ids {
		for n := nodeOf[id]; n != 0 && !marked[n]; n = t.parent[n] {
			marked[n] = true
			nodes = append(nodes, n)
		}
	}
	slices.Sort(nodes)
	return nodes
}

// nodesOf returns, by token id, the trie node where the token ends (0 for
// a token not in the trie); built on first use.
func (lt *labelled) nodesOf() []int32 {
	lt.nodeOfOnce.Do(func() {
		t := lt.trie
		lt.nodeOf = make([]int32, t.size)
		for n := range len(t.label) {
			if n+1 < len(t.first) {
				for _, id := range t.ids[t.first[n]:t.first[n+1]] {
					lt.nodeOf[id] = int32(n)
				}
			}
		}
	})
	return lt.nodeOf
}

// maskOverLoop sets b to the mask of s over its loop's core, if it has
// one and that pays (see maskOverCore), and reports whether it did.
func (k *Masker) maskOverLoop(s earley.State, b Bitset) bool {
	core, ok := k.m.LoopCore(s)
	return ok && k.maskOverCore(s, core, b)
}
