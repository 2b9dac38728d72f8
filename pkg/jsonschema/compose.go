package jsonschema

import (
	"math/big"
	"strconv"

	"github.com/gasplab/gasp/pkg/grammar"
)

// This file handles $ref beside other keywords, allOf (by merging schemas
// into one whose language is the intersection), and anyOf/oneOf (as
// unions, distributing the keywords beside them into each branch).

// flatten folds s's $ref target and allOf elements into s, returning a
// schema without them at its top level, or false after reporting an error.
func (c *compiler) flatten(s *Value, ptr string, depth int) (*Value, bool) {
	if depth > 16 {
		c.errorf(ptr, "$ref/allOf expansion does not terminate (a $ref cycle with sibling keywords)")
		return nil, false
	}
	if s.Kind == Bool {
		return s, true
	}
	if !c.check(s, ptr) {
		return nil, false
	}
	out := without(s, "$ref", "allOf")
	var parts []*Value
	var ptrs []string
	if ref := s.Get("$ref"); ref != nil {
		t, tptr, ok := c.resolve(ref, ptr+"/$ref")
		if !ok {
			return nil, false
		}
		parts, ptrs = append(parts, t), append(ptrs, tptr)
	}
	if all := s.Get("allOf"); all != nil {
		if all.Kind != Array || len(all.Arr) == 0 {
			c.errorf(ptr+"/allOf", "allOf must be a non-empty array")
			return nil, false
		}
		for i, e := range all.Arr {
			parts, ptrs = append(parts, e), append(ptrs, ptr+"/allOf/"+strconv.Itoa(i))
		}
	}
	for i, p := range parts {
		f, ok := c.flatten(p, ptrs[i], depth+1)
		if !ok {
			return nil, false
		}
		if out, ok = c.merge(out, f, ptrs[i]); !ok {
			return nil, false
		}
	}
	return out, true
}

// without returns a copy of object s without the named members.
func without(s *Value, names ...string) *Value {
	out := &Value{Kind: Object, Obj: []Member{}}
	for _, m := range s.Obj {
		if !contains(names, m.Key) {
			out.Obj = append(out.Obj, m)
		}
	}
	return out
}

func boolSchema(b bool) *Value { return &Value{Kind: Bool, Bool: b} }

// allOf is the schema {"allOf": [a, b]}, merged later when it is compiled.
func allOf(a, b *Value) *Value {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	return &Value{Kind: Object, Obj: []Member{{"allOf", &Value{Kind: Array, Arr: []*Value{a, b}}}}}
}

// merge returns a schema whose instances are those of both a and b (each
// without $ref and allOf at its top level). Subschemas that meet (the same
// property, items) become {"allOf": [x, y]}, merged when compiled. A
// keyword both have that cannot be merged is an error at ptr.
func (c *compiler) merge(a, b *Value, ptr string) (*Value, bool) {
	if b.Kind == Bool {
		if b.Bool {
			return a, true
		}
		return b, true
	}
	if a.Kind == Bool {
		if a.Bool {
			return b, true
		}
		return a, true
	}
	out := &Value{Kind: Object, Obj: []Member{}}
	put := func(k string, v *Value) {
		if v != nil {
			out.Obj = append(out.Obj, Member{k, v})
		}
	}
	done := map[string]bool{}
	for _, src := range []*Value{a, b} {
		for _, m := range src.Obj {
			k := m.Key
			if done[k] || annotations[k] || !asserts(k) {
				continue
			}
			done[k] = true
			x, y := a.Get(k), b.Get(k)
			if x == nil || y == nil {
				if k != "properties" && k != "additionalProperties" && k != "prefixItems" && k != "items" {
					put(k, m.Val)
					continue
				}
			}
			v, ok := c.mergeKeyword(k, a, b, ptr)
			if !ok {
				return nil, false
			}
			put(k, v)
		}
	}
	return out, true
}

// maxBranches bounds the branches of an anyOf made by intersecting two.
const maxBranches = 1000

// mergeKeyword merges keyword k of a and b (at least one has it).
func (c *compiler) mergeKeyword(k string, a, b *Value, ptr string) (*Value, bool) {
	x, y := a.Get(k), b.Get(k)
	switch k {
	case "properties":
		return mergeProperties(a, b), true
	case "additionalProperties", "items":
		return allOf(x, y), true
	case "prefixItems":
		return mergePrefix(a, b), true
	case "type":
		return intersectTypes(x, y), true
	case "required":
		r := &Value{Kind: Array}
		seen := map[string]bool{}
		for _, e := range append(append([]*Value{}, x.Arr...), y.Arr...) {
			if !seen[e.Str] {
				seen[e.Str] = true
				r.Arr = append(r.Arr, e)
			}
		}
		return r, true
	case "minLength", "minItems", "minimum", "exclusiveMinimum":
		return extreme(x, y, 1), true
	case "maxLength", "maxItems", "maximum", "exclusiveMaximum":
		return extreme(x, y, -1), true
	case "enum":
		r := &Value{Kind: Array, Arr: []*Value{}}
		for _, v := range x.Arr {
			if member(v, y.Arr) {
				r.Arr = append(r.Arr, v)
			}
		}
		return r, true
	case "const":
		if equal(x, y) {
			return x, true
		}
		return &Value{Kind: Array, Arr: []*Value{}}, true // no value: merged below as an empty enum
	case "anyOf":
		if len(x.Arr)*len(y.Arr) > maxBranches {
			c.errorf(ptr+"/anyOf", "intersecting two anyOf gives more than %d branches", maxBranches)
			return nil, false
		}
		r := &Value{Kind: Array}
		for _, p := range x.Arr {
			for _, q := range y.Arr {
				r.Arr = append(r.Arr, allOf(p, q))
			}
		}
		return r, true
	}
	if equal(x, y) {
		return x, true
	}
	c.errorf(ptr+"/"+escapePtr(k), "cannot intersect two different values of %s (allOf/$ref)", k)
	return nil, false
}

// mergeProperties merges the properties of a and b: a name only one
// declares meets the other's additionalProperties.
func mergeProperties(a, b *Value) *Value {
	out := &Value{Kind: Object, Obj: []Member{}}
	pa, pb := a.Get("properties"), b.Get("properties")
	seen := map[string]bool{}
	for _, p := range []*Value{pa, pb} {
		if p == nil {
			continue
		}
		for _, m := range p.Obj {
			if seen[m.Key] {
				continue
			}
			seen[m.Key] = true
			x, y := pa.Get(m.Key), pb.Get(m.Key)
			if x == nil {
				x = a.Get("additionalProperties")
			}
			if y == nil {
				y = b.Get("additionalProperties")
			}
			out.Obj = append(out.Obj, Member{m.Key, allOf(x, y)})
		}
	}
	return out
}

// mergePrefix merges prefixItems: position i of one meets position i of
// the other, or its items.
func mergePrefix(a, b *Value) *Value {
	pa, pb := a.Get("prefixItems"), b.Get("prefixItems")
	n := 0
	if pa != nil {
		n = len(pa.Arr)
	}
	if pb != nil {
		n = max(n, len(pb.Arr))
	}
	at := func(s, p *Value, i int) *Value {
		if p != nil && i < len(p.Arr) {
			return p.Arr[i]
		}
		return s.Get("items")
	}
	out := &Value{Kind: Array}
	for i := 0; i < n; i++ {
		x := allOf(at(a, pa, i), at(b, pb, i))
		if x == nil {
			x = boolSchema(true)
		}
		out.Arr = append(out.Arr, x)
	}
	return out
}

// intersectTypes intersects two "type" values (integer is in number).
func intersectTypes(x, y *Value) *Value {
	if x == nil {
		return y
	}
	if y == nil {
		return x
	}
	names := func(t *Value) []string {
		if t.Kind == String {
			return []string{t.Str}
		}
		var out []string
		for _, e := range t.Arr {
			out = append(out, e.Str)
		}
		return out
	}
	has := func(ts []string, n string) bool {
		return contains(ts, n) || n == "integer" && contains(ts, "number")
	}
	out := &Value{Kind: Array, Arr: []*Value{}}
	for _, n := range []string{"null", "boolean", "object", "array", "number", "integer", "string"} {
		if has(names(x), n) && has(names(y), n) && !(n == "integer" && contains(names(x), "number") && contains(names(y), "number")) {
			out.Arr = append(out.Arr, &Value{Kind: String, Str: n})
		}
	}
	return out
}

// extreme returns the larger (sign 1) or smaller (sign -1) of two numbers.
func extreme(x, y *Value, sign int) *Value {
	if x == nil {
		return y
	}
	if y == nil {
		return x
	}
	rx, okx := new(big.Rat).SetString(x.Num)
	ry, oky := new(big.Rat).SetString(y.Num)
	if !okx || !oky {
		return x // not numbers: reported when compiled
	}
	if rx.Cmp(ry)*sign >= 0 {
		return x
	}
	return y
}

// union compiles anyOf/oneOf: each branch meets the keywords beside it.
// oneOf is compiled only when its branches are pairwise disjoint (then it
// is anyOf); otherwise it is an error.
func (c *compiler) union(s *Value, ptr string) grammar.Expr {
	any, one := s.Get("anyOf"), s.Get("oneOf")
	if any != nil && one != nil {
		c.errorf(ptr+"/oneOf", "oneOf beside anyOf is not supported")
		return nil
	}
	key := "anyOf"
	list := any
	if one != nil {
		key, list = "oneOf", one
	}
	if list.Kind != Array || len(list.Arr) == 0 {
		c.errorf(ptr+"/"+key, "%s must be a non-empty array", key)
		return nil
	}
	base := without(s, "anyOf", "oneOf")
	var branches []*Value
	for _, b := range list.Arr {
		if onlyKeywords(base) {
			branches = append(branches, b) // keeps the branch's own pointers
		} else {
			branches = append(branches, allOf(base, b))
		}
	}
	if key == "oneOf" && !c.disjoint(branches, ptr+"/oneOf") {
		c.errorf(ptr+"/oneOf", "oneOf whose branches may overlap is not supported (only provably disjoint branches are)")
		return nil
	}
	var xs []grammar.Expr
	for i, b := range branches {
		xs = append(xs, c.schema(b, ptr+"/"+key+"/"+strconv.Itoa(i)))
	}
	return alt(xs...)
}

// disjoint reports whether no value is valid under two of the branches,
// as far as their types, enum/const values, and required properties with
// enum/const values (a discriminator) show.
func (c *compiler) disjoint(branches []*Value, ptr string) bool {
	flat := make([]*Value, len(branches))
	for i, b := range branches {
		f, ok := c.flatten(b, ptr+"/"+strconv.Itoa(i), 0)
		if !ok {
			return false
		}
		flat[i] = f
	}
	for i := range flat {
		for j := i + 1; j < len(flat); j++ {
			if !c.disjoint2(flat[i], flat[j]) {
				return false
			}
		}
	}
	return true
}

func (c *compiler) disjoint2(a, b *Value) bool {
	if a.Kind == Bool || b.Kind == Bool {
		return a.Kind == Bool && !a.Bool || b.Kind == Bool && !b.Bool
	}
	ta, tb := c.types(a, ""), c.types(b, "")
	overlap := false
	for _, x := range ta {
		for _, y := range tb {
			if x == y || x+y == "integernumber" || x+y == "numberinteger" {
				overlap = true
			}
		}
	}
	if !overlap {
		return true
	}
	if va, vb := values(a), values(b); va != nil && vb != nil {
		for _, v := range va {
			if member(v, vb) {
				return false
			}
		}
		return true
	}
	if (onlyTypes(ta, "object") || onlyTypes(tb, "object")) && (forbidsRequired(a, b) || forbidsRequired(b, a)) {
		return true
	}
	// A discriminator: a property both require, with disjoint values;
	// then only objects could be in both, and none is.
	pa, pb := a.Get("properties"), b.Get("properties")
	for _, k := range []*Value{a.Get("required")} {
		if k == nil || pa == nil || pb == nil || b.Get("required") == nil {
			continue
		}
		for _, r := range k.Arr {
			if !member(r, b.Get("required").Arr) {
				continue
			}
			if !onlyTypes(ta, "object") && !onlyTypes(tb, "object") {
				continue
			}
			xa, xb := pa.Get(r.Str), pb.Get(r.Str)
			if xa != nil && xb != nil && xa.Kind == Object && xb.Kind == Object {
				if va, vb := values(xa), values(xb); va != nil && vb != nil && !intersects(va, vb) {
					return true
				}
			}
		}
	}
	return false
}

// forbidsRequired reports whether object schema b forbids a member that a
// requires: one b declares false, or that b does not declare while its
// additionalProperties is false.
func forbidsRequired(a, b *Value) bool {
	req := a.Get("required")
	if req == nil {
		return false
	}
	for _, r := range req.Arr {
		p := b.Get("properties").Get(r.Str)
		if p == nil {
			p = b.Get("additionalProperties")
		}
		if p != nil && p.Kind == Bool && !p.Bool {
			return true
		}
	}
	return false
}

func onlyTypes(ts []string, t string) bool { return len(ts) == 1 && ts[0] == t }

func intersects(xs, ys []*Value) bool {
	for _, v := range xs {
		if member(v, ys) {
			return true
		}
	}
	return false
}

// values returns the values enum/const allow, or nil if s has neither.
func values(s *Value) []*Value {
	if k := s.Get("const"); k != nil {
		return []*Value{k}
	}
	if e := s.Get("enum"); e != nil && e.Kind == Array {
		return e.Arr
	}
	return nil
}
