package lark

import (
	"regexp"
	"regexp/syntax"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/gasplab/gasp/pkg/grammar"
)

// A stop describes where a match of a terminal can end: the characters
// after which the match can go on to a longer complete one at once (acc)
// and those after which it can only go on through an incomplete one (mid).
type stop struct{ acc, mid runeSet }

// stops returns one stop for each accepting state of a deterministic
// automaton of the terminal x, built from its RE2 form by the subset
// construction; false when it cannot be built (beyond maxDFAStates states
// or maxDFAWork steps).
func (c *compiler) stops(x node) ([]stop, bool) {
	pat, ok := c.toGo(x, map[string]bool{})
	if !ok {
		return nil, false
	}
	re, err := syntax.Parse(pat, syntax.Perl)
	if err != nil {
		return nil, false
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return nil, false
	}
	return dfaStops(prog)
}

// toGo spells a terminal node as one RE2 pattern.
func (c *compiler) toGo(x node, seen map[string]bool) (string, bool) {
	switch x := x.(type) {
	case *altNode, *seqNode:
		var xs []node
		sep := ""
		if a, isAlt := x.(*altNode); isAlt {
			xs, sep = a.xs, "|"
		} else {
			xs = x.(*seqNode).xs
		}
		parts := make([]string, len(xs))
		for i, y := range xs {
			s, ok := c.toGo(y, seen)
			if !ok {
				return "", false
			}
			parts[i] = s
		}
		return "(?:" + strings.Join(parts, sep) + ")", true
	case *repNode:
		s, ok := c.toGo(x.x, seen)
		if !ok {
			return "", false
		}
		if x.max < 0 {
			return "(?:" + s + "){" + itoa(x.min) + ",}", true
		}
		return "(?:" + s + "){" + itoa(x.min) + "," + itoa(x.max) + "}", true
	case *nameNode:
		d := c.defs[x.name]
		if d == nil || seen[x.name] {
			return "", false
		}
		seen[x.name] = true
		defer delete(seen, x.name)
		return c.toGo(d.body, seen)
	case *litNode:
		if x.fold {
			return "(?i:" + regexp.QuoteMeta(x.s) + ")", true
		}
		return "(?:" + regexp.QuoteMeta(x.s) + ")", true
	case *rangeNode:
		return `[\x{` + hex(x.lo) + `}-\x{` + hex(x.hi) + `}]`, true
	case *reNode:
		pat, err := pyToGo(x.pattern, x.flags)
		if err != nil {
			return "", false
		}
		return "(?:" + pat + ")", true
	}
	return "", false
}

func itoa(n int) string { return strconv.Itoa(n) }

func hex(r rune) string { return strconv.FormatInt(int64(r), 16) }

func runeRange(lo, hi rune) grammar.RuneRange { return grammar.RuneRange{Lo: lo, Hi: hi} }

// maxDFAStates and maxDFAWork bound the subset construction: states, and
// state-by-character-class steps.
const (
	maxDFAStates = 4000
	maxDFAWork   = 1 << 18
)

// dfaStops runs the subset construction on prog over the classes of
// characters its instructions distinguish and, for each accepting state,
// sorts the classes that lead to a state from which acceptance is still
// reachable into those that lead to an accepting state and the others.
func dfaStops(prog *syntax.Prog) ([]stop, bool) {
	reps := representatives(prog)
	type state struct {
		pcs    []uint32
		accept bool
	}
	var states []state
	index := map[string]int{}
	add := func(pcs []uint32, accept bool) (int, bool) {
		k := key(pcs, accept)
		if i, ok := index[k]; ok {
			return i, true
		}
		if len(states) >= maxDFAStates {
			return 0, false
		}
		index[k] = len(states)
		states = append(states, state{pcs, accept})
		return len(states) - 1, true
	}
	pcs, acc := closure(prog, []uint32{uint32(prog.Start)})
	add(pcs, acc)
	type edge struct{ from, to, rep int }
	var edges []edge
	work := 0
	for i := 0; i < len(states); i++ {
		if work += len(reps) * (1 + len(states[i].pcs)); work > maxDFAWork {
			return nil, false
		}
		for ri, r := range reps {
			var next []uint32
			for _, pc := range states[i].pcs {
				if prog.Inst[pc].MatchRune(r.Lo) {
					next = append(next, prog.Inst[pc].Out)
				}
			}
			if len(next) == 0 {
				continue
			}
			npcs, nacc := closure(prog, next)
			j, ok := add(npcs, nacc)
			if !ok {
				return nil, false
			}
			edges = append(edges, edge{i, j, ri})
		}
	}
	// live: states from which an accepting state is reachable.
	live := make([]bool, len(states))
	for i, s := range states {
		live[i] = s.accept
	}
	for changed := true; changed; {
		changed = false
		for _, e := range edges {
			if live[e.to] && !live[e.from] {
				live[e.from], changed = true, true
			}
		}
	}
	byState := map[int]*stop{}
	var out []*stop
	for i, s := range states {
		if s.accept {
			byState[i] = &stop{}
			out = append(out, byState[i])
		}
	}
	for _, e := range edges {
		s := byState[e.from]
		switch {
		case s == nil || !live[e.to]:
		case states[e.to].accept:
			s.acc = append(s.acc, reps[e.rep])
		default:
			s.mid = append(s.mid, reps[e.rep])
		}
	}
	ss := make([]stop, len(out))
	for i, s := range out {
		ss[i] = stop{s.acc.normal(), s.mid.normal()}
	}
	return ss, true
}

// representatives splits the characters into ranges on which every rune
// instruction of prog agrees (case-folded instructions split at each
// member of their folding orbit).
func representatives(prog *syntax.Prog) runeSet {
	cuts := map[rune]bool{0: true, unicode.MaxRune + 1: true, '\n': true, '\n' + 1: true}
	for _, in := range prog.Inst {
		switch in.Op {
		case syntax.InstRune, syntax.InstRune1:
			for i, r := range in.Rune {
				cuts[r] = true
				if i%2 == 1 || len(in.Rune) == 1 {
					cuts[r+1] = true
				}
				if syntax.Flags(in.Arg)&syntax.FoldCase != 0 {
					for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
						cuts[f], cuts[f+1] = true, true
					}
				}
			}
		}
	}
	var bs []rune
	for r := range cuts {
		bs = append(bs, r)
	}
	sort.Slice(bs, func(i, j int) bool { return bs[i] < bs[j] })
	var out runeSet
	for i := 0; i+1 < len(bs); i++ {
		out = append(out, runeRange(bs[i], bs[i+1]-1))
	}
	return out
}

// closure follows the empty moves from pcs; it returns the sorted rune
// instructions reached and whether a match is.
func closure(prog *syntax.Prog, pcs []uint32) ([]uint32, bool) {
	seen := map[uint32]bool{}
	var out []uint32
	accept := false
	var visit func(pc uint32)
	visit = func(pc uint32) {
		if seen[pc] {
			return
		}
		seen[pc] = true
		in := &prog.Inst[pc]
		switch in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			visit(in.Out)
			visit(in.Arg)
		case syntax.InstCapture, syntax.InstNop, syntax.InstEmptyWidth:
			visit(in.Out)
		case syntax.InstMatch:
			accept = true
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			out = append(out, pc)
		}
	}
	for _, pc := range pcs {
		visit(pc)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out, accept
}

func key(pcs []uint32, accept bool) string {
	var b strings.Builder
	if accept {
		b.WriteByte('!')
	}
	for _, pc := range pcs {
		b.WriteString(strconv.Itoa(int(pc)))
		b.WriteByte(',')
	}
	return b.String()
}
