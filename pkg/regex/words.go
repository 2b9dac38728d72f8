package regex

import (
	"fmt"
	"maps"
	"regexp/syntax"
	"slices"
	"unicode"

	"github.com/gasplab/gasp/pkg/grammar"
)

// Searched words.
//
// In Search mode, the alternatives that are plain words unanchored at the
// start (alpha|beta|rc$: ".*(alpha|beta).*|.*rc") are written as the
// automaton that reads a string until the first word ends (Aho–Corasick's:
// a trie of the words, each node's failure link the longest suffix of its
// path that is also a path), in left-linear rules: X_q is the text read so
// far leaving the automaton in node q, so X_r ::= X_q c for each step
// q → r; after a word looked for anywhere, any text follows, and a word
// looked for at the end ends the text. Written .*word.*, an Earley State
// tracks each way the text so far may end in part of a word, and every
// such combination is a State of its own; the automaton is one State per
// node.

// searchWord returns the word of a Search-mode alternative's items (after
// trimSearch) if they are a literal (not case-folded) unanchored at the
// start, and whether it is anchored at the end.
func searchWord(its []*syntax.Regexp, begin, end bool) (w []rune, atEnd, ok bool) {
	if len(its) == 1 && !begin && its[0].Op == syntax.OpLiteral && its[0].Flags&syntax.FoldCase == 0 {
		return its[0].Rune, end, true
	}
	return nil, false, false
}

// wordAutomaton is the automaton of a set of words: node 0 is the root;
// next[q] maps a character of the words to the node a step from q leads
// to (any other character leads to the root); done[q] says that a word
// looked for anywhere ends at q (q's path ends with it), last[q] that a
// word looked for at the end does.
type wordAutomaton struct {
	alphabet   []rune // the characters of the words, sorted
	next       []map[rune]int
	done, last []bool
}

func newWordAutomaton(words, atEnd [][]rune) *wordAutomaton {
	a := &wordAutomaton{next: []map[rune]int{{}}, done: []bool{false}, last: []bool{false}}
	child := []map[rune]int{{}}
	add := func(w []rune, mark *[]bool) {
		q := 0
		for _, c := range w {
			r, ok := child[q][c]
			if !ok {
				r = len(child)
				child = append(child, map[rune]int{})
				a.next = append(a.next, map[rune]int{})
				a.done = append(a.done, false)
				a.last = append(a.last, false)
				child[q][c] = r
			}
			q = r
		}
		(*mark)[q] = true
	}
	for _, w := range words {
		add(w, &a.done)
	}
	for _, w := range atEnd {
		add(w, &a.last)
	}
	// Breadth first: a node's failure link is nearer the root, so its
	// steps are known when the node's are made.
	a.alphabet = letters(words, atEnd)
	fail := make([]int, len(child))
	queue := []int{0}
	for len(queue) > 0 {
		q := queue[0]
		queue = queue[1:]
		a.done[q] = a.done[q] || a.done[fail[q]]
		a.last[q] = a.last[q] || a.last[fail[q]]
		for _, c := range a.alphabet {
			if r, ok := child[q][c]; ok {
				if q > 0 {
					fail[r] = a.next[fail[q]][c]
				}
				a.next[q][c] = r
				queue = append(queue, r)
			} else if q > 0 {
				a.next[q][c] = a.next[fail[q]][c]
			}
		}
	}
	return a
}

// letters returns the characters of the words, sorted.
func letters(words, atEnd [][]rune) []rune {
	var cs []rune
	for _, w := range append(slices.Clone(words), atEnd...) {
		cs = append(cs, w...)
	}
	slices.Sort(cs)
	return slices.Compact(cs)
}

// searchWordsExpr returns the strings that contain one of words or end
// with one of atEnd, written as the words' automaton in left-linear rules
// that it appends to l.opts.Rules.
func (l *lowerer) searchWordsExpr(words, atEnd [][]rune) grammar.Expr {
	a := newWordAutomaton(words, atEnd)
	base := fmt.Sprintf("re%d", len(*l.opts.Rules))
	rule := func(name string) (*grammar.RuleDef, grammar.Expr) {
		def := &grammar.RuleDef{Name: base + "-" + name, NamePos: l.pos(0), Regex: true}
		*l.opts.Rules = append(*l.opts.Rules, def)
		return def, &grammar.Ref{NamePos: l.pos(0), Name: def.Name}
	}
	alphabet := a.alphabet
	others, other := rule("other") // a character of no word
	others.Body = l.chars(grammar.Complement(runeRanges(alphabet)))
	nodes := make([]*grammar.RuleDef, len(a.next))
	refs := make([]grammar.Expr, len(a.next))
	var ends []grammar.Expr // the language: a word found, or a text that ends with an end word
	for q := range a.next {
		if !a.done[q] {
			nodes[q], refs[q] = rule(fmt.Sprint(q))
			if a.last[q] {
				ends = append(ends, refs[q])
			}
		}
	}
	var found *grammar.RuleDef
	var foundAlts []grammar.Expr
	if len(words) > 0 { // a word has ended: any text follows
		var foundRef grammar.Expr
		found, foundRef = rule("found")
		anys, anyChar := rule("any")
		anys.Body = l.chars([]grammar.RuneRange{{Lo: 0, Hi: unicode.MaxRune}})
		foundAlts = append(foundAlts, l.seq([]grammar.Expr{foundRef, anyChar}))
		ends = append(ends, foundRef)
	}
	alts := make([][]grammar.Expr, len(a.next)) // by node: its rule's alternatives
	alts[0] = append(alts[0], l.seq(nil))
	for q := range a.next {
		if a.done[q] {
			continue
		}
		alts[0] = append(alts[0], l.seq([]grammar.Expr{refs[q], other}))
		byTarget := map[int][]rune{}
		for _, c := range alphabet {
			byTarget[a.next[q][c]] = append(byTarget[a.next[q][c]], c)
		}
		for _, r := range slices.Sorted(maps.Keys(byTarget)) {
			step := l.seq([]grammar.Expr{refs[q], l.chars(runeRanges(byTarget[r]))})
			if a.done[r] {
				foundAlts = append(foundAlts, step)
			} else {
				alts[r] = append(alts[r], step)
			}
		}
	}
	for q, def := range nodes {
		if def != nil {
			def.Body = l.alt(alts[q])
		}
	}
	if found != nil {
		found.Body = l.alt(foundAlts)
	}
	return l.alt(ends)
}

// runeRanges returns sorted characters as ranges.
func runeRanges(cs []rune) []grammar.RuneRange {
	var out []grammar.RuneRange
	for _, c := range cs {
		if n := len(out); n > 0 && out[n-1].Hi+1 == c {
			out[n-1].Hi = c
			continue
		}
		out = append(out, grammar.RuneRange{Lo: c, Hi: c})
	}
	return out
}
