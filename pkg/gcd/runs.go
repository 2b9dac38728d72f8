package gcd

import (
	"cmp"
	"math/bits"
	"slices"
	"sort"

	"github.com/gasplab/gasp/pkg/earley"
	"github.com/gasplab/gasp/pkg/grammar"
)

// A runTable indexes the trie by the runs of one set of trie labels, the
// characters a bounded repetition repeats (a UUID's hex digits, a tag's
// letters): its run nodes are those whose path is all in the set. A mask
// inside the repetition takes the tokens of the run nodes no deeper than
// the room left whole, and walks only the children of run nodes that
// leave the run, by their class, from the State after the run: far fewer
// than the nodes a walk from the top visits to find where the runs stop.
//
// Tables are built by NewMasker for the sets of earley's
// RepeatedCharacters, in one pass over the run nodes and their children.
type runTable struct {
	ids  []int32 // the tokens that end at run nodes, by increasing depth
	upTo []int32 // upTo[d]: how many of ids end at depth d or less
	// bits[j] holds ids[:upTo[bitsAt[j]]]; each holds more than size/128
	// tokens beyond the one before, so the rest is cheaper as a list.
	bits   []Bitset
	bitsAt []int32
	// kids are the children of the run nodes (the root is one, of depth
	// 0), in the run or not, grouped: groups[d] are those of the run nodes
	// of depth d by label, in increasing order of label; labels[d] is the
	// set of those labels: the group of label l is
	// groups[d][rank(&labels[d], l)].
	groups [][]runGroup
	labels []grammar.ByteSet
	kids   []int32
	// leadUpTo[j], for a pure kid kids[j], is the most lead depth of the
	// pure kids of its group up to it (see pureTaken).
	leadUpTo []uint8
	run      grammar.ByteSet // the labels of the runs
}

// A runGroup is the children kids[start:end] of the run nodes of one
// depth that have one class.
//
// A kid is pure when its subtree is valid UTF-8 over the run's labels and
// those of multi-byte characters (a string's characters after a run of its
// ASCII ones). A group's pure kids come first, by increasing height; a
// State whose chain takes height bytes and lead characters (see
// chainBelow) takes every one of them whole, found with one test rather
// than one a kid: inside a long bounded string, they are most of a step's
// kids. Where the chain is shorter, it takes those of a prefix, found by
// a binary search (pureTaken).
type runGroup struct {
	start, end   int32
	pureEnd      int32 // kids[start:pureEnd] are pure
	height, lead uint8 // the most of the pure kids' heights and lead depths (see labelled)
}

// newRunTable indexes the trie of lt by runs of labels (the labels of the
// byte classes a bounded repetition repeats).
func newRunTable(lt *labelled, labels *grammar.ByteSet) *runTable {
	t := lt.trie
	// Run nodes and their children, in preorder: a child out of the run is
	// recorded and skipped with its subtree.
	var runs, kids []int32
	maxDepth := int32(0)
	for i := int32(1); i < t.end[0]; {
		kids = append(kids, i)
		if !labels.Has(t.label[i]) {
			i = t.end[i]
			continue
		}
		runs = append(runs, i)
		maxDepth = max(maxDepth, t.depth[i])
		i++
	}
	r := &runTable{groups: make([][]runGroup, maxDepth+1), labels: make([]grammar.ByteSet, maxDepth+1), run: *labels}
	r.ids, r.upTo = runTokens(t, runs, maxDepth)
	r.kids = make([]int32, len(kids))
	// A counting sort of the children by their parent's depth and their
	// class.
	const nClass = 256
	count := make([]int32, (int(maxDepth)+1)*nClass+1)
	key := func(i int32) int { return int(t.depth[i]-1)*nClass + int(t.label[i]) }
	for _, i := range kids {
		count[key(i)+1]++
	}
	for j := 1; j < len(count); j++ {
		count[j] += count[j-1]
	}
	for j := 0; j+1 < len(count); j++ {
		if count[j+1] > count[j] {
			d, c := j/nClass, uint8(j%nClass)
			r.groups[d] = append(r.groups[d], runGroup{start: count[j], end: count[j+1]})
			r.labels[d].Add(c)
		}
	}
	for _, i := range kids {
		k := key(i)
		r.kids[count[k]] = i
		count[k]++
	}
	r.index(t.size)
	r.markPure(lt)
	return r
}

// markPure puts the pure kids of each group first (see runGroup).
func (r *runTable) markPure(lt *labelled) {
	t := lt.trie
	wide := r.run
	orInto(&wide, &lt.high)
	var impure []int32 // scratch
	r.leadUpTo = make([]uint8, len(r.kids))
	for d := range r.groups {
		for j := range r.groups[d] {
			g := &r.groups[d][j]
			g.pureEnd = g.start
			impure = impure[:0]
			for _, i := range r.kids[g.start:g.end] {
				if !t.utf8[i] || !lt.within(i, &wide) {
					impure = append(impure, i)
					continue
				}
				r.kids[g.pureEnd] = i
				g.pureEnd++
				g.height, g.lead = max(g.height, lt.height[i]), max(g.lead, lt.leadDepth[i])
			}
			copy(r.kids[g.pureEnd:g.end], impure)
			pure := r.kids[g.start:g.pureEnd]
			slices.SortFunc(pure, func(a, b int32) int { return cmp.Compare(lt.height[a], lt.height[b]) })
			lead := uint8(0)
			for x, i := range pure {
				lead = max(lead, lt.leadDepth[i])
				r.leadUpTo[int(g.start)+x] = lead
			}
		}
	}
}

// runTokens returns the tokens that end at the run nodes by increasing
// depth, and how many end at each depth or less.
func runTokens(t *Trie, runs []int32, maxDepth int32) (ids, upTo []int32) {
	upTo = make([]int32, maxDepth+2)
	for _, i := range runs {
		upTo[t.depth[i]+1] += t.first[i+1] - t.first[i]
	}
	for d := 1; d < len(upTo); d++ {
		upTo[d] += upTo[d-1]
	}
	ids = make([]int32, upTo[len(upTo)-1])
	at := append([]int32(nil), upTo...)
	for _, i := range runs {
		d := t.depth[i]
		at[d] += int32(copy(ids[at[d]:], t.ids[t.first[i]:t.first[i+1]]))
	}
	return ids, upTo[1:]
}

// index adds the Bitsets of the run tokens up to the depths where a list
// would grow long: setting more than 1/128 of the vocabulary's bits one
// by one costs more than OR-ing a whole Bitset.
func (r *runTable) index(size int) {
	var last int32
	var bits Bitset
	for d, n := range r.upTo {
		if int(n-last) <= size/128 {
			continue
		}
		next := NewBitset(size)
		copy(next, bits)
		for _, id := range r.ids[last:n] {
			next.Set(int(id))
		}
		bits, last = next, n
		r.bits = append(r.bits, bits)
		r.bitsAt = append(r.bitsAt, int32(d))
	}
}

// addUpTo adds to b the tokens of the run nodes of depth 1 to h.
func (r *runTable) addUpTo(h int, b *sink) {
	if h <= 0 {
		return
	}
	h = min(h, len(r.upTo)-1)
	from := int32(0)
	for j := len(r.bitsAt) - 1; j >= 0; j-- {
		if int(r.bitsAt[j]) <= h {
			if b.list {
				b.toBits()
			}
			for w, x := range r.bits[j] {
				b.bits[w] |= x
			}
			from = r.upTo[r.bitsAt[j]]
			break
		}
	}
	b.add(r.ids[from:r.upTo[h]])
}

// runsOf returns the chain of s and the run table of its classes, if s is
// inside a bounded repetition and there is one: the labelled trie's table
// NewMasker took for a repeated character class, or else the trie's table
// of the chain's labels, where they are ASCII (a JSON string's characters but
// the quote and the backslash, the ASCII part of a character that may
// also be an escape or multi-byte). The trie keeps its tables for every
// Masker; one is built in a step only where it is small (see
// runTableMax): building one of most of the vocabulary takes 5-7 ms.
func (k *Masker) runsOf(s earley.State) (chain, *runTable) {
	if !k.m.InBoundedRepetition(s) {
		return chain{}, nil
	}
	c := k.chainOf(s)
	if r, known := k.runs[c.classes]; known || c.next == earley.Dead || !subsetOf(&c.labels, &k.lt.ascii) {
		return c, r
	}
	r := k.lt.runTable(&c.labels, k.lt.leavers.count(&c.labels) <= runTableMax)
	k.runs[c.classes] = r // nil: none, and none will be built
	return c, r
}

// runTableMax is the most trie nodes labelled by a set (leaverIndex.count)
// for which a step builds the set's run table.
const runTableMax = 20000

// runTable returns the run table of labels, building it on first use if
// build is set, else nil.
func (lt *labelled) runTable(labels *grammar.ByteSet, build bool) *runTable {
	lt.runsMu.Lock()
	defer lt.runsMu.Unlock()
	r := lt.runs[*labels]
	if r == nil && build {
		r = newRunTable(lt, labels)
		lt.runs[*labels] = r
	}
	return r
}

// walkRuns adds to b the tokens viable from s, whose chain c runs over
// the classes r indexes (see chain): the tokens of run nodes no deeper
// than c's height, every string of which is viable, and what is viable
// below the children that leave the run, each walked from the State after
// its run, and below the run nodes one deeper than the height.
func (k *Masker) walkRuns(s earley.State, c chain, r *runTable, b *sink) {
	height := int(c.height)
	if c.height == maxChain {
		height = len(r.groups) // every run is in the chain
	}
	r.addUpTo(height, b)
	one := firstClass(&c.classes)
	st := s
	for d := 0; d < len(r.groups) && d <= height; d++ {
		// The labels of this depth's children that st scans, but those
		// of run nodes taken whole.
		scan, present := k.labelSet(k.m.ScanClasses(st)), &r.labels[d]
		for w := range scan {
			scan[w] &= present[w]
			if d < height {
				scan[w] &^= c.labels[w]
			}
		}
		for w := range scan {
			for x := scan[w]; x != 0; x &= x - 1 {
				l := w<<6 | bits.TrailingZeros64(x)
				k.walkGroup(st, int(k.class[l]), r.groups[d][rank(present, l)], r, b)
			}
		}
		if d < height {
			// The first State of the next position's room key, to walk
			// on from (see roomRep): far from a bound, no new State.
			next, _ := k.m.StepLocal(st, one)
			st = k.goOnFrom(next)
		}
	}
}

// pureTaken returns how many of group g's pure kids, by increasing height,
// the known chain of st takes whole: all of them, or the most that a
// binary search finds (the chain takes a kid's subtree if it takes its
// height and the most lead depth of the kids up to it).
func (k *Masker) pureTaken(st earley.State, r *runTable, g runGroup) int32 {
	if g.pureEnd == g.start {
		return 0
	}
	if k.chainTakes(st, &r.run, g.height, g.lead) {
		k.Stats.PureKids++
		return g.pureEnd - g.start
	}
	n := sort.Search(int(g.pureEnd-g.start), func(j int) bool {
		at := int(g.start) + j
		return !k.chainTakes(st, &r.run, k.lt.height[r.kids[at]], r.leadUpTo[at])
	})
	if n > 0 {
		k.Stats.PureKids++
	}
	return int32(n)
}

// rank returns the number of classes in set below c.
func rank(set *grammar.ByteSet, c int) int {
	n := bits.OnesCount64(set[c>>6] & (1<<(c&63) - 1))
	for w := range c >> 6 {
		n += bits.OnesCount64(set[w])
	}
	return n
}

// walkGroup adds to b what is viable below the run children of group g,
// of class cl, whose parents' State is st. A class st scans leads to a
// live State, so the kids that are leaves, or that the chain takes whole,
// need no step: inside a bounded string, stepping each lead byte of a
// multi-byte character at each position built eight States a position.
func (k *Masker) walkGroup(st earley.State, cl int, g runGroup, r *runTable, b *sink) {
	if scan := k.m.ScanClasses(st); !scan.Has(uint8(cl)) {
		return
	}
	t := k.lt.trie
	n := k.pureTaken(st, r, g)
	for _, i := range r.kids[g.start : g.start+n] {
		b.add(t.ids[t.first[i]:t.first[t.end[i]]])
	}
	kids := r.kids[g.start+n : g.end]
	for _, i := range kids {
		if t.end[i]-i == 1 || k.chainBelow(st, i) {
			b.add(t.ids[t.first[i]:t.first[t.end[i]]])
			continue
		}
		if next, _ := k.m.StepLocal(st, cl); next == st && k.loopsBelow(st, i) {
			b.add(t.ids[t.first[i]:t.first[t.end[i]]])
			continue
		}
		k.walk(st, i, false, b, false, grammar.ByteSet{})
	}
}
