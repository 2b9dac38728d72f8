package jsonschema

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	validator "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/gasplab/gasp/pkg/earley"
)

// TestOtherMemberNames checks the names of members that
// additionalProperties governs against the independent validator: an
// object with one member named k, whose value only a declared property
// (a string) or only additionalProperties (an integer) allows, is in the
// language exactly when the validator accepts it. The names are random
// strings over characters that JSON writes as themselves, as escapes and
// as multi-byte UTF-8, around the declared names; declared names of
// printable ASCII only and with other characters take different paths.
func TestOtherMemberNames(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 3))
	alphabet := []string{"a", "b", "c", "~", " ", "\"", "\\", "\n", "\x01", "\x7f", "é", "€", "😀"}
	for _, names := range [][]string{{"a", "ab", "b~c"}, {"a", "é", "a\nb"}, {}} {
		props := map[string]any{}
		for _, n := range names {
			props[n] = map[string]any{"type": "string"}
		}
		schema, _ := json.Marshal(map[string]any{"type": "object", "properties": props, "additionalProperties": map[string]any{"type": "integer"}})
		g, err := Compile("keys.json", schema)
		if err != nil {
			t.Fatal(err)
		}
		m := earley.New(g)
		sch := newValidator(t, schema)
		keys := append([]string{""}, names...)
		for range 300 {
			k := ""
			if len(names) > 0 && rng.IntN(3) > 0 {
				k = names[rng.IntN(len(names))]
			}
			for range rng.IntN(4) {
				k += alphabet[rng.IntN(len(alphabet))]
			}
			keys = append(keys, k)
		}
		for _, k := range keys {
			for _, val := range []any{5, "s"} {
				inst, _ := json.Marshal(map[string]any{k: val})
				v, err := ParseValue(inst)
				if err != nil {
					t.Fatal(err)
				}
				doc, err := validator.UnmarshalJSON(bytes.NewReader(inst))
				if err != nil {
					t.Fatal(err)
				}
				valid := sch.Validate(doc) == nil
				if in := inLanguage(m, v); in != valid {
					t.Fatalf("names %q: %s: in the language %v, valid %v", names, inst, in, valid)
				}
			}
		}
	}
}
