package gcd

import (
	"math/bits"
	"slices"

	"github.com/gasplab/gasp/pkg/earley"
	"github.com/gasplab/gasp/pkg/grammar"
)

// A universe of a State s is a set of byte classes every string over which
// is viable from s: the States such strings lead s to are few and all live
// on every class of the set. It is found where a class neither loops nor
// leads the way most do (a chain): inside a JSON string whose schema
// searches for a pattern ("pattern": "[a-f0-9]{24}", unanchored), a hex
// digit leads one position further into a match and any other character
// back to its start, and the first positions' masks each walked the whole
// trie. With a universe, a mask is every token over its classes, the same
// for every State of it (universeTable), and the other tokens, walked from
// the State along their own paths; a walk takes a subtree over them whole.
//
// Wide, a universe takes every multi-byte UTF-8 character too: every form
// leads each State of it through live States to another of its States.
type universe struct {
	labels grammar.ByteSet // the trie labels of its classes; none: no universe
	wide   bool
	known  bool
}

const (
	universeStates  = 256 // the most States a universe may have
	universeClasses = 3   // the fewest classes a universe is worth having
	chainOthers     = 2   // the most classes off a chain where a State has none
	charsLikeTries  = 4   // the classes charEnds asks CharsLikeClass about
	// A search that finds too many States costs as much as the walk it
	// would spare (a run of 162 characters, a MAC address's pattern):
	// after this many searches that fail (closeUniverse's ok false) a
	// Masker searches no more.
	universeFailures = 2
)

// hasUniverse returns the universe of s if it is known to have one.
func (k *Masker) hasUniverse(s earley.State) (*universe, bool) {
	if !k.universes.has(s) {
		return nil, false
	}
	u := k.universes.at(s)
	return u, u.known && u.labels != (grammar.ByteSet{})
}

// universalBelow reports whether every path in the subtree of trie node i
// is over the known universe of s, the State at i's parent.
func (k *Masker) universalBelow(s earley.State, i int32) bool {
	u, ok := k.hasUniverse(s)
	if !ok {
		return false
	}
	if !k.lt.within(i, &u.labels) {
		wide := u.labels
		orInto(&wide, &k.lt.high)
		if !u.wide || !k.lt.trie.utf8[i] || !k.lt.within(i, &wide) {
			return false
		}
	}
	k.Stats.Universes++
	return true
}

// maskOverUniverse sets b to the mask of s over its universe, if it has
// one, and reports whether it did: the tokens over the universe's classes,
// and of the others those viable from s.
func (k *Masker) maskOverUniverse(s earley.State, b Bitset) bool {
	u := k.universeOf(s)
	if u.labels == (grammar.ByteSet{}) || !k.maskOver(s, u, b) {
		return false
	}
	k.Stats.Universes++
	return true
}

// maskOver sets b to the mask of s, whose universe is u: the tokens over
// u's labels, and of the others those viable from s; or reports false
// where the others' paths are too many.
func (k *Masker) maskOver(s earley.State, u universe, b Bitset) bool {
	ut := k.universeTableOf(u)
	if ut.nodes == nil {
		return false
	}
	copy(b, ut.base)
	k.addAlong(s, ut.nodes, b)
	return true
}

// maskOverStated sets b to the mask of s over the universe its grammar's
// front end states (earley.Machine.Universal), if it has one, and
// reports whether it did: no search is needed (a member name's start,
// where the names not declared are any string but the declared ones).
func (k *Masker) maskOverStated(s earley.State, b Bitset) bool {
	su, ok := k.m.Universal(s)
	if !ok || !k.maskOverStatement(s, su, b) {
		return false
	}
	k.Stats.Stated++
	return true
}

// maskOverAbsorbed sets b to the mask of s over the characters a loop of
// s takes (earley.Machine.Absorbing), if it has one, and reports whether
// it did. With regexOnly, only a loop of a regular expression's rules
// counts (grammar.Rule.Regex): each schema's patterns are its own, so
// their regions' walks seldom serve another State, while a plain
// string's serve every string of its kind.
func (k *Masker) maskOverAbsorbed(s earley.State, regexOnly bool, b Bitset) bool {
	if regexOnly && !k.regex {
		return false
	}
	l, ok := k.m.Absorbing(s)
	if !ok || regexOnly && !k.m.Grammar().Rules[l.Rule].Regex || !k.maskOverStatement(s, l.Chars, b) {
		return false
	}
	k.Stats.Absorbed++
	return true
}

// maskOverStatement sets b to the mask of s, from which every string over
// su is viable, as maskOver does.
func (k *Masker) maskOverStatement(s earley.State, su *grammar.Universal, b Bitset) bool {
	var classes grammar.ByteSet
	for c := range 256 {
		if su.Bytes.Has(byte(c)) {
			classes.Add(uint8(k.m.ByteClass(byte(c))))
		}
	}
	return k.maskOver(s, universe{labels: k.labelSet(classes), wide: su.Wide, known: true}, b)
}

// stated reports whether s has a universe its front end states.
func (k *Masker) stated(s earley.State) bool {
	_, ok := k.m.Universal(s)
	return ok
}

// universeOf returns the universe of s, found the first time.
func (k *Masker) universeOf(s earley.State) universe {
	if u := k.universes.at(s); u.known {
		return *u
	}
	none := universe{known: true}
	if k.univFailures >= universeFailures {
		return none
	}
	set := k.m.ScanClasses(s)
	for w := range set {
		set[w] &= k.lowClasses[w]
	}
	if c := k.chainOf(s); c.next != s && c.next != earley.Dead {
		// A chain's classes lead one step further (a bounded string's
		// characters, all but its quote and backslash): see chainBelow.
		others := set
		for w := range others {
			others[w] &^= c.classes[w]
		}
		if others.Len() <= chainOthers {
			*k.universes.at(s) = none
			return none
		}
	}
	wide := true
	for set.Len() >= universeClasses {
		drop, narrow, ok := k.closeUniverse(s, &set, wide)
		switch {
		case !ok:
			// Most States it reached would follow the same way to no
			// universe: they are not asked again.
			k.univFailures++
			for _, q := range k.univStates {
				if !k.universes.at(q).known {
					*k.universes.at(q) = none
				}
			}
			return none
		case narrow:
			wide = false
		case drop != (grammar.ByteSet{}):
			for w := range set {
				set[w] &^= drop[w]
			}
		default:
			u := universe{labels: k.labelSet(set), wide: wide, known: true}
			for _, q := range k.univStates {
				if !k.universes.at(q).known { // each has it too: its strings are some of s's
					*k.universes.at(q) = u
				}
			}
			return u
		}
	}
	*k.universes.at(s) = none
	return none
}

// univFrom is how closeUniverse first reached a State: from a State by a
// class, or by a multi-byte character (class -1).
type univFrom struct {
	parent earley.State
	class  int
}

// closeUniverse follows every class of set, and with wide every multi-byte
// character, from s, into k.univStates, until some State dies on one: then
// it returns what to drop: the classes it dies on, or those that lead to it
// from the State it was first reached from where they are fewer (an
// escape's backslash). One a character led to makes the universe narrow.
// Ok is false where there is no universe: too many States, a State that
// most classes lead to and that dies on most, or a State whose classes all
// lead one step further (a bounded repetition's chain: see chainBelow).
func (k *Masker) closeUniverse(s earley.State, set *grammar.ByteSet, wide bool) (drop grammar.ByteSet, narrow, ok bool) {
	clear(k.univSeen)
	k.univStates = append(k.univStates[:0], s)
	k.univSeen[s] = univFrom{earley.Dead, -1}
	for j := 0; j < len(k.univStates); j++ {
		if len(k.univStates) > universeStates {
			return drop, false, false
		}
		q := k.univStates[j]
		scan := k.m.ScanClasses(q)
		var dies grammar.ByteSet
		for w := range dies {
			dies[w] = set[w] &^ scan[w]
		}
		if dies != (grammar.ByteSet{}) {
			from := k.univSeen[q]
			if j > 0 && from.class < 0 {
				return drop, true, true
			}
			var lead grammar.ByteSet // the classes that lead to q, dropped to keep it out
			if j > 0 {
				lead = k.leadingTo(from.parent, q, set)
			}
			switch n := lead.Len(); {
			case j > 0 && 2*dies.Len() > set.Len() && 2*n >= set.Len():
				return drop, false, false
			case j > 0 && n < dies.Len():
				return lead, false, true
			}
			return dies, false, true
		}
		first, same := earley.Dead, true
		for c := range classesOf(set) {
			n, _ := k.m.StepLocal(q, c)
			if n == earley.Dead {
				drop.Add(uint8(c))
				return drop, false, true
			}
			if first == earley.Dead {
				first = n
			}
			same = same && n == first
			if _, seen := k.univSeen[n]; !seen {
				k.univSeen[n] = univFrom{q, c}
				k.univStates = append(k.univStates, n)
			}
		}
		if same && first != q {
			return drop, false, false
		}
		if wide {
			ends, ok := k.charEnds(q, set)
			if !ok {
				return drop, true, true
			}
			for _, n := range ends {
				if _, seen := k.univSeen[n]; !seen {
					k.univSeen[n] = univFrom{q, -1}
					k.univStates = append(k.univStates, n)
				}
			}
		}
	}
	return drop, false, true
}

// leadingTo returns the classes of set that lead p to q.
func (k *Masker) leadingTo(p, q earley.State, set *grammar.ByteSet) grammar.ByteSet {
	var lead grammar.ByteSet
	for c := range classesOf(set) {
		if to, _ := k.m.StepLocal(p, c); to == q {
			lead.Add(uint8(c))
		}
	}
	return lead
}

// classesOf yields the members of set in increasing order.
func classesOf(set *grammar.ByteSet) func(func(int) bool) {
	return func(yield func(int) bool) {
		for w := range set {
			for x := set[w]; x != 0; x &= x - 1 {
				if !yield(w<<6 | bits.TrailingZeros64(x)) {
					return
				}
			}
		}
	}
}

// charEnds returns the States every class path of every multi-byte UTF-8
// form leads q to, or false if one dies on the way. Where the Machine can
// tell from q's items that every form leads where a class of set does, it
// returns none: closeUniverse follows that class anyway.
func (k *Masker) charEnds(q earley.State, set *grammar.ByteSet) ([]earley.State, bool) {
	if set.Has(uint8(k.univLike)) && k.m.CharsLikeClass(q, k.utf8Rows, k.univLike) {
		return nil, true
	}
	tries := 0
	for c := range classesOf(set) {
		if tries++; tries > charsLikeTries {
			break
		}
		if c != k.univLike && k.m.CharsLikeClass(q, k.utf8Rows, c) {
			k.univLike = c // most States of a universe answer to the same class
			return nil, true
		}
	}
	var ends []earley.State
	var buf [2][8]earley.State
	for f := range k.utf8Rows {
		cur, ok := k.formEnds(q, f, &buf)
		if !ok {
			return nil, false
		}
		for _, n := range cur {
			if !slices.Contains(ends, n) {
				ends = append(ends, n)
			}
		}
	}
	return ends, true
}

// A universeTable is what a universe's labels allow from any of its
// States: base, every token over them (and, wide, over them and
// multi-byte characters), and nodes, in preorder, the trie nodes on the
// paths of the other tokens, nil where they are more than
// maxUniverseNodes.
type universeTable struct {
	base  Bitset
	nodes []int32
}

type universeKey struct {
	labels grammar.ByteSet
	wide   bool
}

// maxUniverseNodes is the most trie nodes a universe's mask is walked
// over from each State (a string body's lacks about 5,000 tokens).
const maxUniverseNodes = 1 << 14

// universeTableOf returns the table of u's labels, made the first time
// for every Masker of the vocabulary.
func (k *Masker) universeTableOf(u universe) *universeTable {
	lt := k.lt
	key := universeKey{u.labels, u.wide}
	lt.univMu.Lock()
	defer lt.univMu.Unlock()
	ut := lt.univ[key]
	if ut == nil {
		ut = lt.universeTable(&u.labels, u.wide)
		lt.univ[key] = ut
	}
	return ut
}

// universeTable makes the table of a universe's labels (see universeTable),
// from the root down while the path is over them: over its labels alone,
// or, wide, over them and the bytes of valid UTF-8 characters.
func (lt *labelled) universeTable(labels *grammar.ByteSet, wide bool) *universeTable {
	t := lt.trie
	wideSet := *labels
	orInto(&wideSet, &lt.high)
	ut := &universeTable{base: NewBitset(t.size)}
	// By node: whether its path is over the universe, and the UTF-8
	// decoder's state after it; whether it is in nodes.
	over := make([]bool, len(t.label))
	dec := make([]utf8State, len(t.label))
	listed := make([]bool, len(t.label))
	var climb []int32
	for i := int32(1); i < int32(len(t.label)); {
		if p := t.parent[i]; p == 0 || over[p] {
			at := dec[p] // the root's is u8Boundary
			if at == u8Boundary && (lt.within(i, labels) || wide && t.utf8[i] && lt.within(i, &wideSet)) {
				for _, id := range t.ids[t.first[i]:t.first[t.end[i]]] {
					ut.base.Set(int(id))
				}
				i = t.end[i]
				continue
			}
			l := t.label[i]
			if next := lt.utf8Next[l][at]; next != u8Bad && (labels.Has(l) || wide && lt.high.Has(l)) {
				over[i], dec[i] = true, next
				for _, id := range t.ids[t.first[i]:t.first[i+1]] {
					ut.base.Set(int(id))
				}
				i++
				continue
			}
			// The first edge off the universe: list the path to it.
			climb = climb[:0]
			for a := p; a != 0 && !listed[a]; a = t.parent[a] {
				listed[a] = true
				climb = append(climb, a)
			}
			for j := len(climb) - 1; j >= 0; j-- {
				ut.nodes = append(ut.nodes, climb[j])
			}
		}
		ut.nodes = append(ut.nodes, i)
		listed[i] = true
		if len(ut.nodes) > maxUniverseNodes {
			ut.nodes = nil
			return ut
		}
		i++
	}
	if ut.nodes == nil {
		ut.nodes = []int32{}
	}
	return ut
}
