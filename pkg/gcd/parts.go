package gcd

import (
	"encoding/binary"

	"github.com/gasplab/gasp/pkg/earley"
	"github.com/gasplab/gasp/pkg/grammar"
)

// Masks of parts: a member name's start, once per kind of object.
//
// At the start of a JSON member name, the State holds the names the
// object declares still to come, as literals of the object's context
// (items of its origin before a byte), and the name of any other member
// (additionalProperties), a rule the member's item waits on. Each
// member's State is new, and its mask built a State per prefix of a
// declared name a token reaches, at every member.
// earley.Machine.Parts parts the State: the literals, a State shared by
// every member until the next declared one is written, and the rest,
// whose context takes part only after its rule ends (the quote, then the
// colon: a pair of bytes, see earley.Machine.PartsLeaving), so that its
// context key (context.go) serves every member of the object's kind from
// the first one's walk. The mask is the union of the parts'. A JSON
// string's start parts too, outside a bounded repetition (the empty
// string's closing quote is a literal): its rest serves every string of
// its kind. A State with no literals is all rest (a name where only
// names not declared may come, whose rule holds its closing quote): its
// context key serves it at every member, where each member's State would
// build the States of every declared name's prefix anew.
//
// Where the kind is new, a rest's walk and the literals' each build a
// State per prefix of a declared name (the rest still tells declared
// names from others): with many literals (viewsMin), the first State of
// the kind is walked whole, as without parts, and its rest too where that
// walk cost little.

// partsMaxWork is the work (new States, and trie nodes over 64) of a
// State's whole walk from which on its rest is not walked too (see above).
const partsMaxWork = 400

// maskParts returns the mask of s from its parts (see above): the rest's
// context takes part after a byte of last followed by one of after, at the
// nodes of lv.
func (k *Masker) maskParts(s earley.State, last, after grammar.ByteSet, lv *leaving) Bitset {
	literals, rest := k.m.Parts(s)
	key := k.m.ContextKey(rest, k.lt.trie.longest, last, k.ctxKey[:0])
	for _, w := range after {
		key = binary.LittleEndian.AppendUint64(key, w)
	}
	k.ctxKey = key
	if _, kept := k.contexts[string(key)]; !kept && k.m.ScanItems(literals) >= viewsMin && !k.stated(rest) {
		work := k.work()
		b := k.walkState(s)
		if k.work()-work < partsMaxWork {
			k.maskByContext(rest, key, lv)
		}
		return b
	}
	k.Stats.Parts++
	b := k.maskByContext(rest, key, lv)
	if literals == earley.Dead {
		return b
	}
	lb := k.Mask(literals)
	for i := range b {
		b[i] |= lb[i]
	}
	return b
}

// work is what a walk's cost is told by: the States built, and the trie
// nodes visited over 64.
func (k *Masker) work() int { return k.m.NumStates() + k.Stats.Nodes/64 }

// pairLeavingOf returns the leaving of the byte class pairs last×after:
// the trie nodes whose edge has a label of after, their parent's edge one
// of last, and no such pair above them; or nil if more than
// maxLeavingNodes. Kept with the labelled trie, as leavingOf's.
func (k *Masker) pairLeavingOf(last, after grammar.ByteSet) *leaving {
	key := [2]grammar.ByteSet{k.labelSet(last), k.labelSet(after)}
	return keptLeaving(k.lt, &k.lt.pairs, key, func() *leaving {
		return newPairLeaving(k.lt, &key[0], &key[1], k.ordinary)
	})
}

// maxPairCandidates bounds the nodes with a label of after that
// newPairLeaving looks at: it is asked for every new pair of sets, and
// most that have many nodes have too many.
const maxPairCandidates = 1 << 13

func newPairLeaving(lt *labelled, last, after *grammar.ByteSet, ordinary Bitset) *leaving {
	x, t := &lt.byLabel, lt.trie
	pair := func(i int32) bool {
		p := t.parent[i]
		return p != 0 && after.Has(t.label[i]) && last.Has(t.label[p])
	}
	var nodes []int32
	for l := 0; l+1 < len(x.start); l++ {
		if !after.Has(uint8(l)) {
			continue
		}
		if len(nodes)+int(x.start[l+1]-x.start[l]) > maxPairCandidates {
			return nil
		}
		for _, i := range x.nodes[x.start[l]:x.start[l+1]] {
			if !pair(i) {
				continue
			}
			if len(nodes) == 2*maxLeavingNodes {
				return nil // too many, found without looking further
			}
			nodes = append(nodes, i)
		}
	}
	return firstLeaving(t, nodes, pair, ordinary)
}
