package gcd

import (
	"sync"

	"github.com/gasplab/gasp/pkg/grammar"
)

// Labels: which trie a Masker walks.
//
// A walk needs, at each trie node, the byte class of its edge; tokens whose
// bytes have the same classes can share nodes. Relabelling the trie by a
// grammar's own classes (Trie.relabel) merges the most, but costs a pass
// over the whole trie, and the passes that index the result, per grammar:
// 15 of a JSON schema's 17 ms of compile. So NewTrie also relabels the trie
// once by a fixed partition, the shared labels (every ASCII byte but the
// control bytes alone, the bytes 80-FF by their place in UTF-8), and a
// grammar whose byte classes are unions of those labels (a JSON schema's,
// unless a pattern tells non-ASCII characters apart) walks that trie,
// mapping each label to its class as it reads it. Its walks visit more
// nodes (the letters its classes merge stay apart): masks cost up to half
// as much again on JSON schemas' grammars, about the same on the GBNF
// workloads (BENCHMARKS.md, "Shared labels or the grammar's own").

// A labelled trie is a Trie relabelled by a partition of the bytes, with
// what walks read of it by node. It is not modified after it is built, so
// Maskers of one vocabulary share the shared labels' one, but for what
// walks keep with it for every Masker, each under its lock: the walks of
// region shapes (shapes, region.go), run tables (runs, runs.go) and
// universes' tables (univ, universe.go).
type labelled struct {
	trie   *Trie
	labels int // labels 0 to labels-1 are used

	// subtree[i] is the set of labels on the edges of node i's subtree,
	// the edge into i included (see classSet); height[i] the length of its
	// longest path, the edge into i included (at most 255).
	subtree   []classSet
	height    []uint8
	leadDepth []uint8 // by node: characters up to the last multi-byte one's start (see deepest)
	many      bool    // more than 128 labels: a subtree's bit 127 stands for any label from 127 on
	rootNodes []int32 // by label, the nodes of the subtrees of the root's children of that label
	leavers   leaverIndex
	high      grammar.ByteSet // the labels of bytes 80-FF only
	cont      grammar.ByteSet // the labels of UTF-8 continuation bytes only
	// utf8Labels is, by form of utf8Seqs, by byte, the labels of its range.
	utf8Labels [][][]uint8

	ascii grammar.ByteSet // the labels of bytes 00-7F only
	// utf8Next is, by label, a UTF-8 decoder's state after any of its
	// bytes, by the state before (u8Bad where its bytes lead apart).
	utf8Next [][u8States]utf8State

	shapes *shapeCache
	kids   *shapeCache // the walks below the root's children that funnels are made of (see walkFunnel)
	runsMu sync.Mutex
	runs   map[grammar.ByteSet]*runTable // by the labels they run over (see runsOf)
	univMu sync.Mutex
	univ   map[universeKey]*universeTable // by a universe's labels (see universeTable)

	byLabel leaverIndex // every node by its label (see newLeaving)
	leaveMu sync.Mutex
	leave   map[grammar.ByteSet]*leaving    // by leaving labels, nil where too many (see leavingOf)
	pairs   map[[2]grammar.ByteSet]*leaving // by the labels of leaving pairs, nil where too many (see pairLeavingOf)

	nodeOfOnce sync.Once
	nodeOf     []int32 // by token id, its node (see nodesOf)

	rootBits map[int32]Bitset // the tokens at and below the root's large children (see dropBelow)
}

// newLabelled relabels t by label, whose values are 0 to n-1.
func newLabelled(t *Trie, label *[256]uint8, n int) *labelled {
	lt := &labelled{trie: t.relabel(label), labels: n, many: n > 128, shapes: newShapeCache(maxShapeBytes), kids: newShapeCache(maxShapeBytes)}
	lt.high, lt.cont = highLabels(label, n)
	lt.utf8Labels, _ = utf8Classes(func(b byte) int { return int(label[b]) })
	lt.utf8Next = utf8ByLabel(label, n)
	lt.runs = make(map[grammar.ByteSet]*runTable)
	lt.univ = make(map[universeKey]*universeTable)
	lt.ascii = asciiOnly(label, n)
	t = lt.trie
	lt.subtree = subtreeClasses(t)
	lt.leavers = newLeaverIndex(t, n, &lt.high)
	lt.byLabel = newLeaverIndex(t, n, &grammar.ByteSet{})
	every := grammar.ByteSet{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}
	lt.height = deepest(t, &every, &grammar.ByteSet{})
	var leads grammar.ByteSet
	for w := range leads {
		leads[w] = lt.high[w] &^ lt.cont[w]
	}
	lt.leadDepth = deepest(t, &leads, &lt.cont)
	lt.rootNodes = make([]int32, n)
	lt.rootBits = make(map[int32]Bitset)
	for c := int32(1); c < t.end[0]; c = t.end[c] {
		lt.rootNodes[t.label[c]] += t.end[c] - c
		if ids := t.ids[t.first[c]:t.first[t.end[c]]]; len(ids) > (t.size+63)/64 {
			b := NewBitset(t.size)
			for _, id := range ids {
				b.Set(int(id))
			}
			lt.rootBits[c] = b
		}
	}
	return lt
}

// highLabels returns the labels whose bytes are all in 80-FF, and those
// whose bytes are all continuation bytes (80-BF).
func highLabels(label *[256]uint8, n int) (high, cont grammar.ByteSet) {
	var other, ascii grammar.ByteSet // labels with a byte that is not a continuation byte; with an ASCII byte
	for b := 0; b < 256; b++ {
		if b < 0x80 || b > 0xBF {
			other.Add(label[b])
		}
		if b < 0x80 {
			ascii.Add(label[b])
		}
	}
	for l := 0; l < n; l++ {
		if !other.Has(uint8(l)) {
			cont.Add(uint8(l))
		}
		if !ascii.Has(uint8(l)) {
			high.Add(uint8(l))
		}
	}
	return high, cont
}

// asciiOnly returns, of a partition of the bytes into parts 0 to n-1
// (labels, or a grammar's classes), the parts whose bytes are all in 00-7F.
func asciiOnly(part *[256]uint8, n int) grammar.ByteSet {
	var high, low grammar.ByteSet
	for b := 0x80; b < 256; b++ {
		high.Add(part[b])
	}
	for p := range n {
		if !high.Has(uint8(p)) {
			low.Add(uint8(p))
		}
	}
	return low
}

// sharedLabel is the shared labels' partition: each printable ASCII byte,
// tab, line feed, carriage return and DEL alone, the other control bytes
// together, and the bytes 80-FF by the ranges UTF-8's well-formed
// sequences tell apart (RFC 3629, utf8Seqs). sharedLabels is their number.
var sharedLabel, sharedLabels = func() ([256]uint8, int) {
	var label [256]uint8
	n := 0
	next := func() uint8 { n++; return uint8(n - 1) }
	controls := next()
	for b := 0; b < 0x80; b++ {
		switch {
		case b < 0x20 && b != '\t' && b != '\n' && b != '\r':
			label[b] = controls
		default:
			label[b] = next()
		}
	}
	for _, r := range [][2]int{{0x80, 0x8F}, {0x90, 0x9F}, {0xA0, 0xBF}, {0xC0, 0xC1}, {0xC2, 0xDF},
		{0xE0, 0xE0}, {0xE1, 0xEC}, {0xED, 0xED}, {0xEE, 0xEF}, {0xF0, 0xF0}, {0xF1, 0xF3}, {0xF4, 0xF4}, {0xF5, 0xFF}} {
		l := next()
		for b := r[0]; b <= r[1]; b++ {
			label[b] = l
		}
	}
	return label, n
}()

// classesOfLabels returns, by shared label, the byte class of its bytes
// in classOf, if every label's bytes are in one class.
func classesOfLabels(classOf *[256]uint8) (classes [256]uint8, ok bool) {
	var seen [256]bool
	for b := 0; b < 256; b++ {
		l, c := sharedLabel[b], classOf[b]
		if seen[l] && classes[l] != c {
			return classes, false
		}
		seen[l], classes[l] = true, c
	}
	return classes, true
}
