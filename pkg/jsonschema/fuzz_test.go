package jsonschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	validator "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/gasplab/gasp/pkg/grammar"
)

// FuzzCompile checks that no schema makes Compile panic, that errors are
// ErrorLists naming a pointer, and that when a schema compiles (and the
// independent validator accepts it too) the grammar is valid and its
// samples validate.
func FuzzCompile(f *testing.F) {
	for _, s := range handSchemas {
		f.Add([]byte(s), uint64(1))
	}
	files, _ := filepath.Glob("testdata/suite/*.json")
	for _, path := range files {
		src, _ := os.ReadFile(path)
		var groups []suiteGroup
		json.Unmarshal(src, &groups)
		for _, g := range groups {
			f.Add([]byte(g.Schema), uint64(2))
		}
	}
	f.Fuzz(func(t *testing.T, src []byte, seed uint64) {
		if len(src) > 2000 {
			return
		}
		g, err := Compile("f.json", src)
		if err != nil {
			var list grammar.ErrorList
			if !errors.As(err, &list) || len(list) == 0 || list[0].Pos.Filename == "" {
				t.Fatalf("error %v (%T) is not an ErrorList with positions", err, err)
			}
			return
		}
		if err := g.Validate(); err != nil {
			t.Fatal(err)
		}
		doc, err := validator.UnmarshalJSON(bytes.NewReader(src))
		if err != nil {
			return
		}
		c := validator.NewCompiler()
		c.DefaultDraft(validator.Draft2020)
		c.AssertFormat()
		if c.AddResource("f.json", doc) != nil {
			return
		}
		sch, err := c.Compile("f.json")
		if err != nil {
			return // a schema the validator refuses (invalid under the metaschema)
		}
		rng := rand.New(rand.NewPCG(seed, 3))
		for range 10 {
			b, err := grammar.SampleLimit(g, rng, 10, 2000)
			if err != nil {
				continue
			}
			inst, err := validator.UnmarshalJSON(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("sample %s is not JSON: %v", b, err)
			}
			if err := sch.Validate(inst); err != nil {
				t.Fatalf("sample %s is invalid: %v", b, err)
			}
		}
	})
}
