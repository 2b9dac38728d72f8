package jsonschema_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/gasplab/gasp/pkg/earley"
	"github.com/gasplab/gasp/pkg/grammar"
	"github.com/gasplab/gasp/pkg/jsonschema"
)

// Compile a schema, test texts against it, and sample from it.
func Example() {
	schema := `{
	  "type": "object",
	  "properties": {
	    "name": {"type": "string", "pattern": "^[A-Z][a-z]+$"},
	    "age": {"type": "integer", "minimum": 0, "maximum": 150}
	  },
	  "required": ["name"],
	  "additionalProperties": false
	}`
	g, err := jsonschema.Compile("person.schema.json", []byte(schema))
	if err != nil {
		fmt.Println(err)
		return
	}
	m := earley.New(g)
	for _, s := range []string{`{"name":"Ada","age":36}`, `{"name":"Ada"}`, `{"name":"ada"}`, `{"name":"Ada","age":151}`, `{"age":36,"name":"Ada"}`} {
		p := m.NewParser()
		fmt.Println(s, p.FeedBytes([]byte(s)) && p.Complete())
	}
	b, _ := grammar.SampleLimit(g, rand.New(rand.NewPCG(1, 2)), 20, 200)
	fmt.Println(b[0] == '{')

	// An instance written in another order and spacing, put in the
	// grammar's form.
	v, _ := jsonschema.ParseValue([]byte(`{"age": 36, "name": "Ada"}`))
	text, ok := jsonschema.Write(m, v)
	fmt.Println(string(text), ok)

	_, err = jsonschema.Compile("bad.schema.json", []byte(`{"properties": {"a": {"not": {}}}}`))
	fmt.Println(err)
	// Output:
	// {"name":"Ada","age":36} true
	// {"name":"Ada"} true
	// {"name":"ada"} false
	// {"name":"Ada","age":151} false
	// {"age":36,"name":"Ada"} false
	// true
	// {"name":"Ada","age":36} true
	// bad.schema.json#/properties/a/not: keyword not is not supported
}
