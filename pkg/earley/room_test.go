package earley

import (
	"maps"
	"testing"
)

// TestRoomKey: inside a bounded repetition, the States of positions with
// more than room links left share a RoomKey (the string's start and the
// position whose next link is near the bound have keys of their own), the
// last positions have none, and every two States of one
// key allow the same strings of up to room bytes (brute force over an
// alphabet that closes the string and goes on). It fails if the key keeps
// a link's position or origin (positions far from the bound would not
// share it), if it drops them near the bound (abc is viable three links
// from the end, not two), or if it drops other items' origins (the string
// after [ closes into "2", the first into "1").
func TestRoomKey(t *testing.T) {
	m := New(mustCompile(t, `root ::= s "1" | "[" s "2" | "[" s "," s "3"
s ::= "\"" [a-c]{0,12} "\""`))
	const room = 3
	alphabet := []byte(`ab"123,[`)
	viable := func(s State) map[string]bool { return viableStrings(m, s, alphabet, room) }
	byKey := make(map[string][]string) // prefixes by key
	for _, open := range []string{`"`, `["`, `["a","`} {
		var inside string // the key of the positions far from the bound
		for n := 0; n <= 12; n++ {
			text := open + "abcabcabcabc"[:n]
			key := m.RoomKey(stateAfter(t, m, text), room, nil)
			switch {
			case n >= 10 && key != nil: // no link item holds more than 3
				t.Errorf("%q: a key, with %d links left", text, 12-n)
			case n >= 1 && n <= 8 && inside == "":
				inside = string(key)
			case n >= 1 && n <= 8 && string(key) != inside:
				t.Errorf("%q: not the key of %q", text, open+"a")
			}
			if key != nil {
				byKey[string(key)] = append(byKey[string(key)], text)
			}
		}
		if len(byKey[inside]) != 8 {
			t.Errorf("after %q: %v share the key of the first character, want its 8 first positions", open, byKey[inside])
		}
	}
	for _, texts := range byKey {
		want := viable(stateAfter(t, m, texts[0]))
		for _, text := range texts[1:] {
			if got := viable(stateAfter(t, m, text)); !maps.Equal(got, want) {
				t.Errorf("%q and %q share a key but allow %v and %v", texts[0], text, got, want)
			}
		}
	}
}

// viableStrings returns the strings of 1 to n bytes of alphabet viable
// from s.
func viableStrings(m *Machine, s State, alphabet []byte, n int) map[string]bool {
	out := make(map[string]bool)
	var grow func(s State, w string)
	grow = func(s State, w string) {
		if len(w) == n {
			return
		}
		for _, b := range alphabet {
			if next := m.Step(s, b); next != Dead {
				out[w+string(b)] = true
				grow(next, w+string(b))
			}
		}
	}
	grow(s, "")
	return out
}
