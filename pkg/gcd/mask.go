package gcd

import (
	"math/bits"
	"slices"

	"github.com/gasplab/gasp/pkg/earley"
	"github.com/gasplab/gasp/pkg/grammar"
)

// Masker computes the exact set of tokens a grammar allows after a prefix.
//
// A token is allowed in a State iff feeding its bytes keeps the prefix
// viable; an EOS token iff the prefix is a sentence; other special tokens
// never. The Masker finds them by walking the vocabulary trie (relabelled so
// that bytes of a class share edges where they can: labels.go), pruning a
// subtree at the first byte that kills the parse. What makes that fast:
//
//   - Transitions are memoized by the earley.Machine, so a walk mostly looks
//     up States.
//   - Masks are cached per State. earley States are canonical, so a mask
//     computed once serves every later prefix that reaches an equal State
//     (inside a JSON string, every position of that string). Inside a
//     bounded repetition each position is a State of its own, but those
//     farther from the bound than the longest token allow the same tokens
//     (earley.Machine.RoomKey): they share one mask too (inside a JSON
//     string that maxLength bounds, its positions up to 128 characters
//     from the bound), and a walk through them goes on from the first
//     State of each room key, building no State for the positions a long
//     token reaches (roomRep).
//   - Inside a bounded repetition, a mask's tokens that never reach a byte
//     after which the State's context decides (a string's closing quote)
//     are kept by the State's context key (earley.Machine.ContextKey):
//     another State of the key, a string of the same maxLength in another
//     member, walks only the tokens with such a byte (context.go).
//   - Elsewhere, a State whose context's items include literals (a JSON
//     object's declared names at a member name's start) is masked as the
//     union of two parts (earley.Machine.Parts): the literals, and the
//     rest, whose context takes part only after its rule ends (a name's
//     closing quote and colon): the rest's own part is kept by its context
//     key, and serves every member name of the object's kind (parts.go). A
//     State of no literals whose context waits on rules alone is all rest.
//   - A State that holds a loop of another origin (a search pattern's
//     leading .* inside a JSON string, where every position is a new
//     State) allows all its loop's core allows, a State the same at every
//     position: its mask is the core's and the tokens the core lacks (a
//     few thousand, with a quote or a control character) walked along
//     their paths alone (core.go).
//   - Inside a bounded repetition, a State whose classes neither loop nor
//     all lead one way, but lead it among a few States all live on them
//     (a string a search pattern's run must appear in: a hex digit leads
//     one position further into a match, any other character back), has a
//     universe (universe.go): every token over those classes, and over
//     multi-byte characters where each leads among those States too, is
//     allowed from each of them, a set kept with the trie by the classes'
//     labels; only the other tokens (with a quote, a backslash or a control
//     character) are walked, along their paths alone. The first State's
//     mask builds the universe's States; it gives them all the universe.
//     A State of a regular expression's rules that no loop serves (the
//     automaton of searched words, as Composer's "^dev|alpha|beta|rc|
//     RC|stable$": every character leads among its nodes) is searched
//     for a universe too.
//     Where the grammar's front end states a universe
//     (earley.Machine.Universal: a JSON member name that
//     additionalProperties allows, any string but the declared names),
//     the mask is made the same way without building or searching its
//     States (maskOverStated). So is a State that holds a loop of a
//     regular expression's rules (earley.Machine.Absorbing: a search
//     pattern's leading .*, which goes on whatever the partial matches
//     are): every string of the loop's characters is viable, and where
//     those are a JSON string's, the other tokens are few
//     (maskOverAbsorbed). Each schema's
//     patterns are its own, so their regions' walks, a whole trie's
//     where nearly every token is allowed, would serve no other State.
//     Elsewhere a loop's characters serve only where the State would
//     otherwise be walked over the whole trie.
//   - A State's mask is the union of what its scan items allow, and the
//     items of each rule and origin are walked from their view
//     (earley.Machine.ScanViews), which keeps only what the items can
//     complete into, up to LocalDepth user rules. Views recur across
//     contexts (the next character of any JSON string, of any SQL
//     identifier, any tag of a tag set, any item of an array of at most
//     n), so their walks are cached; a wide view is walked over its own
//     region. A State of many scan items whose views were seen before (a
//     JSON object's member names after its first members) is masked from
//     its views rather than its region (viewsSeen). Where a token reaches past a view (closing the string
//     and going on), the view's walk leaves the subtree undecided and it
//     is walked again from the true State, but only where the next byte
//     could follow the rule that the view completed
//     (earley.Machine.EscapeFollow): an identifier that runs into a byte
//     no clause allows after it is dead in every context.
//   - Below the first byte of a view's walk, large subtrees are split the
//     same way and cached by view and trie node: after a space, the
//     identifiers that may start an expression are walked once for every
//     clause that allows an expression there. A view whose steps escape
//     (an identifier, that may end at any letter) is walked over its own
//     region too, of States and the classes pending at each, with the
//     positions of a bounded repetition it starts (viewRegion), so that
//     the walk's shape is kept with the trie.
//   - A subtree whose bytes all fall in byte classes that lead from the
//     current State back to itself is accepted whole without walking it
//     (the rest of an identifier, a number, a run of string characters).
//   - Inside a bounded repetition of an ASCII character class (a UUID's
//     hex digits, a tag's letters, a JSON string's plain characters where
//     maxLength bounds it), a run table (runs.go) holds the tokens
//     that are runs of the class by length, so the runs that fit in the
//     room left are taken whole, and only the nodes where a run leaves the
//     class are walked, from the State after the run (those that leave it
//     for multi-byte characters alone are taken a group at a time).
//   - A wide State, inside a regular sub-language (a string body, XML text
//     or a comment, an identifier, a run of digits), is served by its
//     region (region.go): the small automaton of the State, the States
//     inside a UTF-8 character, and the wide States many classes lead to.
//     The trie is walked once per region shape over its transition table
//     alone, which every JSON string body or XML comment shares, in every
//     grammar of the vocabulary (the walks are kept with the trie; a
//     member name's start, whose shape differs by object, is made of the
//     walks below the root's children, kept by the shape each leads to:
//     walkFunnel); it yields the slice of tokens that stay inside the
//     region, all allowed, and the frontier nodes where a token leaves it,
//     which alone are walked from the true State. This is gasp's form of llguidance's token slices and
//     XGrammar's context-independent tokens, found from the Earley States
//     rather than from a lexer.
//   - Below a node whose State loops on most classes (a comment's body,
//     a name), a walk visits only the leavers (leavers.go): the edges whose
//     class leaves the loop, found from an index of the trie's nodes by
//     class, instead of their ancestors and every sibling of those. The
//     tokens between the leavers' subtrees stay in the loop and are added
//     as runs; an XML comment's body costs its 1,000 edges labelled "-"
//     rather than 15,000 nodes.
//
// Caches are bounded by MaxCacheBytes. A Masker is not safe for concurrent
// use.
type Masker struct {
	m     *earley.Machine
	vocab *Vocab
	lt    *labelled // the vocabulary's trie relabelled (labels.go)

	// class[l] is the byte class of the bytes of trie label l; where the
	// trie is relabelled by the grammar's own classes, labels are classes
	// and labelsOf is nil, else labelsOf[c] is the set of labels of class c.
	class    [256]uint8
	labelsOf []grammar.ByteSet

	// LocalDepth is the depth of the views of scan items that walks start
	// from (see earley.Machine.ScanViews); 0 walks from the true State only.
	LocalDepth int
	// MaxCacheBytes bounds the memory held by cached masks; when it is
	// exceeded the caches are emptied.
	MaxCacheBytes int

	ordinary Bitset // the tokens of the trie
	regex    bool   // whether a rule of the grammar is a regular expression's (grammar.Rule.Regex)
	// Walks of a loop's leavers (leavers.go) are tried below trie nodes
	// with at least leaversMin nodes below them and taken where the
	// leavers are fewer than 1/leaversFew of those: tests lower both.
	leavers    leaverMarks
	leaversMin int32
	leaversFew int
	// A view's region is found for a walk that may reach viewRegionMin
	// trie nodes (see viewRegionBelow); tests lower it.
	viewRegionMin int32

	// Stats counts the work done so far.
	Stats MaskStats

	cache       map[earley.State]Bitset     // by true State
	byRoom      map[string]Bitset           // by earley.Machine.RoomKey, with room the longest token
	roomKey     []byte                      // scratch
	repByRoom   map[string]earley.State     // the first State of each room key (see roomRep)
	roomReps    byState[earley.State]       // roomRep of each State, plus one (0: not known)
	roomScratch []byte                      // scratch for roomRep
	maskBlock   []uint64                    // what is left of newMask's block
	items       map[earley.State]*itemWalk  // by view of a scan item
	seenViews   map[earley.State]bool       // views of the scan items of States viewsSeen was asked about
	subs        map[subKey]*itemWalk        // by view and trie node
	shapes      map[string]map[int32]*shape // by region shape's key and trie node (see shapeOf)
	cacheBytes  int

	contClasses  grammar.ByteSet              // the byte classes of UTF-8 continuation bytes only
	utf8Rows     [][][]uint8                  // by form of utf8Seqs, by byte: its classes
	utf8Sets     [][]grammar.ByteSet          // the same as sets
	regionStates []earley.State               // scratch
	regionKey    []byte                       // scratch
	regionRow    []earley.State               // scratch
	labelKey     []byte                       // scratch (see labelTable)
	regions      [2]map[earley.State]regionOf // by funnels (0, 1) and State (see region)
	viewRegions  map[earley.State]regionOf    // by view (see viewRegion)
	bySig        [2]map[string]*sigRegion     // by funnels and the signature of a region's first State (see regionSig)
	firstAdded   int                          // scratch: how many States findRegion's first row added

	views   []earley.State // scratch
	escapes []int32        // scratch
	scratch [][]int32      // lists for walks' tokens (see takeScratch)

	// Of the byte classes in loopKnown[s], those in loopOf[s] lead from
	// State s back to s (see loops).
	loopOf    byState[grammar.ByteSet]
	loopKnown byState[grammar.ByteSet]

	runs        map[grammar.ByteSet]*runTable // by a chain's classes: the trie's tables this Masker uses, nil for none (see runsOf)
	chains      byState[chain]                // on first use (see chainOf)
	chainCount  map[earley.State]int          // scratch for chainOf
	chainStates []earley.State                // scratch: the States of the chain chainHeight followed
	charsLeads  byState[charsLeadResult]      // on first use (see charsLeadKnown)

	universes    byState[universe]         // on first use (see universalBelow)
	lowClasses   grammar.ByteSet           // the byte classes of bytes 00-7F only
	univSeen     map[earley.State]univFrom // scratch for closeUniverse: how each State was reached
	univStates   []earley.State            // scratch: the States closeUniverse reached
	univLike     int                       // the class charEnds last found characters lead like
	univFailures int                       // searches that found none (see universeFailures)

	contexts   map[string]Bitset        // by context key: a mask's tokens without a leaving byte (see context.go)
	contextMin int                      // the least work of a mask whose own part is kept (tests lower it)
	ctxKey     []byte                   // scratch
	ctxNodes   []int32                  // scratch for maskContext
	ctxStates  []earley.State           // scratch for maskContext
	ctxUp      []int32                  // scratch for maskContext
	coreNodes  map[earley.State][]int32 // by loop core: the trie nodes of the tokens its mask lacks (see core.go)
}

// MaskStats counts a Masker's work.
type MaskStats struct {
	Masks        int // calls of Mask
	CacheHits    int // masks served from the cache
	RoomHits     int // masks served by a State of the same room key (see earley.Machine.RoomKey)
	RoomReps     int // walks gone on from another position's State of the same room key (see roomRep)
	ContextHits  int // masks made of a State's own part kept by its context key (see context.go)
	Parts        int // masks made of those of a State's parts (see parts.go)
	Cores        int // masks made over a loop's core (see core.go)
	ViewWalks    int // walks from a new view of a scan item
	ViewRegions  int // those over a region of States and pending classes (see viewRegion)
	Escapes      int // subtrees walked again from a true State
	ShapeWalks   int // walks of the trie over a new region shape
	Funnels      int // shapes walked by the root's children (see walkFunnel)
	FunnelsKept  int // those made of the walks below the children kept from other shapes alone
	Chains       int // subtrees taken whole inside a bounded repetition (see chain)
	Universes    int // masks made over a State's universe, and subtrees taken whole over one (see universe)
	Stated       int // masks made over the universe a grammar's front end states (see maskOverStated)
	Absorbed     int // masks made over the characters a loop takes (see maskOverAbsorbed)
	Leavers      int // subtrees walked over the leavers of a loop (see leaverIndex)
	Runs         int // masks inside a bounded repetition taken from a run table (see runTable)
	PureKids     int // groups of a run table's pure kids, or prefixes of them, taken whole at once (see runGroup)
	ViewMasks    int // masks of States of many scan items served by their views rather than a region (see viewsSeen)
	RegionsBySig int // regions whose States but the first were kept by that State's signature (see regionSig)
	Nodes        int // trie nodes visited
}

// NewMasker returns a Masker for the grammar of m over vocabulary v, whose
// trie is t (build it once per vocabulary with NewTrie), with the mask of
// the start State computed.
func NewMasker(m *earley.Machine, v *Vocab, t *Trie) *Masker {
	return newMasker(m, v, t, labelsShared)
}

// Which trie a Masker walks (labels.go): tests and benchmarks compare them.
const (
	labelsShared = iota // the shared labels' trie where the grammar's classes allow it
	labelsOwn           // the trie relabelled by the grammar's classes
)

func newMasker(m *earley.Machine, v *Vocab, t *Trie, labels int) *Masker {
	k := &Masker{
		m: m, vocab: v,
		LocalDepth:    1,
		MaxCacheBytes: 256 << 20,
		cache:         make(map[earley.State]Bitset),
		byRoom:        make(map[string]Bitset),
		repByRoom:     make(map[string]earley.State),
		items:         make(map[earley.State]*itemWalk),
		seenViews:     make(map[earley.State]bool),
		subs:          make(map[subKey]*itemWalk),
		shapes:        make(map[string]map[int32]*shape),
		contexts:      make(map[string]Bitset),
		coreNodes:     make(map[earley.State][]int32),
		univSeen:      make(map[earley.State]univFrom),
	}
	var classes [256]uint8
	for b := range classes {
		classes[b] = uint8(m.ByteClass(byte(b)))
	}
	k.chooseLabels(t, &classes, labels)
	k.leavers = leaverMarks{x: &k.lt.leavers, marks: make([]uint64, (k.lt.trie.Nodes()+63)/64)}
	k.leaversMin, k.leaversFew = 1024, 8
	k.viewRegionMin = 4096
	k.contextMin = contextMinWork
	_, k.contClasses = highLabels(&classes, m.NumClasses())
	k.lowClasses = asciiOnly(&classes, m.NumClasses())
	k.utf8Rows, k.utf8Sets = utf8Classes(m.ByteClass)
	k.ordinary = NewBitset(t.size)
	for i, rules := 0, m.Grammar().Rules; i < len(rules) && !k.regex; i++ {
		k.regex = rules[i].Regex // by index: a schema's grammar may have 10^5 rules
	}
	for _, id := range k.lt.trie.ids {
		k.ordinary.Set(int(id))
	}
	k.runs = make(map[grammar.ByteSet]*runTable)
	for _, set := range m.RepeatedCharacters() {
		labels := k.labelSet(set)
		k.runs[set] = k.lt.runTable(&labels, true)
	}
	// Every sampler asks for the start State's mask first, and it is often
	// the costliest (a document's prolog): it is part of compiling.
	k.Mask(m.Start())
	return k
}

// chooseLabels sets the trie k walks (see labels.go).
func (k *Masker) chooseLabels(t *Trie, classes *[256]uint8, labels int) {
	m := k.m
	if labels == labelsShared && t.shared != nil {
		if of, ok := classesOfLabels(classes); ok {
			k.lt, k.class = t.shared, of
			k.labelsOf = make([]grammar.ByteSet, m.NumClasses())
			for l := range sharedLabels {
				k.labelsOf[of[l]].Add(uint8(l))
			}
			return
		}
	}
	k.lt = newLabelled(t, classes, m.NumClasses())
	for c := range k.class {
		k.class[c] = uint8(c)
	}
}

// labelsOfClass returns the trie labels of byte class c.
func (k *Masker) labelsOfClass(c uint8) grammar.ByteSet {
	if k.labelsOf == nil {
		var one grammar.ByteSet
		one.Add(c)
		return one
	}
	return k.labelsOf[c]
}

// labelSet returns the trie labels of the byte classes in set.
func (k *Masker) labelSet(set grammar.ByteSet) grammar.ByteSet {
	if k.labelsOf == nil {
		return set
	}
	var out grammar.ByteSet
	for w := range set {
		for x := set[w]; x != 0; x &= x - 1 {
			orInto(&out, &k.labelsOf[w<<6|bits.TrailingZeros64(x)])
		}
	}
	return out
}

// classSet is a set of the trie labels 0 to 127, half a ByteSet: a
// subtree's labels are read at every node a walk visits, and nearly every
// grammar has fewer classes, and the shared labels are fewer. Label 127
// stands for every label from 127 on.
type classSet [2]uint64

// subtreeClasses returns, by node of t, the labels in its subtree (the
// edge into the node included).
func subtreeClasses(t *Trie) []classSet {
	sets := make([]classSet, t.Nodes())
	// Children follow their parent in preorder: going backwards, a node
	// is complete when it is folded into its parent.
	for i := len(sets) - 1; i > 0; i-- {
		c := min(t.label[i], 127)
		sets[i][c>>6] |= 1 << (c & 63)
		p := &sets[t.parent[i]]
		p[0] |= sets[i][0]
		p[1] |= sets[i][1]
	}
	return sets
}

// deepest returns, by node of t, the most edges on a path below its
// parent, up to and including an edge whose class is in set, or 0 if no
// edge of its subtree is in set (at most 255); an edge whose class is in
// free does not count. With every class in set and none free, it is the
// length of the node's longest path; with the first bytes of multi-byte
// characters in set and continuation bytes free, the most characters up
// to where the last multi-byte one starts (a class that mixes them counts,
// which may count too many, never too few).
func deepest(t *Trie, set, free *grammar.ByteSet) []uint8 {
	depth := make([]uint8, t.Nodes())
	for i := len(depth) - 1; i > 0; i-- {
		if set.Has(t.label[i]) {
			depth[i] = max(depth[i], 1)
		}
		if p := t.parent[i]; depth[i] > 0 {
			grow := uint8(1)
			if free.Has(t.label[p]) {
				grow = 0
			}
			depth[p] = max(depth[p], min(depth[i], 254)+grow)
		}
	}
	return depth
}

// subtreeWithin reports whether the trie labels of node i's subtree are
// all in set (false where it cannot tell: a label from 127 on, with more
// than 128 labels).
func (k *Masker) subtreeWithin(i int32, set *grammar.ByteSet) bool { return k.lt.within(i, set) }

// within is Masker.subtreeWithin.
func (lt *labelled) within(i int32, set *grammar.ByteSet) bool {
	a := &lt.subtree[i]
	if lt.many && a[1]>>63 != 0 {
		return false
	}
	return a[0]&^set[0] == 0 && a[1]&^set[1] == 0
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
	roomKey := ""
	if k.m.InBoundedRepetition(s) {
		if key := k.m.RoomKey(s, k.lt.trie.longest, k.roomKey[:0]); key != nil {
			k.roomKey = key
			if b, ok := k.byRoom[string(key)]; ok {
				k.Stats.RoomHits++
				k.cache[s] = b
				k.remember(8)
				return b
			}
			roomKey = string(key)
		}
	}
	if k.viewsSeen(s) {
		k.Stats.ViewMasks++
		b := k.newMask()
		k.maskViews(s, &sink{bits: b})
		return k.keep(s, b, roomKey)
	}
	// Inside a bounded repetition a State's own context (see context.go);
	// elsewhere, the rest of a State apart from its context's literals.
	if k.m.InBoundedRepetition(s) {
		if key, lv := k.contextKey(s); key != nil {
			return k.keep(s, k.maskByContext(s, key, lv), roomKey)
		}
	} else if last, after, ok := k.m.PartsLeaving(s); ok {
		if lv := k.pairLeavingOf(last, after); lv != nil {
			return k.keep(s, k.maskParts(s, last, after, lv), roomKey)
		}
	}
	return k.keep(s, k.walkState(s), roomKey)
}

// newMask returns an empty Bitset over the vocabulary for a mask to keep,
// cut from a block of masksPerBlock of them: most masks are made in a few
// microseconds, and allocating and clearing each on its own was a sixth of
// that.
func (k *Masker) newMask() Bitset {
	n := (k.lt.trie.size + 63) / 64
	if len(k.maskBlock) < n {
		k.maskBlock = make([]uint64, n*masksPerBlock)
	}
	b := Bitset(k.maskBlock[:n:n])
	k.maskBlock = k.maskBlock[n:]
	return b
}

// masksPerBlock is how many masks newMask allocates at once.
const masksPerBlock = 16

// walkState returns the ordinary tokens viable from s, found over its
// universe or what its loop absorbs, its region, the views of its scan
// items, a run table or the trie.
func (k *Masker) walkState(s earley.State) Bitset {
	b := k.newMask()
	out := &sink{bits: b}
	if k.maskOverStated(s, b) || k.m.InBoundedRepetition(s) && k.maskOverUniverse(s, b) ||
		k.maskOverAbsorbed(s, true, b) || k.regex && k.m.InRegex(s) && k.maskOverUniverse(s, b) {
		return b
	}
	if states, key, ok := k.region(s, true); ok {
		k.maskRegion(states, nil, key, 0, out, false)
	} else if k.LocalDepth > 0 && !k.m.InBoundedRepetition(s) {
		k.views = k.m.ScanViews(s, k.LocalDepth, k.views[:0])
		k.maskViews(s, out)
	} else if c, r := k.runsOf(s); r != nil {
		// A run table adds tokens (an inverted sink would have to drop
		// those of dead exits instead), many at once.
		k.Stats.Runs++
		k.walkRuns(s, c, r, out)
	} else if k.mostlyBelow(0, func(l uint8) bool { n, _ := k.m.StepLocal(s, int(k.class[l])); return n != earley.Dead }) {
		if k.maskOverLoop(s, b) || k.maskOverAbsorbed(s, false, b) {
			return b
		}
		copy(b, k.ordinary)
		out.inverted = true
		k.walk(s, 0, true, out, false, grammar.ByteSet{})
	} else {
		k.walk(s, 0, true, out, false, grammar.ByteSet{})
	}
	return b
}

// keep adds the EOS tokens to b if s accepts, and keeps b as the mask of
// s and of its room key.
func (k *Masker) keep(s earley.State, b Bitset, roomKey string) Bitset {
	if k.m.Accepting(s) {
		for _, id := range k.vocab.EOS {
			b.Set(id)
		}
	}
	k.remember(8 * len(b))
	k.cache[s] = b
	if roomKey != "" {
		k.remember(len(roomKey))
		k.byRoom[roomKey] = b
	}
	return b
}

// maskViews adds to out the tokens viable from s as the union of what the
// views in k.views, those of s's scan items, allow (each walk cached), and
// the walks of their escapes from s.
func (k *Masker) maskViews(s earley.State, out *sink) {
	escapes := k.escapes[:0]
	for _, v := range k.views {
		iw := k.items[v]
		if iw == nil {
			iw = k.walkView(v, 0)
			k.items[v] = iw
		}
		iw.addTo(out)
		escapes = append(escapes, iw.escapes...)
	}
	k.escapes = escapes
	k.walkEscapes(s, 0, k.outermost(escapes), out, false)
}

// viewsSeen reports whether a State of many scan items (viewsMin), which
// a region would serve, is served by the views of its scan items instead
// (left in k.views): where most of them were views of an earlier such
// State. A JSON object's member names start so: each member's State is
// new, with its own region, but its views (the trie of names, the names
// still to come) are those of the member before (pkg/earley's views by
// waiters), and their walks are kept. The first State of a kind takes
// its region, whose walk costs less than walking the views afresh.
func (k *Masker) viewsSeen(s earley.State) bool {
	if k.LocalDepth == 0 || k.m.ScanItems(s) < viewsMin || k.m.InBoundedRepetition(s) {
		return false
	}
	k.views = k.m.ScanViews(s, k.LocalDepth, k.views[:0])
	seen := 0
	for _, v := range k.views {
		if k.seenViews[v] {
			seen++
		} else {
			k.seenViews[v] = true
			k.remember(16)
		}
	}
	return 2*seen > len(k.views)
}

// viewsMin is the fewest scan items of a State that viewsSeen considers.
const viewsMin = 32

// sink collects the tokens a walk accepts: into a Bitset, or, when list
// is set, appended to ids (cheap for the small sets most views allow). A
// list sink with a limit turns into a Bitset of size tokens once it holds
// more than limit ids: a walk that may accept many tokens need not start
// with 16 KB to zero and scan. An inverted sink starts with every ordinary
// token and drops those of the subtrees a walk prunes: where a walk accepts
// most of the vocabulary (inside a string), there are far fewer of them.
type sink struct {
	bits     Bitset
	list     bool
	ids      []int32
	limit    int
	size     int
	inverted bool
}

// drop removes ids from an inverted sink.
func (k *sink) drop(ids []int32) {
	bits := k.bits
	for _, id := range ids {
		bits[uint32(id)>>6] &^= 1 << (uint32(id) & 63)
	}
}

// dropBelow removes from an inverted sink the tokens of the subtree of the
// root's child c: a funnel's exits drop most of the vocabulary (an SQL
// keyword's 100,000 tokens), cleared a Bitset's word at a time where the
// child has more tokens than the Bitset words (rootBits, made with the
// labelled trie rather than by the first step that needs them).
func (lt *labelled) dropBelow(out *sink, c int32) {
	b, ok := lt.rootBits[c]
	if !ok {
		t := lt.trie
		out.drop(t.ids[t.first[c]:t.first[t.end[c]]])
		return
	}
	for w, x := range b {
		out.bits[w] &^= x
	}
}

// mostlyBelow reports whether the children of trie node root whose
// labels live tells apart begin more than half of the tokens below root
// (root 0: of the trie's tokens): then a walk fills an inverted sink.
func (k *Masker) mostlyBelow(root int32, live func(label uint8) bool) bool {
	t := k.lt.trie
	n := 0
	for i := root + 1; i < t.end[root]; i = t.end[i] {
		if live(t.label[i]) {
			n += int(t.first[t.end[i]] - t.first[i])
		}
	}
	return n > int(t.first[t.end[root]]-t.first[root+1])/2
}

func (k *sink) add(ids []int32) {
	if k.inverted {
		return // they are in it already
	}
	if k.list {
		k.addList(ids)
		return
	}
	bits := k.bits
	for _, id := range ids {
		bits[uint32(id)>>6] |= 1 << (uint32(id) & 63)
	}
}

func (k *sink) addList(ids []int32) {
	k.ids = append(k.ids, ids...)
	if k.limit > 0 && len(k.ids) > k.limit {
		k.toBits()
	}
}

// toBits turns a list sink with a limit into a Bitset.
func (k *sink) toBits() {
	k.bits, k.list = NewBitset(k.size), false
	for _, id := range k.ids {
		k.bits.Set(int(id))
	}
	k.ids = nil
}

// itemWalk is what a walk from the view of one scan item found: the tokens
// it accepts in every context, as a Bitset or, when there are few, a list,
// and the trie nodes whose subtrees it could not decide.
type itemWalk struct {
	bits    Bitset
	ids     []int32
	escapes []int32
}

func (w *itemWalk) addTo(out *sink) {
	switch {
	case w.bits == nil:
		out.add(w.ids)
	case out.list && out.limit == 0: // a list for good
		w.bits.Each(func(id int) { out.ids = append(out.ids, int32(id)) })
	default:
		if out.list {
			out.toBits() // a Bitset holds more than the limit
		}
		for i, x := range w.bits {
			out.bits[i] |= x
		}
	}
}

// walkView walks the descendants of trie node from view v, the State at
// node, and keeps the result compactly.
func (k *Masker) walkView(v earley.State, node int32) *itemWalk {
	k.Stats.ViewWalks++
	// A list while it is sparse, a Bitset once not. The list grows in a
	// scratch buffer (walks nest: one a level) and is kept at its size.
	out := &sink{list: true, limit: k.lt.trie.size / 32, size: k.lt.trie.size, ids: k.takeScratch()}
	var escapes []int32
	if states, key, ok := k.viewRegionAt(v, node); ok {
		// A wide view (the trie of a member's names): over its region's
		// shape, as a true State's mask is, not node by node.
		escapes = k.maskRegion(states, nil, key, 0, out, true)
	} else if r := k.viewRegionBelow(v, node); r.ok {
		// A view that escapes (an identifier, that may end at each
		// letter): over its region of States and what is pending.
		k.Stats.ViewRegions++
		escapes = k.maskRegion(r.states, r.pends, r.key, node, out, true)
	} else {
		escapes = k.walk(v, node, true, out, true, grammar.ByteSet{})
	}
	iw := &itemWalk{escapes: escapes}
	if out.list {
		iw.ids = slices.Clone(out.ids)
		k.scratch = append(k.scratch, out.ids[:0])
		k.remember(4 * len(iw.ids))
	} else {
		iw.bits = out.bits
		k.remember(8 * len(iw.bits))
	}
	k.remember(4 * len(iw.escapes))
	return iw
}

// viewRegionAt returns the region of view v for a walk of the whole trie
// (node 0); a view whose steps escape in it has none (findRegion), but
// may have one of pairs (viewRegion).
func (k *Masker) viewRegionAt(v earley.State, node int32) (states []earley.State, key []byte, ok bool) {
	if node != 0 {
		return nil, nil, false
	}
	return k.region(v, true)
}

// takeScratch returns an empty list with room, from those walks gave back.
func (k *Masker) takeScratch() []int32 {
	if n := len(k.scratch); n > 0 {
		ids := k.scratch[n-1]
		k.scratch = k.scratch[:n-1]
		return ids
	}
	return make([]int32, 0, 1024)
}

// outermost sorts trie nodes and drops duplicates and nodes inside the
// subtree of another.
func (k *Masker) outermost(nodes []int32) []int32 {
	slices.Sort(nodes)
	out := nodes[:0]
	for _, n := range nodes {
		if len(out) > 0 && n < k.lt.trie.end[out[len(out)-1]] {
			continue
		}
		out = append(out, n)
	}
	return out
}

// remember accounts for n more cached bytes, emptying the caches first if
// they would grow past MaxCacheBytes.
func (k *Masker) remember(n int) {
	if k.cacheBytes+n > k.MaxCacheBytes {
		clear(k.cache)
		clear(k.byRoom)
		clear(k.contexts)
		clear(k.coreNodes)
		clear(k.items)
		clear(k.seenViews)
		clear(k.subs)
		clear(k.shapes)
		clear(k.regions[0])
		clear(k.regions[1])
		clear(k.viewRegions)
		clear(k.bySig[0])
		clear(k.bySig[1])
		k.cacheBytes = 0
	}
	k.cacheBytes += n
}

// walk adds to b the ordinary tokens in a subtree of the trie whose bytes
// are viable from State s. With below set, s is the State at node root and
// the subtree is root's descendants (root 0: the whole trie); otherwise s is
// the State at root's parent and the subtree includes root.
//
// From a view (local), a token is accepted when the view's own items keep
// it alive: they are a part of the true set's. A step that escaped the view
// means the true set holds items the view cannot see; where the view then
// dies on a byte those items could scan, the subtree is undecided, and walk
// returns its root node instead. Escaped is what the path to s left
// pending (see pendingAfter).
//
// Below the first byte of a whole-trie walk, large subtrees are not walked
// directly: the State there is split into the views of its scan items, and
// each view's walk of the subtree is cached. After a space and inside an
// expression, say, every view that starts an identifier is the same, so the
// identifiers are walked once, whatever came before the space.
func (k *Masker) walk(s earley.State, root int32, below bool, b *sink, local bool, escaped grammar.ByteSet) (escapes []int32) {
	t := k.lt.trie
	first, base := root, t.depth[root]-1
	if below {
		if k.loopLeavers(s, root, escaped, b, local, &escapes) {
			return escapes
		}
		first, base = root+1, t.depth[root]
	}
	// stack[d] is the State after the first base+d bytes of the current
	// node's path; esc[d] what its escapes left pending.
	// On the goroutine's stack while tokens are short: a region's frontier
	// calls walk once per node.
	var stackBuf [32]earley.State
	var escBuf [32]grammar.ByteSet
	stack := append(stackBuf[:0], s)
	esc := append(escBuf[:0], escaped)
	nodes := 0
	// Below the root, most of the first bytes are dead where s scans a few
	// classes (a literal's view): skip them without a step.
	skipDead := root == 0 && below && !b.inverted && escaped == (grammar.ByteSet{})
	scan := k.m.ScanClasses(s)
	for i, end := first, t.end[root]; i < end; {
		nodes++
		d := t.depth[i] - base
		parent := stack[d-1]
		c := int(k.class[t.label[i]])
		if d == 1 && skipDead && !scan.Has(uint8(c)) {
			i = t.end[i]
			continue
		}
		next, e := k.m.StepLocal(parent, c)
		switch {
		case next == earley.Dead:
			if local && esc[d-1].Has(uint8(c)) {
				escapes = append(escapes, i)
			}
			if b.inverted {
				b.drop(t.ids[t.first[i]:t.first[t.end[i]]])
			}
			i = t.end[i]
			continue
		case k.whole(parent, next, i):
			// Every byte below keeps the parent's State, or every path
			// below is a string its bounded repetition takes: all viable.
			b.add(t.ids[t.first[i]:t.first[t.end[i]]])
			i = t.end[i]
			continue
		}
		if f := t.first[i]; t.first[i+1] > f {
			b.add(t.ids[f:t.first[i+1]])
		}
		// Only a view's walk reads what escapes leave pending below the
		// first byte (a true State's has nothing to escape to).
		var pend grammar.ByteSet
		if local || d == 1 {
			pend = k.pendingAfter(&esc[d-1], parent, c, e)
		}
		if root == 0 && d == 1 && pend == (grammar.ByteSet{}) && k.LocalDepth > 0 && t.end[i]-i >= splitMin && !k.m.InBoundedRepetition(s) {
			escapes = append(escapes, k.split(next, i, b, local)...)
			i = t.end[i]
			continue
		}
		if k.loopLeavers(next, i, pend, b, local, &escapes) {
			i = t.end[i]
			continue
		}
		stack = append(stack[:d], k.goOnFrom(next))
		if local {
			esc = append(esc[:d], pend)
		}
		i++
	}
	k.Stats.Nodes += nodes
	return escapes
}

// loopLeavers walks the subtree below trie node i, at State s, where
// pend is pending (see walk), over the leavers of the classes that lead s
// back to itself (see overLeavers) if the subtree has leaversMin nodes
// and s loops on at least minLoopClasses classes; it adds to b and escapes what walk would and reports whether
// it did. From a view, a step of the loop may escape it and leave classes
// pending (see pendingAfter): each leaver is walked with pend and all that
// the loop's steps may leave pending, a superset of what is pending at its
// parent (which costs at most a walk from the true State, never a token),
// and a class of the loop in that set is a leaver (after it every class is
// pending).
func (k *Masker) loopLeavers(s earley.State, i int32, pend grammar.ByteSet, b *sink, local bool, escapes *[]int32) bool {
	if k.lt.trie.end[i]-i < k.leaversMin || k.m.InBoundedRepetition(s) || k.m.ScanWidth(s) < minLoopClasses {
		return false
	}
	loop := k.loopClasses(s)
	if loop.Len() < minLoopClasses {
		return false
	}
	if local {
		for c := range k.m.NumClasses() {
			if !loop.Has(uint8(c)) {
				continue
			}
			if _, e := k.m.StepLocal(s, c); e { // known: loopClasses stepped it
				after := k.m.EscapeFollow(s, c)
				orInto(&pend, &after)
			}
		}
	}
	stay := loop
	for w := range stay {
		stay[w] &^= pend[w]
	}
	if stay.Len() < minLoopClasses {
		return false
	}
	stay = k.labelSet(stay)
	return k.overLeavers(i, &stay, b, func(j int32) {
		*escapes = append(*escapes, k.walk(s, j, false, b, local, pend)...)
	})
}

// whole reports whether every path below trie node i and the edge into
// it, which leads its parent's State parent to next (live), is viable:
// every class below leads parent back to itself (see loopsBelow), or the
// bounded repetition of parent takes every path (see chainBelow), or
// every path is over the universe of parent (see universalBelow).
func (k *Masker) whole(parent, next earley.State, i int32) bool {
	if next == parent {
		if k.loopsBelow(parent, i) {
			return true
		}
	} else if k.lt.trie.end[i]-i > 1 && k.chainBelow(parent, i) {
		return true
	}
	return k.universalBelow(parent, i)
}

// splitMin is the size of a subtree below which split is not worth it.
const splitMin = 256

// split adds to b the tokens below trie node i that are viable from s, the
// State at i, as the union of what the views of s's scan items allow (each
// cached by view and node), and returns the nodes it leaves undecided.
func (k *Masker) split(s earley.State, i int32, b *sink, local bool) []int32 {
	return k.splitViews(s, k.m.ScanViews(s, k.LocalDepth, nil), i, b, local)
}

// splitViews is split with the views of s already found.
func (k *Masker) splitViews(s earley.State, views []earley.State, i int32, b *sink, local bool) []int32 {
	var escapes []int32
	for _, v := range views {
		key := subKey{v, i}
		sw := k.subs[key]
		if sw == nil {
			sw = k.walkView(v, i)
			k.subs[key] = sw
		}
		sw.addTo(b)
		escapes = append(escapes, sw.escapes...)
	}
	return k.walkEscapes(s, i, k.outermost(escapes), b, local)
}

type subKey struct {
	view earley.State
	node int32
}

// walkEscapes walks the subtrees rooted at the given nodes, below node from
// whose State is s, and returns those it leaves undecided in turn (only when
// s is a view: local). The roots come in preorder, so the path to each is
// stepped from the longest prefix it shares with the path to the one before.
func (k *Masker) walkEscapes(s earley.State, from int32, roots []int32, b *sink, local bool) (undecided []int32) {
	t := k.lt.trie
	base := t.depth[from]
	path := []int32{from}         // trie nodes on the current path, by depth-base
	states := []earley.State{s}   // the State after each
	escs := []grammar.ByteSet{{}} // what its escapes left pending (see pendingAfter)
	var climb []int32
	for _, r := range roots {
		// Find the deepest ancestor of r on the current path.
		climb = climb[:0]
		n := t.parent[r]
		for d := t.depth[n] - base; int(d) >= len(path) || path[d] != n; d = t.depth[n] - base {
			climb = append(climb, n)
			n = t.parent[n]
		}
		d := t.depth[n] - base
		path, states, escs = path[:d+1], states[:d+1], escs[:d+1]
		ps, pe := states[d], escs[d]
		for j := len(climb) - 1; j >= 0 && ps != earley.Dead; j-- {
			c := int(k.class[t.label[climb[j]]])
			next, e := k.m.StepLocal(ps, c)
			switch {
			case next != earley.Dead:
				pe = k.pendingAfter(&pe, ps, c, e)
			case !pe.Has(uint8(c)):
				pe = grammar.ByteSet{} // dead in the true set too
			}
			ps = next
			path = append(path, climb[j])
			states = append(states, ps)
			escs = append(escs, pe)
		}
		switch {
		case ps == earley.Dead && pe != (grammar.ByteSet{}) && local:
			undecided = append(undecided, r)
		case ps == earley.Dead:
		default:
			k.Stats.Escapes++
			undecided = append(undecided, k.walk(ps, r, false, b, local, pe)...)
		}
	}
	return undecided
}

// pendingAfter returns what the escapes of a walk's path leave pending
// after a live step from parent by class c that escaped or not (esc):
// the classes that the items a view cannot see, which the path completed
// into origins beyond it, could scan next (earley.Machine.EscapeFollow).
// Where the view dies on a class that is not pending, the true set dies
// too. If those items could scan c, they may be anywhere after it: every
// class is pending from then on.
func (k *Masker) pendingAfter(pending *grammar.ByteSet, parent earley.State, c int, esc bool) grammar.ByteSet {
	if pending.Has(uint8(c)) {
		return grammar.ByteSet{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}
	}
	if esc {
		return k.m.EscapeFollow(parent, c)
	}
	return grammar.ByteSet{}
}

// byState holds a value by Earley State, in chunks that grow as States
// are added without moving what they hold: a slice's doubling paused one
// step for milliseconds on grammars of 10^5 States. A State not seen
// before has the zero T.
type byState[T any] struct{ chunks []*[byStateChunk]T }

const byStateChunk = 4096 // a power of two: at is a shift and a mask

// at returns the slot of State s; it stays where it is as States are added.
func (t *byState[T]) at(s earley.State) *T {
	c := int(uint32(s) / byStateChunk)
	if c >= len(t.chunks) {
		t.grow(c)
	}
	return &t.chunks[c][uint32(s)%byStateChunk]
}

func (t *byState[T]) grow(c int) {
	for len(t.chunks) <= c {
		t.chunks = append(t.chunks, new([byStateChunk]T))
	}
}

// has reports whether s has a slot yet (at makes one).
func (t *byState[T]) has(s earley.State) bool { return int(uint32(s)/byStateChunk) < len(t.chunks) }

// loopsBelow reports whether every label in the subtree of trie node i
// leads from s back to s (see loops).
func (k *Masker) loopsBelow(s earley.State, i int32) bool {
	a := &k.lt.subtree[i]
	if k.loopOf.has(s) { // the fast path: labels already known to loop
		l := k.loopOf.at(s)
		if a[0]&^l[0] == 0 && a[1]&^l[1] == 0 {
			return !k.lt.many || a[1]>>63 == 0
		}
	}
	return k.loopsBelowSlow(s, a)
}

// loopsBelowSlow is loopsBelow where some label in a is not known to loop
// yet.
func (k *Masker) loopsBelowSlow(s earley.State, a *classSet) bool {
	if k.lt.many && a[1]>>63 != 0 {
		return false
	}
	set := grammar.ByteSet{a[0], a[1]}
	return k.loops(s, &set)
}

// loops reports whether every trie label in set leads from s back to s.
// It steps s by the classes of the labels it has not tested before, in
// increasing order, and stops at the first that does not loop: a walk asks
// it only where the edge's own class loops, inside an identifier, a number
// or a string, so it builds the States of the classes in a subtree only
// where most of them stay in the loop.
func (k *Masker) loops(s earley.State, set *grammar.ByteSet) bool {
	known, loop := k.loopKnown.at(s), k.loopOf.at(s)
	if subsetOf(set, loop) {
		return true
	}
	for w := range set {
		if set[w]&known[w]&^loop[w] != 0 {
			return false // a class already known not to loop
		}
	}
	for w := range set {
		for x := set[w] &^ known[w]; x != 0; x &= x - 1 {
			l := uint8(w<<6 | bits.TrailingZeros64(x))
			if known.Has(l) {
				continue // a label of a class tested since
			}
			c := k.class[l]
			same := k.labelsOfClass(c)
			orInto(known, &same)
			if next, _ := k.m.StepLocal(s, int(c)); next != s {
				return false
			}
			orInto(loop, &same)
		}
	}
	return true
}

// loopClasses returns the byte classes that lead from s back to s.
func (k *Masker) loopClasses(s earley.State) grammar.ByteSet {
	var loop grammar.ByteSet
	scan := k.m.ScanClasses(s)
	for c := 0; c < k.m.NumClasses(); c++ {
		if !scan.Has(uint8(c)) {
			continue
		}
		if one := k.labelsOfClass(uint8(c)); k.loops(s, &one) {
			loop.Add(uint8(c))
		}
	}
	return loop
}

// A chain is what a walk may take whole below a State inside a bounded
// repetition (X{0,64}, a JSON schema's maxLength): every string of at most
// height bytes whose classes are all in classes is viable from it. Each
// position of the repetition is its own State, so no class loops, but the
// chain of a position takes every token that fits in what is left, and a
// walk of the letters after "Ada" stops at the first byte of most tokens.
type chain struct {
	classes grammar.ByteSet
	labels  grammar.ByteSet // the trie labels of classes
	next    earley.State    // where each of classes leads
	height  uint8           // maxChain: any length
	known   bool
	// chars is the height in characters when multi-byte ones count too: the
	// number of positions from the State on at which every multi-byte UTF-8
	// character leads where classes lead, as far as checked (see
	// chainChars); charsAt is the State at position chars, charsDone
	// whether chars is final.
	chars     uint8
	charsAt   earley.State
	charsDone bool
}

const (
	maxChain   = 255 // a chain's height when its classes loop
	chainMin   = 16  // the size of a subtree below which a chain is not worth finding
	charsAhead = 8   // how many positions further than known chainBelow checks characters at
)

// chainBelow reports whether every path in the subtree of trie node i is
// a string that the chain of s (the State at i's parent) takes. Finding a
// chain builds the States of the positions ahead: for a subtree of fewer
// than chainMin nodes, walking it costs less, so it is taken whole only
// where what is known of the chain already says so.
func (k *Masker) chainBelow(s earley.State, i int32) bool {
	if !k.m.InBoundedRepetition(s) {
		return false
	}
	small := k.lt.trie.end[i]-i < chainMin
	if small && (!k.chains.has(s) || !k.chains.at(s).known) {
		return false
	}
	c := k.chainOf(s)
	h := k.lt.height[i]
	if c.height < h {
		return false
	}
	if !k.subtreeWithin(i, &c.labels) {
		// Multi-byte characters: a subtree of valid UTF-8 has no more
		// characters on a path than bytes.
		wide := c.labels
		orInto(&wide, &k.lt.high)
		if !k.lt.trie.utf8[i] || !k.subtreeWithin(i, &wide) {
			return false
		}
		// The positions where a multi-byte character may start must be
		// checked: those up to where its last one starts (leadDepth). Checking
		// builds the States inside the characters of every form at each
		// position, so it goes only a few positions further than known:
		// the walk below builds those of the characters tokens have.
		need := k.lt.leadDepth[i]
		if need > c.chars && (small || need > c.chars+charsAhead || k.chainChars(s, need) < need) {
			return false
		}
	}
	k.Stats.Chains++
	return true
}

// chainTakes is chainBelow's test for many subtrees at once: whether the
// known chain of s takes every valid UTF-8 path of up to height bytes over
// labels (which the chain's must hold) and multi-byte characters, whose
// last multi-byte character starts within lead characters.
func (k *Masker) chainTakes(s earley.State, labels *grammar.ByteSet, height, lead uint8) bool {
	if !k.m.InBoundedRepetition(s) || !k.chains.has(s) || !k.chains.at(s).known { // finding it would build States
		return false
	}
	c := k.chains.at(s)
	return subsetOf(labels, &c.labels) && c.height >= height &&
		(lead <= c.chars || lead <= c.chars+charsAhead && k.chainChars(s, lead) >= lead)
}

// chainOf returns the chain of s: the classes that lead s to the State
// next that most of its classes lead to, and as height 1 plus the number
// of steps from next by which all of those classes lead to one live State
// (any length once that State is the one before).
func (k *Masker) chainOf(s earley.State) chain {
	if c := *k.chains.at(s); c.known {
		return c
	}
	if k.chainCount == nil {
		k.chainCount = make(map[earley.State]int)
	}
	clear(k.chainCount)
	scan := k.m.ScanClasses(s)
	next, most := earley.Dead, 0
	for cl := 0; cl < k.m.NumClasses(); cl++ {
		if scan.Has(uint8(cl)) {
			n, _ := k.m.StepLocal(s, cl)
			if k.chainCount[n]++; n != earley.Dead && k.chainCount[n] > most {
				next, most = n, k.chainCount[n]
			}
		}
	}
	c := chain{known: true, next: next}
	k.chainStates = k.chainStates[:0]
	if next != earley.Dead {
		for cl := 0; cl < k.m.NumClasses(); cl++ {
			if n, _ := k.m.StepLocal(s, cl); scan.Has(uint8(cl)) && n == next {
				c.classes.Add(uint8(cl))
			}
		}
		c.height = k.chainHeight(s, next, &c.classes)
		c.labels = k.labelSet(c.classes)
	}
	*k.chains.at(s) = c
	k.passOn(c, k.chainStates)
	return c
}

// passOn gives the States of a chain after its first, levels[j] the one
// j+1 steps on, the rest of it as their chains where they have none yet:
// every string over its classes no longer than what is left is viable from
// each (a chain by classes of its own may reach further, but need not be
// found: the walks of the next positions then cost nothing more).
func (k *Masker) passOn(c chain, levels []earley.State) {
	for j, q := range levels {
		if k.chains.at(q).known || c.height != maxChain && int(c.height) <= j+1 {
			continue
		}
		d := c
		if c.height != maxChain {
			d.height = c.height - uint8(j+1)
		}
		d.chars, d.charsAt, d.charsDone = 0, 0, false
		if j+1 < len(levels) {
			d.next = levels[j+1]
		} else {
			d.next, _ = k.m.StepLocal(q, firstClass(&c.classes))
		}
		*k.chains.at(q) = d
	}
}

func firstClass(set *grammar.ByteSet) int {
	for w := range set {
		if set[w] != 0 {
			return w<<6 | bits.TrailingZeros64(set[w])
		}
	}
	return 0
}

// chainHeight returns the height of the chain of s by classes, whose
// first step leads to next (see chainOf).
func (k *Masker) chainHeight(s, next earley.State, classes *grammar.ByteSet) uint8 {
	if next == s {
		return maxChain
	}
	h := uint8(1)
	// No subtree is taller than the trie: following the chain further
	// would build States no walk needs.
	one := firstClass(classes)
	for q := next; h < min(maxChain-1, k.lt.height[0]); h++ {
		k.chainStates = append(k.chainStates, q)
		if !k.m.ScanAlike(q, classes) {
			return h
		}
		to, _ := k.m.StepLocal(q, one)
		if to == earley.Dead {
			return h
		}
		if to == q || k.sameRoom(q, to) {
			return maxChain
		}
		q = to
	}
	return h
}

// sameRoom reports whether States a and b allow the same strings of up to
// the longest token's bytes: two positions of a bounded repetition far
// from its bound, of one earley.Machine.RoomKey (see roomRep).
func (k *Masker) sameRoom(a, b earley.State) bool { return k.roomRep(a) == k.roomRep(b) }

// roomRep returns the first State the Masker met of s's room key, or s
// where it has none (near a bounded repetition's bound, or outside one).
// The two allow the same strings of up to the longest token's bytes, so a
// walk may go on from either: one that takes the bytes of a JSON string
// of maxLength 256 steps from its first positions' States rather than
// build a State for each position a token reaches (and the States inside
// each position's multi-byte characters).
func (k *Masker) roomRep(s earley.State) earley.State {
	if !k.m.InBoundedRepetition(s) {
		return s
	}
	slot := k.roomReps.at(s)
	if *slot != 0 {
		return *slot - 1
	}
	rep := s
	if key := k.m.RoomKey(s, k.lt.trie.longest, k.roomScratch[:0]); key != nil {
		k.roomScratch = key
		if q, ok := k.repByRoom[string(key)]; ok {
			rep = q
		} else {
			k.repByRoom[string(key)] = s // kept with the States: never emptied
		}
	}
	*slot = rep + 1
	return rep
}

// goOnFrom returns the State a walk goes on from after next: its room
// key's first (see roomRep). It is exact at any depth: below a node d
// bytes deep the paths have at most longest-d bytes, and a State that
// allows what the true one does for n bytes allows, a byte on, what the
// true one's step does for n-1.
func (k *Masker) goOnFrom(next earley.State) earley.State {
	rep := k.roomRep(next)
	if rep != next {
		k.Stats.RoomReps++
	}
	return rep
}

// chainChars returns the chain of s's height in characters (see chain),
// or a number of at least need that is not more: from s, and from each
// State its classes lead to in turn, every class path of every multi-byte
// UTF-8 form (utf8.go) must lead through live States to the State the
// chain's classes lead to. The positions are checked as far as a walk has
// needed, since each builds the States inside its characters.
func (k *Masker) chainChars(s earley.State, need uint8) uint8 {
	c := k.chainOf(s)
	if c.charsDone || c.chars >= need {
		return c.chars
	}
	one := firstClass(&c.classes) // a class of the chain
	q := s
	if c.chars > 0 {
		q = c.charsAt
	}
	for c.chars < need {
		if c.chars == c.height {
			c.charsDone = true
			break
		}
		to, _ := k.m.StepLocal(q, one)
		if !k.charsLeadKnown(q, to, one) {
			c.charsDone = true
			break
		}
		c.chars++
		if to == q || k.sameRoom(q, to) { // a loop: every position allows what this one does
			c.chars, c.charsDone = c.height, true
			break
		}
		q = to
	}
	c.charsAt = q
	*k.chains.at(s) = c
	return c.chars
}

// charsLeadResult is what charsLead found for a State q: whether it leads
// to to, plus one (0: not known).
type charsLeadResult struct {
	to earley.State
	ok int8 // 1 no, 2 yes
}

// charsLeadKnown is charsLead, kept by q, where to is q's step by class
// one: a bounded repetition's positions are checked again by the chain of
// each later position (see chainChars). A check builds the States inside
// every form of character, eighteen a position, unless the Machine can
// tell from q's items alone that every form leads where one does
// (earley.Machine.CharsLikeClass: a string's character class).
func (k *Masker) charsLeadKnown(q, to earley.State, one int) bool {
	if r := *k.charsLeads.at(q); r.ok != 0 && r.to == to {
		return r.ok == 2
	}
	ok := k.m.CharsLikeClass(q, k.utf8Rows, one) || k.charsLead(q, to)
	r := k.charsLeads.at(q)
	*r = charsLeadResult{to, 1}
	if ok {
		r.ok = 2
	}
	return ok
}

// charsLead reports whether every class path of every multi-byte UTF-8
// form leads from q through live States to to.
func (k *Masker) charsLead(q, to earley.State) bool {
	var buf [2][8]earley.State
	for f := range k.utf8Rows {
		ends, ok := k.formEnds(q, f, &buf)
		if !ok || len(ends) != 1 || ends[0] != to {
			return false
		}
	}
	return true
}

// formEnds returns the States every class path of multi-byte UTF-8 form
// f (utf8Rows) leads q to, in buf, or false if one dies on the way.
func (k *Masker) formEnds(q earley.State, f int, buf *[2][8]earley.State) ([]earley.State, bool) {
	cur, spare := append(buf[0][:0], q), buf[1][:0]
	for j, classes := range k.utf8Rows[f] {
		next := spare[:0]
		for _, st := range cur {
			step := classes
			if k.m.ScanAlike(st, &k.utf8Sets[f][j]) {
				step = classes[:1] // all lead where the first does
			}
			for _, cl := range step {
				n, _ := k.m.StepLocal(st, int(cl))
				if n == earley.Dead {
					return nil, false
				}
				if !slices.Contains(next, n) {
					next = append(next, n)
				}
			}
		}
		cur, spare = next, cur
	}
	return cur, true
}
