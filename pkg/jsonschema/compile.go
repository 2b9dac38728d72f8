package jsonschema

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gasplab/gasp/pkg/grammar"
	"github.com/gasplab/gasp/pkg/infile"
)

// MaxFileBytes bounds a schema file.
const MaxFileBytes = 16 << 20

// CompileFile compiles the schema in the file at path.
func CompileFile(path string) (*grammar.Grammar, error) {
	src, err := infile.Read(path, MaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("jsonschema: %w", err)
	}
	return Compile(path, src)
}

// Compile compiles a JSON Schema document to a grammar whose language is
// the canonical texts (see the package doc) of the instances it accepts.
// Errors are a grammar.ErrorList whose positions are file#pointer.
func Compile(filename string, src []byte) (*grammar.Grammar, error) {
	root, err := ParseValue(src)
	if se := (*SyntaxError)(nil); errors.As(err, &se) {
		return nil, grammar.ErrorList{{Pos: textPos(filename, src, se.Offset), Msg: "invalid JSON: " + se.Msg}}
	}
	if err != nil {
		return nil, grammar.ErrorList{{Pos: grammar.Pos{Filename: filename}, Msg: "invalid JSON: " + err.Error()}}
	}
	return CompileValue(filename, root)
}

// CompileValue compiles a parsed schema document.
func CompileValue(filename string, root *Value) (*grammar.Grammar, error) {
	c := &compiler{file: filename, root: root, refs: map[string]string{}, refAlone: legacyDraft(root)}
	rootDef := &grammar.RuleDef{Name: "root", NamePos: c.pos("")}
	c.rules = append(c.rules, rootDef)
	body := c.schema(root, "")
	if len(c.errs) > 0 {
		return nil, c.errs
	}
	if body == nil {
		return nil, grammar.ErrorList{{Pos: c.pos(""), Msg: "the schema accepts no value"}}
	}
	rootDef.Body = body
	g, _, err := grammar.CompileSyntax(&grammar.File{Filename: filename, Rules: c.rules}, grammar.Options{})
	return g, err
}

// compiler builds the grammar's rules. An Expr of nil stands for the empty
// language (the schema false, and what it propagates to).
type compiler struct {
	file  string
	root  *Value
	rules []*grammar.RuleDef
	refs  map[string]string // $ref target pointer, and shared rules, → rule name
	lists int               // objects' member lists written so far (see members)
	// refAlone: the root's $schema names a draft from 3 to 7, in which
	// "all other properties in a $ref object MUST be ignored".
	refAlone bool
	errs     grammar.ErrorList
	depth    int
}

func (c *compiler) pos(ptr string) grammar.Pos {
	return grammar.Pos{Filename: c.file + "#" + ptr}
}

func (c *compiler) errorf(ptr, format string, args ...any) {
	if len(c.errs) < 10 {
		c.errs.Addf(c.pos(ptr), format, args...)
	}
}

// escapePtr escapes a member name for a JSON pointer (RFC 6901).
func escapePtr(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// rule defines a rule named name with the body build returns (called after
// the name is registered, so that build may refer to it) and returns a
// reference to it; nil if the body is the empty language.
func (c *compiler) rule(key, ptr string, build func() grammar.Expr) grammar.Expr {
	return c.newRule(key, ptr, grammar.RuleDef{}, build)
}

// innerRule is rule for a rule that is a part of a larger one (the trie of
// a member name's prefixes): marked generated, so that the recognizer's
// views of a name look through it (earley.Machine.ScanViews).
func (c *compiler) innerRule(key string, build func() grammar.Expr) grammar.Expr {
	return c.newRule(key, "", grammar.RuleDef{Generated: true}, build)
}

// universalRule is innerRule for a rule of those that u speaks of (see
// grammar.Universal).
func (c *compiler) universalRule(key string, u *grammar.Universal, build func() grammar.Expr) grammar.Expr {
	return c.newRule(key, "", grammar.RuleDef{Generated: true, Universal: u}, build)
}

// patternRule is innerRule for the language of the pattern at ptr, x: a
// regular expression's, whose matches may begin at any character
// (grammar.RuleDef.Regex).
func (c *compiler) patternRule(ptr string, x grammar.Expr) grammar.Expr {
	return c.newRule("pattern:"+ptr, ptr, grammar.RuleDef{Generated: true, Regex: true}, func() grammar.Expr { return x })
}

// newRule is rule for a rule whose flags are like's.
func (c *compiler) newRule(key, ptr string, like grammar.RuleDef, build func() grammar.Expr) grammar.Expr {
	name, ok := c.refs[key]
	if !ok {
		name = fmt.Sprintf("r%d", len(c.rules))
		c.refs[key] = name
		def := &grammar.RuleDef{Name: name, NamePos: c.pos(ptr), Generated: like.Generated, Universal: like.Universal, Regex: like.Regex}
		c.rules = append(c.rules, def)
		def.Body = build()
		if def.Body == nil {
			// An empty language: a rule whose only alternative is a
			// class no character is in would be an error; instead,
			// refer to a rule that derives nothing, which pruning
			// removes with the alternatives that use it.
			def.Body = &grammar.Ref{NamePos: c.pos(ptr), Name: name}
		}
	}
	return &grammar.Ref{NamePos: c.pos(ptr), Name: name}
}

// Expression helpers; nil is the empty language.

func lit(s string) grammar.Expr { return &grammar.Lit{Value: s} }

func seq(xs ...grammar.Expr) grammar.Expr {
	var items []grammar.Expr
	for _, x := range xs {
		if x == nil {
			return nil
		}
		items = append(items, x)
	}
	if len(items) == 1 {
		return items[0]
	}
	return &grammar.Seq{Items: items}
}

func alt(xs ...grammar.Expr) grammar.Expr {
	var alts []grammar.Expr
	for _, x := range xs {
		if x != nil {
			alts = append(alts, x)
		}
	}
	switch len(alts) {
	case 0:
		return nil
	case 1:
		return alts[0]
	}
	return &grammar.Alt{Alts: alts}
}

func opt(x grammar.Expr) grammar.Expr { return alt(x, seq()) }

func rep(x grammar.Expr, min, max int) grammar.Expr {
	if x == nil {
		if min == 0 {
			return seq()
		}
		return nil
	}
	return &grammar.Repeat{X: x, Min: min, Max: max}
}

// Keyword classes.
var (
	annotations = set("$schema", "$id", "title", "description", "default", "examples", "$comment",
		"deprecated", "readOnly", "writeOnly", "contentEncoding", "contentMediaType", "contentSchema",
		"$defs", "definitions")
	unsupported = set("not", "if", "then", "else", "dependentSchemas", "dependentRequired", "dependencies",
		"patternProperties", "propertyNames", "minProperties", "maxProperties", "unevaluatedProperties",
		"unevaluatedItems", "contains", "minContains", "maxContains", "uniqueItems", "multipleOf",
		"$dynamicRef", "$dynamicAnchor", "$anchor", "$recursiveRef", "$recursiveAnchor")
)

// asserts reports whether k is a keyword this package knows to assert
// something (compiled or refused): any other is an annotation or a keyword
// unknown to draft 2020-12, which the specification says to ignore.
func asserts(k string) bool {
	_, compiled := kinds[k]
	return compiled || unsupported[k] || k == "const" || k == "items" || k == "additionalProperties"
}

func set(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// trivial reports whether keyword k with value v asserts nothing (so an
// unsupported keyword may be ignored).
func trivial(k string, v *Value) bool {
	switch k {
	case "uniqueItems":
		return v.Kind == Bool && !v.Bool
	case "minProperties", "minContains":
		return v.Kind == Number && canonicalNumber(v.Num) == "0"
	}
	return false
}

// kinds gives the JSON kinds the value of a keyword may have (schemas,
// objects or booleans, are checked where they are compiled).
var kinds = map[string][]Kind{
	"properties": {Object}, "$defs": {Object}, "definitions": {Object},
	"required": {Array}, "enum": {Array}, "prefixItems": {Array},
	"allOf": {Array}, "anyOf": {Array}, "oneOf": {Array}, "type": {String, Array},
	"minLength": {Number}, "maxLength": {Number}, "minItems": {Number}, "maxItems": {Number},
	"minimum": {Number}, "maximum": {Number}, "exclusiveMinimum": {Number}, "exclusiveMaximum": {Number},
	"pattern": {String}, "format": {String}, "$ref": {String},
}

// check reports the unsupported keywords of schema s at ptr, and keyword
// values of the wrong kind; false if any.
func (c *compiler) check(s *Value, ptr string) bool {
	ok := true
	for _, m := range s.Obj {
		if ks, known := kinds[m.Key]; known && !slices.Contains(ks, m.Val.Kind) {
			c.errorf(ptr+"/"+escapePtr(m.Key), "the value of %s has the wrong type", m.Key)
			ok = false
		}
		if (m.Key == "required" || m.Key == "type") && m.Val.Kind == Array {
			for _, e := range m.Val.Arr {
				if e.Kind != String {
					c.errorf(ptr+"/"+escapePtr(m.Key), "%s must list strings", m.Key)
					ok = false
					break
				}
			}
		}
		if unsupported[m.Key] && !trivial(m.Key, m.Val) {
			c.errorf(ptr+"/"+escapePtr(m.Key), "keyword %s is not supported", m.Key)
			ok = false
		}
		if m.Key == "$id" && ptr != "" && hasRef(s) {
			c.errorf(ptr+"/$id", "keyword $id below the root is supported only where no $ref lies under it (the $ref would resolve against it)")
			ok = false
		}
	}
	return ok
}

// schema returns the language of schema s at ptr.
func (c *compiler) schema(s *Value, ptr string) grammar.Expr {
	if s.Kind == Bool {
		if s.Bool {
			return c.anyValue()
		}
		return nil
	}
	if s.Kind != Object {
		c.errorf(ptr, "a schema must be an object or a boolean")
		return nil
	}
	if ref := s.Get("$ref"); ref != nil && c.refAlone {
		return c.ref(ref, ptr+"/$ref") // its siblings ignored, unchecked
	}
	if !c.check(s, ptr) {
		return nil
	}
	if c.depth++; c.depth > 200 {
		c.errorf(ptr, "schema nests too deeply (allOf/$ref expansion)")
		return nil
	}
	defer func() { c.depth-- }()
	if ref := s.Get("$ref"); ref != nil && onlyKeywords(s, "$ref") {
		return c.ref(ref, ptr+"/$ref")
	}
	if s.Get("$ref") != nil || s.Get("allOf") != nil {
		m, ok := c.flatten(s, ptr, 0)
		if !ok {
			return nil
		}
		return c.schema(m, ptr)
	}
	if any, one := s.Get("anyOf"), s.Get("oneOf"); any != nil || one != nil {
		return c.union(s, ptr)
	}
	return c.plain(s, ptr)
}

// legacyDraft reports whether the $schema of root names a draft from 3 to
// 7 (http://json-schema.org/draft-07/schema#), where a $ref's sibling
// keywords are ignored; from 2019-09 on, and without $schema, they apply.
func legacyDraft(root *Value) bool {
	if root.Kind != Object {
		return false
	}
	v := root.Get("$schema")
	if v == nil || v.Kind != String {
		return false
	}
	_, rest, ok := strings.Cut(v.Str, "json-schema.org/draft-0")
	return ok && len(rest) > 0 && '3' <= rest[0] && rest[0] <= '7' && strings.HasPrefix(rest[1:], "/schema")
}

// hasRef reports whether a $ref member occurs anywhere in v.
func hasRef(v *Value) bool {
	switch v.Kind {
	case Object:
		for _, m := range v.Obj {
			if m.Key == "$ref" || hasRef(m.Val) {
				return true
			}
		}
	case Array:
		for _, e := range v.Arr {
			if hasRef(e) {
				return true
			}
		}
	}
	return false
}

// onlyKeywords reports whether s has no keywords but annotations and keep.
func onlyKeywords(s *Value, keep ...string) bool {
	for _, m := range s.Obj {
		if !annotations[m.Key] && !contains(keep, m.Key) {
			return false
		}
	}
	return true
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

// ref returns a reference to the rule of the schema a $ref names: a JSON
// pointer into this document ("#", "#/$defs/a").
func (c *compiler) ref(ref *Value, ptr string) grammar.Expr {
	target, tptr, ok := c.resolve(ref, ptr)
	if !ok {
		return nil
	}
	return c.rule("ref:"+tptr, tptr, func() grammar.Expr { return c.schema(target, tptr) })
}

// resolve finds the schema a $ref value names.
func (c *compiler) resolve(ref *Value, ptr string) (*Value, string, bool) {
	if ref.Kind != String || !strings.HasPrefix(ref.Str, "#") {
		c.errorf(ptr, "$ref %s is not supported: only references within the document (#/…) are", Canonical(ref))
		return nil, "", false
	}
	tptr := ref.Str[1:]
	v := c.root
	if tptr != "" {
		if tptr[0] != '/' {
			c.errorf(ptr, "$ref %q: anchors are not supported", ref.Str)
			return nil, "", false
		}
		for _, tok := range strings.Split(tptr[1:], "/") {
			tok = strings.ReplaceAll(strings.ReplaceAll(unescapeURI(tok), "~1", "/"), "~0", "~")
			switch {
			case v != nil && v.Kind == Object:
				v = v.Get(tok)
			case v != nil && v.Kind == Array:
				i, err := strconv.Atoi(tok)
				if err != nil || i < 0 || i >= len(v.Arr) {
					v = nil
				} else {
					v = v.Arr[i]
				}
			default:
				v = nil
			}
		}
	}
	if v == nil {
		c.errorf(ptr, "$ref %q names nothing in the document", ref.Str)
		return nil, "", false
	}
	return v, tptr, true
}

// unescapeURI decodes %XX escapes of a URI fragment.
func unescapeURI(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(n))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// anyValue is the shared rule of every JSON value.
func (c *compiler) anyValue() grammar.Expr {
	return c.rule("any", "", func() grammar.Expr { return c.plain(&Value{Kind: Object}, "") })
}

// types returns the types schema s allows, in a fixed order; "integer" is
// listed only when "number" is not.
func (c *compiler) types(s *Value, ptr string) []string {
	all := []string{"null", "boolean", "object", "array", "number", "string"}
	t := s.Get("type")
	if t == nil {
		return all
	}
	var named []string
	switch t.Kind {
	case String:
		named = []string{t.Str}
	case Array:
		for _, e := range t.Arr {
			named = append(named, e.Str)
		}
	}
	var out []string
	for _, n := range append(all, "integer") {
		if contains(named, n) && !(n == "integer" && contains(named, "number")) {
			out = append(out, n)
		}
	}
	for _, n := range named {
		if !contains(all, n) && n != "integer" {
			c.errorf(ptr+"/type", "unknown type %q", n)
		}
	}
	return out
}

// plain returns the language of a schema without $ref, allOf, anyOf and
// oneOf: the union over the types it allows.
func (c *compiler) plain(s *Value, ptr string) grammar.Expr {
	types := c.types(s, ptr)
	if s.Get("enum") != nil || s.Get("const") != nil {
		return c.enum(s, ptr, types)
	}
	var xs []grammar.Expr
	for _, t := range types {
		switch t {
		case "null":
			xs = append(xs, lit("null"))
		case "boolean":
			xs = append(xs, lit("true"), lit("false"))
		case "object":
			xs = append(xs, c.object(s, ptr))
		case "array":
			xs = append(xs, c.array(s, ptr))
		case "number", "integer":
			xs = append(xs, c.number(s, ptr, t == "integer"))
		case "string":
			xs = append(xs, c.str(s, ptr))
		}
	}
	return alt(xs...)
}

// enum returns the canonical texts of the values enum and const allow that
// are of the allowed types. Other assertions beside them are errors.
func (c *compiler) enum(s *Value, ptr string, types []string) grammar.Expr {
	for _, m := range s.Obj {
		if asserts(m.Key) && m.Key != "enum" && m.Key != "const" && m.Key != "type" {
			c.errorf(ptr+"/"+escapePtr(m.Key), "keyword %s beside enum or const is not supported", m.Key)
			return nil
		}
	}
	var vals []*Value
	if e := s.Get("enum"); e != nil {
		if e.Kind != Array {
			c.errorf(ptr+"/enum", "enum must be an array")
			return nil
		}
		vals = e.Arr
	}
	if k := s.Get("const"); k != nil {
		if vals != nil && !member(k, vals) {
			return nil
		}
		vals = []*Value{k}
	}
	var xs []grammar.Expr
	seen := map[string]bool{}
	for _, v := range vals {
		text := Canonical(v)
		if !seen[text] && ofTypes(v, types) {
			seen[text] = true
			xs = append(xs, lit(text))
		}
	}
	return alt(xs...)
}

// member reports whether v equals (as JSON) one of vals.
func member(v *Value, vals []*Value) bool {
	for _, w := range vals {
		if equal(v, w) {
			return true
		}
	}
	return false
}

// equal is JSON equality: numbers by value, objects regardless of order.
func equal(a, b *Value) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case Array:
		if len(a.Arr) != len(b.Arr) {
			return false
		}
		for i := range a.Arr {
			if !equal(a.Arr[i], b.Arr[i]) {
				return false
			}
		}
		return true
	case Object:
		if len(a.Obj) != len(b.Obj) {
			return false
		}
		for _, m := range a.Obj {
			if w := b.Get(m.Key); w == nil || !equal(m.Val, w) {
				return false
			}
		}
		return true
	}
	return Canonical(a) == Canonical(b)
}

func ofTypes(v *Value, types []string) bool {
	for _, t := range types {
		switch {
		case t == "null" && v.Kind == Null, t == "boolean" && v.Kind == Bool,
			t == "object" && v.Kind == Object, t == "array" && v.Kind == Array,
			t == "string" && v.Kind == String, t == "number" && v.Kind == Number:
			return true
		case t == "integer" && v.Kind == Number:
			if !strings.Contains(canonicalNumber(v.Num), ".") {
				return true
			}
		}
	}
	return false
}

// sortedKeys returns the keys of m, sorted.
func sortedKeys(m map[string]bool) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// textPos returns the position in src of a syntax error at byte offset
// off, or at the JSON text that follows it: where a token the text ended
// in starts, or the text after the value.
func textPos(filename string, src []byte, off int64) grammar.Pos {
	i := int(min(max(off, 0), int64(len(src))))
	for i < len(src) && strings.IndexByte(" \t\r\n", src[i]) >= 0 {
		i++
	}
	line := 1 + bytes.Count(src[:i], []byte("\n"))
	return grammar.Pos{Filename: filename, Offset: i, Line: line, Col: i - bytes.LastIndexByte(src[:i], '\n')}
}
