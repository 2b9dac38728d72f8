package grammar

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Sample is SampleLimit with no limit on the sentence's length: only for
// grammars whose sentences at maxDepth are known to be short.
func Sample(g *Grammar, rng *rand.Rand, maxDepth int) []byte {
	out, _ := SampleLimit(g, rng, maxDepth, math.MaxInt)
	return out
}

// A LengthError is a sentence SampleLimit gave up on: longer than Limit
// bytes, or (Steps) a derivation of more than Limit×16 expansions.
type LengthError struct {
	Limit, Depth int
	Steps        bool
}

func (e *LengthError) Error() string {
	if e.Steps {
		return fmt.Sprintf("grammar: a derivation of more than %d steps at depth limit %d (its sentence could be longer than %d bytes)", stepLimit(e.Limit), e.Depth, e.Limit)
	}
	return fmt.Sprintf("grammar: a sentence longer than %d bytes at depth limit %d", e.Limit, e.Depth)
}

// stepLimit bounds the expansions of a sentence of at most maxLen bytes:
// rules that derive the empty string can take many steps for no byte.
func stepLimit(maxLen int) int {
	return min(maxLen, math.MaxInt/16) * 16
}

// SampleLimit returns a random sentence: at each nonterminal, uniform
// choice among its alternatives; once the derivation depth exceeds
// maxDepth, choose only among alternatives of minimal derivation height, so
// it always terminates. rng is math/rand/v2.
//
// Each terminal contributes a byte chosen uniformly from its set. The start
// rule is at depth 0. g must be a compiled grammar (see Validate). The
// length of a sentence is not bounded by maxDepth alone: a rule with
// several recursive occurrences can make it grow exponentially with
// maxDepth, and a grammar's shortest sentence can have 2^64 bytes. Past
// maxLen bytes (or 16×maxLen expansions) SampleLimit stops and returns a
// *LengthError, having allocated about maxLen bytes.
func SampleLimit(g *Grammar, rng *rand.Rand, maxDepth, maxLen int) ([]byte, error) {
	if g.Start < 0 || g.Start >= len(g.Rules) {
		return nil, nil
	}
	minProds := g.minHeightProds()
	type frame struct {
		sym   Symbol
		depth int
	}
	var out []byte
	stack := []frame{{NT(g.Start), 0}}
	for steps := 0; len(stack) > 0; steps++ {
		if len(out) > maxLen || steps > stepLimit(maxLen) || len(stack) > maxLen {
			return nil, &LengthError{Limit: maxLen, Depth: maxDepth, Steps: len(out) <= maxLen}
		}
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if f.sym.IsTerminal() {
			out = append(out, pickByte(&g.Terminals[f.sym.Terminal()], rng))
			continue
		}
		choices := g.Rules[f.sym.Rule()].Prods
		if f.depth > maxDepth && len(minProds[f.sym.Rule()]) > 0 {
			choices = minProds[f.sym.Rule()]
		}
		if len(choices) == 0 {
			continue // not a compiled grammar; do not panic
		}
		rhs := g.Prods[choices[rng.IntN(len(choices))]].RHS
		for k := len(rhs) - 1; k >= 0; k-- {
			stack = append(stack, frame{rhs[k], f.depth + 1})
		}
	}
	if len(out) > maxLen {
		return nil, &LengthError{Limit: maxLen, Depth: maxDepth}
	}
	return out, nil
}

func pickByte(s *ByteSet, rng *rand.Rand) byte {
	n := s.Len()
	if n == 0 {
		return 0
	}
	k := rng.IntN(n)
	for c := 0; ; c++ {
		if s.Has(byte(c)) {
			if k == 0 {
				return byte(c)
			}
			k--
		}
	}
}

// minHeightProds returns, for each rule, its productions of minimal
// derivation height, where the height of a production is 1 plus the largest
// height of the rules on its right (1 with none), and a rule's height is
// that of its lowest production. Every rule used by a minimal production
// is strictly lower than the rule, so always choosing minimal productions
// terminates.
//
// Heights are computed in increasing order, Dijkstra-style with buckets: a
// production's height is known when the last of its rules is.
func (g *Grammar) minHeightProds() [][]int {
	height := make([]int, len(g.Rules))
	for i := range height {
		height[i] = -1
	}
	pending := make([]int, len(g.Prods))
	uses := make([][]int, len(g.Rules))
	var buckets [][]int // buckets[h]: rules with a production of height h
	push := func(h, r int) {
		for len(buckets) <= h {
			buckets = append(buckets, nil)
		}
		buckets[h] = append(buckets[h], r)
	}
	for p, pr := range g.Prods {
		for _, s := range pr.RHS {
			if !s.IsTerminal() {
				pending[p]++
				uses[s.Rule()] = append(uses[s.Rule()], p)
			}
		}
		if pending[p] == 0 {
			push(1, pr.LHS)
		}
	}
	for h := 1; h < len(buckets); h++ {
		for _, r := range buckets[h] {
			if height[r] >= 0 {
				continue
			}
			height[r] = h
			for _, p := range uses[r] {
				if pending[p]--; pending[p] == 0 {
					push(h+1, g.Prods[p].LHS)
				}
			}
		}
	}
	minProds := make([][]int, len(g.Rules))
	for i, r := range g.Rules {
		if height[i] < 0 {
			continue
		}
		for _, p := range r.Prods {
			h, ok := 1, true
			for _, s := range g.Prods[p].RHS {
				if !s.IsTerminal() {
					if height[s.Rule()] < 0 {
						ok = false
						break
					}
					h = max(h, height[s.Rule()]+1)
				}
			}
			if ok && h == height[i] {
				minProds[i] = append(minProds[i], p)
			}
		}
	}
	return minProds
}
