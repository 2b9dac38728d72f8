package grammar

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// finiteSeqs flattens a non-recursive symbol into its alternatives as
// sequences of byte sets.
func finiteSeqs(g *Grammar, s Symbol) [][]ByteSet {
	if s.IsTerminal() {
		return [][]ByteSet{{g.Terminals[s.Terminal()]}}
	}
	var out [][]ByteSet
	for _, p := range g.Rules[s.Rule()].Prods {
		cur := [][]ByteSet{nil}
		for _, x := range g.Prods[p].RHS {
			var next [][]ByteSet
			for _, a := range cur {
				for _, b := range finiteSeqs(g, x) {
					next = append(next, append(append([]ByteSet(nil), a...), b...))
				}
			}
			cur = next
		}
		out = append(out, cur...)
	}
	return out
}

// checkClass compiles "root ::= class" and checks, for every code point,
// that the byte language is exactly the UTF-8 encodings of the members:
// every string of the language (enumerated from the byte-set sequences)
// decodes as exactly one member, no member twice, and every member occurs.
// utf8.DecodeRune rejects overlong forms, surrogates and values beyond
// U+10FFFF, so those cannot slip in. member is an oracle independent of the
// compiler.
func checkClass(t *testing.T, class string, member func(rune) bool) {
	t.Helper()
	g, _ := mustCompile(t, "root ::= "+class, Options{})
	seen := make([]bool, utf8.MaxRune+1)
	bad := 0
	for _, seq := range finiteSeqs(g, NT(g.Start)) {
		var buf [4]byte
		var rec func(i int)
		rec = func(i int) {
			if bad > 5 {
				return
			}
			if i == len(seq) {
				b := buf[:len(seq)]
				r, size := utf8.DecodeRune(b)
				switch {
				case r == utf8.RuneError && size <= 1, size != len(b):
					t.Errorf("%s: accepts invalid UTF-8 % x", class, b)
					bad++
				case !member(r):
					t.Errorf("%s: accepts non-member %U", class, r)
					bad++
				case seen[r]:
					t.Errorf("%s: accepts %U twice", class, r)
					bad++
				}
				if r >= 0 && int(r) < len(seen) {
					seen[r] = true
				}
				return
			}
			for c := 0; c < 256; c++ {
				if seq[i].Has(byte(c)) {
					buf[i] = byte(c)
					rec(i + 1)
				}
			}
		}
		if len(seq) < 1 || len(seq) > 4 {
			t.Fatalf("%s: sequence of %d byte sets", class, len(seq))
		}
		rec(0)
	}
	for r := rune(0); r <= utf8.MaxRune && bad <= 5; r++ {
		if member(r) && !seen[r] {
			t.Errorf("%s: rejects member %U", class, r)
			bad++
		}
	}
}

func isScalar(r rune) bool { return r >= 0 && r <= utf8.MaxRune && (r < 0xD800 || r > 0xDFFF) }

func TestClassUTF8Exhaustive(t *testing.T) {
	checkClass(t, ".", isScalar)
	tests := []struct {
		class  string
		negate bool
		ranges [][2]rune
	}{
		{`[a-z]`, false, [][2]rune{{'a', 'z'}}},
		{`[^a]`, true, [][2]rune{{'a', 'a'}}},
		{`[^\n]`, true, [][2]rune{{'\n', '\n'}}},
		{`[^"\\\x00-\x1F]`, true, [][2]rune{{'"', '"'}, {'\\', '\\'}, {0, 0x1F}}},
		{`[\x00-\U0010FFFF]`, false, [][2]rune{{0, utf8.MaxRune}}},
		{`[\u00E9-\u0FFF]`, false, [][2]rune{{0xE9, 0xFFF}}},
		{`[\uD000-\uE000]`, false, [][2]rune{{0xD000, 0xE000}}},
		{`[^\uD000-\uE000]`, true, [][2]rune{{0xD000, 0xE000}}},
		{`[\u07FF-\u0800\uFFFF-\U00010000]`, false, [][2]rune{{0x7FF, 0x800}, {0xFFFF, 0x10000}}},
		{`[\U0010FFFF\x7F\x80]`, false, [][2]rune{{0x10FFFF, 0x10FFFF}, {0x7F, 0x80}}},
		{`[^\U00010000-\U0010FFFF]`, true, [][2]rune{{0x10000, 0x10FFFF}}},
		{`[é-ü😀-😎]`, false, [][2]rune{{'é', 'ü'}, {'😀', '😎'}}},
	}
	// Random classes, including overlapping and adjacent ranges.
	rng := rand.New(rand.NewPCG(1, 2))
	bounds := []rune{0, 0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xD800, 0xDFFF, 0xE000, 0xFFFF, 0x10000, 0x3FFFF, 0x40000, 0x10FFFF}
	for range 8 {
		var sb strings.Builder
		negate := rng.IntN(2) == 0
		var ranges [][2]rune
		for range 1 + rng.IntN(5) {
			pick := func() rune {
				if rng.IntN(2) == 0 {
					return bounds[rng.IntN(len(bounds))] + rune(rng.IntN(3)) - 1
				}
				return rune(rng.IntN(utf8.MaxRune + 1))
			}
			lo, hi := pick(), pick()
			lo, hi = max(0, min(lo, hi)), min(utf8.MaxRune, max(lo, hi, 0))
			ranges = append(ranges, [2]rune{lo, hi})
			fmt.Fprintf(&sb, `\U%08X-\U%08X`, lo, hi)
		}
		class := "[" + sb.String() + "]"
		if negate {
			class = "[^" + sb.String() + "]"
		}
		tests = append(tests, struct {
			class  string
			negate bool
			ranges [][2]rune
		}{class, negate, ranges})
	}
	for _, tt := range tests {
		member := func(r rune) bool {
			in := false
			for _, rg := range tt.ranges {
				in = in || rg[0] <= r && r <= rg[1]
			}
			return isScalar(r) && in != tt.negate
		}
		any := false
		for r := rune(0); r <= utf8.MaxRune && !any; r++ {
			any = member(r)
		}
		if !any {
			continue // would be a "matches no character" error
		}
		checkClass(t, tt.class, member)
	}
}

func TestClassSharesRule(t *testing.T) {
	g, _ := mustCompile(t, "root ::= . x . [^a]\nx ::= .", Options{})
	n := 0
	for _, r := range g.Rules {
		if r.Generated {
			n++
		}
	}
	if n != 2 { // one for ".", one for "[^a]"
		t.Errorf("%d generated rules, want 2:\n%s", n, g)
	}
}

func TestComplement(t *testing.T) {
	got := Complement([]RuneRange{{'x', 'z'}, {'a', 'c'}, {'b', 'd'}})
	want := []RuneRange{{0, 'a' - 1}, {'e', 'x' - 1}, {'z' + 1, surrogateMin - 1}, {surrogateMax + 1, 0x10FFFF}}
	if !slices.Equal(got, want) {
		t.Errorf("Complement = %v, want %v", got, want)
	}
}

// TestUTF8Forms: the forms hold exactly the valid multi-byte encodings:
// every rune from U+0080 on but the surrogates is in one, and no byte
// string of a form decodes to an invalid or overlong rune.
func TestUTF8Forms(t *testing.T) {
	forms := UTF8Forms()
	in := func(b []byte) bool {
		for _, f := range forms {
			ok := len(f) == len(b)
			for i := 0; ok && i < len(b); i++ {
				ok = f[i][0] <= b[i] && b[i] <= f[i][1]
			}
			if ok {
				return true
			}
		}
		return false
	}
	for r := rune(0x80); r <= utf8.MaxRune; r++ {
		b := utf8.AppendRune(nil, r)
		if r >= surrogateMin && r <= surrogateMax { // AppendRune writes U+FFFD
			b = []byte{0xE0 | byte(r>>12), 0x80 | byte(r>>6)&0x3F, 0x80 | byte(r)&0x3F}
		}
		if want := r < surrogateMin || r > surrogateMax; in(b) != want {
			t.Fatalf("U+%04X: in a form %v, want %v", r, !want, want)
		}
	}
	for _, f := range forms {
		for _, lo := range []bool{true, false} {
			var b []byte
			for _, r := range f {
				if lo {
					b = append(b, r[0])
				} else {
					b = append(b, r[1])
				}
			}
			if r, n := utf8.DecodeRune(b); r == utf8.RuneError || n != len(b) {
				t.Errorf("form %x: %x does not decode", f, b)
			}
		}
	}
}
