package gcd

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// partsSchemas hold objects whose member names start States that part
// (earley.Machine.Parts): names declared and others, in objects of one
// kind nested in each other and in an array (so that rests share a
// context key); the second declares 40 names (many literals: its first
// name start is walked whole, see maskParts).
func partsSchemas(t *testing.T) []string {
	var many []string // the strings over a and b of 2 to 5 bytes, the first 40
	for n := 2; len(many) < 40; n++ {
		for i := 0; i < 1<<n && len(many) < 40; i++ {
			b := make([]byte, n)
			for j := range b {
				b[j] = "ab"[i>>(n-1-j)&1]
			}
			many = append(many, string(b))
		}
	}
	props := map[string]any{}
	for _, name := range many {
		props[name] = map[string]any{"type": "integer"}
	}
	big, err := json.Marshal(map[string]any{"type": "object", "properties": props,
		"additionalProperties": map[string]any{"type": "array", "items": map[string]any{"$ref": "#"}}})
	if err != nil {
		t.Fatal(err)
	}
	return []string{
		`{"$defs": {"o": {"type": "object", "properties": {"a": {"$ref": "#/$defs/o"}, "ab": {"type": "integer"},
			"ba": {"type": "array", "items": {"$ref": "#/$defs/o"}}}, "additionalProperties": {"type": "integer"}}},
		  "$ref": "#/$defs/o"}`,
		string(big),
	}
}

// TestPartsMatchBruteForce: masks made of a State's parts (its
// context's literals, and the rest by its context key) must equal brute
// force, after every byte of instances and along random walks; some
// must be made so, and some rests served by another member's own part.
func TestPartsMatchBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	v := testVocab(rng)
	// Tokens that end a name and go on past its member, where members
	// of one kind differ: in an array or an object, last or not.
	for _, end := range []string{`"`, `":1`, `":1}`, `":[]`, `":[]}`} {
		for _, next := range []string{"}", "}}", "},", ",", `,"`} {
			v.Add([]byte(end+next), false, end+next)
		}
	}
	texts := [][]string{
		{`{"a":{"ab":1,"b":1,"bb":1},"ab":1,"ba":[{"a":{"b":1},"ab":1},{"b":1,"bab":1}],"b":1,"bb":1}`},
		{`{"aa":1,"ab":1,"abab":1,"bbbbb":[{"aa":1,"b":[]},{"é":[]}],"é":[]}`},
	}
	for i, st := range checkSchemas(t, v, rng, partsSchemas(t), texts) {
		if st.Parts == 0 || st.ContextHits == 0 {
			t.Errorf("schema %d: %d masks made of parts, %d by context keys", i, st.Parts, st.ContextHits)
		}
	}
}

// TestPartsConcurrently: Maskers of one trie, in parallel subtests, share
// its pair leavings (pairLeavingOf, under its lock); each one's masks must
// still equal brute force (run with -race).
func TestPartsConcurrently(t *testing.T) {
	if walkConcurrently(t, partsSchemas(t)[0], 33).Parts == 0 {
		t.Error("no mask made of parts")
	}
}
