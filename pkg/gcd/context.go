package gcd

import (
	"slices"

	"github.com/gasplab/gasp/pkg/earley"
	"github.com/gasplab/gasp/pkg/grammar"
)

// Context masks: a bounded string's start, once per kind of string.
//
// Every JSON string value starts a new State, with a new mask: its items
// wait on the string with the member's own origin, and what may follow the
// closing quote differs from member to member. Where maxLength bounds the
// string, that mask builds a State for each position a token reaches
// (about 250 of them), and the next member's string of the same maxLength
// builds them all again. But a token without a quote in it is viable or
// not whatever the member: earley.Machine.ContextKey keys a State by its
// own items and the leaving classes after which its context decides (the
// quote). So the Masker keeps, by that key, the tokens of the first such
// State's mask that have no leaving byte (its own part), and masks a later
// State of the key as that part plus the tokens with a leaving byte,
// walked from it: below each trie node whose edge is the first leaving
// one on its path (for the quote, 196 of Llama 3's 274,521 nodes), from
// the State of its parent, found by stepping down the path.
//
// Only States inside a bounded repetition are served so (elsewhere a mask
// costs less than keeping its own part: the SQL workloads' median step
// took 1.7 times as long), only where the leaving nodes are few
// (maxLeavingNodes), and the own part is kept only of masks that cost a
// walk (contextMinWork).

// leaving is what walks read of one set of leaving labels: the trie
// nodes whose edge has one of them and no edge above it has, in preorder,
// and the tokens with none of them.
type leaving struct {
	firsts []int32
	stay   Bitset
}

// Context-mask limits: the most first leaving nodes a set may have, and
// the least work (new States, and trie nodes over 64) of a mask worth
// keeping its own part.
const (
	maxLeavingNodes = 1024
	contextMinWork  = 16
	maxLeavings     = 1024 // the most leavings a labelled trie keeps
)

// leavingOf returns the leaving of the labels of the byte classes in set,
// or nil if more than maxLeavingNodes nodes have those labels. They are
// kept with the labelled trie, for every Masker that walks it.
func (k *Masker) leavingOf(set grammar.ByteSet) *leaving {
	labels := k.labelSet(set)
	return keptLeaving(k.lt, &k.lt.leave, labels, func() *leaving {
		return newLeaving(k.lt, &labels, k.ordinary)
	})
}

// keptLeaving returns the leaving kept in *kept by key, or builds it and
// keeps it (up to maxLeavings), under the labelled trie's lock.
func keptLeaving[K comparable](lt *labelled, kept *map[K]*leaving, key K, build func() *leaving) *leaving {
	lt.leaveMu.Lock()
	defer lt.leaveMu.Unlock()
	if lv, ok := (*kept)[key]; ok {
		return lv
	}
	lv := build()
	if *kept == nil {
		*kept = make(map[K]*leaving)
	}
	if len(*kept) < maxLeavings {
		(*kept)[key] = lv
	}
	return lv
}

// newLeaving finds the leaving of labels from the index of every node by
// label, or returns nil if more than maxLeavingNodes nodes have them.
func newLeaving(lt *labelled, labels *grammar.ByteSet, ordinary Bitset) *leaving {
	x := &lt.byLabel
	var nodes []int32
	for l := 0; l+1 < len(x.start); l++ {
		if labels.Has(uint8(l)) {
			if len(nodes)+int(x.start[l+1]-x.start[l]) > maxLeavingNodes {
				return nil
			}
			nodes = append(nodes, x.nodes[x.start[l]:x.start[l+1]]...)
		}
	}
	return firstLeaving(lt.trie, nodes, func(i int32) bool { return labels.Has(lt.trie.label[i]) }, ordinary)
}

// firstLeaving returns the leaving of the nodes that leave among the
// candidates (every node that leaves is one): those with no node that
// leaves above them, and the tokens below none of them; or nil if more
// than maxLeavingNodes.
func firstLeaving(t *Trie, nodes []int32, leaves func(int32) bool, ordinary Bitset) *leaving {
	slices.Sort(nodes)
	lv := &leaving{stay: slices.Clone(ordinary)}
	for _, i := range nodes {
		first := true
		for a := t.parent[i]; a != 0 && first; a = t.parent[a] {
			first = !leaves(a)
		}
		if !first {
			continue
		}
		if len(lv.firsts) == maxLeavingNodes {
			return nil
		}
		lv.firsts = append(lv.firsts, i)
		for _, id := range t.ids[t.first[i]:t.first[t.end[i]]] {
			lv.stay[id>>6] &^= 1 << (id & 63)
		}
	}
	return lv
}

// contextKey returns the context key of s (see
// earley.Machine.ContextKey), in the Masker's scratch, and its leaving,
// or nil where s has none or its leaving nodes are too many; it sorts the
// items for a key only then.
func (k *Masker) contextKey(s earley.State) ([]byte, *leaving) {
	leave, ok := k.m.Leaving(s)
	if !ok {
		return nil, nil
	}
	lv := k.leavingOf(leave)
	if lv == nil {
		return nil, nil
	}
	k.ctxKey = k.m.ContextKey(s, k.lt.trie.longest, leave, k.ctxKey[:0])
	return k.ctxKey, lv
}

// maskContext adds to out the tokens viable from s that have a leaving
// byte of lv: below each first leaving node, walked from the State of its
// parent. States along the paths are kept by depth, so paths that share
// a prefix step it once.
func (k *Masker) maskContext(s earley.State, lv *leaving, out *sink) {
	t := k.lt.trie
	nodes := append(k.ctxNodes[:0], 0) // by depth, the nodes of the last path
	states := append(k.ctxStates[:0], s)
	for _, j := range lv.firsts {
		up := k.ctxUp[:0] // the nodes above j not on the last path, bottom up
		a := t.parent[j]
		for int(t.depth[a]) >= len(nodes) || nodes[t.depth[a]] != a {
			up = append(up, a)
			a = t.parent[a]
		}
		k.ctxUp = up
		n := int(t.depth[a]) + 1
		nodes, states = nodes[:n], states[:n]
		q := states[n-1]
		for x := len(up) - 1; x >= 0; x-- {
			if q != earley.Dead {
				q, _ = k.m.StepLocal(q, int(k.class[t.label[up[x]]]))
			}
			nodes, states = append(nodes, up[x]), append(states, q)
		}
		if q == earley.Dead {
			continue
		}
		// The edge into j by hand: walk's check of it would find the
		// chain of q (inside a bounded string, where the quote leaves
		// it), building the States of the positions ahead.
		if next, _ := k.m.StepLocal(q, int(k.class[t.label[j]])); next != earley.Dead {
			out.add(t.ids[t.first[j]:t.first[j+1]])
			k.walk(next, j, true, out, false, grammar.ByteSet{})
		}
	}
	k.ctxNodes, k.ctxStates = nodes, states
}

// maskByContext returns the mask of s, a Bitset of its own, from the
// own part kept by its context key; or walks s, and keeps its own part if
// the walk cost enough.
func (k *Masker) maskByContext(s earley.State, key []byte, lv *leaving) Bitset {
	if own, ok := k.contexts[string(key)]; ok {
		k.Stats.ContextHits++
		b := k.newMask()
		copy(b, own)
		k.maskContext(s, lv, &sink{bits: b})
		return b
	}
	work := k.work()
	b := k.walkState(s)
	if k.work()-work >= k.contextMin {
		own := slices.Clone(b)
		for i := range own {
			own[i] &= lv.stay[i]
		}
		k.remember(8*len(own) + len(key))
		k.contexts[string(key)] = own
	}
	return b
}
