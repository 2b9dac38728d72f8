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
		case m.isOwn(it):
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

// Parts of a State: its context's literals apart.
//
// A State's future is the union of its items' futures: a step scans
// each item alone, and the closure of a union of kernels is the union of
// their closures (a prediction depends on its rule alone, and a completion
// in the set being built on an item of it, which predicted the rule
// itself). So the tokens viable from a State are those viable from one
// part of its items or another, so long as the parts' own completions read
// what the State's would: a part that holds an item of origin self (whose
// completion reads the part, now its origin) holds every item that waits
// on a rule.
//
// At a JSON member name's start, the names the object declares are
// literals of its context (items of the object's origin that scan
// bytes), and the rest of the State (the name of any other member)
// leaves its context only at the name's end: apart, the rest is a State
// whose own part a context key serves at every member, and the literals
// a State shared by every member before the next declared one. Where no
// declared name may come, the State is all rest, served so too.

// isLiteral reports whether item it of a State is a literal of its
// context: of another State's origin, not a link of a chain, before a
// terminal of one byte (a string's: a context item before a class, such
// as an identifier's loop, may allow most of the State's tokens itself).
func (m *Machine) isLiteral(it item) bool {
	next := m.lrNext[it.lr]
	return !m.isOwn(it) && next.IsTerminal() && m.g.Terminals[next.Terminal()].Len() == 1
}

// isOwn reports whether item it of a State is its own (see Contexts):
// predicted there, or a link of a chain.
func (m *Machine) isOwn(it item) bool {
	return it.origin == self || m.links[m.lrLHS[it.lr]].left > 0
}

// PartsLeaving reports whether State s parts into its context's
// literals and a rest that has a context of its own (see Parts; with no
// literals, s is all rest, its own items and its context's), and
// returns where that rest's context takes part: right after a byte of a
// class in last, the next byte's class in after. Its context items wait
// on rules, and a context item A ::= α • X γ moves on only when X
// completes, at a byte that can end X (LAST(X)); what it then scans, and
// all it leads to, scans a class that can come after X there (see
// Leaving).
func (m *Machine) PartsLeaving(s State) (last, after grammar.ByteSet, ok bool) {
	st := m.states.at(s)
	if st.accepting {
		return last, after, false
	}
	context := 0
	for _, it := range st.items {
		switch {
		case it.origin == opaque:
			return last, after, false
		case m.isLiteral(it), m.isOwn(it):
		case m.lrNext[it.lr].IsTerminal():
			return last, after, false
		default:
			context++
			a := m.afterNext(it.lr)
			orSet(&after, &a)
			orSet(&last, &m.last[m.lrNext[it.lr].Rule()])
		}
	}
	return last, after, context > 0
}

// lastClasses returns, by rule, the byte classes that can end a string
// the rule derives (FIRST's mirror, see firstClasses), by a worklist over
// the rules whose ends end others.
func lastClasses(g *grammar.Grammar, nullable []bool, termClass []grammar.ByteSet) []grammar.ByteSet {
	last := make([]grammar.ByteSet, len(g.Rules))
	var edges [][2]int32 // {B, A}: a string of B can end A
	for _, p := range g.Prods {
		for i := len(p.RHS) - 1; i >= 0; i-- {
			sym := p.RHS[i]
			if sym.IsTerminal() {
				orSet(&last[p.LHS], &termClass[sym.Terminal()])
				break
			}
			edges = append(edges, [2]int32{int32(sym.Rule()), int32(p.LHS)})
			if !nullable[sym.Rule()] {
				break
			}
		}
	}
	// into[start[B]:start[B+1]]: the rules a string of B can end.
	start := make([]int32, len(g.Rules)+1)
	for _, e := range edges {
		start[e[0]+1]++
	}
	for r := 1; r < len(start); r++ {
		start[r] += start[r-1]
	}
	into := make([]int32, len(edges))
	fill := slices.Clone(start[:len(g.Rules)])
	for _, e := range edges {
		into[fill[e[0]]] = e[1]
		fill[e[0]]++
	}
	var work []int32
	for r := range last {
		if last[r] != (grammar.ByteSet{}) {
			work = append(work, int32(r))
		}
	}
	for len(work) > 0 {
		b := work[len(work)-1]
		work = work[:len(work)-1]
		for _, a := range into[start[b]:start[b+1]] {
			if orSet(&last[a], &last[b]) {
				work = append(work, a)
			}
		}
	}
	return last
}

// Parts returns the States of the parts of s that PartsLeaving checked:
// its context's literals (Dead if none), and the rest. Stepped, the
// rest's items of origin self take it for their origin, and it holds
// every item of s that waits on a rule (a literal waits on a byte), so
// their completions read what they would in s.
func (m *Machine) Parts(s State) (literals, rest State) {
	var lit, other []item
	for _, it := range m.states.at(s).items {
		if m.isLiteral(it) {
			lit = append(lit, it)
		} else {
			other = append(other, it)
		}
	}
	if len(lit) == 0 {
		return Dead, s // all rest: s is its own State
	}
	return m.add(lit, false), m.add(other, false)
}
