package earley

import (
	"encoding/binary"
	"slices"

	"github.com/gasplab/gasp/pkg/grammar"
)

// Contexts: what a State allows that does not depend on where it is.
//
// A JSON string's start is a new State in every member that holds one:
// its items wait on the string with the member's origin, and what may
// follow the string (the member's comma, the object's brace) differs from
// one member to the next. The string itself does not: the items predicted
// in the State, and the links of a bounded repetition's chain, are the
// same in every member. ContextKey keys a State by those alone.
//
// The items of a State are its own (origin self, or a link of a chain,
// whose origin a later completion climbs the way the State's build did:
// see RoomKey) and its context's (any other origin). A context item
// A ::= α • X γ scans a byte of X if X is a terminal; if X is a rule,
// it moves on when X completes, and then it, and whatever it leads to
// (predictions, completions through its origin), scans only bytes that
// can come after X there: FIRST(γ), and FOLLOW(A) if γ is nullable. Those
// are the leaving classes. Along a string with no leaving byte, a State's
// context items so scan nothing, and its own items give the same sets
// wherever it is but for the origins of links, whose climbs reach only
// what the build's did: the string is viable from two States of one key
// (own items and leaving classes) alike. At the string's end, a context item
// may have moved on and keep the set alive where own items would not:
// but X completed in both States, and some item of each waits on X (X
// was predicted), a context item in both where no own item does.

// Leaving returns the leaving classes of State s (see above), or false
// for a view's State (its opaque origins).
func (m *Machine) Leaving(s State) (grammar.ByteSet, bool) {
	var leave grammar.ByteSet
	for _, it := range m.states.at(s).items {
		switch {
		case it.origin == opaque:
			return grammar.ByteSet{}, false
		case it.origin == self || m.links[m.lrLHS[it.lr]].left > 0:
		case m.lrNext[it.lr].IsTerminal():
			orSet(&leave, &m.termClass[m.lrNext[it.lr].Terminal()])
		default:
			after := m.afterNext(it.lr)
			orSet(&leave, &after)
		}
	}
	return leave, true
}

// ContextKey appends to dst the key of State s's own items and its
// leaving classes leave (see Leaving), and returns it. A link of a chain
// is written without its origin: by its item within room links of the
// chain's bound, farther by its chain and shape, as RoomKey writes it.
func (m *Machine) ContextKey(s State, room int, leave grammar.ByteSet, dst []byte) []byte {
	words := m.contextWords[:0]
	for _, it := range m.states.at(s).items {
		pos := m.links[m.lrLHS[it.lr]]
		switch {
		case pos.left > int32(room):
			p := m.lrProd(it.lr)
			shape := uint64(len(m.g.Prods[p].RHS))<<2 | uint64(it.lr-m.prodBase[p])
			words = append(words, 1<<63|uint64(uint32(pos.last))<<32|shape)
		case pos.left > 0:
			words = append(words, uint64(uint32(it.lr))<<32|2)
		case it.origin == self:
			words = append(words, uint64(uint32(it.lr))<<32|1)
		}
	}
	slices.Sort(words)
	words = slices.Compact(words)
	m.contextWords = words
	for _, w := range words {
		dst = binary.LittleEndian.AppendUint64(dst, w)
	}
	for _, w := range leave {
		dst = binary.LittleEndian.AppendUint64(dst, w)
	}
	return dst
}

// afterNext returns the byte classes that can come right after the next
// symbol of LR(0) item lr, A ::= α • X γ: FIRST(γ), and FOLLOW(A) if γ
// is nullable. Found on first use, by item.
func (m *Machine) afterNext(lr int32) grammar.ByteSet {
	if set, ok := m.after[lr]; ok {
		return set
	}
	var set grammar.ByteSet
	rest := lr + 1
	for ; m.lrNext[rest] != noSymbol; rest++ {
		sym := m.lrNext[rest]
		if sym.IsTerminal() {
			orSet(&set, &m.termClass[sym.Terminal()])
			break
		}
		orSet(&set, &m.first[sym.Rule()])
		if !m.nullable[sym.Rule()] {
			break
		}
	}
	if m.lrNext[rest] == noSymbol {
		orSet(&set, &m.follow[m.lrLHS[lr]])
	}
	if m.after == nil {
		m.after = make(map[int32]grammar.ByteSet)
	}
	m.after[lr] = set
	return set
}
