package earley

import "github.com/gasplab/gasp/pkg/grammar"

// Universal returns the statement u (grammar.Universal) that a front end
// made of the rules of s's scan items, where s is at a point of which it
// speaks: every scan item of s is in a rule of u, all of them have one
// origin (they read one derivation), and together they scan every byte
// of u.Bytes. Then every string over u.Bytes is viable from s (and, with
// u.Wide, every string of them and of valid multi-byte UTF-8 characters).
func (m *Machine) Universal(s State) (u *grammar.Universal, ok bool) {
	st := m.states.at(s)
	if len(st.scan) == 0 {
		return nil, false
	}
	origin := int32(s)
	for i, it := range st.scan {
		o := it.origin
		switch o {
		case opaque:
			return nil, false
		case self:
			o = int32(s)
		}
		r := m.g.Rules[m.lrLHS[it.lr]].Universal
		if r == nil || i > 0 && (r != u || o != origin) {
			return nil, false
		}
		u, origin = r, o
	}
	for b := range 256 {
		if u.Bytes.Has(byte(b)) && !st.scanClasses.Has(m.classOf[b]) {
			return nil, false
		}
	}
	return u, true
}
