package jsonschema

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/grammar"
)

// TestErrors checks that what cannot be compiled exactly is an error that
// names the keyword by its JSON pointer.
func TestErrors(t *testing.T) {
	cases := []struct{ schema, want string }{
		{`{"properties":{"a/b":{"not":{}}}}`, `s.json#/properties/a~1b/not: keyword not is not supported`},
		{`{"items":{"uniqueItems":true}}`, `s.json#/items/uniqueItems: keyword uniqueItems is not supported`},
		{`{"uniqueItems":false,"minProperties":0}`, ``},
		{`{"required":"a"}`, `s.json#/required: the value of required has the wrong type`},
		{`{"type":["string","strnig"]}`, `s.json#/type: unknown type "strnig"`},
		{`{"type":"string","pattern":"a(?=b)"}`, "s.json#/pattern:1:2: error parsing regexp: invalid or unsupported Perl syntax: `(?=` (lookaround is not supported)"},
		{`{"type":"string","pattern":"a","maxLength":3}`, `s.json#/pattern: pattern beside minLength/maxLength is not supported`},
		{`{"type":"string","format":"hostname"}`, `s.json#/format: format "hostname" is not supported`},
		{`{"oneOf":[{"type":"integer"},{"minimum":2}]}`, `s.json#/oneOf: oneOf whose branches may overlap is not supported (only provably disjoint branches are)`},
		{`{"allOf":[{"pattern":"a"},{"pattern":"b"}]}`, `s.json#/allOf/1/pattern: cannot intersect two different values of pattern (allOf/$ref)`},
		{`{"$ref":"other.json#/a"}`, `s.json#/$ref: $ref "other.json#/a" is not supported: only references within the document (#/…) are`},
		{`{"$defs":{"a":{"$id":"http://x/a","type":"null"}},"$ref":"#/$defs/a"}`, ``},
		{`{"items":{"$id":"http://x/a","$ref":"#/$defs/b"}}`, `s.json#/items/$id: keyword $id below the root is supported only where no $ref lies under it (the $ref would resolve against it)`},
		{`{"allOf":[{"anyOf":` + branches(40) + `},{"anyOf":` + branches(40) + `}]}`, `s.json#/allOf/1/anyOf: intersecting two anyOf gives more than 1000 branches`},
		{`{"$ref":"#/$defs/missing"}`, `s.json#/$ref: $ref "#/$defs/missing" names nothing in the document`},
		{`{"$ref":"#","minimum":1}`, `s.json#: $ref/allOf expansion does not terminate (a $ref cycle with sibling keywords)`},
		{`{"enum":[1,"a"],"minimum":0}`, `s.json#/minimum: keyword minimum beside enum or const is not supported`},
		// Keywords unknown to draft 2020-12 are ignored, as it says: beside
		// enum/const and in merges too.
		{`{"enum":[1,"a"],"readonly":true,"example":1,"id":"x"}`, ``},
		{`{"allOf":[{"type":"integer","x-unit":"ms"},{"minimum":1,"x-unit":"s"}]}`, ``},
		{`{"type":"integer","minimum":5,"maximum":4}`, `s.json#: the schema accepts no value`},
		{`false`, `s.json#: the schema accepts no value`},
		{`{"type":`, `s.json:1:9: invalid JSON: unexpected end of input`},
		{"{\n  \"type\": \"str", `s.json:2:11: invalid JSON: unexpected end of input`},
		{"{\n  \"type\": \"string\",}", `s.json:2:20: invalid JSON: invalid character '}' looking for beginning of object key string`},
		{`{"type":"string"} x`, `s.json:1:19: invalid JSON: text after the JSON value`},
		{`[{"a":1,"a":2}]`, `s.json:1:12: invalid JSON: duplicate member "a"`},
	}
	for _, c := range cases {
		_, err := Compile("s.json", []byte(c.schema))
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.schema, err)
			}
			continue
		}
		var list grammar.ErrorList
		if !errors.As(err, &list) {
			t.Errorf("%s: error %v (%T) is not an ErrorList", c.schema, err, err)
			continue
		}
		if list[0].Error() != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.schema, list[0], c.want)
		}
	}
}

// branches is a JSON array of n schemas.
func branches(n int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"const":%d}`, i)
	}
	b.WriteByte(']')
	return b.String()
}
