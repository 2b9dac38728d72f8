package gcd

import (
	"cmp"
	"math/bits"
	"slices"
	"sync"

	"github.com/gasplab/gasp/pkg/earley"
	"github.com/gasplab/gasp/pkg/grammar"
)

// Regions: wide grammar positions without a walk of the vocabulary.
//
// A State inside a regular sub-language (a string body, XML text, a comment,
// an identifier, a run of digits or spaces) loops on many byte classes, and
// most of the vocabulary stays inside the loop. Its region is the State
// with the States inside a UTF-8 character that its lead bytes reach (the
// States that scan only continuation bytes) and the wide States that many
// classes lead to (the body of a string after its opening quote, of an
// identifier after its first letter), and, for a Mask, the funnels that
// many classes lead to and that lead by many to a wide State (the first
// character of an object's member name that is none of the schema's
// names, where a left-recursive repetition reaches its loop one character
// late), and the detours that lead back by many classes to the State they
// were reached from (the first letters of a word an unanchored pattern
// looks for, see returnsTo): a small automaton whose transitions,
// by byte class, lead to a State of the region, to Dead, or out of it (an
// exit). A State is served by its region when the region holds a wide State. Its shape, that transition table with States
// numbered in discovery order, is all a trie walk confined to the region
// depends on; States in different contexts (every JSON string body, every
// XML comment) share it. For each shape the Masker walks the trie once over
// the table alone and keeps
//
//   - the slice: the tokens whose every prefix stays inside the region,
//     all of them allowed wherever the shape occurs, and
//   - the frontier: the trie nodes where a path first leaves the region to
//     a live State, with the region State it leaves from.
//
// The mask of a State with a known shape is then its slice plus, for each
// frontier node, the tokens at that node and the ordinary walk of its
// subtree from the true exit State: only the tokens that leave the loop
// (close the string, start a tag) are walked token by token. It is exact:
// a token either stays in the region (allowed: every region State is live)
// or leaves it first at one frontier node, to Dead (not allowed, and not in
// the frontier) or to the exit State its walk starts from. A large frontier
// subtree is served in turn by the region of its exit State, if that is
// wide, with the shape's walk rooted at the frontier node.

// A shape's walk depends only on its table by trie label and on the trie,
// so the walks are kept by the labelled trie (shapeCache), for every
// Masker that walks it: the string bodies of every JSON schema's grammar
// share one shape, walked once per vocabulary rather than once per
// grammar. A funnel's shape differs from object to object (by the first
// letters of its declared names, which leave the region) and from prefix
// to prefix of a declared name, but below each child of the trie's root it
// is the shape of the State the child leads to, mostly the loop of names:
// those walks are kept by that shape and child (walkFunnel), and a new
// funnel is made of them.

// Region limits: a State is wide when it loops back to itself on at least
// minLoopClasses byte classes, and a region holds at most maxRegion States
// (the first is always the State itself).
const (
	minLoopClasses = 3
	maxRegion      = 64
)

// Transition codes of a shape: a region State's index, or one of these.
const (
	codeDead = 0xFF
	codeExit = 0xFE
)

// shape is what a trie walk over one region shape finds.
type shape struct {
	slice    itemWalk   // the tokens that stay inside the region
	frontier []frontier // where paths leave it to live States, in preorder
}

// frontier is a trie node whose edge leaves the region from region State
// from (an index into the region's States).
type frontier struct {
	node int32
	from uint8
}

// region returns the region of s (see above) and the key of its shape, in
// the Masker's scratch buffers, or ok false if no State of it is wide. It
// steps every region State by every byte class it scans: Earley States that
// a walk of the trie from s would build anyway. A successor reached by
// fewer than minLoopClasses classes is not tested for wideness (which steps
// it too): a position where many classes lead to one State is a character
// class, one where each leads elsewhere (a choice of keywords) is not.
//
// With funnels, a State that many classes lead to and that leads by many
// to one wide State joins the region too (see entersLoop): a Mask takes
// them, a walk below a frontier node does not, since every node of a trie
// of keys would build the States of its own funnel and loop.
//
// Regions are kept by State: the frontier of a shape leaves from a few
// region States by a few classes, so walkBelow asks for the region of one
// exit State once per frontier node, thousands of times in a step.
func (k *Masker) region(s earley.State, funnels bool) (states []earley.State, key []byte, ok bool) {
	f := 0
	if funnels {
		f = 1
	}
	if r, known := k.regions[f][s]; known {
		return r.states, r.key, r.ok
	}
	if k.regions[f] == nil {
		k.regions[f] = make(map[earley.State]regionOf)
		k.bySig[f] = make(map[string]*sigRegion)
	}
	sig := k.regionSig(s, funnels)
	if c := k.bySig[f][string(sig)]; sig != nil && c != nil && !c.targets[s] {
		k.Stats.RegionsBySig++
		r := regionOf{ok: c.ok, states: append(make([]earley.State, 0, 1+len(c.tail)), s)}
		r.states = append(r.states, c.tail...)
		r.key = append(k.firstRowKey(r.states[:1+c.first], len(c.tailKey)), c.tailKey...)
		k.regions[f][s] = r
		k.remember(4*len(r.states) + len(r.key) + 64)
		return r.states, r.key, r.ok
	}
	states, key, ok = k.findRegion(s, funnels)
	r := regionOf{ok: ok}
	if ok {
		r.states, r.key = slices.Clone(states), slices.Clone(key)
	}
	k.regions[f][s] = r
	k.remember(4*len(r.states) + len(r.key) + 64)
	if sig != nil && ok {
		if c := k.newSigRegion(r); !c.targets[s] {
			k.bySig[f][string(sig)] = c
			k.remember(len(sig) + 4*len(c.targets) + 64)
		}
	}
	return r.states, r.key, ok
}

// Regions by the row of their first State.
//
// The region of a State is found by stepping every region State by every
// class it scans. The States one token of a member name leads to (each
// prefix of a declared name, in a trie of keys) differ in their own row
// only: every class that is not the next letter of a name leads them into
// one loop, which their regions share, States, numbering and all. So the
// rest of a region is kept by the signature of its first State
// (regionSig): whether it is wide, and the States its row adds to the
// region, in the order it adds them; a State with that signature has the
// same rest, as long as no State of the rest leads to it (whose code
// would then differ). Its own row is coded afresh (firstRowKey).

// sigRegion is the rest of a region, kept by the signature of its first
// State.
type sigRegion struct {
	tail    []earley.State        // the region's States after the first
	first   int                   // how many of them the first State's row adds
	tailKey []byte                // their rows of the shape key
	ok      bool                  // the region holds a wide State
	targets map[earley.State]bool // where the rows of tail lead
}

// regionSig returns the signature of s (see above), or nil where
// findRegion would not search. It leaves the row of s in k.regionRow.
func (k *Masker) regionSig(s earley.State, funnels bool) (sig []byte) {
	if k.m.ScanWidth(s) < minLoopClasses || k.m.InBoundedRepetition(s) {
		return nil
	}
	nc := k.m.NumClasses()
	scan := k.m.ScanClasses(s)
	row := k.regionRow[:0]
	for c := 0; c < nc; c++ {
		next := earley.Dead
		if scan.Has(uint8(c)) {
			var esc bool
			if next, esc = k.m.StepLocal(s, c); esc {
				k.regionRow = row
				return nil // a view that escapes: no region (see findRegion)
			}
		}
		row = append(row, next)
	}
	k.regionRow = row
	sig = []byte{0}
	if k.wide(s) { // findRegion's start
		sig[0] = 1
	}
	joined := k.regionStates[:0]
	for _, next := range row {
		switch {
		case next == earley.Dead || next == s || slices.Contains(joined, next):
		case !k.insideChar(next) && count(row, next) < minLoopClasses && !(funnels && k.returnsTo(next, s)):
			// An exit, whatever it leads to.
		default: // a State the row may add
			joined = append(joined, next)
			sig = append(sig, byte(next), byte(next>>8), byte(next>>16), byte(next>>24))
		}
	}
	k.regionStates = joined
	return sig
}

// firstRowKey returns the codes of the row of a region's first State,
// left in k.regionRow by regionSig, where that row adds to the region
// the States after the first of states, with room for more bytes.
func (k *Masker) firstRowKey(states []earley.State, more int) []byte {
	key := make([]byte, 0, len(k.regionRow)+more)
	for _, next := range k.regionRow {
		code := byte(codeExit)
		if next == earley.Dead {
			code = codeDead
		} else if j := slices.Index(states, next); j >= 0 {
			code = byte(j)
		}
		key = append(key, code)
	}
	return key
}

// newSigRegion keeps the rest of region r for its first State's
// signature, with the States the rows of the rest lead to.
func (k *Masker) newSigRegion(r regionOf) *sigRegion {
	nc := k.m.NumClasses()
	c := &sigRegion{tail: r.states[1:], first: k.firstAdded, tailKey: r.key[nc:], ok: r.ok, targets: make(map[earley.State]bool)}
	for _, q := range c.tail {
		scan := k.m.ScanClasses(q)
		for cl := 0; cl < nc; cl++ {
			if scan.Has(uint8(cl)) {
				c.targets[k.m.StepClass(q, cl)] = true
			}
		}
	}
	return c
}

// regionOf is what region found for a State, or viewRegion for a view.
type regionOf struct {
	states []earley.State
	pends  []grammar.ByteSet // of a view's region: what is pending at each State (nil: nothing)
	key    []byte
	ok     bool
}

// findRegion is region without the memo.
func (k *Masker) findRegion(s earley.State, funnels bool) (states []earley.State, key []byte, ok bool) {
	if k.m.ScanWidth(s) < minLoopClasses || k.m.InBoundedRepetition(s) {
		// Only a character class makes a wide region: spare the States
		// of a choice of literals, which no token may reach. Inside a
		// bounded repetition no class loops (each position is its own
		// State): chains and run tables serve it.
		return nil, nil, false
	}
	nc := k.m.NumClasses()
	states = append(k.regionStates[:0], s)
	key = k.regionKey[:0]
	row := k.regionRow[:0]
	wide := k.wide(s)
	for qi := 0; qi < len(states); qi++ {
		q := states[qi]
		scan := k.m.ScanClasses(q)
		row = row[:0]
		for c := 0; c < nc; c++ {
			next := earley.Dead
			if scan.Has(uint8(c)) {
				var esc bool
				if next, esc = k.m.StepLocal(q, c); esc {
					// A view's step that escapes: what follows is not the
					// view's alone, so the view has no region.
					k.regionStates, k.regionKey, k.regionRow = states, key, row
					return nil, nil, false
				}
			}
			row = append(row, next)
		}
		for _, next := range row {
			key = append(key, k.regionCode(&states, q, next, row, &wide, funnels))
		}
		if qi == 0 {
			k.firstAdded = len(states) - 1
		}
	}
	k.regionStates, k.regionKey, k.regionRow = states, key, row
	return states, key, wide
}

// regionCode returns the code of a transition to next from the region
// State from, whose successors by class are row, adding next to the
// region if it is inside a character, wide, a funnel or a detour, and not
// seen yet.
func (k *Masker) regionCode(states *[]earley.State, from, next earley.State, row []earley.State, wide *bool, funnels bool) byte {
	if next == earley.Dead {
		return codeDead
	}
	for j, q := range *states {
		if q == next {
			return byte(j)
		}
	}
	if len(*states) >= maxRegion || !k.joins(from, next, row, wide, funnels) {
		return codeExit
	}
	*states = append(*states, next)
	return byte(len(*states) - 1)
}

// joins reports whether next, a successor of region State from, whose
// successors by class are row, joins the region: it is inside a
// character, wide (then wide is set), a funnel or a detour.
func (k *Masker) joins(from, next earley.State, row []earley.State, wide *bool, funnels bool) bool {
	switch {
	case k.insideChar(next):
	case count(row, next) >= minLoopClasses && k.wide(next):
		*wide = true
	case funnels && count(row, next) >= minLoopClasses && k.entersLoop(next):
		// A State one character before a loop (after the first
		// character of a name that is not one of a set of keys):
		// the loop's State joins the region from its row.
	case funnels && from != next && k.returnsTo(next, from):
		// A detour: the first letters of a word a pattern looks for,
		// after which most classes lead back.
	default:
		return false
	}
	return true
}

func count(row []earley.State, s earley.State) int {
	n := 0
	for _, r := range row {
		if r == s {
			n++
		}
	}
	return n
}

// wide reports whether s loops back to itself on at least minLoopClasses
// byte classes.
func (k *Masker) wide(s earley.State) bool {
	scan := k.m.ScanClasses(s)
	if scan.Len() < minLoopClasses {
		return false
	}
	loop := k.loopClasses(s)
	return loop.Len() >= minLoopClasses
}

// entersLoop reports whether at least minLoopClasses byte classes lead s
// to one wide State other than s.
func (k *Masker) entersLoop(s earley.State) bool {
	if k.m.ScanWidth(s) < minLoopClasses || k.m.InBoundedRepetition(s) {
		return false
	}
	scan := k.m.ScanClasses(s)
	to, n := earley.Dead, 0
	for c := 0; c < k.m.NumClasses(); c++ {
		if !scan.Has(uint8(c)) {
			continue
		}
		next := k.m.StepClass(s, c)
		switch {
		case next == earley.Dead || next == s:
		case to == earley.Dead || next == to:
			to, n = next, n+1
		}
	}
	return n >= minLoopClasses && k.wide(to)
}

// returnsTo reports whether at least minLoopClasses byte classes lead s
// back to from, a State known to loop: s is a detour, the first letters
// of a word that a pattern looks for, after which most classes lead back.
func (k *Masker) returnsTo(s, from earley.State) bool {
	if !k.loopOf.has(from) || k.m.ScanWidth(s) < minLoopClasses || k.m.InBoundedRepetition(s) {
		return false
	}
	// One class of the loop first: a State that leads elsewhere (a prefix
	// of a member name, into the loop of other names) costs one step.
	scan := k.m.ScanClasses(s)
	if c, ok := k.loopClassIn(from, &scan); !ok || k.m.StepClass(s, c) != from {
		return false
	}
	n := 0
	for c := 0; c < k.m.NumClasses(); c++ {
		if scan.Has(uint8(c)) && k.m.StepClass(s, c) == from {
			n++
		}
	}
	return n >= minLoopClasses
}

// loopClassIn returns a class in set of a trie label known to lead s back
// to itself.
func (k *Masker) loopClassIn(s earley.State, set *grammar.ByteSet) (int, bool) {
	loop := k.loopOf.at(s)
	for w := range loop {
		for x := loop[w]; x != 0; x &= x - 1 {
			if c := k.class[w<<6|bits.TrailingZeros64(x)]; set.Has(c) {
				return int(c), true
			}
		}
	}
	return 0, false
}

// insideChar reports whether s scans only UTF-8 continuation bytes.
func (k *Masker) insideChar(s earley.State) bool {
	scan := k.m.ScanClasses(s)
	return scan != (grammar.ByteSet{}) && subsetOf(&scan, &k.contClasses)
}

// walkShape walks the descendants of trie node root (0: the whole trie)
// over a region's transition table by trie label alone (nq States, the
// region's first State at root; see labelTable) and returns its slice and
// frontier. What it finds depends on nothing else (see shapeCache).
func (k *Masker) walkShape(labels []byte, nq int, root int32) *shape {
	if root == 0 {
		if sh := k.walkFunnel(labels, nq); sh != nil {
			return sh
		}
	}
	return k.newShapeWalk(labels, nq).walk(root)
}

// newShapeWalk returns a walk of a shape's table (by trie label, nq
// States), ready to walk below any root.
func (k *Masker) newShapeWalk(labels []byte, nq int) *shapeWalk {
	nl := len(labels) / nq
	loops := make([]grammar.ByteSet, nq) // the labels leading each State to itself
	// With every multi-byte character too, where q takes each back to q:
	// a subtree of valid UTF-8 within them stays at q (utf8.go).
	chars := make([]grammar.ByteSet, nq)
	for q := 0; q < nq; q++ {
		for l := 0; l < nl; l++ {
			if int(labels[q*nl+l]) == q {
				loops[q].Add(uint8(l))
			}
		}
		if k.lt.utf8Closed(labels, nl, q) {
			chars[q] = loops[q]
			orInto(&chars[q], &k.lt.high)
		}
	}
	w := &shapeWalk{k: k, table: labels, nl: nl, loops: loops, chars: chars}
	w.findChains(nq)
	return w
}

// findChains sets the chain of each region State (see shapeWalk): the
// labels that most lead it to one other region State, and how many bytes
// of them in a row lead from State to State of the region.
func (w *shapeWalk) findChains(nq int) {
	w.chainLabels, w.chainRoom = make([]grammar.ByteSet, nq), make([]uint8, nq)
	var count [maxRegion]int
	for q := range nq {
		clear(count[:])
		best := -1
		for _, code := range w.table[q*w.nl : (q+1)*w.nl] {
			if int(code) < nq && int(code) != q {
				if count[code]++; best < 0 || count[code] > count[best] {
					best = int(code)
				}
			}
		}
		if best < 0 || count[best] < minLoopClasses {
			continue
		}
		for l, code := range w.table[q*w.nl : (q+1)*w.nl] {
			if int(code) == best {
				w.chainLabels[q].Add(uint8(l))
			}
		}
	}
	for q := range nq {
		// Follow q's labels from State to State while each leads on by
		// all of them (at most nq steps: a chain has no cycle).
		set := &w.chainLabels[q]
		at, room := q, 0
		for set.Len() > 0 && room < nq {
			next := -1
			for l := range w.nl {
				if !set.Has(uint8(l)) {
					continue
				}
				code := int(w.table[at*w.nl+l])
				if code >= nq || code == at || next >= 0 && code != next {
					next = -1
					break
				}
				next = code
			}
			if next < 0 {
				break
			}
			at, room = next, room+1
		}
		w.chainRoom[q] = uint8(room)
	}
}

// walk walks the trie below root over the shape, root at its first State.
func (w *shapeWalk) walk(root int32) *shape {
	k, t := w.k, w.k.lt.trie
	w.sh, w.nodes = &shape{}, 0
	// A Bitset for a walk of many tokens, a list for a small subtree.
	many := root == 0 || t.first[t.end[root]]-t.first[root] > int32(t.size/32)
	w.out = &sink{list: !many}
	if many {
		w.out.bits = NewBitset(t.size)
		// Most of a large subtree (a string's body after its quote) is
		// in the slice: start from every token and drop what leaves.
		kept := func(l uint8) bool { return w.table[l] < codeExit }
		if root == 0 && k.mostlyBelow(0, kept) {
			copy(w.out.bits, k.ordinary)
			w.out.inverted = true
		} else if all, ok := k.lt.rootBits[root]; ok && k.mostlyBelow(root, kept) {
			copy(w.out.bits, all)
			w.out.inverted = true
			w.out.drop(t.ids[t.first[root]:t.first[root+1]]) // root's own are not below it
		}
	}
	if !w.leaversBelow(root, 0) {
		w.span(root+1, t.end[root], 0)
	}
	k.Stats.Nodes += w.nodes
	k.Stats.ShapeWalks++
	if many {
		w.sh.slice = k.compact(w.out.bits)
	} else {
		w.sh.slice = itemWalk{ids: slices.Clip(w.out.ids)}
	}
	return w.sh
}

// labelTable returns a shape's transition table (nq States, NumClasses
// codes each) by trie label instead of byte class, in a scratch buffer.
func (k *Masker) labelTable(table []byte, nq int) []byte {
	if k.labelsOf == nil {
		return table
	}
	nc, nl := k.m.NumClasses(), k.lt.labels
	labels := slices.Grow(k.labelKey[:0], nq*nl)[:nq*nl]
	k.labelKey = labels
	for q := range nq {
		for l := range nl {
			labels[q*nl+l] = table[q*nc+int(k.class[l])]
		}
	}
	return labels
}

// shapeWalk is a walk of the trie over a region's transition table.
type shapeWalk struct {
	k     *Masker
	table []byte // by trie label (see labelTable)
	nl    int
	loops []grammar.ByteSet // by region State, the labels that lead it to itself
	chars []grammar.ByteSet // loops, with the multi-byte characters' labels where it takes them all back to itself
	// A region State's chain (the positions of a bounded repetition): a
	// subtree over chainLabels[q] no deeper than chainRoom[q] stays in the
	// region, and is kept whole.
	chainLabels []grammar.ByteSet
	chainRoom   []uint8
	sh          *shape
	out         *sink
	dropped     *[]int32 // where set, the roots of the subtrees dropped from out are appended to it (see walkKid)
	nodes       int
}

// dropSubtree drops the tokens of trie node i's subtree from an inverted
// sink, noting i where a funnel's kid is walked (see walkKid).
func (w *shapeWalk) dropSubtree(i int32) {
	if !w.out.inverted {
		return
	}
	if w.dropped != nil {
		*w.dropped = append(*w.dropped, i)
	}
	t := w.k.lt.trie
	w.out.drop(t.ids[t.first[i]:t.first[t.end[i]]])
}

// span walks the trie nodes from up to to, a run of sibling subtrees
// whose parent is at region State q: it adds (or, inverted, drops) their
// tokens and adds their frontier nodes.
func (w *shapeWalk) span(from, to int32, q byte) {
	if from >= to { // below a leaf (a child of a funnel's root)
		return
	}
	t, out := w.k.lt.trie, w.out
	base := t.depth[from] - 1
	var atBuf [32]byte
	at := append(atBuf[:0], q) // at[d]: the region State after the first d bytes below from's parent
	for i := from; i < to; {
		w.nodes++
		d := t.depth[i] - base
		q := at[d-1]
		// A dead or exiting class is in neither loops[q] nor, with a
		// valid UTF-8 subtree, chars[q]: test the edge before the subtree.
		switch code := w.table[int(q)*w.nl+int(t.label[i])]; {
		case code == codeDead:
			w.dropSubtree(i)
			i = t.end[i]
		case code == codeExit:
			w.sh.frontier = append(w.sh.frontier, frontier{i, q})
			w.dropSubtree(i)
			i = t.end[i]
		case w.k.subtreeWithin(i, &w.loops[q]) || t.utf8[i] && w.k.subtreeWithin(i, &w.chars[q]) ||
			w.k.lt.height[i] <= w.chainRoom[q] && w.k.subtreeWithin(i, &w.chainLabels[q]):
			if !out.inverted { // else they are in it already
				out.add(t.ids[t.first[i]:t.first[t.end[i]]])
			}
			i = t.end[i]
		default:
			if !out.inverted {
				out.add(t.ids[t.first[i]:t.first[i+1]])
			}
			if w.leaversBelow(i, code) {
				i = t.end[i]
				continue
			}
			at = append(at[:d], code)
			i++
		}
	}
}

// leaversBelow walks the subtree below trie node n, at region State q,
// over the leavers of q's loop (see Masker.overLeavers) if that is exact
// and worth it, and reports whether it did.
func (w *shapeWalk) leaversBelow(n int32, q byte) bool {
	if w.k.lt.trie.end[n]-n < w.k.leaversMin || w.loops[q] == (grammar.ByteSet{}) {
		return false // too small to be worth it, or every edge a leaver
	}
	return w.k.overLeavers(n, &w.loops[q], w.out, func(i int32) { w.span(i, w.k.lt.trie.end[i], q) })
}

// compact keeps a set of tokens as a Bitset, or as a list when sparse.
func (k *Masker) compact(b Bitset) itemWalk {
	n := b.Count()
	if n > k.lt.trie.size/32 {
		return itemWalk{bits: b}
	}
	ids := make([]int32, 0, n)
	b.Each(func(id int) { ids = append(ids, int32(id)) })
	return itemWalk{ids: ids}
}

// maskRegion adds to out the tokens below trie node root (0: the whole
// trie) that are viable from the region states, whose first State is the
// State at root and whose shape has key: the shape's slice, and the walks
// of its frontier from the true exit States. Where the States are views
// (local), the frontier is walked from them, with what is pending at each
// (pends; nil where no step of the region escapes), and what they leave
// undecided is returned.
func (k *Masker) maskRegion(states []earley.State, pends []grammar.ByteSet, key []byte, root int32, out *sink, local bool) (escapes []int32) {
	sh := k.shapeOf(states, key, root)
	sh.slice.addTo(out)
	if len(sh.frontier) == 0 {
		return nil
	}
	states = slices.Clone(states) // walks reuse the scratch buffers
	t := k.lt.trie
	for _, f := range sh.frontier {
		if local || t.end[f.node]-f.node < regionMin {
			var pend grammar.ByteSet
			if pends != nil {
				pend = pends[f.from]
			}
			if c := k.class[t.label[f.node]]; pend.Has(c) && k.m.StepClass(states[f.from], int(c)) == earley.Dead {
				// What the view dies on and the items it cannot see
				// may scan: undecided, as walk would find it.
				escapes = append(escapes, f.node)
				continue
			}
			escapes = append(escapes, k.walk(states[f.from], f.node, false, out, local, pend)...)
			continue
		}
		e := k.m.StepClass(states[f.from], int(k.class[t.label[f.node]]))
		out.add(t.ids[t.first[f.node]:t.first[f.node+1]])
		k.walkBelow(e, f.node, out)
	}
	return escapes
}

// shapeOf returns the walk of a region's shape below root: from the
// Masker's own map by the shape's key (by byte class), else from the
// labelled trie's, by its table by trie label, walking it if neither has
// it. The Masker's map spares a step the trie's lock and the table by
// label, ten times as long as the key (a JSON grammar's masks look shapes
// up hundreds of times a step, below frontier nodes).
func (k *Masker) shapeOf(states []earley.State, key []byte, root int32) *shape {
	byRoot := k.shapes[string(key)]
	if sh := byRoot[root]; sh != nil {
		return sh
	}
	labels := k.labelTable(key, len(states))
	sh := k.lt.shapes.get(labels, root)
	if sh == nil {
		sh = k.walkShape(labels, len(states), root)
		k.lt.shapes.put(labels, root, sh)
	}
	if byRoot == nil {
		byRoot = make(map[int32]*shape)
		k.shapes[string(key)] = byRoot
		k.remember(len(key))
	}
	byRoot[root] = sh
	k.remember(16)
	return sh
}

// regionMin is the size of a frontier subtree below which looking for a
// region at its root is not worth it. Finding one steps every class of
// the root's State and of the region's: below the start of an object's
// member name, every prefix of a declared name that a token reaches is
// such a root, and walking a subtree of a few thousand nodes costs less
// (on 1,000 MaskBench schemas, 64 against 4,096: p99 758 → 682 µs, max
// 10.3 → 5.5 ms; the GBNF workloads' slowest steps unchanged, and with no
// regions below frontier nodes at all, SQL's doubled).
const regionMin = 4096

// walkBelow adds to out the tokens below trie node root that are viable
// from s, the State at root: over the region of s if it is wide.
func (k *Masker) walkBelow(s earley.State, root int32, out *sink) {
	big := k.LocalDepth > 0 && k.lt.trie.end[root]-root >= splitMin
	if big {
		// Where the walks of every view of s are kept, their union costs
		// less than stepping the region States of s, new in every context
		// (after each member of a JSON object, its next member's name).
		if views := k.m.ScanViews(s, k.LocalDepth, nil); k.walksKept(views, root) {
			k.splitViews(s, views, root, out, false)
			return
		}
	}
	if states, key, ok := k.region(s, false); ok {
		k.maskRegion(states, nil, key, root, out, false)
		return
	}
	if big {
		k.split(s, root, out, false)
		return
	}
	k.walk(s, root, true, out, false, grammar.ByteSet{})
}

// walksKept reports whether the walks below trie node root from every
// view in views are kept (see split).
func (k *Masker) walksKept(views []earley.State, root int32) bool {
	for _, v := range views {
		if k.subs[subKey{v, root}] == nil {
			return false
		}
	}
	return true
}

// maxShapeBytes bounds the memory that the shape walks of one labelled
// trie hold.
const maxShapeBytes = 64 << 20

// shapeCache keeps the walks of region shapes by their table over trie
// labels and their root node (see walkShape), for every Masker that walks
// one labelled trie. It is safe for concurrent use; a shape is not
// modified once kept. Past max bytes it is emptied.
type shapeCache struct {
	mu         sync.Mutex
	walks      map[string]map[int32]*shape
	bytes, max int
}

func newShapeCache(max int) *shapeCache {
	return &shapeCache{walks: make(map[string]map[int32]*shape), max: max}
}

// get returns the walk of the shape of table below root, or nil.
func (c *shapeCache) get(table []byte, root int32) *shape {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.walks[string(table)][root]
}

// getAll sets out[i] to the walk of the shape of table below roots[i],
// or nil, hashing table once.
func (c *shapeCache) getAll(table []byte, roots []int32, out []*shape) {
	c.mu.Lock()
	defer c.mu.Unlock()
	byRoot := c.walks[string(table)]
	for i, r := range roots {
		out[i] = byRoot[r]
	}
}

// put keeps sh as the walk of the shape of table below root.
func (c *shapeCache) put(table []byte, root int32, sh *shape) {
	c.putAll(table, []int32{root}, []*shape{sh})
}

// putAll keeps shapes[i] as the walk of the shape of table below
// roots[i], hashing table once.
func (c *shapeCache) putAll(table []byte, roots []int32, shapes []*shape) {
	if len(roots) == 0 {
		return
	}
	n := len(table)
	for _, sh := range shapes {
		n += 16 + 8*len(sh.slice.bits) + 4*len(sh.slice.ids) + 8*len(sh.frontier)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bytes+n > c.max {
		clear(c.walks)
		c.bytes = 0
	}
	byRoot := c.walks[string(table)]
	if byRoot == nil {
		byRoot = make(map[int32]*shape, len(roots))
		c.walks[string(table)] = byRoot
	}
	for i, r := range roots {
		byRoot[r] = shapes[i]
	}
	c.bytes += n
}

// walkFunnel walks a shape below the trie's root by its root's children
// where its first State is a funnel, that no label leads back to itself
// (a member name's start, or a prefix of a declared name, whose other
// letters lead into the loop of any name). Below each child, the walk is
// that of the shape of the State the child's label leads to, its region
// States renumbered from it (subShape), rooted at the child: what it drops
// and its frontier are kept with the trie by the sub-shape's table
// (labelled.kids), so that every funnel into one loop (the names of every
// object of every schema) shares them, and a funnel whose children's walks
// are kept costs a look-up for each child rather than a walk of the whole
// trie. The other children are walked (walkKid), and their walks kept. It
// returns nil where the first State is no funnel.
func (k *Masker) walkFunnel(labels []byte, nq int) *shape {
	nl := len(labels) / nq
	if nq < 2 || nq >= maxRegion || slices.Contains(labels[:nl], 0) {
		// A region of maxRegion States was cut short (the words an
		// unanchored pattern looks for): its sub-shapes are its own.
		return nil
	}
	t := k.lt.trie
	out := &sink{bits: slices.Clone(k.ordinary), inverted: true}
	sh := &shape{}
	var subs []*subShape // in the order of their first child
	byCode := make(map[byte]*subShape)
	for c := int32(1); c < t.end[0]; c = t.end[c] {
		code := labels[t.label[c]]
		if code >= codeExit {
			k.lt.dropBelow(out, c)
			if code == codeExit {
				sh.frontier = append(sh.frontier, frontier{c, 0})
			}
			continue
		}
		sub := byCode[code]
		if sub == nil {
			if sub = newSubShape(labels, nl, code); slices.Contains(sub.states, 0) {
				return nil // the funnel's own row in every sub-shape: none is shared
			}
			byCode[code] = sub
			subs = append(subs, sub)
		}
		sub.kids = append(sub.kids, c)
	}
	var w *shapeWalk // over this shape, for the children whose walks are not kept
	for _, sub := range subs {
		walks := make([]*shape, len(sub.kids))
		k.lt.kids.getAll(sub.table, sub.kids, walks)
		var newKids []int32
		var newWalks []*shape
		for i, c := range sub.kids {
			if walks[i] == nil {
				if w == nil {
					w = k.newShapeWalk(labels, nq)
					w.sh, w.out = sh, out
				}
				newKids, newWalks = append(newKids, c), append(newWalks, k.walkKid(w, sub, c))
				continue
			}
			for _, n := range walks[i].slice.ids { // the nodes it dropped
				out.drop(t.ids[t.first[n]:t.first[t.end[n]]])
			}
			for _, f := range walks[i].frontier {
				sh.frontier = append(sh.frontier, frontier{f.node, sub.states[f.from]})
			}
		}
		k.lt.kids.putAll(sub.table, newKids, newWalks)
	}
	if w == nil {
		k.Stats.FunnelsKept++
	} else {
		k.Stats.Nodes += w.nodes
	}
	// In preorder, as a walk of the whole trie lists them.
	slices.SortFunc(sh.frontier, func(a, b frontier) int { return cmp.Compare(a.node, b.node) })
	sh.slice = k.compact(out.bits)
	k.Stats.ShapeWalks++
	k.Stats.Funnels++
	return sh
}

// walkKid walks the trie below the root's child c, at sub's first State,
// over a funnel's shape (w, into its sink and shape, as span would), and
// returns that walk as kept for sub: the roots of the subtrees it dropped
// (in its slice's ids: far fewer than their tokens, which a funnel whose
// kid below the space drops most of its 60,000 tokens listed one by one),
// and its frontier renumbered.
func (k *Masker) walkKid(w *shapeWalk, sub *subShape, c int32) *shape {
	var drops []int32
	w.dropped = &drops
	f0, first := len(w.sh.frontier), sub.states[0]
	if !w.leaversBelow(c, first) {
		w.span(c+1, k.lt.trie.end[c], first)
	}
	w.dropped = nil
	kid := &shape{slice: itemWalk{ids: drops}}
	for _, f := range w.sh.frontier[f0:] {
		kid.frontier = append(kid.frontier, frontier{f.node, byte(sub.index[f.from])})
	}
	return kid
}

// subShape is the shape of the region States that one State of a shape
// leads to, numbered from it in the order a region is found (by State, by
// label): its table, and by its States their indices in the shape.
type subShape struct {
	table  []byte
	states []byte     // by State of the sub-shape, its index in the shape
	index  [256]int16 // by State of the shape, its index in the sub-shape, or -1
	kids   []int32    // the trie root's children whose label leads to its first State
}

func newSubShape(labels []byte, nl int, first byte) *subShape {
	sub := &subShape{states: []byte{first}}
	index := &sub.index
	for i := range index {
		index[i] = -1
	}
	index[first] = 0
	for i := 0; i < len(sub.states); i++ {
		for _, code := range labels[int(sub.states[i])*nl : (int(sub.states[i])+1)*nl] {
			if code < codeExit && index[code] < 0 {
				index[code] = int16(len(sub.states))
				sub.states = append(sub.states, code)
			}
		}
	}
	sub.table = make([]byte, 0, len(sub.states)*nl)
	for _, q := range sub.states {
		for _, code := range labels[int(q)*nl : (int(q)+1)*nl] {
			if code < codeExit {
				code = byte(index[code])
			}
			sub.table = append(sub.table, code)
		}
	}
	return sub
}

// Regions of views.
//
// A view's step may escape: complete an item into an origin beyond the
// view, whose items the view cannot see (earley.Machine.StepLocal). After
// it, the classes those items could scan next are pending (pendingAfter):
// where the view dies on a pending class, the walk cannot tell, and
// returns the node for the true State to walk. An identifier's view
// escapes at every letter (the identifier may end there), so findRegion
// finds it no region, and the views that start an identifier after a
// space walked the trie node by node, anew in every Masker (on SQL, some
// 12,000 nodes). A view's region is made of pairs of a
// State and what is pending at it: a class the State dies on is an exit
// where it is pending and dead where not, and a live step by a pending
// class exits too (every class is pending after it). A walk over the
// region's shape, kept with the trie like every shape's, finds the
// undecided nodes in its frontier, and walking a frontier node from its
// pair's State with its pending classes returns them.

// viewRegionBelow returns the region of view v (see viewRegion) for a walk
// below trie node, if the children of node whose labels v scans hold at
// least k.viewRegionMin nodes (4,096): finding a region steps every class
// from each of its States, which costs more than a short walk (a number's
// digits after a space), and only where the walk is long is it worth it.
func (k *Masker) viewRegionBelow(v earley.State, node int32) regionOf {
	if k.m.ScanWidth(v) < minLoopClasses || k.m.InBoundedRepetition(v) {
		// Only a character class makes a wide region (see findRegion).
		return regionOf{}
	}
	t := k.lt.trie
	scan := k.labelSet(k.m.ScanClasses(v))
	n := int32(0)
	if node == 0 { // the root's 256 children, counted by label
		for w := range scan {
			for x := scan[w]; x != 0; x &= x - 1 {
				n += k.lt.rootNodes[w<<6|bits.TrailingZeros64(x)]
			}
		}
	} else {
		for c := node + 1; c < t.end[node]; c = t.end[c] {
			if scan.Has(t.label[c]) {
				n += t.end[c] - c
			}
		}
	}
	if n < k.viewRegionMin {
		return regionOf{}
	}
	return k.viewRegion(v)
}

// viewRegion returns the region of view v, whose steps may escape (see
// above), with the classes pending at each of its States.
func (k *Masker) viewRegion(v earley.State) regionOf {
	if r, ok := k.viewRegions[v]; ok {
		return r
	}
	r := k.findViewRegion(v)
	if k.viewRegions == nil {
		k.viewRegions = make(map[earley.State]regionOf)
	}
	k.viewRegions[v] = r
	k.remember(36*len(r.states) + len(r.key) + 64)
	return r
}

// findViewRegion is viewRegion without the memo, for a view that
// viewRegionBelow let through.
func (k *Masker) findViewRegion(v earley.State) regionOf {
	nc := k.m.NumClasses()
	f := viewRegionFinder{k: k, r: regionOf{states: []earley.State{v}, pends: []grammar.ByteSet{{}}, ok: k.wide(v)}, depth: []uint8{0}}
	row, esc := make([]earley.State, nc), make([]bool, nc)
	for qi := 0; qi < len(f.r.states); qi++ {
		q, pend := f.r.states[qi], f.r.pends[qi]
		scan := k.m.ScanClasses(q)
		for c := range nc {
			row[c], esc[c] = earley.Dead, false
			if scan.Has(uint8(c)) {
				row[c], esc[c] = k.m.StepLocal(q, c)
			}
		}
		for c, next := range row {
			f.r.key = append(f.r.key, f.code(qi, pend, c, next, esc[c], row))
		}
	}
	if !f.r.ok && f.chain < minChainRegion {
		return regionOf{}
	}
	f.r.ok = true
	return f.r
}

// A viewRegionFinder finds the region of a view. Where it starts a
// bounded repetition of a character class (SQL's identifiers of at most
// eight characters, [a-z] [a-z0-9_]{0,7}), no State loops (each position
// is its own), but the positions that many classes lead to join the
// region, as far as chainRegionDepth bytes: the region of the repetition's
// first minChainRegion positions or more is walked as any, its shape kept
// with the trie, where a walk of the trie would visit every node of every
// word up to the bound, anew in every Masker (30,000 nodes on SQLite's
// identifiers after a space).
type viewRegionFinder struct {
	k     *Masker
	r     regionOf
	depth []uint8 // of each region State, the fewest bytes from the first
	chain int     // how many positions of a bounded repetition joined
}

// Chain regions: a view's region takes the positions of a bounded
// repetition up to chainRegionDepth bytes from its first State, and is
// taken with at least minChainRegion of them.
const (
	chainRegionDepth = 16
	minChainRegion   = 4
)

// code returns the code of a transition from region State qi, where pend
// is pending, by class c to next (escaping or not), adding next with what
// is pending after the step if it joins the region and is not in it yet.
func (f *viewRegionFinder) code(qi int, pend grammar.ByteSet, c int, next earley.State, esc bool, row []earley.State) byte {
	k, r, from := f.k, &f.r, f.r.states[qi]
	switch {
	case pend.Has(uint8(c)):
		return codeExit // undecided if dead, every class pending if not
	case next == earley.Dead:
		return codeDead
	}
	after := k.pendingAfter(&pend, from, c, esc)
	for j, q := range r.states {
		if q == next && r.pends[j] == after {
			return byte(j)
		}
	}
	if len(r.states) >= maxRegion {
		return codeExit
	}
	switch {
	case k.joins(from, next, row, &r.ok, true):
	case f.position(qi, next, row):
		f.chain++
	default:
		return codeExit
	}
	r.states, r.pends = append(r.states, next), append(r.pends, after)
	f.depth = append(f.depth, f.depth[qi]+1)
	return byte(len(r.states) - 1)
}

// position reports whether next, a successor of region State qi whose
// successors by class are row, is a position of a bounded repetition of
// ASCII characters (or the one after its last): many classes lead to it,
// and no multi-byte character may come next (a string's characters would
// bring a region of eight States a position).
func (f *viewRegionFinder) position(qi int, next earley.State, row []earley.State) bool {
	k, from := f.k, f.r.states[qi]
	return (k.m.InBoundedRepetition(next) || k.m.InBoundedRepetition(from)) && f.depth[qi] < chainRegionDepth &&
		count(row, next) >= minLoopClasses && !slices.ContainsFunc(row, k.insideChar)
}
