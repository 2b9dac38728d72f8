package jsonschema

import (
	"fmt"

	"github.com/gasplab/gasp/pkg/grammar"
)

// property is a member an object schema declares, in schema order.
type property struct {
	key      string
	schema   *Value
	ptr      string
	required bool
}

// object returns the objects schema s allows: declared properties in
// schema order (optional ones may be left out), then any number of other
// members that additionalProperties allows.
func (c *compiler) object(s *Value, ptr string) grammar.Expr {
	req := map[string]bool{}
	if r := s.Get("required"); r != nil {
		for _, e := range r.Arr {
			req[e.Str] = true
		}
	}
	ap, apPtr := s.Get("additionalProperties"), ptr+"/additionalProperties"
	if ap == nil {
		ap = boolSchema(true)
	}
	var props []property
	declared := map[string]bool{}
	if ps := s.Get("properties"); ps != nil {
		for _, m := range ps.Obj {
			declared[m.Key] = true
			props = append(props, property{m.Key, m.Val, ptr + "/properties/" + escapePtr(m.Key), req[m.Key]})
		}
	}
	for _, k := range sortedKeys(req) {
		if !declared[k] { // a required member governed by additionalProperties
			declared[k] = true
			props = append(props, property{k, ap, apPtr, true})
		}
	}
	var members []grammar.Expr
	for _, p := range props {
		v := c.schema(p.schema, p.ptr)
		if v == nil && p.required {
			return nil
		}
		if v == nil {
			members = append(members, nil)
			continue
		}
		members = append(members, seq(lit(Canonical(&Value{Kind: String, Str: p.key})+":"), v))
	}
	var extra grammar.Expr
	if v := c.schema(ap, apPtr); v != nil {
		// A rule: members uses it in several places, and a trie of keys
		// is large.
		extra = c.rule(fmt.Sprintf("extra:%d", len(c.rules)), apPtr, func() grammar.Expr {
			return seq(c.keyNotIn(declared), lit(":"), v)
		})
	}
	return seq(lit("{"), c.members(props, members, extra), lit("}"))
}

// members returns the member list, written left-linear: L(i) is a
// non-empty list of members among the first i properties, in order,
//
//	L(i+1) = L(i) [if property i is optional] | L(i) "," m_i | m_i [if every property before i is optional]
//
// and the list is L(n) followed by ("," extra)*, or, where every property
// is optional, (extra ("," extra)*)? alone. Each L(i) is a rule, so the size
// is linear in the number of properties; and left-linear, every member's
// items have the object's "{" as origin, so a recognizer's views of the
// member names still to come are the same at every member (right-linear,
// each member's were new: views were built again at every member name).
func (c *compiler) members(props []property, ms []grammar.Expr, extra grammar.Expr) grammar.Expr {
	after0, after1 := seq(), seq() // after no member, after some
	if extra != nil {
		more := c.rule(fmt.Sprintf("more:%d", len(c.rules)), "", func() grammar.Expr {
			return rep(seq(lit(","), extra), 0, -1)
		})
		after0, after1 = opt(seq(extra, more)), more
	}
	empty := true // every property so far is optional
	var list grammar.Expr
	// The lists' rules are keyed by a number of their own: not by the
	// address of props, which the collector may give to a later object's
	// (which then had this object's members).
	c.lists++
	for i, p := range props {
		var xs []grammar.Expr
		if list != nil {
			if !p.required {
				xs = append(xs, list)
			}
			xs = append(xs, seq(list, lit(","), ms[i]))
		}
		if empty {
			xs = append(xs, ms[i])
		}
		list = nil
		if x := alt(xs...); x != nil {
			list = c.rule(fmt.Sprintf("members:%d:%d", c.lists, i), p.ptr, func() grammar.Expr { return x })
		}
		empty = empty && !p.required
	}
	var body []grammar.Expr
	if list != nil {
		body = append(body, seq(list, after1))
	}
	if empty {
		body = append(body, after0)
	}
	return alt(body...)
}

// keyNotIn returns the canonical JSON strings whose value is not in keys:
// a walk down the trie of keys that leaves it (or stops short of a key).
//
// The walk is written left-linear, as rules that all start after the
// opening quote: P_n, the path to trie node n, is P_parent and n's
// character (P_root is empty); Free, a name that has left the trie, is
// some P_n and a character none of n's children has, or Free and any
// character; a key is Free or a P_n that is not a key, then the closing
// quote. Every item of a name's Earley States then has the State after
// its opening quote as its origin, so the States after the trie was left
// are one loop whatever node left it, and so are the States inside a
// multi-byte character or an escape, which Free spells in its own
// productions. Written right-linear (each node's rest of the name a rule
// of its own), every prefix of a declared name had a loop, a dozen UTF-8
// States and an escape of its own: sixty new States for each token of a
// member name. (The trie's rules are predicted after the quote, not
// where a member may start: there every member list's rule would predict
// them all.) The trie's rules are generated (innerRule), so that a
// recognizer's view of a name's next character climbs them to the key's
// end, and the views of a key's start are the same at every member
// (earley.Machine.ScanViews).
func (c *compiler) keyNotIn(keys map[string]bool) grammar.Expr {
	type node struct {
		end   bool
		kids  map[rune]*node
		p     grammar.Expr        // the rule P_n
		taken []grammar.RuneRange // the characters of kids, sorted
	}
	root := &node{kids: map[rune]*node{}}
	for k := range keys {
		n := root
		for _, r := range k {
			if n.kids[r] == nil {
				n.kids[r] = &node{kids: map[rune]*node{}}
			}
			n = n.kids[r]
		}
		n.end = true
	}
	base := fmt.Sprintf("key-not-in:%d", len(c.rules))
	// After any prefix at a character's boundary, any characters may follow
	// (a trie node's children go on in the trie, the others leave it): the
	// rules say so to the recognizer (grammar.Universal).
	u := &grammar.Universal{Wide: true}
	for _, r := range printable {
		for b := r.Lo; b <= r.Hi; b++ {
			u.Bytes.Add(byte(b))
		}
	}
	u.Bytes.Add(0x7F)
	var nodes []*node // in preorder
	var number func(n *node)
	number = func(n *node) {
		nodes = append(nodes, n)
		for _, r := range sortedRunes(n.kids) {
			n.taken = append(n.taken, grammar.RuneRange{Lo: r, Hi: r})
			kid := n.kids[r]
			kid.p = c.universalRule(fmt.Sprintf("%s:p%d", base, len(nodes)), u, func() grammar.Expr {
				return seq(n.p, c.chars([]grammar.RuneRange{{Lo: r, Hi: r}}))
			})
			number(kid)
		}
	}
	root.p = c.universalRule(base+":p0", u, func() grammar.Expr { return seq() })
	number(root)
	free := c.universalRule(base+":free", u, func() grammar.Expr {
		var xs, shared []grammar.Expr
		for _, n := range nodes {
			ascii, ok := printableNotTaken(n.taken)
			switch {
			case !ok: // a key with an escaped or non-ASCII character here
				xs = append(xs, seq(n.p, c.chars(grammar.Complement(n.taken))))
				continue
			case len(ascii) > 0:
				xs = append(xs, seq(n.p, &grammar.Class{Ranges: ascii}))
			}
			shared = append(shared, n.p)
		}
		// Free's characters that no node takes follow Start: a shared
		// node or Free itself, so that a multi-byte character has the
		// same States whether it leaves the trie or goes on in Free.
		self := c.innerRule(base+":free", nil) // the rule being built
		start := self
		if len(shared) > 0 {
			start = c.universalRule(base+":start", u, func() grammar.Expr { return alt(append(shared, self)...) })
		}
		for _, x := range c.notPrintable() {
			xs = append(xs, seq(start, x))
		}
		xs = append(xs, seq(self, &grammar.Class{Ranges: printable}))
		return alt(xs...)
	})
	return seq(lit(`"`), c.universalRule(base, u, func() grammar.Expr {
		xs := []grammar.Expr{seq(free, lit(`"`))}
		for _, n := range nodes {
			if !n.end {
				xs = append(xs, seq(n.p, lit(`"`)))
			}
		}
		return alt(xs...)
	}))
}

// printable are the characters a JSON string writes as themselves in one
// ASCII byte.
var printable = []grammar.RuneRange{{Lo: 0x20, Hi: '"' - 1}, {Lo: '"' + 1, Hi: '\\' - 1}, {Lo: '\\' + 1, Hi: 0x7E}}

// printableNotTaken returns the printable characters not in taken
// (sorted, disjoint), or ok false if taken holds another character.
func printableNotTaken(taken []grammar.RuneRange) (rest []grammar.RuneRange, ok bool) {
	for _, r := range taken {
		if r.Lo < 0x20 || r.Hi > 0x7E || r.Lo <= '"' && '"' <= r.Hi || r.Lo <= '\\' && '\\' <= r.Hi {
			return nil, false
		}
	}
	for _, p := range printable {
		lo := p.Lo
		for _, r := range taken {
			if r.Hi < lo || r.Lo > p.Hi {
				continue
			}
			if r.Lo > lo {
				rest = append(rest, grammar.RuneRange{Lo: lo, Hi: r.Lo - 1})
			}
			lo = r.Hi + 1
		}
		if lo <= p.Hi {
			rest = append(rest, grammar.RuneRange{Lo: lo, Hi: p.Hi})
		}
	}
	return rest, true
}

// notPrintable returns the characters of a JSON string that are not
// printable, as alternatives that each lower to one sequence of
// terminals (a rule using them holds the bytes of a multi-byte character
// in its own productions): an escape (a backslash and the shared rule of
// what may follow it), DEL, and the UTF-8 forms of the other scalar
// values, by their lead bytes.
func (c *compiler) notPrintable() []grammar.Expr {
	esc := c.rule("escape-tail", "", func() grammar.Expr {
		var tails []string
		for r := rune(0); r < 0x20; r++ {
			tails = append(tails, escapeOf(r)[1:])
		}
		return factored(append(tails, `"`, `\`))
	})
	xs := []grammar.Expr{seq(lit(`\`), esc), &grammar.Class{Ranges: []grammar.RuneRange{{Lo: 0x7F, Hi: 0x7F}}}}
	for _, r := range utf8Forms {
		xs = append(xs, &grammar.Class{Ranges: []grammar.RuneRange{r}})
	}
	return xs
}

// utf8Forms are the ranges of scalar values past ASCII that UTF-8 writes
// as one sequence of byte ranges each (C2-DF 80-BF; E0 A0-BF 80-BF; ...).
var utf8Forms = []grammar.RuneRange{
	{Lo: 0x80, Hi: 0x7FF}, {Lo: 0x800, Hi: 0xFFF}, {Lo: 0x1000, Hi: 0xCFFF}, {Lo: 0xD000, Hi: 0xD7FF},
	{Lo: 0xE000, Hi: 0xFFFF}, {Lo: 0x10000, Hi: 0x3FFFF}, {Lo: 0x40000, Hi: 0xFFFFF}, {Lo: 0x100000, Hi: 0x10FFFF},
}

func sortedRunes[T any](m map[rune]T) []rune {
	var rs []rune
	for r := range m {
		rs = append(rs, r)
	}
	for i := 1; i < len(rs); i++ {
		for j := i; j > 0 && rs[j] < rs[j-1]; j-- {
			rs[j], rs[j-1] = rs[j-1], rs[j]
		}
	}
	return rs
}

// array returns the arrays schema s allows: prefixItems, then items, with
// the length in [minItems, maxItems].
func (c *compiler) array(s *Value, ptr string) grammar.Expr {
	lo, hi, ok := c.bounds(s, ptr, "minItems", "maxItems")
	if !ok {
		return nil
	}
	var prefix []grammar.Expr
	if p := s.Get("prefixItems"); p != nil {
		for i, e := range p.Arr {
			prefix = append(prefix, c.schema(e, fmt.Sprintf("%s/prefixItems/%d", ptr, i)))
		}
	}
	items := s.Get("items")
	if items == nil {
		items = boolSchema(true)
	} else if items.Kind == Array {
		c.errorf(ptr+"/items", "items as an array is draft 2019 and earlier; use prefixItems")
		return nil
	}
	item := c.schema(items, ptr+"/items")
	k := len(prefix)
	// The tail after all k prefix elements: items, (lo-k .. hi-k) more.
	tmin, tmax := max(lo-k, 0), hi
	if hi >= 0 {
		tmax = hi - k
	}
	var rest grammar.Expr
	switch {
	case tmax < 0 && hi >= 0:
		rest = nil
	case k == 0:
		rest = tailFirst(item, tmin, tmax)
	default:
		rest = rep(seq(lit(","), item), tmin, tmax)
	}
	// Prefix elements, from the last: S_i = sep e_i S_(i+1), optional
	// when i >= lo, absent when i >= hi.
	for i := k - 1; i >= 0; i-- {
		if hi >= 0 && i >= hi {
			rest = seq()
			continue
		}
		sep := lit(",")
		if i == 0 {
			sep = seq()
		}
		x := seq(sep, prefix[i], rest)
		if i >= lo {
			x = opt(x)
		}
		rest = x
	}
	return seq(lit("["), rest, lit("]"))
}

// tailFirst is a comma-separated list of min..max (max < 0: unbounded)
// items with no element before it.
func tailFirst(item grammar.Expr, min, max int) grammar.Expr {
	if max == 0 {
		return seq()
	}
	more := rep(seq(lit(","), item), max0(min-1), maxMinus1(max))
	x := seq(item, more)
	if min == 0 {
		x = opt(x)
	}
	return x
}

func max0(n int) int { return max(n, 0) }

func maxMinus1(n int) int {
	if n < 0 {
		return n
	}
	return n - 1
}
