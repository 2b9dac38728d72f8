package earley

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/gasplab/gasp/pkg/grammar"
)

// State identifies an Earley item set up to isomorphism. States are interned
// by a Machine: two prefixes reach the same State exactly when their item
// sets are the same once every origin is replaced by the State of the set it
// points to (or, for an item that holds its LR(0) item with several
// origins, by the view of that set that completion reads: see
// mergeOrigins). Equal States therefore have equal futures (the same set of
// continuations), which is what makes transitions and token masks
// cacheable.
type State int32

// Dead is the State of a non-viable prefix.
const Dead State = 0

// self is the origin of an item predicted in the set that holds it.
const self = -1

// opaque is the origin of an item in a view (see Machine.ScanViews) whose
// origin set lies beyond the view's depth.
const opaque = -2

// escaped marks a memoized transition of a view that had to complete an
// item with an opaque origin.
const escaped State = 1 << 30

// noSymbol marks an item whose dot is at the end of its production.
const noSymbol grammar.Symbol = 1<<31 - 1

// item is an Earley item: an LR(0) item (production and dot, numbered densely)
// and its origin: the State of the set where it was predicted or a view of
// it (see mergeOrigins), or self.
type item struct {
	lr     int32
	origin int32
}

type stateData struct {
	items       []item          // a set, in no set order; origins are State ids, self or opaque
	scan        []item          // the items whose next symbol is a terminal
	scanClasses grammar.ByteSet // the byte classes their terminals accept
	scanWidth   int16           // the most classes one of their terminals accepts
	next        []State         // per byte class, maybe with the escaped bit; unknown entries are -1; allocated on first use
	escFollow   []int32         // per byte class, for a step that escaped: the index of EscapeFollow's set; allocated on first use
	alike       []uint8         // per byte class, its group: classes the same scan items accept (see sameScan); built on the second step
	known       []int16         // per group of alike: a class of it whose step is known, or -1
	stepped     bool            // a step of it was computed (see sameScan)
	accepting   bool
	predicted   bool             // every item has origin self: as an origin, the start State (see intern)
	bounded     bool             // an item is inside a bounded repetition (see InBoundedRepetition)
	sameHash    State            // the State added before it with the same setHash, or Dead
	wait        []item           // the items before a nonterminal, by that nonterminal; built on first use (waiting)
	waitSym     []grammar.Symbol // by wait item: its nonterminal, to search
	waitBuilt   bool
}

// Machine is an incremental byte-level Earley recognizer for one grammar.
//
// Each State stands for an Earley set whose items point to their origin
// sets by State. Stepping a State by a byte runs the scanner, completer and
// predictor on that representation and interns the result, so a transition
// is computed once and then looked up: a Machine is a lazily built,
// possibly infinite automaton whose states are Earley sets. Left-recursive
// loops (as the grammar compiler emits for repetitions) map every position
// inside a loop to one State, and so do ambiguous loops such as a run of
// spaces that a repetition of whitespace rules can split in many ways.
//
// A Machine grows as new States are reached and is not safe for concurrent
// use.
type Machine struct {
	g *grammar.Grammar

	// LR(0) items: production p with the dot before RHS[d] is lr = prodBase[p]+d.
	prodBase []int32
	lrNext   []grammar.Symbol // symbol after the dot, or noSymbol
	lrLHS    []int32          // rule of the item's production
	nullable []bool           // by rule
	repLink  []bool           // by rule: a link of a bounded repetition's chain (see InBoundedRepetition)
	anyLink  []bool           // by rule: a link of a bounded repetition's chain of anything (see originView)
	linkWait []bool           // by rule: an item of a link, or of a generated rule that one waits on, may wait on it (see awaitedByLink)
	links    []chainLinkPos   // by rule: where a link sits in its chain (see RoomKey)
	lrInRep  []bool           // by LR(0) item: its dot is before one of the m first copies of X{m,n} (see repetitionItems)
	initial  [][]int32        // by rule: the LR(0) items with the dot at the start
	predict  [][]int32        // by rule: the LR(0) items its prediction adds with origin self (see predictions)

	classOf    [256]uint8        // byte → byte class
	numClasses int               // classes are numbered 0..numClasses-1
	termClass  []grammar.ByteSet // by terminal: the classes it matches (a class set, not bytes)
	first      []grammar.ByteSet // by rule: the classes that can start it
	follow     []grammar.ByteSet // by rule: the classes that can come right after it in a sentence

	// followSets holds the distinct sets that escaping steps leave
	// pending, indexed by stateData.escFollow (see EscapeFollow), and
	// followIndex finds a set's index.
	followSets  []grammar.ByteSet
	followIndex map[grammar.ByteSet]int32
	escSet      grammar.ByteSet // scratch: what closure found for escFollow

	states             stateTable
	index              map[uint64]State // by setHash: the last State added with that hash
	views              map[viewKey]State
	viewsByWaiters     map[string]State   // by the key of a State's waiters and the rule (see Views by waiters)
	viewsByWaitersHits int                // views served by viewsByWaiters (for tests)
	waiterKeys         map[viewKey]string // the key of waiters by State and depth (want unused)
	origins            map[uint64]State   // by State<<32|rule: origin's view of that State for that rule
	seen               itemSet            // scratch for compute
	items              []item             // scratch for compute
	start              State
	cmp                itemSet // scratch for sameSet
	cmpItems           []item  // scratch for sameSet

	groups    []scanGroup // scratch for ScanViews
	viewItems []item      // scratch for ScanViews

	wanted      []grammar.Symbol // scratch for completing
	waitKeys    []uint64         // scratch for buildWaiting
	originItems []item           // scratch for origin
	lrSeen      []uint32         // by LR(0) item: lrGen if seen once by mergeOrigins, lrGen+1 if twice
	lrGen       uint32

	// Blocks that States' slices are carved from: a State costs no
	// allocation of its own (XML's prolog builds hundreds in one step).
	itemBlock  []item
	nextBlock  []State
	symBlock   []grammar.Symbol
	alikeBlock []uint8
	knownBlock []int16

	waitCount []int32 // scratch for countWaiting: by rule

	loopChars  map[grammar.Symbol]*grammar.Universal // by loop element: what Absorbing states of it
	regexRules []bool                                // by rule: grammar.Rule.Regex (see mergeOrigins)
	loopItems  []bool                                // by LR(0) item: X ::= X • Y (see Absorbing)

	kernels     map[string]kernelStep // by kernelKey: what closing the kernel gave
	kernelWords []uint64              // scratch for kernelKey
	kernelBuf   []byte                // scratch for kernelKey
	roomWords   []uint64              // scratch for RoomKey

	termSeen []uint32 // scratch for alikeGroups: by terminal, termGen if seen
	termGen  uint32
	groupIDs []uint32 // scratch for alikeGroups
	groupMap []uint32 // scratch for alikeGroups
	touched  []uint32 // scratch for alikeGroups

	after        map[int32]grammar.ByteSet // by LR(0) item: the classes after its next symbol there (see afterNext)
	contextWords []uint64                  // scratch for ContextKey
	last         []grammar.ByteSet         // by rule: the classes that can end a string it derives (see lastClasses)
}

// carve returns a slice of n elements cut from *block, which it refills
// with a new block of blockSize elements when too few are left.
func carve[T any](block *[]T, n int) []T {
	const blockSize = 4096
	if n > len(*block) {
		*block = make([]T, max(n, blockSize))
	}
	b := (*block)[:n:n]
	*block = (*block)[n:]
	return b
}

// newNext returns a State's transition row, every entry unknown (-1).
func (m *Machine) newNext() []State {
	b := carve(&m.nextBlock, m.numClasses)
	for i := range b {
		b[i] = -1
	}
	return b
}

// New returns a Machine for g. The grammar must be a compiled, pruned
// grammar (as grammar.Compile returns): otherwise a viable prefix is only
// one that the grammar's productive part can continue.
func New(g *grammar.Grammar) *Machine {
	m := &Machine{g: g, index: make(map[uint64]State), views: make(map[viewKey]State), viewsByWaiters: make(map[string]State), waiterKeys: make(map[viewKey]string),
		origins: make(map[uint64]State), kernels: make(map[string]kernelStep)}
	m.prodBase = make([]int32, len(g.Prods))
	n := int32(0)
	for p, prod := range g.Prods {
		m.prodBase[p] = n
		for _, s := range prod.RHS {
			m.lrNext = append(m.lrNext, s)
			m.lrLHS = append(m.lrLHS, int32(prod.LHS))
		}
		m.lrNext = append(m.lrNext, noSymbol)
		m.lrLHS = append(m.lrLHS, int32(prod.LHS))
		n += int32(len(prod.RHS) + 1)
	}
	m.initial = make([][]int32, len(g.Rules))
	for r, rule := range g.Rules {
		for _, p := range rule.Prods {
			m.initial[r] = append(m.initial[r], m.prodBase[p])
		}
	}
	m.regexRules = make([]bool, len(g.Rules))
	for r, rule := range g.Rules {
		m.regexRules[r] = rule.Regex
	}
	m.loopItems = m.loopItemsOf()
	m.nullable = g.Nullable()
	m.anyLink = chainLinks(g)
	m.linkWait = linkWaits(g, m.anyLink)
	m.repLink = repetitionLinks(g, m.nullable, m.anyLink)
	m.links = chainPositions(g, m.repLink)
	m.lrInRep = m.repetitionItems()
	m.predict = m.predictions()
	m.computeByteClasses()
	m.first = firstClasses(g, m.nullable, m.termClass)
	m.follow = followClasses(g, m.nullable, m.termClass, m.first)
	m.last = lastClasses(g, m.nullable, m.termClass)
	m.followSets = []grammar.ByteSet{{}} // index 0, for a class whose step did not escape
	m.followIndex = map[grammar.ByteSet]int32{{}: 0}

	m.states.add(stateData{}) // Dead
	seen := new(itemSet)
	items := m.addPredicted(nil, seen, g.Start)
	items, _ = m.closure(items, seen)
	m.start = m.intern(items)
	return m
}

// followClasses returns, by rule, the byte classes that can come right
// after a complete instance of it in some sentence (FOLLOW sets over byte
// classes; the end of the input is not a class).
//
// Both FIRST and FOLLOW are least fixpoints found with a worklist: a set
// that grows is pushed on it, and only the productions and rules that read
// it are looked at again. Iterating over every production until nothing
// changes costs a pass per link of the longest chain of rules (a JSON
// schema's member lists chain hundreds), and each pass rescans every
// production's suffixes.
func followClasses(g *grammar.Grammar, nullable []bool, termClass, first []grammar.ByteSet) []grammar.ByteSet {
	follow := make([]grammar.ByteSet, len(g.Rules))
	// follow[B] includes FIRST of what follows B in a production, a
	// constant found by one scan of the production from the right, and
	// follow[A] of its left side A where that is nullable: an edge A → B.
	into := make([][]int32, len(g.Rules)) // into[A]: the rules B that follow[A] flows into
	for _, p := range g.Prods {
		var suffix grammar.ByteSet
		null := true
		for i := len(p.RHS) - 1; i >= 0; i-- {
			sym := p.RHS[i]
			if sym.IsTerminal() {
				suffix, null = termClass[sym.Terminal()], false
				continue
			}
			b := sym.Rule()
			orSet(&follow[b], &suffix)
			if null && b != p.LHS {
				into[p.LHS] = append(into[p.LHS], int32(b))
			}
			if nullable[b] {
				orSet(&suffix, &first[b])
			} else {
				suffix, null = first[b], false
			}
		}
	}
	work := make([]int32, len(g.Rules))
	queued := make([]bool, len(g.Rules))
	for r := range work {
		work[r], queued[r] = int32(r), true
	}
	for len(work) > 0 {
		a := work[len(work)-1]
		work, queued[a] = work[:len(work)-1], false
		for _, b := range into[a] {
			if orSet(&follow[b], &follow[a]) && !queued[b] {
				work, queued[b] = append(work, b), true
			}
		}
	}
	return follow
}

// firstClasses returns, by rule, the byte classes that can start a
// nonempty instance of it (FIRST sets over byte classes).
func firstClasses(g *grammar.Grammar, nullable []bool, termClass []grammar.ByteSet) []grammar.ByteSet {
	first := make([]grammar.ByteSet, len(g.Rules))
	// readers[B]: the productions whose FIRST reads first[B] (B is after
	// a nullable prefix of them).
	readers := make([][]int32, len(g.Rules))
	for p, prod := range g.Prods {
		for _, sym := range prod.RHS {
			if sym.IsTerminal() {
				break
			}
			readers[sym.Rule()] = append(readers[sym.Rule()], int32(p))
			if !nullable[sym.Rule()] {
				break
			}
		}
	}
	// add ORs FIRST of production p into its left side's set.
	add := func(p int) bool {
		prod := &g.Prods[p]
		var set grammar.ByteSet
		for _, sym := range prod.RHS {
			if sym.IsTerminal() {
				orSet(&set, &termClass[sym.Terminal()])
				break
			}
			orSet(&set, &first[sym.Rule()])
			if !nullable[sym.Rule()] {
				break
			}
		}
		return orSet(&first[prod.LHS], &set)
	}
	var work []int32
	queued := make([]bool, len(g.Rules))
	for p, prod := range g.Prods {
		if add(p) && !queued[prod.LHS] {
			work, queued[prod.LHS] = append(work, int32(prod.LHS)), true
		}
	}
	for len(work) > 0 {
		b := work[len(work)-1]
		work, queued[b] = work[:len(work)-1], false
		for _, p := range readers[b] {
			if lhs := g.Prods[p].LHS; add(int(p)) && !queued[lhs] {
				work, queued[lhs] = append(work, int32(lhs)), true
			}
		}
	}
	return first
}

// orSet adds src to dst and reports whether dst grew.
func orSet(dst, src *grammar.ByteSet) bool {
	grew := false
	for w := range dst {
		if src[w]&^dst[w] != 0 {
			dst[w] |= src[w]
			grew = true
		}
	}
	return grew
}

// computeByteClasses groups bytes that every terminal treats alike. Bytes in
// no terminal share a class whose transitions all lead to Dead.
func (m *Machine) computeByteClasses() {
	sig := make(map[string]int)
	key := make([]byte, 0, len(m.g.Terminals)/8+1)
	for b := 0; b < 256; b++ {
		key = key[:0]
		for t := range m.g.Terminals {
			if t%8 == 0 {
				key = append(key, 0)
			}
			if m.g.Terminals[t].Has(byte(b)) {
				key[len(key)-1] |= 1 << (t % 8)
			}
		}
		c, ok := sig[string(key)]
		if !ok {
			c = len(sig)
			sig[string(key)] = c
		}
		m.classOf[b] = uint8(c)
	}
	m.numClasses = len(sig)
	m.termClass = make([]grammar.ByteSet, len(m.g.Terminals))
	for t, set := range m.g.Terminals {
		for b := 0; b < 256; b++ {
			if set.Has(byte(b)) {
				m.termClass[t].Add(m.classOf[b])
			}
		}
	}
}

// Grammar returns the grammar the Machine recognizes.
func (m *Machine) Grammar() *grammar.Grammar { return m.g }

// Start returns the State of the empty prefix.
func (m *Machine) Start() State { return m.start }

// Accepting reports whether a prefix in State s is a sentence.
func (m *Machine) Accepting(s State) bool { return m.states.at(s).accepting }

// NumStates returns how many States have been built so far (Dead included).
func (m *Machine) NumStates() int { return m.states.n }

// NumClasses returns the number of byte classes: bytes in one class lead
// from every State to the same State.
func (m *Machine) NumClasses() int { return m.numClasses }

// ScanClasses returns the byte classes that some scan item of s accepts:
// every other class leads from s to Dead.
func (m *Machine) ScanClasses(s State) grammar.ByteSet { return m.states.at(s).scanClasses }

// ScanItems returns the number of s's items whose next symbol is a
// terminal.
func (m *Machine) ScanItems(s State) int { return len(m.states.at(s).scan) }

// ScanWidth returns the most byte classes that the terminal of one scan
// item of s accepts: 1 where s expects a literal, more where it expects a
// character class.
func (m *Machine) ScanWidth(s State) int { return int(m.states.at(s).scanWidth) }

// ByteClass returns the class of byte b.
func (m *Machine) ByteClass(b byte) int { return int(m.classOf[b]) }

// Step returns the State after consuming byte b in State s, or Dead.
func (m *Machine) Step(s State, b byte) State { return m.StepClass(s, int(m.classOf[b])) }

// StepClass is Step for a byte class.
func (m *Machine) StepClass(s State, class int) State {
	n, _ := m.StepLocal(s, class)
	return n
}

// StepLocal is StepClass for a view (see ScanViews) or a State reached
// from one. It also reports whether the step escaped: whether it completed
// an item whose origin lies beyond the view. The State it returns then holds
// only what the view can see; the true set may hold more. Steps of ordinary
// States never escape.
func (m *Machine) StepLocal(s State, class int) (next State, esc bool) {
	// The fast path, small enough to inline: a memoized transition.
	if tr := m.states.at(s).next; tr != nil {
		if n := tr[class]; n >= 0 {
			return n &^ escaped, n&escaped != 0
		}
	}
	return m.stepSlow(s, class)
}

func (m *Machine) stepSlow(s State, class int) (next State, esc bool) {
	if s == Dead {
		return Dead, false
	}
	st := m.states.at(s)
	if st.next == nil {
		st.next = m.newNext()
	}
	n := st.next[class]
	if n < 0 && !st.scanClasses.Has(uint8(class)) {
		n = Dead // no item can scan it: no need to look
		st.next[class] = n
	}
	if n < 0 && st.scanWidth > 1 { // with literals alone, no two classes have the same scanners
		n = m.sameScan(s, class)
	}
	if n < 0 {
		n = m.compute(s, class)
		st := m.states.at(s) // compute may have moved it
		st.next[class] = n
		if st.known != nil {
			st.known[st.alike[class]] = int16(class)
		}
	}
	return n &^ escaped, n&escaped != 0
}

// ScanAlike reports whether the same scan items of s, at least one,
// accept every class in classes: then all of them lead to one State,
// which a step by any of them finds. It costs a pass over the scan items,
// where stepping by each class costs one for each.
func (m *Machine) ScanAlike(s State, classes *grammar.ByteSet) bool {
	accepted := false
	for _, it := range m.states.at(s).scan {
		tc := &m.termClass[m.lrNext[it.lr].Terminal()]
		some, all := false, true
		for w := range classes {
			some = some || tc[w]&classes[w] != 0
			all = all && classes[w]&^tc[w] == 0
		}
		if some && !all {
			return false
		}
		accepted = accepted || some
	}
	return accepted
}

// CharsLikeClass reports, without building a State, that every class
// path of every form (by byte, the classes of its bytes; gcd's UTF-8
// forms) leads s through live States to the State class leads s to.
// It holds when the scan items of s that accept those classes were all
// predicted in s, belong to one rule R and have only terminals after the
// dot (a character class: R ::= [a-z] | [\xC2-\xDF] [\x80-\xBF] | ...),
// and, over those items alone, every path keeps some in progress until
// its last byte, where one completes and the ones still in progress are
// those class leaves in progress. Both then complete R in s and nothing
// else: the same item set, the same State. A false answer says nothing:
// the caller steps the paths.
func (m *Machine) CharsLikeClass(s State, forms [][][]uint8, class int) bool {
	st := m.states.at(s)
	var classes grammar.ByteSet
	classes.Add(uint8(class))
	for _, f := range forms {
		for _, row := range f {
			for _, c := range row {
				classes.Add(c)
			}
		}
	}
	items := m.cmpItems[:0] // scratch: the items, origin unused
	rule := int32(-1)
	for _, it := range st.scan {
		tc := &m.termClass[m.lrNext[it.lr].Terminal()]
		if tc[0]&classes[0] == 0 && tc[1]&classes[1] == 0 && tc[2]&classes[2] == 0 && tc[3]&classes[3] == 0 {
			continue
		}
		if it.origin != self || rule >= 0 && m.lrLHS[it.lr] != rule || !m.onlyTerminals(it.lr) {
			return false
		}
		rule = m.lrLHS[it.lr]
		items = append(items, it)
	}
	m.cmpItems = items
	target, done := m.advanceLR(items, class, nil)
	if !done {
		return false
	}
	var cur, next [][]item
	for _, f := range forms {
		cur = append(cur[:0], items)
		for j, row := range f {
			next = next[:0]
			for _, set := range cur {
				for _, c := range row {
					n, done := m.advanceLR(set, int(c), nil)
					switch {
					case len(n) == 0 && !done:
						return false // a dead path
					case done != (j == len(f)-1):
						return false // R completes before the character ends, or not at its end
					case done && !sameLR(n, target):
						return false
					case !done:
						next = append(next, n)
					}
				}
			}
			cur, next = next, cur
		}
	}
	return true
}

// onlyTerminals reports whether LR(0) item lr has only terminals after
// its dot.
func (m *Machine) onlyTerminals(lr int32) bool {
	for ; m.lrNext[lr] != noSymbol; lr++ {
		if !m.lrNext[lr].IsTerminal() {
			return false
		}
	}
	return true
}

// advanceLR returns the items of set whose next terminal accepts class,
// advanced, that are still in progress, appended to dst, and whether
// one of them completed.
func (m *Machine) advanceLR(set []item, class int, dst []item) ([]item, bool) {
	done := false
	for _, it := range set {
		if !m.termClass[m.lrNext[it.lr].Terminal()].Has(uint8(class)) {
			continue
		}
		if m.lrNext[it.lr+1] == noSymbol {
			done = true
			continue
		}
		dst = append(dst, item{it.lr + 1, it.origin})
	}
	return dst, done
}

// sameLR reports whether item lists a and b hold the same LR(0) items.
func sameLR(a, b []item) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.ContainsFunc(b, func(y item) bool { return y.lr == x.lr }) {
			return false
		}
	}
	return true
}

// sameScan returns the step of s by class when an earlier step of s was
// by a class that the same scan items accept, or -1. Inside a character
// class ([a-z0-9_]), every class of its bytes costs an Earley step and the
// interning of its result once, then a look-up: a walk that meets 40
// classes of identifier bytes builds one set rather than 40.
func (m *Machine) sameScan(s State, class int) State {
	st := m.states.at(s)
	if st.alike == nil {
		if !st.stepped { // nothing to reuse yet: spare the groups a State stepped once
			st.stepped = true
			return -1
		}
		st.alike = m.alikeGroups(st)
		st.known = m.knownSteps(st)
	}
	c := st.known[st.alike[class]]
	if c < 0 {
		return -1
	}
	n := st.next[c]
	st.next[class] = n
	if n&escaped != 0 {
		m.setEscapeFollow(s, class, m.EscapeFollow(s, int(c)))
	}
	return n
}

// knownSteps returns, by group of st.alike, a scanned class of the group
// whose step st.next holds, or -1.
func (m *Machine) knownSteps(st *stateData) []int16 {
	groups := 0
	for _, g := range st.alike {
		groups = max(groups, int(g)+1)
	}
	known := carve(&m.knownBlock, groups)
	for g := range known {
		known[g] = -1
	}
	for c, n := range st.next {
		if n >= 0 && st.scanClasses.Has(uint8(c)) {
			known[st.alike[c]] = int16(c)
		}
	}
	return known
}

// alikeGroups returns, by byte class, a group number such that two classes
// the scan items of st scan have the same number iff the same items accept
// them: the classes split by each distinct terminal of the items in turn
// (partition refinement), in time linear in the terminals' classes.
func (m *Machine) alikeGroups(st *stateData) []uint8 {
	nc := m.numClasses
	if len(m.termSeen) < len(m.g.Terminals) {
		m.termSeen = make([]uint32, len(m.g.Terminals))
	}
	m.termGen++
	ids := append(m.groupIDs[:0], make([]uint32, nc)...) // every class in group 0
	next := uint32(1)
	moved := m.groupMap[:0] // by old group: its new group under the current terminal, or 0
	touched := m.touched[:0]
	for _, it := range st.scan {
		t := m.lrNext[it.lr].Terminal()
		if m.termSeen[t] == m.termGen {
			continue
		}
		m.termSeen[t] = m.termGen
		tc := &m.termClass[t]
		for w := range tc {
			for x := tc[w]; x != 0; x &= x - 1 {
				c := w<<6 | bits.TrailingZeros64(x)
				g := ids[c]
				for int(g) >= len(moved) {
					moved = append(moved, 0)
				}
				if moved[g] == 0 {
					moved[g] = next
					next++
					touched = append(touched, g)
				}
				ids[c] = moved[g]
			}
		}
		for _, g := range touched {
			moved[g] = 0
		}
		touched = touched[:0]
	}
	// Renumber densely: at most nc groups.
	alike := carve(&m.alikeBlock, nc)
	dense := moved[:0]
	for range next {
		dense = append(dense, 0)
	}
	n := uint32(0)
	for c, g := range ids {
		if dense[g] == 0 {
			n++
			dense[g] = n
		}
		alike[c] = uint8(dense[g] - 1)
	}
	m.groupIDs, m.groupMap, m.touched = ids, dense, touched
	return alike
}

// compute runs one Earley step: scan the byte class, then close the new
// set. The result carries the escaped bit if the closure met an opaque
// origin.
func (m *Machine) compute(s State, class int) State {
	items := m.items[:0]
	defer func() { m.items = items[:0] }()
	seen := &m.seen
	seen.reset()
	for _, it := range m.states.at(s).scan {
		if m.termClass[m.lrNext[it.lr].Terminal()].Has(uint8(class)) {
			origin := it.origin
			if origin == self {
				origin = int32(s)
			}
			items = m.addItem(items, seen, item{it.lr + 1, origin})
		}
	}
	if len(items) == 0 {
		return Dead
	}
	key := m.kernelKey(items)
	if key != nil {
		if k, ok := m.kernels[string(key)]; ok {
			if k.next&escaped != 0 {
				m.setEscapeFollow(s, class, m.followSets[k.follow])
			}
			return k.next
		}
	}
	m.escSet = grammar.ByteSet{}
	items, esc := m.closure(items, seen)
	items = m.mergeOrigins(items)
	k := kernelStep{next: m.intern(items)}
	if esc {
		k.next |= escaped
		k.follow = m.setEscapeFollow(s, class, m.escSet)
	}
	if key != nil {
		m.kernels[string(key)] = k
	}
	return k.next
}

// Kernels: steps that complete the same rules.
//
// A step's Earley set is the closure of its kernel, the items that scanned
// the byte, advanced. A completed item of the kernel contributes only its
// rule and origin: the closure completes that rule there, the set keeps no
// completed item (intern), and a completion into an opaque origin escapes
// with the rule's FOLLOW set. So steps whose kernels are equal once each
// completed item is written as its rule and origin reach the same State,
// with the same escape, and a step whose kernel completes a rule looks it
// up before closing it. Where a trie of keys is written left-linear
// (pkg/jsonschema's keyNotIn), each prefix P_n of a name leaves the trie by
// completing Free ::= P_n a • at the opening quote: one kernel for every
// n, closed once. Kernels that complete nothing are not kept: they seldom
// recur from another State, and keeping them cost more than it saved
// (MaskBench's median step 5 % slower).

// kernelStep is the outcome of a kernel's closure: the State, with the
// escaped bit, and the index of its EscapeFollow set.
type kernelStep struct {
	next   State
	follow int32
}

// kernelKey returns the key of the kernel items, in m.kernelBuf: its
// items, completed ones as their rule and origin, sorted, without
// repeats; or nil if no item of it is completed.
func (m *Machine) kernelKey(items []item) []byte {
	words, complete := m.kernelWords[:0], false
	for _, it := range items {
		w := uint64(uint32(it.lr))<<32 | uint64(uint32(it.origin))
		if m.lrNext[it.lr] == noSymbol {
			w = 1<<63 | uint64(uint32(m.lrLHS[it.lr]))<<32 | uint64(uint32(it.origin))
			complete = true
		}
		words = append(words, w)
	}
	m.kernelWords = words
	if !complete {
		return nil
	}
	slices.Sort(words)
	words = slices.Compact(words)
	key := m.kernelBuf[:0]
	for _, w := range words {
		key = binary.LittleEndian.AppendUint64(key, w)
	}
	m.kernelWords, m.kernelBuf = words, key
	return key
}

// EscapeFollow returns, after a step of view s by class that escaped (see
// StepLocal), the byte classes that the items the view cannot see could
// scan next: those that can follow a rule the step completed into an
// opaque origin. If the next byte's class is not among them, those items
// die there, and the true set is again what the view holds.
func (m *Machine) EscapeFollow(s State, class int) grammar.ByteSet {
	if row := m.states.at(s).escFollow; row != nil {
		return m.followSets[row[class]]
	}
	return grammar.ByteSet{}
}

// setEscapeFollow records what EscapeFollow(s, class) returns, and
// returns the index of set in m.followSets.
func (m *Machine) setEscapeFollow(s State, class int, set grammar.ByteSet) int32 {
	i, ok := m.followIndex[set]
	if !ok {
		i = int32(len(m.followSets))
		m.followSets = append(m.followSets, set)
		m.followIndex[set] = i
	}
	st := m.states.at(s)
	if st.escFollow == nil {
		st.escFollow = make([]int32, m.numClasses)
	}
	st.escFollow[class] = i
	return i
}

func (m *Machine) addItem(items []item, seen *itemSet, it item) []item {
	if seen.has(items, it) {
		return items
	}
	return append(items, it)
}

// itemSet answers whether an item is already in the set being built: an
// open-addressing hash table of the items added since the last reset, whose
// slots are marked with a generation so that reset is O(1).
type itemSet struct {
	gen   uint32
	n     int      // items added in this generation
	keys  []uint64 // packed items; a power-of-two number of slots
	stamp []uint32 // by slot: the generation that filled it
}

func (s *itemSet) reset() {
	s.gen++
	if s.gen == 0 { // wrapped: forget every older generation
		clear(s.stamp)
		s.gen = 1
	}
	s.n = 0
}

// has reports whether it is in items, and if not, counts it as added (the
// caller appends it to items next).
func (s *itemSet) has(items []item, it item) bool {
	if s.gen == 0 {
		s.gen = 1
	}
	if 2*(s.n+1) > len(s.keys) {
		s.grow(items)
	}
	key := uint64(uint32(it.lr))<<32 | uint64(uint32(it.origin))
	mask := uint64(len(s.keys) - 1)
	for h := (key * 0x9E3779B97F4A7C15 >> 32) & mask; ; h = (h + 1) & mask {
		if s.stamp[h] != s.gen {
			s.stamp[h], s.keys[h] = s.gen, key
			s.n++
			return false
		}
		if s.keys[h] == key {
			return true
		}
	}
}

// grow doubles the table and adds items, the set so far, to it.
func (s *itemSet) grow(items []item) {
	n := max(64, 2*len(s.keys))
	s.keys = make([]uint64, n)
	s.stamp = make([]uint32, n)
	s.gen, s.n = 1, 0
	for _, it := range items {
		s.has(nil, it)
	}
}

// predictions returns, by rule, the LR(0) items that predicting it adds
// to a set with origin self: its productions' initial items, closed under
// prediction and, for a nullable rule, moving the dot over it (Aycock and
// Horspool). An item with origin self completes into the set that holds it,
// where the nullable step has already moved past it, so these items depend
// on the rule alone and closure adds them as a block.
func (m *Machine) predictions() [][]int32 {
	pred := make([][]int32, len(m.g.Rules))
	mark := make([]int32, len(m.lrNext)) // lr -> rule+1 whose list holds it
	for r := range m.g.Rules {
		var list []int32
		add := func(lr int32) {
			if mark[lr] != int32(r)+1 {
				mark[lr] = int32(r) + 1
				list = append(list, lr)
			}
		}
		for _, lr := range m.initial[r] {
			add(lr)
		}
		for i := 0; i < len(list); i++ {
			sym := m.lrNext[list[i]]
			if sym == noSymbol || sym.IsTerminal() {
				continue
			}
			for _, lr := range m.initial[sym.Rule()] {
				add(lr)
			}
			if m.nullable[sym.Rule()] {
				add(list[i] + 1)
			}
		}
		pred[r] = slices.Clip(list)
	}
	return pred
}

// addPredicted adds to items the predictions of rule r (see predictions).
// They come as a block: if the first is in the set, so are the rest, since
// whatever block added it held r's whole block.
func (m *Machine) addPredicted(items []item, seen *itemSet, r int) []item {
	block := m.predict[r]
	if len(block) == 0 || seen.has(items, item{block[0], self}) {
		return items
	}
	items = append(items, item{block[0], self})
	for _, lr := range block[1:] {
		items = m.addItem(items, seen, item{lr, self})
	}
	return items
}

// closure adds predictions and completions to items (Aycock and Horspool's
// variant: predicting a nullable rule also moves the dot over it, so items
// completed in the set they were predicted in need no completer step). It
// reports whether it had to complete an item with an opaque origin, which
// it cannot. Items with origin self come only from addPredicted, which
// added what they lead to with them.
func (m *Machine) closure(items []item, seen *itemSet) (_ []item, esc bool) {
	for i := 0; i < len(items); i++ {
		it := items[i]
		if it.origin == self {
			continue
		}
		sym := m.lrNext[it.lr]
		switch {
		case sym == noSymbol:
			if it.origin == opaque {
				esc = true
				orSet(&m.escSet, &m.follow[m.lrLHS[it.lr]])
				continue
			}
			lhs := grammar.NT(int(m.lrLHS[it.lr]))
			for _, w := range m.waiting(State(it.origin), lhs) {
				origin := w.origin
				if origin == self {
					origin = it.origin
				}
				items = m.addItem(items, seen, item{w.lr + 1, origin})
			}
		case !sym.IsTerminal():
			items = m.addPredicted(items, seen, sym.Rule())
			if m.nullable[sym.Rule()] {
				items = m.addItem(items, seen, item{it.lr + 1, it.origin})
			}
		}
	}
	return items, esc
}

// mergeOrigins replaces, in an item set, the origin of every item whose
// LR(0) item is there with another origin too by origin's view of it, and
// drops the items that become equal.
//
// Completion looks into an origin only for the items waiting on the
// completed rule, so the view completes exactly as the origin would, and
// items that differ only in origins with equal views are the same item.
// This is what keeps ambiguous loops finite: in misc* with
// misc ::= s | comment and s ::= [ \t\n]+, a run of n spaces can be split
// into spaces in n ways, and each split's item would otherwise point to its
// own origin, making every position of the run a new State holding one more
// item; the origins' views are equal, so the run is one State. Only items
// with an LR(0) item twice are merged: building views for every item costs
// more than it saves where the grammar is not ambiguous there, except in
// a regular expression's rules (grammar.RuleDef.Regex), whose origins
// multiply without any item twice: in a search for ([0-9a-f]{2}:){4}, a
// partial match's group began at a State that holds the partial matches
// before it, and each of those at one that holds those before it (a MAC
// address's pattern reached 20,000 States in one string; with views, 33).
func (m *Machine) mergeOrigins(items []item) []item {
	m.lrGen++
	if len(m.lrSeen) < len(m.lrNext) {
		m.lrSeen = make([]uint32, len(m.lrNext))
	}
	twice := false
	for _, it := range items {
		if it.origin < 0 || m.lrNext[it.lr] == noSymbol { // predicted here, or dropped by intern
			continue
		}
		if m.lrSeen[it.lr] == m.lrGen || m.regexRules[m.lrLHS[it.lr]] {
			m.lrSeen[it.lr] = m.lrGen + 1 // twice, or marked
			twice = true
		} else if m.lrSeen[it.lr] != m.lrGen+1 {
			m.lrSeen[it.lr] = m.lrGen
		}
	}
	gen := m.lrGen
	m.lrGen += 2 // the marks of this call are now stale
	if !twice {
		return items
	}
	out := items[:0]
	seen := &m.seen
	seen.reset()
	for _, it := range items {
		if it.origin >= 0 && m.lrNext[it.lr] != noSymbol && m.lrSeen[it.lr] == gen+1 {
			it.origin = int32(m.origin(State(it.origin), m.lrLHS[it.lr]))
		}
		out = m.addItem(out, seen, it)
	}
	return out
}

// completing appends to dst the items of State o that completing rule want
// into o reaches: those waiting on want, and on the rule of each such item
// that was predicted in o, and so on.
func (m *Machine) completing(o State, want grammar.Symbol, dst []item) []item {
	wanted := append(m.wanted[:0], want)
	for i := 0; i < len(wanted); i++ {
		for _, it := range m.waiting(o, wanted[i]) {
			dst = append(dst, it)
			if l := grammar.NT(int(m.lrLHS[it.lr])); it.origin == self && !slices.Contains(wanted, l) {
				wanted = append(wanted, l)
			}
		}
	}
	m.wanted = wanted
	return dst
}

// origin returns the view of State o that an item of rule lhs with
// origin o can complete into: the items of o waiting on lhs, and on the
// rule of each such item that was predicted in o, and so on, with their
// own origins (see mergeOrigins).
func (m *Machine) origin(o State, lhs int32) State {
	key := uint64(o)<<32 | uint64(lhs)
	if v, ok := m.origins[key]; ok {
		return v
	}
	items := m.completing(o, grammar.NT(int(lhs)), m.originItems[:0])
	v := m.add(items, false)
	m.originItems = items
	m.origins[key] = v
	m.origins[uint64(v)<<32|uint64(lhs)] = v // the view of a view is itself
	return v
}

// InBoundedRepetition reports whether an item of s is inside a bounded
// repetition X{m,n} of a character (see characters) with n-m > 1, which
// the grammar compiler writes as a chain of rules O_j ::= X O_(j-1) | ε,
// one for each position, or before two or more copies of a character
// class in a row (X{m} written out). The views of such a State
// (ScanViews) hold the rule or the item of its position, so no other
// position shares them, and walks from them build States that no other
// position reaches; walks from the State itself reach the States of the
// later positions, which every position shares.
func (m *Machine) InBoundedRepetition(s State) bool { return m.states.at(s).bounded }

// chainLinkPos is where a link of a bounded repetition's chain sits: the
// chain's last link, and how many links there are from it to the last
// (1 for the last). The zero value marks a rule that is no link.
type chainLinkPos struct{ last, left int32 }

// chainPositions returns, by rule, where the links of bounded-repetition
// chains (repLink) sit in their chains.
func chainPositions(g *grammar.Grammar, repLink []bool) []chainLinkPos {
	pos := make([]chainLinkPos, len(g.Rules))
	var below []int // the links below a rule, down to one whose position is known
	for r, link := range repLink {
		if !link || pos[r].left != 0 {
			continue
		}
		below = append(below[:0], r)
		for {
			_, next, _ := chainLink(g, below[len(below)-1])
			if next < 0 || !repLink[next] || pos[next].left != 0 {
				break
			}
			below = append(below, next)
		}
		bottom := below[len(below)-1]
		last, left := int32(bottom), int32(1)
		if _, next, _ := chainLink(g, bottom); next >= 0 && repLink[next] {
			last, left = pos[next].last, pos[next].left+1
		}
		for i := len(below) - 1; i >= 0; i-- {
			pos[below[i]] = chainLinkPos{last, left + int32(len(below)-1-i)}
		}
	}
	return pos
}

// RoomKey appends to dst a key of State s and returns it, or returns nil
// if no item of s is in a link of a bounded repetition's chain (see
// InBoundedRepetition) with more than room links left. In the key, such an
// item is written by its chain, its place in its production and
// min(left, room), without its origin: two States of one key allow the
// same strings of up to room bytes (a character takes a link at least),
// so a Masker with tokens of at most room bytes gives them one mask. The
// positions of a JSON string that maxLength bounds, far from that bound,
// are so one mask rather than one each.
//
// The origin may go. Completing a link climbs the chain through its
// origins to the items that wait on the repetition (the string's quote
// and what follows it); every link is nullable, so that climb was already
// made when s was built, and its results are items of s, in the key with
// their origins. A later completion through the origin climbs the same
// chain to the same items. Other items keep their origins.
func (m *Machine) RoomKey(s State, room int, dst []byte) []byte {
	items := m.states.at(s).items
	found := false
	for _, it := range items {
		if it.origin == opaque {
			return nil
		}
		if pos := m.links[m.lrLHS[it.lr]]; pos.left > int32(room) {
			found = true
		}
	}
	if !found {
		return nil
	}
	words := m.roomWords[:0]
	for _, it := range items {
		w := uint64(uint32(it.lr))<<32 | uint64(uint32(it.origin))
		if pos := m.links[m.lrLHS[it.lr]]; pos.left > int32(room) {
			// The last link's rule, and the item's production and dot by
			// their shape: links' productions are ε, X and X L.
			p := m.lrProd(it.lr)
			shape := uint64(len(m.g.Prods[p].RHS))<<2 | uint64(it.lr-m.prodBase[p])
			w = 1<<63 | uint64(uint32(pos.last))<<32 | shape
		}
		words = append(words, w)
	}
	slices.Sort(words)
	words = slices.Compact(words)
	m.roomWords = words
	for _, w := range words {
		dst = binary.LittleEndian.AppendUint64(dst, w)
	}
	return dst
}

// RepeatedCharacters returns the byte classes of the ASCII characters
// that bounded repetitions repeat (see InBoundedRepetition), one set for
// each: for the X of X{m,n}, or of a run of X, the classes of X where X is
// a terminal, or of the terminals X derives by productions of one symbol.
// An X that derives a byte from 80 to FF (a multi-byte character, a JSON
// string's char) is left out. A Masker indexes its trie by runs of these.
func (m *Machine) RepeatedCharacters() []grammar.ByteSet {
	seen := make(map[grammar.Symbol]bool)
	var sets []grammar.ByteSet
	add := func(x grammar.Symbol) {
		if seen[x] {
			return
		}
		seen[x] = true
		var set grammar.ByteSet
		if m.singleBytes(x, &set, make(map[int]bool)) {
			return
		}
		if set != (grammar.ByteSet{}) && !slices.Contains(sets, set) {
			sets = append(sets, set)
		}
	}
	for r, link := range m.repLink {
		if x, _, ok := chainLink(m.g, r); link && ok {
			add(x)
		}
	}
	for lr, in := range m.lrInRep {
		if in {
			add(m.lrNext[lr])
		}
	}
	return sets
}

// singleBytes adds to set the classes of x's one-terminal strings: x's
// own where x is a terminal, else those of its productions of one symbol,
// rules already seen left out. It reports whether x derives a byte from
// 80 to FF.
func (m *Machine) singleBytes(x grammar.Symbol, set *grammar.ByteSet, seen map[int]bool) (high bool) {
	if x.IsTerminal() {
		orSet(set, &m.termClass[x.Terminal()])
		t := m.g.Terminals[x.Terminal()]
		return t[2]|t[3] != 0
	}
	if seen[x.Rule()] {
		return false
	}
	seen[x.Rule()] = true
	for _, p := range m.g.Rules[x.Rule()].Prods {
		rhs := m.g.Prods[p].RHS
		if len(rhs) == 1 {
			high = m.singleBytes(rhs[0], set, seen) || high
			continue
		}
		var other grammar.ByteSet
		for _, y := range rhs {
			high = m.singleBytes(y, &other, seen) || high
		}
	}
	return high
}

// chainLinks returns, by rule, whether it is a link of a
// bounded-repetition chain of two links or more: a generated rule whose
// productions are ε and X L, where L is a generated rule whose productions
// are ε and X L' or ε and X (the last link), or such a last link; X is
// anything (the characters of a string of at most n, the items of an array
// of at most n).
func chainLinks(g *grammar.Grammar) []bool {
	links := make([]bool, len(g.Rules))
	for r := range g.Rules {
		x, next, ok := chainLink(g, r)
		if !ok || next < 0 || next == r {
			continue
		}
		if y, _, ok := chainLink(g, next); ok && y == x {
			links[r], links[next] = true, true
		}
	}
	return links
}

// linkWaits returns, by rule, whether an item of a link of links, or of a
// generated rule that such an item waits on (and so on), may wait on it:
// the rules awaitedByLink may find awaited by a link.
func linkWaits(g *grammar.Grammar, links []bool) []bool {
	waits := make([]bool, len(g.Rules))
	var todo []int // rules whose productions' nonterminals are awaited
	for r, link := range links {
		if link {
			todo = append(todo, r)
		}
	}
	for len(todo) > 0 {
		r := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		for _, p := range g.Rules[r].Prods {
			for _, x := range g.Prods[p].RHS {
				if x.IsTerminal() || waits[x.Rule()] {
					continue
				}
				waits[x.Rule()] = true
				if g.Rules[x.Rule()].Generated && !links[x.Rule()] {
					todo = append(todo, x.Rule())
				}
			}
		}
	}
	return waits
}

// repetitionLinks returns, by rule, whether it is one of chain's links
// whose X derives only nonempty strings of bounded length (see
// characters).
func repetitionLinks(g *grammar.Grammar, nullable, chain []bool) []bool {
	links := make([]bool, len(g.Rules))
	isChar := make(map[grammar.Symbol]bool)
	for r, link := range chain {
		if !link {
			continue
		}
		x, _, _ := chainLink(g, r)
		c, known := isChar[x]
		if !known {
			c = characters(g, nullable, x)
			isChar[x] = c
		}
		links[r] = c
	}
	return links
}

// repetitionItems returns, by LR(0) item, whether its dot is before one
// of the m copies of X that X{m,n} starts with (the compiler writes
// X ... X O_(n-m)): a run of X up to a chain link of X; or before one of
// two or more copies of a character class X that X{m} writes out.
func (m *Machine) repetitionItems() []bool {
	in := make([]bool, len(m.lrNext))
	isClass := make(map[grammar.Symbol]bool)
	for p, prod := range m.g.Prods {
		for d := range prod.RHS {
			x, j, lr := prod.RHS[d], d, m.prodBase[p]+int32(d)
			for j < len(prod.RHS) && prod.RHS[j] == x {
				j++
			}
			if j < len(prod.RHS) && !prod.RHS[j].IsTerminal() && m.repLink[prod.RHS[j].Rule()] {
				if y, _, ok := chainLink(m.g, prod.RHS[j].Rule()); ok && y == x {
					in[lr] = true
				}
			}
			if j-d >= 2 && !in[lr] {
				c, known := isClass[x]
				if !known {
					c = m.characterClass(x)
					isClass[x] = c
				}
				in[lr] = c
			}
		}
	}
	return in
}

// characterClass reports whether x stands for one character of a choice
// of several: a terminal of more than one byte, or a rule of characters
// (see characters), not a literal's byte.
func (m *Machine) characterClass(x grammar.Symbol) bool {
	if x.IsTerminal() {
		return m.g.Terminals[x.Terminal()].Len() > 1
	}
	return characters(m.g, m.nullable, x)
}

// characters reports whether x derives only nonempty strings of bounded
// length: a terminal, or a rule that derives no ε and reaches no rule
// twice on a path (a character class, an escape sequence), not a
// recursive rule.
func characters(g *grammar.Grammar, nullable []bool, x grammar.Symbol) bool {
	if x.IsTerminal() {
		return true
	}
	const (
		unseen = iota
		open
		done
	)
	color := make(map[int]int) // by rule: unseen, open on the path, or done
	var acyclic func(r int) bool
	acyclic = func(r int) bool {
		switch color[r] {
		case open:
			return false
		case done:
			return true
		}
		color[r] = open
		for _, p := range g.Rules[r].Prods {
			for _, sym := range g.Prods[p].RHS {
				if !sym.IsTerminal() && !acyclic(sym.Rule()) {
					return false
				}
			}
		}
		color[r] = done
		return true
	}
	return !nullable[x.Rule()] && acyclic(x.Rule())
}

// chainLink reports whether rule r is generated with the productions ε and
// X next (next ≥ 0), or ε and X (next -1).
func chainLink(g *grammar.Grammar, r int) (x grammar.Symbol, next int, ok bool) {
	rule := &g.Rules[r]
	if !rule.Generated || len(rule.Prods) != 2 {
		return 0, 0, false
	}
	a, b := g.Prods[rule.Prods[0]].RHS, g.Prods[rule.Prods[1]].RHS
	if len(a) == 0 {
		a, b = b, a
	}
	switch {
	case len(b) != 0:
		return 0, 0, false
	case len(a) == 1:
		return a[0], -1, true
	case len(a) == 2 && !a[1].IsTerminal():
		return a[0], a[1].Rule(), true
	}
	return 0, 0, false
}

// ScanViews appends to dst the views of the scan items of s (the items
// whose next symbol is a terminal), one for each rule and origin set they
// share, and returns dst.
//
// The set of tokens allowed in s is the union, over its scan items, of the
// tokens each allows on its own: scanning and closure act on every item
// separately. And what an item allows depends on the sets it points to only
// through completion, which looks in the origin set for the items waiting on
// the completed rule. A view keeps just that: the items, with their origin
// replaced by a view of the origin set restricted to the items that wait on
// the items' rule (and, recursively, their origins). So the view of an
// identifier's next character is the same State in every SQL clause, and the
// view of a JSON string's next character the same in every object. The
// items of one rule with one origin share that origin's view, and keeping
// them in one view walks a long alternation of literals (a tag set) once
// rather than once per literal.
//
// Depth bounds how far views reach, counted in rules the user wrote: the
// origin of an item of a generated rule (a repetition, group or character
// class) is viewed at the same depth, since it lies inside the same user
// rule; beyond depth, origins are opaque. Stepping a view with StepLocal
// says when a step would complete an item with an opaque origin, whose
// future the view does not know. Views are never accepting.
func (m *Machine) ScanViews(s State, depth int, dst []State) []State {
	groups := m.groups[:0]
	for _, it := range m.states.at(s).scan {
		origin := it.origin
		if origin == self {
			origin = int32(s)
		}
		groups = append(groups, scanGroup{origin, m.lrLHS[it.lr], it.lr})
	}
	slices.SortFunc(groups, compareGroups)
	for i := 0; i < len(groups); {
		g := groups[i]
		ov := m.originView(g.origin, g.lr, depth)
		items := m.viewItems[:0]
		for ; i < len(groups) && groups[i].origin == g.origin && groups[i].rule == g.rule; i++ {
			items = append(items, item{groups[i].lr, ov})
		}
		dst = append(dst, m.add(items, false))
		m.viewItems = items
	}
	m.groups = groups
	return dst
}

// scanGroup is a scan item with its rule and true origin, to group by.
type scanGroup struct {
	origin, rule, lr int32
}

func compareGroups(a, b scanGroup) int {
	switch {
	case a.origin != b.origin:
		return int(a.origin - b.origin)
	case a.rule != b.rule:
		return int(a.rule - b.rule)
	}
	return int(a.lr - b.lr)
}

// originView returns the view of origin for item lr at depth (see ScanViews).
//
// An origin where the item's rule is awaited by a link of a bounded
// repetition (anyLink) is opaque: the link differs from position to
// position (the 3rd item of an array of at most 13, the 4th), so a view
// that held it would recur at no other position, and the walk of an item
// (a string of an enum) would be made afresh at each. (A State with an
// item of a character repetition's link, InBoundedRepetition's, is masked
// from no view: its own views hold the link.)
func (m *Machine) originView(origin, lr int32, depth int) int32 {
	if origin == opaque {
		return opaque
	}
	lhs := m.lrLHS[lr]
	if !m.g.Rules[lhs].Generated {
		depth--
	}
	if depth <= 0 || m.awaitedByLink(State(origin), grammar.NT(int(lhs))) {
		return opaque
	}
	return int32(m.view(State(origin), grammar.NT(int(lhs)), depth))
}

// awaitedByLink reports whether an item of o waiting on sym, or on the
// rule of such an item predicted in o (climbing up to maxClimb rules), is
// of a link of a bounded repetition.
func (m *Machine) awaitedByLink(o State, sym grammar.Symbol) bool {
	if !m.linkWait[sym.Rule()] {
		return false
	}
	for range maxClimb {
		up := noSymbol // the rule of an item predicted in o that waits on sym
		for _, it := range m.waiting(o, sym) {
			lhs := m.lrLHS[it.lr]
			if m.anyLink[lhs] {
				return true
			}
			if l := grammar.NT(int(lhs)); it.origin == self && m.g.Rules[lhs].Generated && l != sym && up == noSymbol {
				up = l
			}
		}
		if up == noSymbol {
			return false
		}
		sym = up
	}
	return false
}

// view returns the view of State o for completions of rule want: the items
// of o waiting on want, or on the rule of such an item that was predicted
// in o (those complete into o itself), with their origins viewed in turn.
//
// That climb through items predicted in o stops after maxClimb user rules:
// the item of the next is kept with an opaque origin rather than followed
// to the items waiting on it. A chain of rules predicted one from the next,
// as a JSON object's optional members are (E_i ::= … | E_(i+1)), would
// otherwise put the whole chain, which differs from member to member, into
// the view of every character of a member name, and no view would recur.
func (m *Machine) view(o State, want grammar.Symbol, depth int) State {
	key := viewKey{o, want, depth}
	if v, ok := m.views[key]; ok {
		return v
	}
	wkey := m.waiters(o, depth) + string(binaryWant(want))
	if v, ok := m.viewsByWaiters[wkey]; ok {
		m.views[key] = v
		m.viewsByWaitersHits++
		return v
	}
	items := m.viewOf(o, want, depth) // its own slice: originView comes back here
	slices.SortFunc(items, compareItems)
	items = slices.Compact(items)
	v := m.add(items, false)
	m.views[key] = v
	m.viewsByWaiters[wkey] = v
	return v
}

// Views by waiters.
//
// A view of State o reads only o's items that wait on a nonterminal
// (waiting). Those of origin self were predicted in o, or advanced there
// over a nullable rule predicted in o: they follow from the nonterminals
// that o's other items wait on. So two States whose items of other origins
// that wait on nonterminals are the same, with their origins viewed alike,
// have the same views. At the start of a JSON object's member name
// (pkg/jsonschema), the State differs from member to member by the literal
// names still to come, which wait on bytes: its views of the trie of
// names are built once per object rather than once per member.

// waiters returns the key of o's items of other origins that wait on a
// nonterminal, with their origins viewed at depth (see above); it keeps
// the key by State and depth.
func (m *Machine) waiters(o State, depth int) string {
	id := viewKey{o, 0, depth}
	if k, ok := m.waiterKeys[id]; ok {
		return k
	}
	var words []uint64 // not a scratch buffer: originView may come back here
	for _, it := range m.states.at(o).items {
		if next := m.lrNext[it.lr]; it.origin != self && next != noSymbol && !next.IsTerminal() {
			words = append(words, uint64(uint32(it.lr))<<32|uint64(uint32(m.originView(it.origin, it.lr, depth))))
		}
	}
	slices.Sort(words)
	b := binary.LittleEndian.AppendUint32(nil, uint32(depth))
	for _, w := range words {
		b = binary.LittleEndian.AppendUint64(b, w)
	}
	k := string(b)
	m.waiterKeys[id] = k
	return k
}

// binaryWant is the bytes of a rule, to end a key of waiters with.
func binaryWant(want grammar.Symbol) []byte {
	return binary.LittleEndian.AppendUint32(nil, uint32(want))
}

// maxClimb bounds the user rules a view climbs through in one State (see
// view): a value in JSON climbs two (number, value).
const maxClimb = 4

// viewOf returns the items of view(o, want, depth), with their origins
// viewed.
func (m *Machine) viewOf(o State, want grammar.Symbol, depth int) []item {
	type wanted struct {
		sym   grammar.Symbol
		climb int // user rules climbed to reach it
	}
	queue := []wanted{{want, 0}}
	var items []item
	for i := 0; i < len(queue); i++ {
		w := queue[i]
		for _, it := range m.waiting(o, w.sym) {
			if it.origin != self {
				it.origin = m.originView(it.origin, it.lr, depth)
				items = append(items, it)
				continue
			}
			lhs := m.lrLHS[it.lr]
			climb := w.climb
			if !m.g.Rules[lhs].Generated {
				climb++
			}
			if climb > maxClimb {
				it.origin = opaque
				items = append(items, it)
				continue
			}
			items = append(items, it)
			l := grammar.NT(int(lhs))
			if !slices.ContainsFunc(queue, func(q wanted) bool { return q.sym == l }) {
				queue = append(queue, wanted{l, climb})
			}
		}
	}
	return items
}

type viewKey struct {
	o     State
	want  grammar.Symbol
	depth int
}

func compareItems(a, b item) int {
	if a.lr != b.lr {
		return int(a.lr - b.lr)
	}
	return int(a.origin - b.origin)
}

// waiting returns the items of State s whose dot is before nonterminal sym.
func (m *Machine) waiting(s State, sym grammar.Symbol) []item {
	st := m.states.at(s)
	if !st.waitBuilt {
		m.buildWaiting(st)
	}
	syms := st.waitSym
	var i int
	if len(syms) <= 16 { // most States: a scan beats a search
		for i < len(syms) && syms[i] < sym {
			i++
		}
	} else {
		i, _ = slices.BinarySearch(syms, sym)
	}
	j := i
	for j < len(syms) && syms[j] == sym {
		j++
	}
	return st.wait[i:j]
}

// buildWaiting collects st's items whose dot is before a nonterminal,
// sorted by that nonterminal, then by place in st.items.
func (m *Machine) buildWaiting(st *stateData) {
	n := 0
	for _, it := range st.items {
		if next := m.lrNext[it.lr]; next != noSymbol && !next.IsTerminal() {
			n++
		}
	}
	st.wait = carve(&m.itemBlock, n)
	st.waitSym = carve(&m.symBlock, n)
	st.waitBuilt = true
	// A key-start State of a large object holds thousands, predicted with
	// the trie of its names: counted by rule rather than sorted, where the
	// rules are not many more than the items.
	if n >= countingMin && len(m.g.Rules) <= 16*n {
		m.countWaiting(st)
	} else {
		m.sortWaiting(st)
	}
}

// sortWaiting is buildWaiting by sorting: st.wait and st.waitSym have
// their lengths.
func (m *Machine) sortWaiting(st *stateData) {
	keys := m.waitKeys[:0]
	for i, it := range st.items {
		if next := m.lrNext[it.lr]; next != noSymbol && !next.IsTerminal() {
			keys = append(keys, uint64(next)<<32|uint64(i))
		}
	}
	slices.Sort(keys)
	m.waitKeys = keys
	for j, key := range keys {
		st.wait[j] = st.items[uint32(key)]
		st.waitSym[j] = grammar.Symbol(key >> 32)
	}
}

// countingMin is the number of waiting items from which buildWaiting
// counts them by rule rather than sorting them.
const countingMin = 256

// countWaiting is buildWaiting by a counting sort over the rules: st.wait
// and st.waitSym have their lengths.
func (m *Machine) countWaiting(st *stateData) {
	start := m.waitCount
	if len(start) < len(m.g.Rules)+1 {
		start = make([]int32, len(m.g.Rules)+1)
		m.waitCount = start
	}
	clear(start)
	for _, it := range st.items {
		if next := m.lrNext[it.lr]; next != noSymbol && !next.IsTerminal() {
			start[next.Rule()+1]++
		}
	}
	for r := 1; r < len(start); r++ {
		start[r] += start[r-1]
	}
	for _, it := range st.items {
		if next := m.lrNext[it.lr]; next != noSymbol && !next.IsTerminal() {
			j := start[next.Rule()]
			start[next.Rule()]++
			st.wait[j], st.waitSym[j] = it, next
		}
	}
}

// intern returns the State of an item set, adding it if it is new.
//
// Completed items are dropped first: the completer has already used them,
// and nothing later looks at them, but their origins would make otherwise
// equal sets differ (the set after every character of a string would point
// back to the one before it).
//
// A completed start rule makes the set accepting when its origin is the
// start State or a view of it (see mergeOrigins), the only origins whose
// items were all predicted where they are: any other State, and a view of
// it, holds the item whose prediction brought its rules in, which was not.
// Whether a set accepts is so a property of its items, as it must be: a
// State stepped from a view of a scan item (ScanViews) can be the same set
// as a true State.
func (m *Machine) intern(items []item) State {
	accepting := m.states.n == 1 && m.nullable[m.g.Start] // the empty prefix
	kept := items[:0]
	for _, it := range items {
		if m.lrNext[it.lr] != noSymbol {
			kept = append(kept, it)
			continue
		}
		// The start rule completed from the empty prefix's set: a sentence.
		if m.states.n > 1 && int(m.lrLHS[it.lr]) == m.g.Start && it.origin > 0 && m.states.at(State(it.origin)).predicted {
			accepting = true
		}
	}
	return m.add(kept, accepting)
}

// add returns the State of items (a set: no item twice, in any order),
// adding it if it is new. States are found by a hash of the set that does
// not depend on the order, so an item set need not be sorted to be looked
// up, and a match is checked item by item. Views (ScanViews, origin) are
// item sets like any other: a view and a State with the view's items are
// one State, with one set of transitions and walks.
func (m *Machine) add(items []item, accepting bool) State {
	h := setHash(items, accepting)
	for s := m.index[h]; s != Dead; s = m.states.at(s).sameHash {
		st := m.states.at(s)
		if st.accepting == accepting && m.sameSet(st.items, items) {
			return s
		}
	}
	s := State(m.states.n)
	// The items, scan items first: st.scan is a prefix of st.items.
	st := stateData{items: carve(&m.itemBlock, len(items)), accepting: accepting, predicted: true}
	nscan := 0
	for _, it := range items {
		if m.lrNext[it.lr].IsTerminal() {
			nscan++
		}
		st.predicted = st.predicted && it.origin == self
		st.bounded = st.bounded || m.repLink[m.lrLHS[it.lr]] || m.lrInRep[it.lr]
	}
	st.scan = st.items[:nscan]
	i, j := 0, nscan
	for _, it := range items {
		sym := m.lrNext[it.lr]
		if !sym.IsTerminal() {
			st.items[j] = it
			j++
			continue
		}
		st.items[i] = it
		i++
		tc := &m.termClass[sym.Terminal()]
		for w := range st.scanClasses {
			st.scanClasses[w] |= tc[w]
		}
		st.scanWidth = max(st.scanWidth, int16(tc.Len()))
	}
	st.sameHash = m.index[h]
	m.states.add(st)
	m.index[h] = s
	return s
}

// setHash hashes an item set with its kind: a sum of mixed items, which
// no order changes.
func setHash(items []item, accepting bool) uint64 {
	var h uint64
	if accepting {
		h = 1
	}
	for _, it := range items {
		x := uint64(uint32(it.lr))<<32 | uint64(uint32(it.origin))
		x = (x ^ x>>30) * 0xbf58476d1ce4e5b9 // splitmix64's finalizer
		x = (x ^ x>>27) * 0x94d049bb133111eb
		h += x ^ x>>31
	}
	return h
}

// sameSet reports whether item sets a and b are equal.
func (m *Machine) sameSet(a, b []item) bool {
	if len(a) != len(b) {
		return false
	}
	m.cmp.reset()
	m.cmpItems = m.cmpItems[:0]
	for _, it := range a {
		m.cmp.has(m.cmpItems, it)
		m.cmpItems = append(m.cmpItems, it)
	}
	for _, it := range b {
		if !m.cmp.has(m.cmpItems, it) {
			return false
		}
	}
	return true
}

// Describe formats the items of State s, one per line, with their origins
// as State ids (-1: predicted in s itself). It is meant for debugging.
func (m *Machine) Describe(s State) string {
	var b strings.Builder
	for _, it := range m.states.at(s).items {
		p := m.lrProd(it.lr)
		prod := m.g.Prods[p]
		fmt.Fprintf(&b, "%s ::=", m.g.Rules[prod.LHS].Name)
		dot := int(it.lr - m.prodBase[p])
		for i, sym := range prod.RHS {
			if i == dot {
				b.WriteString(" •")
			}
			b.WriteString(" " + m.g.SymbolString(sym))
		}
		if dot == len(prod.RHS) {
			b.WriteString(" •")
		}
		fmt.Fprintf(&b, "  @%d\n", it.origin)
	}
	return b.String()
}

// lrProd returns the production of LR(0) item lr.
func (m *Machine) lrProd(lr int32) int {
	p, _ := slices.BinarySearch(m.prodBase, lr+1)
	return p - 1
}

// stateTable holds the States' data in chunks, so that adding a State
// never moves the others: a Machine may hold 10^5 States of some 200
// bytes, and a slice's doubling paused the step that made it for
// milliseconds. A State's data stays where it is: a *stateData outlives
// steps that add States.
type stateTable struct {
	chunks []*[stateChunk]stateData
	n      int
}

const stateChunk = 1024 // a power of two: at is a shift and a mask

func (t *stateTable) at(s State) *stateData {
	return &t.chunks[uint32(s)/stateChunk][uint32(s)%stateChunk]
}

func (t *stateTable) add(st stateData) {
	if t.n%stateChunk == 0 {
		t.chunks = append(t.chunks, new([stateChunk]stateData))
	}
	t.chunks[t.n/stateChunk][t.n%stateChunk] = st
	t.n++
}
