package earley

// LoopCore returns the State of the closure of one item of s, the oldest
// of its loops X ::= X • Y of another origin (a search pattern's leading
// .*, a string's characters): that State's items are items of s (s
// predicted Y too, and completed what it completes), and the State's
// completions read fewer waiters than s's, so every string viable from it
// is viable from s. It is the same State at every position of the loop.
// It returns false where s has no such item or it is s itself.
func (m *Machine) LoopCore(s State) (State, bool) {
	best := item{origin: -1}
	for _, it := range m.states.at(s).items {
		if it.origin < 0 || best.origin >= 0 && it.origin >= best.origin {
			continue
		}
		p := m.lrProd(it.lr)
		rhs := m.g.Prods[p].RHS
		if it.lr-m.prodBase[p] == 1 && !rhs[0].IsTerminal() && int32(rhs[0].Rule()) == m.lrLHS[it.lr] {
			best = it
		}
	}
	if best.origin < 0 {
		return Dead, false
	}
	seen := &m.seen
	seen.reset()
	items := m.addItem(m.items[:0], seen, best)
	items, _ = m.closure(items, seen)
	items = m.mergeOrigins(items)
	core := m.intern(items)
	m.items = items[:0]
	return core, core != s
}
