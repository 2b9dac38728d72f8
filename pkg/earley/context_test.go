package earley

import (
	"maps"
	"testing"

	"github.com/gasplab/gasp/pkg/grammar"
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

// TestParts: at a name's start, where names declared ("ab", "b") are
// literals of the object's context and others (w) a rule its members'
// items wait on, a State parts into the literals and the rest; the
// strings of up to 5 bytes viable from it are those viable from one part
// or the other; rests of one key (ContextKey with last, then after)
// allow the same strings where no byte of last is followed by one of
// after; a State whose context waits on a byte class does not split; and
// where no name is declared and a name's rule holds its closing quote (as
// jsonschema's names not declared do), a State parts into its rest
// alone, of one key at every member.
func TestParts(t *testing.T) {
	m := New(mustCompile(t, `root ::= "{" ms "}" | "[" ms "]" | "{" ms "," ms "}"
ms ::= m | m "," ms
m ::= "\"ab\":1" | "\"b\":1" | "\"" w "\":" v
w ::= [a-c]*
v ::= "1" | "{" ms "}"`))
	const depth = 5
	alphabet := []byte(`abc":1,}]`)
	byKey := make(map[string][]string)
	for _, pre := range []string{`{"`, `["`, `{"ab":1,"`, `{"b":1,"`, `{"c":{"`, `["a":1,"`, `{"c":{"b":1},"`, `{"ab":{"c":1,"`} {
		s := stateAfter(t, m, pre)
		last, after, ok := m.PartsLeaving(s)
		if !ok {
			t.Fatalf("%q does not split", pre)
		}
		lit, rest := m.Parts(s)
		whole := viableStrings(m, s, alphabet, depth)
		union := viableStrings(m, lit, alphabet, depth)
		maps.Copy(union, viableStrings(m, rest, alphabet, depth))
		if !maps.Equal(whole, union) {
			t.Errorf("%q: its parts allow other strings than it", pre)
		}
		key := string(append(m.ContextKey(rest, 8, last, nil), m.ContextKey(rest, 8, after, nil)...))
		for _, other := range byKey[key] {
			_, o := m.Parts(stateAfter(t, m, other))
			a, b := viableStrings(m, rest, alphabet, depth), viableStrings(m, o, alphabet, depth)
			for w := range a {
				if !b[w] && !hasPair(m, w, last, after) {
					t.Errorf("%q and %q share a key but only the first allows %q", pre, other, w)
				}
			}
		}
		byKey[key] = append(byKey[key], pre)
	}
	if len(byKey) != 1 {
		t.Errorf("rests of %d keys, want 1", len(byKey))
	}
	if _, _, ok := m.PartsLeaving(stateAfter(t, m, `{"a`)); ok {
		t.Error(`{"a splits`)
	}
	undeclared := New(mustCompile(t, `root ::= "{" ms "}" | "[" ms "]"
ms ::= m | m "," ms
m ::= "\"" k ":" v
k ::= [a-c]* "\""
v ::= "1" | "{" ms "}"`))
	keys := make(map[string]State)
	for _, pre := range []string{`{"`, `["`, `{"a":1,"`, `{"c":{"`, `["b":{"a":1,"`} {
		s := stateAfter(t, undeclared, pre)
		last, after, ok := undeclared.PartsLeaving(s)
		if !ok {
			t.Fatalf("%q (no literals) does not part", pre)
		}
		lit, rest := undeclared.Parts(s)
		if lit != Dead || !maps.Equal(viableStrings(undeclared, s, alphabet, depth), viableStrings(undeclared, rest, alphabet, depth)) {
			t.Errorf("%q: its rest is not all of it", pre)
		}
		key := string(append(undeclared.ContextKey(rest, 8, last, nil), undeclared.ContextKey(rest, 8, after, nil)...))
		if o, seen := keys[key]; seen {
			a, b := viableStrings(undeclared, rest, alphabet, depth), viableStrings(undeclared, o, alphabet, depth)
			for w := range a {
				if !b[w] && !hasPair(undeclared, w, last, after) {
					t.Errorf("%q shares a key with another rest but alone allows %q", pre, w)
				}
			}
		}
		keys[key] = rest
	}
	if len(keys) != 1 {
		t.Errorf("no literals: rests of %d keys, want 1", len(keys))
	}
}

// hasPair reports whether a byte of w in last is followed by one in after.
func hasPair(m *Machine, w string, last, after grammar.ByteSet) bool {
	for i := 1; i < len(w); i++ {
		if last.Has(uint8(m.ByteClass(w[i-1]))) && after.Has(uint8(m.ByteClass(w[i]))) {
			return true
		}
	}
	return false
}
