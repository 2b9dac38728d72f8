package earley

import (
	"maps"
	"strings"
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
	viable := func(s State, leave string) map[string]bool {
		out := make(map[string]bool)
		var grow func(s State, w string)
		grow = func(s State, w string) {
			if len(w) == depth {
				return
			}
			for _, b := range alphabet {
				if strings.IndexByte(leave, b) >= 0 {
					continue
				}
				if n := m.Step(s, b); n != Dead {
					out[w+string(b)] = true
					grow(n, w+string(b))
				}
			}
		}
		grow(s, "")
		return out
	}
	byKey := make(map[string][]string) // prefixes by key
	for _, pre := range []string{`"`, `"a`, `"ab`, `"abc`, `["`, `["a`, `["ab`, `["abc`, `["a","`, `["a","b`, `["a","bc`, `["abcabc`, `"abcabc`} {
		s := m.Start()
		for i := 0; i < len(pre) && s != Dead; i++ {
			s = m.Step(s, pre[i])
		}
		if s == Dead {
			t.Fatalf("%q is not a prefix", pre)
		}
		leave, ok := m.Leaving(s)
		if !ok {
			t.Fatalf("%q: no leaving classes", pre)
		}
		var leaving string
		for b := range 256 {
			if leave.Has(uint8(m.ByteClass(byte(b)))) {
				leaving += string(rune(b))
			}
		}
		if !strings.Contains(leaving, `"`) {
			t.Errorf("%q: the quote is not a leaving byte (%q)", pre, leaving)
		}
		key := string(m.ContextKey(s, room, leave, nil))
		for _, other := range byKey[key] {
			o := m.Start()
			for i := 0; i < len(other); i++ {
				o = m.Step(o, other[i])
			}
			if a, b := viable(s, leaving), viable(o, leaving); !maps.Equal(a, b) {
				t.Errorf("%q and %q share a key but allow different strings without %q", pre, other, leaving)
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
