package earley

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gasplab/gasp/pkg/grammar"
)

// Node is a node of a parse tree. Leaves are terminals (Rule == -1) spanning one byte.
type Node struct {
	Rule       int    // rule index in the grammar, or -1 for a terminal leaf
	Name       string // rule name ("" for leaves)
	Start, End int    // byte span [Start, End) in the input
	Children   []*Node
}

// Parse parses a complete sentence and returns one parse tree (the grammar
// may be ambiguous: any one derivation, chosen deterministically). It returns
// an error saying at which byte offset the input stops being a viable prefix,
// or that the input is an incomplete prefix.
//
// Parse is a classical Earley chart parser with absolute origins, independent
// of the incremental Machine, so that each can check the other. Its cost is
// linear for the left-recursive loops compiled grammars use, and at worst
// cubic in the input length.
func Parse(g *grammar.Grammar, input []byte) (*Node, error) {
	c := newChart(g, input)
	for j := 0; j <= len(input); j++ {
		c.process(j)
		if j < len(input) && len(c.sets[j+1]) == 0 {
			return nil, fmt.Errorf("earley: input is not viable at byte offset %d (byte %q)", j, input[j])
		}
	}
	n := len(input)
	for idx, it := range c.sets[n] {
		p := &g.Prods[it.prod]
		if p.LHS == g.Start && it.origin == 0 && int(it.dot) == len(p.RHS) {
			return c.tree(n, idx), nil
		}
	}
	return nil, fmt.Errorf("earley: input is an incomplete prefix: more input is needed after byte offset %d", n)
}

// Ways an item was first made, stored in chartItem.child for items with dot > 0.
const (
	madeByScan     = -1 // the symbol before the dot is a terminal matching the previous byte
	madeByNullable = -2 // the symbol before the dot is a nullable rule skipped over (Aycock–Horspool)
)

// A chartItem is an Earley item (prod, dot, origin) in the set of its end
// position, with a back pointer to how it was first made. Because a back
// pointer only refers to items that existed before, following back pointers
// always terminates, even for cyclic grammars such as A ::= A | "a".
type chartItem struct {
	prod, dot, origin int32
	// For dot > 0: the item with the dot one symbol earlier is
	// sets[predSet][predIdx], and child says how the symbol before the dot
	// was matched: madeByScan, madeByNullable, or the index in this set of
	// the completed item for that symbol.
	predSet, predIdx, child int32
}

type chartKey struct{ prod, dot, origin int32 }

// A waitEntry records that item idx of a set has rule after its dot: it
// waits for that rule to complete.
type waitEntry struct {
	rule, idx int32
}

type chart struct {
	g     *grammar.Grammar
	input []byte
	sets  [][]chartItem
	// waits[i] lists, sorted by rule, the items of sets[i] whose next symbol
	// is a rule; it is filled when set i is done, before later sets need it.
	waits [][]waitEntry
	// seen deduplicates the items of the set being processed and the next one.
	seen, seenNext map[chartKey]bool
	// nullProd[r] is a production of rule r whose right-hand side consists
	// of rules that became nullable earlier, or -1: it gives a finite
	// ε-derivation for every nullable rule.
	nullProd []int
}

func newChart(g *grammar.Grammar, input []byte) *chart {
	c := &chart{
		g:        g,
		input:    input,
		sets:     make([][]chartItem, len(input)+1),
		waits:    make([][]waitEntry, len(input)+1),
		seen:     map[chartKey]bool{},
		seenNext: map[chartKey]bool{},
		nullProd: make([]int, len(g.Rules)),
	}
	for i := range c.nullProd {
		c.nullProd[i] = -1
	}
	for changed := true; changed; {
		changed = false
		for pi, p := range g.Prods {
			if c.nullProd[p.LHS] >= 0 {
				continue
			}
			ok := true
			for _, s := range p.RHS {
				if s.IsTerminal() || c.nullProd[s.Rule()] < 0 {
					ok = false
					break
				}
			}
			if ok {
				c.nullProd[p.LHS] = pi
				changed = true
			}
		}
	}
	for _, pi := range g.Rules[g.Start].Prods {
		c.add(0, c.seen, chartItem{prod: int32(pi), predSet: -1, predIdx: -1})
	}
	return c
}

// add appends it to set j unless an item with the same (prod, dot, origin) is there.
func (c *chart) add(j int, seen map[chartKey]bool, it chartItem) {
	k := chartKey{it.prod, it.dot, it.origin}
	if seen[k] {
		return
	}
	seen[k] = true
	c.sets[j] = append(c.sets[j], it)
}

// process runs prediction, completion and scanning over set j until it is
// closed, filling set j+1 with the scanned items.
func (c *chart) process(j int) {
	g := c.g
	for idx := 0; idx < len(c.sets[j]); idx++ {
		it := c.sets[j][idx]
		rhs := g.Prods[it.prod].RHS
		if int(it.dot) == len(rhs) {
			// An item with origin j derived ε; Aycock–Horspool prediction
			// already advanced every item of set j over its rule.
			if int(it.origin) == j {
				continue
			}
			lhs := int32(g.Prods[it.prod].LHS)
			ws := c.waits[it.origin]
			w0, _ := slices.BinarySearchFunc(ws, lhs, func(e waitEntry, r int32) int { return cmp.Compare(e.rule, r) })
			for _, w := range ws[w0:] {
				if w.rule != lhs {
					break
				}
				parent := c.sets[it.origin][w.idx]
				c.add(j, c.seen, chartItem{
					prod: parent.prod, dot: parent.dot + 1, origin: parent.origin,
					predSet: it.origin, predIdx: w.idx, child: int32(idx),
				})
			}
			continue
		}
		next := rhs[it.dot]
		if next.IsTerminal() {
			if j < len(c.input) && g.Terminals[next.Terminal()].Has(c.input[j]) {
				c.add(j+1, c.seenNext, chartItem{
					prod: it.prod, dot: it.dot + 1, origin: it.origin,
					predSet: int32(j), predIdx: int32(idx), child: madeByScan,
				})
			}
			continue
		}
		r := next.Rule()
		for _, pi := range g.Rules[r].Prods {
			c.add(j, c.seen, chartItem{prod: int32(pi), origin: int32(j), predSet: -1, predIdx: -1})
		}
		if c.nullProd[r] >= 0 {
			c.add(j, c.seen, chartItem{
				prod: it.prod, dot: it.dot + 1, origin: it.origin,
				predSet: int32(j), predIdx: int32(idx), child: madeByNullable,
			})
		}
	}

	var ws []waitEntry
	for idx, it := range c.sets[j] {
		rhs := g.Prods[it.prod].RHS
		if int(it.dot) < len(rhs) && !rhs[it.dot].IsTerminal() {
			ws = append(ws, waitEntry{int32(rhs[it.dot].Rule()), int32(idx)})
		}
	}
	// A stable sort keeps items of one rule in chart order, so that
	// completion, and with it the tree chosen, is deterministic.
	slices.SortStableFunc(ws, func(a, b waitEntry) int { return cmp.Compare(a.rule, b.rule) })
	c.waits[j] = ws
	c.seen, c.seenNext = c.seenNext, c.seen
	clear(c.seenNext)
}

// tree builds the parse tree of the completed item sets[j][idx]. It uses an
// explicit work list rather than recursion: the left spine of a loop is as
// deep as the input is long.
func (c *chart) tree(j, idx int) *Node {
	type work struct {
		n      *Node
		j, idx int // the completed item to expand; idx < 0: expand n as ε
	}
	g := c.g
	newNode := func(rule, start, end int) *Node {
		return &Node{Rule: rule, Name: g.Rules[rule].Name, Start: start, End: end}
	}
	root := c.sets[j][idx]
	rootNode := newNode(g.Prods[root.prod].LHS, int(root.origin), j)
	stack := []work{{rootNode, j, idx}}
	for len(stack) > 0 {
		w := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if w.idx < 0 {
			// An ε-derivation: nullProd chooses a production whose rules
			// became nullable earlier, so this ends.
			for _, s := range g.Prods[c.nullProd[w.n.Rule]].RHS {
				ch := newNode(s.Rule(), w.n.Start, w.n.Start)
				w.n.Children = append(w.n.Children, ch)
				stack = append(stack, work{ch, 0, -1})
			}
			continue
		}
		it := c.sets[w.j][w.idx]
		rhs := g.Prods[it.prod].RHS
		w.n.Children = make([]*Node, len(rhs))
		// Walk the back pointers from the end of the production to its
		// start, one symbol per step.
		end := w.j
		for d := len(rhs) - 1; d >= 0; d-- {
			start := int(it.predSet)
			switch it.child {
			case madeByScan:
				w.n.Children[d] = &Node{Rule: -1, Start: start, End: end}
			case madeByNullable:
				ch := newNode(rhs[d].Rule(), end, end)
				w.n.Children[d] = ch
				stack = append(stack, work{ch, 0, -1})
			default:
				ch := newNode(rhs[d].Rule(), start, end)
				w.n.Children[d] = ch
				stack = append(stack, work{ch, end, int(it.child)})
			}
			end = start
			it = c.sets[it.predSet][it.predIdx]
		}
	}
	return rootNode
}

// Flatten returns a copy of the tree in which generated rules
// (Rule.Generated) are replaced by their children, so the tree shows only
// rules the user wrote. The root is kept even if its rule is generated.
func (n *Node) Flatten(g *grammar.Grammar) *Node {
	type work struct{ src, dst *Node }
	root := &Node{Rule: n.Rule, Name: n.Name, Start: n.Start, End: n.End}
	stack := []work{{n, root}}
	for len(stack) > 0 {
		w := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		// Splice generated children in place, using a stack in place of
		// recursion (loops nest generated rules as deep as the input).
		todo := slices.Clone(w.src.Children)
		slices.Reverse(todo)
		for len(todo) > 0 {
			ch := todo[len(todo)-1]
			todo = todo[:len(todo)-1]
			if ch.Rule >= 0 && g.Rules[ch.Rule].Generated {
				for i := len(ch.Children) - 1; i >= 0; i-- {
					todo = append(todo, ch.Children[i])
				}
				continue
			}
			cp := &Node{Rule: ch.Rule, Name: ch.Name, Start: ch.Start, End: ch.End}
			w.dst.Children = append(w.dst.Children, cp)
			stack = append(stack, work{ch, cp})
		}
	}
	return root
}

// Format renders the tree as an indented outline, one node per line:
// `name [start,end) "text"`, with leaves as `[start,end) "text"`, and
// children indented by two spaces under their parent.
func (n *Node) Format(input []byte) string {
	type work struct {
		n     *Node
		depth int
	}
	var b strings.Builder
	stack := []work{{n, 0}}
	for len(stack) > 0 {
		w := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for range w.depth {
			b.WriteString("  ")
		}
		if w.n.Name != "" {
			b.WriteString(w.n.Name)
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "[%d,%d) %s\n", w.n.Start, w.n.End, strconv.Quote(string(input[w.n.Start:w.n.End])))
		for i := len(w.n.Children) - 1; i >= 0; i-- {
			stack = append(stack, work{w.n.Children[i], w.depth + 1})
		}
	}
	return b.String()
}
