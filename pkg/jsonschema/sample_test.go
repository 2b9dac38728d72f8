package jsonschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	validator "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/gasplab/gasp/pkg/earley"
	"github.com/gasplab/gasp/pkg/grammar"
)

// handSchemas exercise what the suite touches lightly: integer ranges,
// member order with optional and additional members, arrays with
// prefixItems and bounds, recursion, allOf merging, anyOf with siblings,
// a discriminated oneOf, patterns with characters JSON escapes, formats.
var handSchemas = []string{
	`{"type":"integer","minimum":-37,"maximum":1234}`,
	`{"type":"integer","exclusiveMinimum":-1000.5,"exclusiveMaximum":99}`,
	`{"type":"integer","minimum":18446744073709551610}`,
	`{"type":"object","properties":{"a":{"type":"string","maxLength":3},"b":{"type":"boolean"},"c":{"type":"null"}},"required":["b"],"additionalProperties":{"type":"integer","maximum":9}}`,
	`{"type":"object","properties":{"id":{"type":"integer"}},"required":["id","extra"],"additionalProperties":{"enum":["x",1,[2]]}}`,
	`{"type":"object","properties":{"a":{"const":1},"ab":{"const":2}},"additionalProperties":true}`,
	`{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],"items":{"type":"boolean"},"minItems":1,"maxItems":4}`,
	`{"type":"array","items":{"type":"integer","minimum":0,"maximum":3},"minItems":2,"maxItems":5}`,
	`{"$defs":{"node":{"type":"object","properties":{"v":{"type":"integer"},"kids":{"type":"array","items":{"$ref":"#/$defs/node"},"maxItems":2}},"required":["v"],"additionalProperties":false}},"$ref":"#/$defs/node"}`,
	`{"allOf":[{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]},{"properties":{"a":true,"b":{"type":"string"}},"required":["b"],"additionalProperties":false}]}`,
	`{"type":"object","required":["k"],"anyOf":[{"properties":{"k":{"const":"x"}}},{"properties":{"k":{"type":"integer","minimum":5}}}]}`,
	`{"oneOf":[{"type":"object","properties":{"kind":{"const":"a"},"n":{"type":"integer"}},"required":["kind"]},{"type":"object","properties":{"kind":{"const":"b"},"s":{"type":"string"}},"required":["kind"]}]}`,
	`{"oneOf":[{"$ref":"#/$defs/a"},{"$ref":"#/$defs/b"}],"$defs":{"a":{"type":"object","properties":{"x":{"type":"integer"}},"required":["x"],"additionalProperties":false},"b":{"type":"object","properties":{"y":{"type":"string"}},"additionalProperties":false}}}`,
	`{"type":"string","pattern":"^\"[\\\\/é\\n]+\"$"}`,
	`{"type":"string","pattern":"a+\\d"}`,
	`{"type":"string","format":"date-time"}`,
	`{"type":"string","format":"email"}`,
	`{"type":"string","format":"uri"}`,
	`{"type":"string","format":"time"}`,
	`{"type":["string","null"],"minLength":2,"maxLength":4}`,
	`{"type":["array","null"],"minItems":2,"maxItems":0}`,                   // no array fits
	`{"type":["string","integer"],"minLength":3,"maxLength":1,"maximum":2}`, // no string fits
	`{"enum":[{"a":[1,{"b":null}]},"é\"",-0.0,1e2]}`,
	`{"type":"number"}`,
	`{}`,
}

// newValidator compiles schema with the independent validator, asserting
// formats.
func newValidator(t testing.TB, schema []byte) *validator.Schema {
	doc, err := validator.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	c := validator.NewCompiler()
	c.DefaultDraft(validator.Draft2020)
	c.AssertFormat()
	if err := c.AddResource("schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("schema.json")
	if err != nil {
		t.Fatalf("validator: %v", err)
	}
	return sch
}

// TestSamplesValidate samples sentences from compiled schemas (the
// hand-written ones and every suite schema that compiles) and checks each
// with an independent validator (santhosh-tekuri/jsonschema, formats
// asserted); each sentence must also be in canonical form.
func TestSamplesValidate(t *testing.T) {
	schemas := append([]string{}, handSchemas...)
	files, _ := filepath.Glob("testdata/suite/*.json")
	fmtFiles, _ := filepath.Glob("testdata/suite/optional/format/*.json")
	for _, path := range append(files, fmtFiles...) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var groups []suiteGroup
		if err := json.Unmarshal(src, &groups); err != nil {
			t.Fatal(err)
		}
		for _, g := range groups {
			schemas = append(schemas, string(g.Schema))
		}
	}
	n := 200
	if testing.Short() {
		n = 20
	}
	rng := rand.New(rand.NewPCG(28, 2))
	compiled, sampled := 0, 0
	for i, s := range schemas {
		g, err := Compile(fmt.Sprintf("s%d.json", i), []byte(s))
		if err != nil {
			if i < len(handSchemas) {
				t.Errorf("hand schema %d: %v", i, err)
			}
			continue
		}
		compiled++
		sch := newValidator(t, []byte(s))
		for j := 0; j < n; j++ {
			b, err := grammar.SampleLimit(g, rng, 12, 400)
			if err != nil {
				continue
			}
			sampled++
			inst, err := validator.UnmarshalJSON(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("schema %s: sample %s is not JSON: %v", s, b, err)
			}
			if err := sch.Validate(inst); err != nil {
				t.Fatalf("schema %s: sample %s is invalid: %v", s, b, err)
			}
			v, err := ParseValue(b)
			if err != nil && strings.Contains(err.Error(), "duplicate member") {
				continue // additional members may repeat a name (documented)
			}
			if err != nil {
				t.Fatalf("schema %s: sample %s: %v", s, b, err)
			}
			var w strings.Builder // numbers may take any JSON form where unbounded
			writeValue(&w, v, func(n string) string { return n })
			if w.String() != string(b) {
				t.Fatalf("schema %s: sample %s is not canonical (%s)", s, b, w.String())
			}
		}
	}
	t.Logf("%d schemas compiled, %d samples validated", compiled, sampled)
}

// TestIntegerRanges checks the integer grammar against arithmetic on every
// integer around random bounds, open and closed.
func TestIntegerRanges(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 3))
	for k := 0; k < 60; k++ {
		lo := rng.Int64N(4000) - 2000
		hi := lo + rng.Int64N(3000)
		var keys []string
		var loB, hiB *int64
		if rng.IntN(4) > 0 {
			keys = append(keys, fmt.Sprintf(`"minimum":%d`, lo))
			loB = &lo
		}
		if rng.IntN(4) > 0 {
			keys = append(keys, fmt.Sprintf(`"maximum":%d`, hi))
			hiB = &hi
		}
		src := `{"type":"integer",` + strings.Join(append(keys, `"title":"t"`), ",") + `}`
		g, err := Compile("int.json", []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		m := earley.New(g)
		for x := lo - 1100; x <= hi+1100; x++ {
			want := (loB == nil || x >= *loB) && (hiB == nil || x <= *hiB)
			p := m.NewParser()
			if got := p.FeedBytes([]byte(big.NewInt(x).String())) && p.Complete(); got != want {
				t.Fatalf("%s: %d: got %v, want %v", src, x, got, want)
			}
		}
		for _, bad := range []string{"-0", "01", "1.0", "+1", ""} {
			p := m.NewParser()
			if p.FeedBytes([]byte(bad)) && p.Complete() {
				t.Fatalf("%s: accepts non-canonical %q", src, bad)
			}
		}
	}
}

// TestDecimalRanges checks bounded numbers against arithmetic: random
// bounds (inclusive or exclusive, with up to two decimals) and every
// decimal with up to three decimals around them, in canonical form.
func TestDecimalRanges(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 4))
	dec := func(n int64, places int) string { // n / 10^places, canonical
		return canonicalNumber(new(big.Rat).SetFrac(big.NewInt(n), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(places)), nil)).FloatString(places))
	}
	for k := 0; k < 40; k++ {
		lo := rng.Int64N(4000) - 2000 // hundredths
		hi := lo + rng.Int64N(2500)
		var keys []string
		var loB, hiB *bound
		if rng.IntN(4) > 0 {
			key := []string{"minimum", "exclusiveMinimum"}[rng.IntN(2)]
			keys = append(keys, fmt.Sprintf(`"%s":%s`, key, dec(lo, 2)))
			loB = &bound{big.NewRat(lo, 100), key == "minimum"}
		}
		if rng.IntN(4) > 0 {
			key := []string{"maximum", "exclusiveMaximum"}[rng.IntN(2)]
			keys = append(keys, fmt.Sprintf(`"%s":%s`, key, dec(hi, 2)))
			hiB = &bound{big.NewRat(hi, 100), key == "maximum"}
		}
		if len(keys) == 0 {
			continue
		}
		src := `{"type":"number",` + strings.Join(keys, ",") + `}`
		g, err := Compile("num.json", []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		m := earley.New(g)
		for x := lo*10 - 3000; x <= hi*10+3000; x += 1 + rng.Int64N(7) {
			r := big.NewRat(x, 1000)
			want := (loB == nil || r.Cmp(loB.val) > 0 || r.Cmp(loB.val) == 0 && loB.incl) &&
				(hiB == nil || r.Cmp(hiB.val) < 0 || r.Cmp(hiB.val) == 0 && hiB.incl)
			s := dec(x, 3)
			p := m.NewParser()
			if got := p.FeedBytes([]byte(s)) && p.Complete(); got != want {
				t.Fatalf("%s: %s: got %v, want %v", src, s, got, want)
			}
		}
		for _, bad := range []string{"-0", "01", "1.50", "+1", "1e1", "0.10", "-0.0", "."} {
			p := m.NewParser()
			if p.FeedBytes([]byte(bad)) && p.Complete() {
				t.Fatalf("%s: accepts non-canonical %q", src, bad)
			}
		}
	}
}
