package gcd

import (
	"github.com/gasplab/gasp/pkg/earley"
	"github.com/gasplab/gasp/pkg/grammar"
)

// Masker computes the exact set of tokens a grammar allows after a prefix.
//
// A token is allowed in a State iff feeding its bytes keeps the prefix
// viable; an EOS token iff the prefix is a sentence; other special tokens
// never. The Masker finds them by walking the vocabulary trie, pruning a
// subtree at the first byte that kills the parse. Three things make that
// fast:
//
//   - Transitions are memoized by the earley.Machine, so a walk mostly looks
//     up States.
//   - Masks are cached per State. earley States are canonical, so a mask
//     computed once serves every later prefix that reaches an equal State
//     (inside a JSON string, every position of that string).
//   - The trie is walked from the State's local view (earley.Machine.Local),
//     which forgets what lies deeper than LocalDepth sets. Local views are
//     shared by many States (every JSON string of a kind, at any nesting
//     depth), and so is the walk's result: the tokens that stay within the
//     local view, accepted or rejected for good, and the trie nodes where a
//     token reached past it. Only those subtrees are walked again from the
//     true State, and only for the first prefix that reaches it.
//
// A subtree whose bytes all fall in byte classes that lead from the current
// State back to itself is accepted whole without walking it.
//
// A Masker is not safe for concurrent use.
type Masker struct {
	m     *earley.Machine
	vocab *Vocab
	trie  *Trie // the vocabulary's trie relabelled by the grammar's byte classes

	// LocalDepth is the depth of the local views the walk starts from (see
	// earley.Machine.Local); 0 walks from the true State only.
	LocalDepth int
	// MaxCacheBytes bounds the memory held by cached masks; when it is
	// exceeded the caches are emptied.
	MaxCacheBytes int

	// subtree[i] is the set of byte classes on the edges of node i's subtree,
	// the edge into i included.
	subtree []grammar.ByteSet

	// Stats counts the work done so far.
	Stats MaskStats

	cache      map[earley.State]Bitset     // by true State
	locals     map[earley.State]*localWalk // by local State
	cacheBytes int

	stack []earley.State // scratch: States by trie depth
	// loopOf[s] holds the byte classes leading from State s back to s, once
	// hasLoop[s] is set.
	loopOf  []grammar.ByteSet
	hasLoop []bool
}

// MaskStats counts a Masker's work.
type MaskStats struct {
	Masks      int // calls of Mask
	CacheHits  int // masks served from the cache
	LocalWalks int // walks from a new local State
	Escapes    int // subtrees walked again from a true State
	Nodes      int // trie nodes visited
}

// localWalk is what a walk from a local State found: the tokens it accepts
// in every context, and the trie nodes whose subtrees it could not decide.
type localWalk struct {
	accepted Bitset
	escapes  []int32
}

// NewMasker returns a Masker for the grammar of m over vocabulary v, whose
// trie is t (build it once per vocabulary with NewTrie).
func NewMasker(m *earley.Machine, v *Vocab, t *Trie) *Masker {
	t = t.relabel(func(b byte) uint8 { return uint8(m.ByteClass(b)) })
	k := &Masker{
		m: m, vocab: v, trie: t,
		LocalDepth:    1,
		MaxCacheBytes: 256 << 20,
		cache:         make(map[earley.State]Bitset),
		locals:        make(map[earley.State]*localWalk),
	}
	n := t.Nodes()
	k.subtree = make([]grammar.ByteSet, n)
	// Children follow their parent in preorder: fold each node into its parent
	// by walking backwards with a stack of open descendants.
	var open []int32
	for i := n - 1; i > 0; i-- {
		k.subtree[i].Add(t.label[i])
		for len(open) > 0 && t.depth[open[len(open)-1]] > t.depth[i] {
			c := open[len(open)-1]
			open = open[:len(open)-1]
			orInto(&k.subtree[i], &k.subtree[c])
		}
		open = append(open, int32(i))
	}
	return k
}

func orInto(dst, src *grammar.ByteSet) {
	for w := range dst {
		dst[w] |= src[w]
	}
}

func subsetOf(a, b *grammar.ByteSet) bool {
	for w := range a {
		if a[w]&^b[w] != 0 {
			return false
		}
	}
	return true
}

// Machine returns the recognizer the Masker works for.
func (k *Masker) Machine() *earley.Machine { return k.m }

// Vocab returns the vocabulary.
func (k *Masker) Vocab() *Vocab { return k.vocab }

// Mask returns the allowed tokens in State s. The returned set is shared
// with the cache: do not modify it.
func (k *Masker) Mask(s earley.State) Bitset {
	k.Stats.Masks++
	if b, ok := k.cache[s]; ok {
		k.Stats.CacheHits++
		return b
	}
	b := NewBitset(k.trie.size)
	if k.LocalDepth > 0 {
		l := k.m.Local(s, k.LocalDepth)
		lw := k.locals[l]
		if lw == nil {
			k.Stats.LocalWalks++
			lw = &localWalk{accepted: NewBitset(k.trie.size)}
			lw.escapes = k.walk(l, 0, lw.accepted, true)
			k.remember(8 * len(lw.accepted))
			k.locals[l] = lw
		}
		copy(b, lw.accepted)
		k.walkEscapes(s, lw.escapes, b)
	} else {
		k.walk(s, 0, b, false)
	}
	if k.m.Accepting(s) {
		for _, id := range k.vocab.EOS {
			b.Set(id)
		}
	}
	k.remember(8 * len(b))
	k.cache[s] = b
	return b
}

// remember accounts for n more cached bytes, emptying the caches first if
// they would grow past MaxCacheBytes.
func (k *Masker) remember(n int) {
	if k.cacheBytes+n > k.MaxCacheBytes {
		clear(k.cache)
		clear(k.locals)
		k.cacheBytes = 0
	}
	k.cacheBytes += n
}

// walk adds to b the ordinary tokens in the subtree of trie node root (0
// for the whole trie) whose bytes are viable from s, the State at root's
// parent (at root itself when root is 0). For a local s it does not decide
// subtrees below a step that escaped the local view: it returns their root
// nodes instead.
func (k *Masker) walk(s earley.State, root int32, b Bitset, local bool) (escapes []int32) {
	t := k.trie
	end := t.end[root]
	base := t.depth[root]
	first := root
	if root == 0 {
		first, base = 1, 0
	} else {
		base--
	}
	// stack[d-base] is the State after the first d bytes of the current
	// node's path.
	stack := append(k.stack[:0], s)
	if root == 0 {
		// Worth it for a whole walk, not for the small subtrees of escapes.
		k.loopClasses(s)
	}
	for i := first; i < end; {
		k.Stats.Nodes++
		d := t.depth[i] - base
		parent := stack[d-1]
		if int(parent) < len(k.hasLoop) && k.hasLoop[parent] && subsetOf(&k.subtree[i], &k.loopOf[parent]) {
			// Every byte below keeps the parent's State: all viable.
			for _, id := range t.ids[t.first[i]:t.first[t.end[i]]] {
				b.Set(int(id))
			}
			i = t.end[i]
			continue
		}
		next, esc := k.m.StepLocal(parent, int(t.label[i]))
		if esc && local {
			escapes = append(escapes, i)
			i = t.end[i]
			continue
		}
		if next == earley.Dead {
			i = t.end[i]
			continue
		}
		for _, id := range t.ids[t.first[i]:t.first[i+1]] {
			b.Set(int(id))
		}
		stack = append(stack[:d], next)
		i++
	}
	k.stack = stack[:0]
	return escapes
}

// walkEscapes walks, from the true State s, the subtrees a local walk could
// not decide. Their roots come in preorder, so the path to each is stepped
// from the longest prefix it shares with the path to the one before.
func (k *Masker) walkEscapes(s earley.State, escapes []int32, b Bitset) {
	t := k.trie
	path := []int32{0}          // trie nodes on the current path, by depth
	states := []earley.State{s} // the State after each
	var climb []int32
	for _, e := range escapes {
		// Find the deepest ancestor of e on the current path.
		climb = climb[:0]
		n := t.parent[e]
		for int(t.depth[n]) >= len(path) || path[t.depth[n]] != n {
			climb = append(climb, n)
			n = t.parent[n]
		}
		d := t.depth[n]
		path, states = path[:d+1], states[:d+1]
		ps := states[d]
		for j := len(climb) - 1; j >= 0 && ps != earley.Dead; j-- {
			ps = k.m.StepClass(ps, int(t.label[climb[j]]))
			path = append(path, climb[j])
			states = append(states, ps)
		}
		if ps != earley.Dead {
			k.Stats.Escapes++
			k.walk(ps, e, b, false)
		}
	}
}

// loopClasses returns the byte classes that lead from s back to s, stepping
// s by every class (which the Machine memoizes) the first time. It is
// computed for the State a walk starts from: doing it for every State a
// walk meets would build many States no token reaches.
func (k *Masker) loopClasses(s earley.State) grammar.ByteSet {
	if int(s) < len(k.hasLoop) && k.hasLoop[s] {
		return k.loopOf[s]
	}
	var set grammar.ByteSet
	for c := 0; c < k.m.NumClasses(); c++ {
		if next, esc := k.m.StepLocal(s, c); next == s && !esc {
			set.Add(uint8(c))
		}
	}
	if n := k.m.NumStates(); len(k.hasLoop) < n {
		k.loopOf = append(k.loopOf, make([]grammar.ByteSet, n-len(k.loopOf))...)
		k.hasLoop = append(k.hasLoop, make([]bool, n-len(k.hasLoop))...)
	}
	k.loopOf[s], k.hasLoop[s] = set, true
	return set
}
