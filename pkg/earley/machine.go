package earley

import (
	"encoding/binary"
	"slices"

	"github.com/gasplab/gasp/pkg/grammar"
)

// State identifies an Earley item set up to isomorphism. States are interned
// by a Machine: two prefixes reach the same State exactly when their item
// sets are the same once every origin is replaced by the State of the set it
// points to. Equal States therefore have equal futures (the same set of
// continuations), which is what makes transitions and token masks cacheable.
type State int32

// Dead is the State of a non-viable prefix.
const Dead State = 0

// self is the origin of an item predicted in the set that holds it.
const self = -1

// noSymbol marks an item whose dot is at the end of its production.
const noSymbol grammar.Symbol = 1<<31 - 1

// item is an Earley item: an LR(0) item (production and dot, numbered densely)
// and the State of the set where it was predicted (or self).
type item struct {
	lr     int32
	origin int32
}

type stateData struct {
	items     []item  // sorted; origins are State ids or self
	scan      []item  // the items whose next symbol is a terminal
	next      []State // per byte class; unknown entries are -1; allocated on first use
	accepting bool
	waiting   map[grammar.Symbol][]item // items by next nonterminal; built on first completion into this set
}

// Machine is an incremental byte-level Earley recognizer for one grammar.
//
// Each State stands for an Earley set whose items point to their origin
// sets by State. Stepping a State by a byte runs the scanner, completer and
// predictor on that representation and interns the result, so a transition
// is computed once and then looked up: a Machine is a lazily built,
// possibly infinite automaton whose states are Earley sets. Left-recursive
// loops (as the grammar compiler emits for repetitions) map every position
// inside a loop to one State.
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
	initial  [][]int32        // by rule: the LR(0) items with the dot at the start

	classOf    [256]uint8        // byte → byte class
	numClasses int               // classes are numbered 0..numClasses-1
	termClass  []grammar.ByteSet // by terminal: the classes it matches (a class set, not bytes)

	states []stateData
	index  map[string]State
	start  State
	key    []byte // scratch for interning
}

// New returns a Machine for g. The grammar must be a compiled, pruned
// grammar (as grammar.Compile returns): otherwise a viable prefix is only
// one that the grammar's productive part can continue.
func New(g *grammar.Grammar) *Machine {
	m := &Machine{g: g, index: make(map[string]State)}
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
	m.nullable = nullableRules(g)
	m.computeByteClasses()

	m.states = append(m.states, stateData{}) // Dead
	var items []item
	seen := make(map[item]bool)
	for _, lr := range m.initial[g.Start] {
		items = m.addItem(items, seen, item{lr, self})
	}
	items = m.closure(items, seen)
	m.start = m.intern(items)
	return m
}

func nullableRules(g *grammar.Grammar) []bool {
	null := make([]bool, len(g.Rules))
	for changed := true; changed; {
		changed = false
		for _, p := range g.Prods {
			if null[p.LHS] {
				continue
			}
			all := true
			for _, s := range p.RHS {
				if s.IsTerminal() || !null[s.Rule()] {
					all = false
					break
				}
			}
			if all {
				null[p.LHS] = true
				changed = true
			}
		}
	}
	return null
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
func (m *Machine) Accepting(s State) bool { return m.states[s].accepting }

// NumStates returns how many States have been built so far (Dead included).
func (m *Machine) NumStates() int { return len(m.states) }

// NumClasses returns the number of byte classes: bytes in one class lead
// from every State to the same State.
func (m *Machine) NumClasses() int { return m.numClasses }

// ByteClass returns the class of byte b.
func (m *Machine) ByteClass(b byte) int { return int(m.classOf[b]) }

// Step returns the State after consuming byte b in State s, or Dead.
func (m *Machine) Step(s State, b byte) State { return m.StepClass(s, int(m.classOf[b])) }

// StepClass is Step for a byte class.
func (m *Machine) StepClass(s State, class int) State {
	if s == Dead {
		return Dead
	}
	st := &m.states[s]
	if st.next == nil {
		st.next = make([]State, m.numClasses)
		for i := range st.next {
			st.next[i] = -1
		}
	}
	if n := st.next[class]; n >= 0 {
		return n
	}
	n := m.compute(s, class)
	m.states[s].next[class] = n // m.states may have grown: index again
	return n
}

// compute runs one Earley step: scan the byte class, then close the new set.
func (m *Machine) compute(s State, class int) State {
	var items []item
	seen := make(map[item]bool)
	for _, it := range m.states[s].scan {
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
	return m.intern(m.closure(items, seen))
}

func (m *Machine) addItem(items []item, seen map[item]bool, it item) []item {
	if seen[it] {
		return items
	}
	seen[it] = true
	return append(items, it)
}

// closure adds predictions and completions to items (Aycock and Horspool's
// variant: predicting a nullable rule also moves the dot over it, so items
// completed in the set they were predicted in need no completer step).
func (m *Machine) closure(items []item, seen map[item]bool) []item {
	for i := 0; i < len(items); i++ {
		it := items[i]
		sym := m.lrNext[it.lr]
		switch {
		case sym == noSymbol:
			if it.origin == self {
				continue
			}
			lhs := grammar.NT(int(m.lrLHS[it.lr]))
			for _, w := range m.waiting(State(it.origin))[lhs] {
				origin := w.origin
				if origin == self {
					origin = it.origin
				}
				items = m.addItem(items, seen, item{w.lr + 1, origin})
			}
		case !sym.IsTerminal():
			for _, lr := range m.initial[sym.Rule()] {
				items = m.addItem(items, seen, item{lr, self})
			}
			if m.nullable[sym.Rule()] {
				items = m.addItem(items, seen, item{it.lr + 1, it.origin})
			}
		}
	}
	return items
}

// waiting returns the items of State s indexed by the nonterminal after their dot.
func (m *Machine) waiting(s State) map[grammar.Symbol][]item {
	st := &m.states[s]
	if st.waiting == nil {
		st.waiting = make(map[grammar.Symbol][]item)
		for _, it := range st.items {
			if sym := m.lrNext[it.lr]; sym != noSymbol && !sym.IsTerminal() {
				st.waiting[sym] = append(st.waiting[sym], it)
			}
		}
	}
	return st.waiting
}

// intern returns the State of an item set, adding it if it is new.
func (m *Machine) intern(items []item) State {
	slices.SortFunc(items, func(a, b item) int {
		if a.lr != b.lr {
			return int(a.lr - b.lr)
		}
		return int(a.origin - b.origin)
	})
	m.key = m.key[:0]
	for _, it := range items {
		m.key = binary.AppendVarint(m.key, int64(it.lr))
		m.key = binary.AppendVarint(m.key, int64(it.origin))
	}
	if s, ok := m.index[string(m.key)]; ok {
		return s
	}
	s := State(len(m.states))
	st := stateData{items: slices.Clip(items)}
	for _, it := range items {
		sym := m.lrNext[it.lr]
		switch {
		case sym == noSymbol:
			// The start rule completed from the empty prefix's set: a sentence.
			if int(m.lrLHS[it.lr]) == m.g.Start && (it.origin == int32(m.start) && len(m.states) > 1) {
				st.accepting = true
			}
		case sym.IsTerminal():
			st.scan = append(st.scan, it)
		}
	}
	if len(m.states) == 1 { // the empty prefix
		st.accepting = m.nullable[m.g.Start]
	}
	m.states = append(m.states, st)
	m.index[string(m.key)] = s
	return s
}
