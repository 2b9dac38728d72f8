package grammar

import "fmt"

// Validate checks the guarantees of a compiled grammar: Start is a valid
// rule; every rule has at least one production, and Rules[i].Prods lists
// exactly the productions whose LHS is i, each production in one rule;
// every RHS symbol is a valid rule or terminal; every terminal is a
// non-empty byte set; every rule derives some finite string and is
// reachable from Start. It returns the first violation found.
func (g *Grammar) Validate() error {
	if len(g.Rules) == 0 {
		return fmt.Errorf("grammar has no rules")
	}
	if g.Start < 0 || g.Start >= len(g.Rules) {
		return fmt.Errorf("start rule index %d out of range [0,%d)", g.Start, len(g.Rules))
	}
	for t, s := range g.Terminals {
		if s.Len() == 0 {
			return fmt.Errorf("terminal %d is an empty byte set", t)
		}
	}
	owner := make([]int, len(g.Prods))
	for p := range owner {
		owner[p] = -1
	}
	for i, r := range g.Rules {
		if len(r.Prods) == 0 {
			return fmt.Errorf("rule %d (%s) has no productions", i, r.Name)
		}
		for _, p := range r.Prods {
			if p < 0 || p >= len(g.Prods) {
				return fmt.Errorf("rule %d (%s) lists production %d out of range [0,%d)", i, r.Name, p, len(g.Prods))
			}
			if owner[p] >= 0 {
				return fmt.Errorf("production %d is listed by rules %d and %d", p, owner[p], i)
			}
			owner[p] = i
			if g.Prods[p].LHS != i {
				return fmt.Errorf("rule %d (%s) lists production %d whose LHS is %d", i, r.Name, p, g.Prods[p].LHS)
			}
		}
	}
	for p, pr := range g.Prods {
		if owner[p] < 0 {
			return fmt.Errorf("production %d is listed by no rule", p)
		}
		for _, s := range pr.RHS {
			if s.IsTerminal() && s.Terminal() >= len(g.Terminals) {
				return fmt.Errorf("production %d uses terminal %d out of range [0,%d)", p, s.Terminal(), len(g.Terminals))
			}
			if !s.IsTerminal() && s.Rule() >= len(g.Rules) {
				return fmt.Errorf("production %d uses rule %d out of range [0,%d)", p, s.Rule(), len(g.Rules))
			}
		}
	}
	productive := g.productive()
	reachable := g.reachable(g.Start, nil)
	for i, r := range g.Rules {
		if !productive[i] {
			return fmt.Errorf("rule %d (%s) derives no finite string", i, r.Name)
		}
		if !reachable[i] {
			return fmt.Errorf("rule %d (%s) is unreachable from the start rule", i, r.Name)
		}
	}
	return nil
}
