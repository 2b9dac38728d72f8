package jsonschema

import (
	"fmt"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/earley"
)

// TestMembersOfManyObjects: every object's member list is its own,
// however the collector reuses memory while a schema compiles. The lists'
// rules were once keyed by the address of the object's properties, which
// a later object's could get once the first was collected: that object
// then had the first one's members (with the collector run at every
// percent of growth, Github_hard---o16060 from JSONSchemaBench rejected
// its own test instance).
func TestMembersOfManyObjects(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(1))
	const n = 1000
	var props []string
	for i := range n {
		props = append(props, fmt.Sprintf(`"o%d":{"type":"object","properties":{"k%d":{"type":"integer"}},"additionalProperties":false}`, i, i))
	}
	schema := `{"type":"object","properties":{` + strings.Join(props, ",") + `},"additionalProperties":false}`
	g, err := Compile("many.json", []byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	m := earley.New(g)
	for i := range n {
		text := fmt.Sprintf(`{"o%d":{"k%d":1}}`, i, i)
		if p := m.NewParser(); !p.FeedBytes([]byte(text)) || !p.Complete() {
			t.Errorf("%s: not in the language", text)
		}
	}
}
