package jsonschema

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	validator "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/gasplab/gasp/pkg/earley"
)

// TestRefSiblingsByDraft: in drafts 3 to 7 the keywords beside a $ref are
// ignored; from 2019-09 on (and without $schema, 2020-12) they apply. Each
// instance is in the language exactly when the independent validator,
// which reads $schema too, accepts it.
func TestRefSiblingsByDraft(t *testing.T) {
	const body = `"definitions": {"f": {"type": "object", "properties": {"a": {"type": "integer"}}}},
		"type": "object", "properties": {"x": {"$ref": "#/definitions/f",
			"properties": {"c": {"type": "boolean"}}, "additionalProperties": false, "required": ["c"]}}`
	instances := []string{`{"x":{"a":1}}`, `{"x":{"c":true}}`, `{"x":{"a":1,"c":true}}`, `{"x":{"a":"s"}}`, `{"x":{"b":1}}`}
	for _, draft := range []string{"http://json-schema.org/draft-04/schema#", "http://json-schema.org/draft-07/schema",
		"https://json-schema.org/draft/2019-09/schema", "https://json-schema.org/draft/2020-12/schema", ""} {
		schema := "{" + body + "}"
		if draft != "" {
			schema = fmt.Sprintf(`{"$schema": %q, %s}`, draft, body)
		}
		g, err := Compile("ref.json", []byte(schema))
		if err != nil {
			t.Fatalf("%s: %v", draft, err)
		}
		m := earley.New(g)
		sch := newValidator(t, []byte(schema))
		accepted := 0
		for _, inst := range instances {
			v, err := ParseValue([]byte(inst))
			if err != nil {
				t.Fatal(err)
			}
			doc, err := validator.UnmarshalJSON(bytes.NewReader([]byte(inst)))
			if err != nil {
				t.Fatal(err)
			}
			valid := sch.Validate(doc) == nil
			if in := inLanguage(m, v); in != valid {
				t.Errorf("%q: %s: in the language %v, valid %v", draft, inst, in, valid)
			}
			if valid {
				accepted++
			}
		}
		t.Logf("%q: %d of %d valid", draft, accepted, len(instances))
	}
}

// TestWriteOutOfOrder: an instance whose members are out of the schema's
// order (two swapped among 40 optional ones) is written in that order at
// once, not after trying every order of the members after the first it
// would leave out (which exceeds maxWriteSteps).
func TestWriteOutOfOrder(t *testing.T) {
	var props, members []string
	for i := range 40 {
		props = append(props, fmt.Sprintf(`"p%02d": {"type": "integer"}`, i))
		members = append(members, fmt.Sprintf(`"p%02d": %d`, i, i))
	}
	members[9], members[10] = members[10], members[9]
	g, err := Compile("order.json", []byte(`{"type": "object", "properties": {`+strings.Join(props, ", ")+`}}`))
	if err != nil {
		t.Fatal(err)
	}
	v, err := ParseValue([]byte("{" + strings.Join(members, ", ") + "}"))
	if err != nil {
		t.Fatal(err)
	}
	text, ok := Write(earley.New(g), v)
	if !ok {
		t.Fatal("not written")
	}
	if want := `"p09":9,"p10":10`; !strings.Contains(string(text), want) {
		t.Errorf("%s: no %s", text, want)
	}
}
