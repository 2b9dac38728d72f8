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

// members tries each unused member next, after n written ones.
func (w *writer) members(ms []Member, used []bool, n int, k func() bool) bool {
	if n == len(ms) {
		return w.feed("}") && k()
	}
	for i, m := range ms {
		if used[i] {
			continue
		}
		if w.steps++; w.steps > maxWriteSteps {
			return false
		}
		cp := w.p.Checkpoint()
		var b strings.Builder
		if n > 0 {
			b.WriteByte(',')
		}
		writeString(&b, m.Key)
		b.WriteByte(':')
		if w.feed(b.String()) {
			used[i] = true
			if w.value(m.Val, func() bool { return w.members(ms, used, n+1, k) }) {
				return true
			}
			used[i] = false
		}
		w.p.Rollback(cp)
	}
	return false
}
