package earley

import (
	"maps"
	"testing"
)

// TestContextKey: a string's positions in four contexts (followed by 1,
// by 2, by a comma, by 3) share context keys across contexts; every two
// States of one key allow the same strings of up to 5 bytes that have no
// leaving byte (brute force over an alphabet that closes the string and
// goes on), and the quote is a leaving byte. It fails if the key drops
// the positions of links near the bound (abc is viable three links from
// it, not two) or the leaving classes omit what context items scan.
func TestContextKey(t *testing.T) {
	m := New(mustCompile(t, `root ::= s "1" | "[" s "2" | "[" s "," s "3"
s ::= "\"" [a-c]{0,6} "\""`))
	const room, depth = 8, 5
	alphabet := []byte(`ab"123,[`)
	byKey := make(map[string][]string) // prefixes by key
	for _, pre := range []string{`"`, `"a`, `"ab`, `"abc`, `["`, `["a`, `["ab`, `["abc`, `["a","`, `["a","b`, `["a","bc`, `["abcabc`, `"abcabc`} {
		s := stateAfter(t, m, pre)
		leave, ok := m.Leaving(s)
		if !ok {
			t.Fatalf("%q: no leaving classes", pre)
		}
		var staying []byte // the alphabet without leaving bytes
		for _, b := range alphabet {
			if !leave.Has(uint8(m.ByteClass(b))) {
				staying = append(staying, b)
			}
		}
		if !leave.Has(uint8(m.ByteClass('"'))) {
			t.Errorf("%q: the quote is not a leaving byte", pre)
		}
		key := string(m.ContextKey(s, room, leave, nil))
		for _, other := range byKey[key] {
			o := stateAfter(t, m, other)
			if a, b := viableStrings(m, s, staying, depth), viableStrings(m, o, staying, depth); !maps.Equal(a, b) {
				t.Errorf("%q and %q share a key but allow different strings of %q", pre, other, staying)
			}
		}
		byKey[key] = append(byKey[key], pre)
	}
	var shared [][]string
	for _, pres := range byKey {
		if len(pres) > 1 {
			shared = append(shared, pres)
		}
	}
	if len(shared) == 0 {
		t.Error("no key shared across contexts")
	}
	t.Logf("%d keys; shared: %q", len(byKey), shared)
}
