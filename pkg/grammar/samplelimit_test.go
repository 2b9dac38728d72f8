package grammar

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// SampleLimit stops a sentence past its limit, whether the depth makes it
// long (cube), its shortest sentence is 2^64 bytes (expo) or 2^64 steps
// derive nothing (empty), after allocating about the limit.
func TestSampleLimit(t *testing.T) {
	var expo, empty strings.Builder
	for i := range 64 {
		fmt.Fprintf(&expo, "r%d ::= r%d r%d\n", i, i+1, i+1)
	}
	empty.WriteString(expo.String())
	expo.WriteString("r64 ::= \"x\"\n")
	empty.WriteString("r64 ::= \"\"\n")
	for name, c := range map[string]struct {
		src   string
		depth int
		steps bool
	}{
		"cube":  {"root ::= ((\"a\"{100}){100}){100}\n", 8, false},
		"expo":  {"root ::= r0\n" + expo.String(), 0, false},
		"empty": {"root ::= r0\n" + empty.String(), 0, true},
	} {
		g, _ := mustCompile(t, c.src, Options{})
		out, err := SampleLimit(g, rand.New(rand.NewPCG(1, 2)), c.depth, 1000)
		var le *LengthError
		if out != nil || !errors.As(err, &le) || le.Limit != 1000 || le.Depth != c.depth || le.Steps != c.steps {
			t.Errorf("%s: %d bytes, %v", name, len(out), err)
		}
	}
	// Within the limit it is Sample, draw for draw.
	g, _ := mustCompile(t, "root ::= (\"a\" | \"b\" root)*\n", Options{})
	r1, r2 := rand.New(rand.NewPCG(3, 4)), rand.New(rand.NewPCG(3, 4))
	for i := range 100 {
		a := Sample(g, r1, 6)
		b, err := SampleLimit(g, r2, 6, 1<<20)
		if err != nil || !bytes.Equal(a, b) {
			t.Fatalf("sentence %d: Sample %q, SampleLimit %q, %v", i, a, b, err)
		}
	}
}
