package jsonschema

import (
	"strings"

	"github.com/gasplab/gasp/pkg/earley"
)

// maxWriteSteps bounds Write's search over member orders.
const maxWriteSteps = 1 << 20

// Write returns a text of v that the grammar of m accepts, if there is
// one: v's canonical text, with the members of each object in an order the
// grammar allows. It searches the orders by backtracking, pruned by the
// parser (a member that cannot come next is refused at its name), so
// that an instance written in any order, such as a benchmark's, can be
// put in the schema's order. It reports false if no order is accepted, or
// if the search exceeds a bound (maxWriteSteps members tried).
func Write(m *earley.Machine, v *Value) ([]byte, bool) {
	w := &writer{p: m.NewParser()}
	ok := w.value(v, func() bool { return w.p.Complete() })
	if !ok {
		return nil, false
	}
	return append([]byte(nil), w.p.Bytes()...), true
}

type writer struct {
	p     *earley.Parser
	steps int
}

// feed consumes s, reporting whether the prefix stays viable.
func (w *writer) feed(s string) bool { return w.p.FeedBytes([]byte(s)) }

// value writes v and then runs k; on failure it leaves the parser as it
// found it.
func (w *writer) value(v *Value, k func() bool) bool {
	cp := w.p.Checkpoint()
	ok := w.valueOnce(v, k)
	if !ok {
		w.p.Rollback(cp)
	}
	return ok
}

func (w *writer) valueOnce(v *Value, k func() bool) bool {
	switch v.Kind {
	case Array:
		if !w.feed("[") {
			return false
		}
		return w.elements(v.Arr, 0, k)
	case Object:
		if !w.feed("{") {
			return false
		}
		used := make([]bool, len(v.Obj))
		return w.members(v.Obj, used, 0, k)
	}
	return w.feed(Canonical(v)) && k()
}

func (w *writer) elements(es []*Value, i int, k func() bool) bool {
	if i == len(es) {
		return w.feed("]") && k()
	}
	if i > 0 && !w.feed(",") {
		return false
	}
	return w.value(es[i], func() bool { return w.elements(es, i+1, k) })
}

// members tries each unused member next, after n written ones: first
// those that leave the most other members possible after them (see
// ranked), then the rest.
func (w *writer) members(ms []Member, used []bool, n int, k func() bool) bool {
	if n == len(ms) {
		return w.feed("}") && k()
	}
	for _, i := range w.ranked(ms, used, n) {
		if w.steps++; w.steps > maxWriteSteps {
			return false
		}
		cp := w.p.Checkpoint()
		if w.feed(memberHead(ms[i].Key, n)) {
			used[i] = true
			if w.value(ms[i].Val, func() bool { return w.members(ms, used, n+1, k) }) {
				return true
			}
			used[i] = false
		}
		w.p.Rollback(cp)
	}
	return false
}

// ranked returns the unused members that may come next, in the value's
// order but for the first that keeps every other of them possible after
// it, which comes first. A schema's grammar fixes the order of its
// declared members, and each optional one may be left out, so any later
// member may come next: trying the value's own order alone, an instance
// whose members are out of the schema's order (a benchmark's) would leave
// out a member it must write, and the search would try every order of the
// rest before giving up. The member declared first keeps every other.
func (w *writer) ranked(ms []Member, used []bool, n int) []int {
	var next []int
	for i := range ms {
		if !used[i] && w.fits(ms[i].Key, n) {
			next = append(next, i)
		}
	}
	for x, i := range next {
		if w.keepsOthers(ms, next, i, n) {
			copy(next[1:x+1], next[:x])
			next[0] = i
			break
		}
	}
	return next
}

// keepsOthers reports whether, once member i is written (its value's
// first writing), every other member of next may come after it.
func (w *writer) keepsOthers(ms []Member, next []int, i, n int) bool {
	cp := w.p.Checkpoint()
	defer w.p.Rollback(cp)
	keeps := false
	w.feed(memberHead(ms[i].Key, n))
	w.value(ms[i].Val, func() bool {
		keeps = true
		for _, j := range next {
			if j != i && !w.fits(ms[j].Key, n+1) {
				keeps = false
				break
			}
		}
		return true
	})
	return keeps
}

// fits reports whether a member named key may come next, after n written
// ones.
func (w *writer) fits(key string, n int) bool {
	w.steps++
	cp := w.p.Checkpoint()
	defer w.p.Rollback(cp)
	return w.feed(memberHead(key, n))
}

// memberHead is the text before a member's value: a comma unless it is
// the first, its name and the colon.
func memberHead(key string, n int) string {
	var b strings.Builder
	if n > 0 {
		b.WriteByte(',')
	}
	writeString(&b, key)
	b.WriteByte(':')
	return b.String()
}
