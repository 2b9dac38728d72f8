package tokenizer

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// A reference implementation of Llama3Pattern: a small backtracking regex
// engine (continuation passing, leftmost-first alternation, greedy
// quantifiers, as Oniguruma and fancy-regex), with the pattern written out
// in it term by term. It is slow and obviously faithful; the scanner must
// agree with it.

// A node matches at s[i:] and calls k with each end in order of preference
// until k accepts one.
type node func(s []rune, i int, k func(int) bool) bool

func cls(pred func(rune) bool) node {
	return func(s []rune, i int, k func(int) bool) bool {
		return i < len(s) && pred(s[i]) && k(i+1)
	}
}

func seq(ns ...node) node {
	if len(ns) == 1 {
		return ns[0]
	}
	return func(s []rune, i int, k func(int) bool) bool {
		return ns[0](s, i, func(j int) bool { return seq(ns[1:]...)(s, j, k) })
	}
}

func alt(ns ...node) node {
	return func(s []rune, i int, k func(int) bool) bool {
		for _, n := range ns {
			if n(s, i, k) {
				return true
			}
		}
		return false
	}
}

func empty(s []rune, i int, k func(int) bool) bool { return k(i) }

func opt(n node) node { return alt(n, empty) }

func star(n node) node {
	var self node
	self = func(s []rune, i int, k func(int) bool) bool {
		return n(s, i, func(j int) bool { return j > i && self(s, j, k) }) || k(i)
	}
	return self
}

func plus(n node) node { return seq(n, star(n)) }

func notAhead(n node) node {
	return func(s []rune, i int, k func(int) bool) bool {
		if n(s, i, func(int) bool { return true }) {
			return false
		}
		return k(i)
	}
}

var (
	isL  = unicode.IsLetter
	isN  = unicode.IsNumber
	isS  = func(r rune) bool { return unicode.Is(unicode.White_Space, r) }
	isLF = func(r rune) bool { return r == '\r' || r == '\n' }
	// ci matches c case-insensitively under simple Unicode case folding.
	ci = func(c rune) node {
		return cls(func(r rune) bool { return foldEq(r, c) })
	}
)

// foldEq reports whether a and b are equal under simple case folding.
func foldEq(a, b rune) bool {
	for r := unicode.SimpleFold(a); r != a; r = unicode.SimpleFold(r) {
		if r == b {
			return true
		}
	}
	return a == b
}

var refPattern = alt(
	// (?i:'s|'t|'re|'ve|'m|'ll|'d)
	seq(cls(func(r rune) bool { return r == '\'' }),
		alt(ci('s'), ci('t'), seq(ci('r'), ci('e')), seq(ci('v'), ci('e')), ci('m'), seq(ci('l'), ci('l')), ci('d'))),
	// [^\r\n\p{L}\p{N}]?\p{L}+
	seq(opt(cls(func(r rune) bool { return !isLF(r) && !isL(r) && !isN(r) })), plus(cls(isL))),
	// \p{N}{1,3}
	seq(cls(isN), opt(seq(cls(isN), opt(cls(isN))))),
	// ?[^\s\p{L}\p{N}]+[\r\n]*
	seq(opt(cls(func(r rune) bool { return r == ' ' })), plus(cls(func(r rune) bool { return !isS(r) && !isL(r) && !isN(r) })), star(cls(isLF))),
	// \s*[\r\n]+
	seq(star(cls(isS)), plus(cls(isLF))),
	// \s+(?!\S)
	seq(plus(cls(isS)), notAhead(cls(func(r rune) bool { return !isS(r) }))),
	// \s+
	plus(cls(isS)),
)

// refSplit splits s with the reference engine, as a Split with behavior
// Isolated: matches and the stretches between them.
func refSplit(s string) []string {
	rs := []rune(s)
	var out []string
	gap := 0
	for i := 0; i < len(rs); {
		end := -1
		refPattern(rs, i, func(j int) bool {
			if j > i {
				end = j
				return true
			}
			return false
		})
		if end < 0 {
			i++
			continue
		}
		if gap < i {
			out = append(out, string(rs[gap:i]))
		}
		out = append(out, string(rs[i:end]))
		i, gap = end, end
	}
	if gap < len(rs) {
		out = append(out, string(rs[gap:]))
	}
	return out
}

func scanSplit(s string) []string {
	var out []string
	splitLlama3(s, func(p string) bool {
		out = append(out, p)
		return true
	})
	return out
}

func TestPreTokenizeCases(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"Hello world", []string{"Hello", " world"}},
		{"  \n  word", []string{"  \n", " ", " word"}},
		{"a  b", []string{"a", " ", " b"}},
		{"a \t", []string{"a", " \t"}},
		{" 1", []string{" ", "1"}},
		{"12345", []string{"123", "45"}},
		{"I'm it'S we'LL 'sup", []string{"I", "'m", " it", "'S", " we", "'LL", " '", "sup"}},
		{"'ſ 'ſt", []string{"'ſ", " '", "ſt"}}, // ſ folds to s
		{"don't!!!\n\nok", []string{"don", "'t", "!!!\n\n", "ok"}},
		{" (\n", []string{" (\n"}},
		{"\n =", []string{"\n", " ="}},
		{"x\u0085\u0085y", []string{"x", "\u0085", "\u0085y"}}, // NEL is \s
		{"x\ufeffy", []string{"x", "\ufeffy"}},                 // BOM is not \s
		{"\t\n \n", []string{"\t\n \n"}},
		{"a\r\n\r\nb", []string{"a", "\r\n\r\n", "b"}},
		{"🦙.cpp", []string{"🦙.", "cpp"}},
		{"e\u0301x", []string{"e", "\u0301x"}},
		{"\xff\xfeab", []string{"\xff\xfe", "ab"}}, // invalid UTF-8 bytes are "other" characters
		{"\xffa 1", []string{"\xffa", " ", "1"}},
	} {
		got := scanSplit(c.in)
		if !slices.Equal(got, c.want) {
			t.Errorf("split(%q) = %q, want %q", c.in, got, c.want)
		}
		if !strings.Contains(c.in, "\xff") {
			if ref := refSplit(c.in); !slices.Equal(ref, c.want) {
				t.Errorf("reference split(%q) = %q, want %q", c.in, ref, c.want)
			}
		}
	}
}

// TestPreTokenizeReference compares the scanner with the reference engine
// on random strings, including the characters where JavaScript differs.
func TestPreTokenizeReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 20000
	if testing.Short() {
		n = 2000
	}
	for i := range n {
		s := randomString(r, genOptions{jsDiffers: true})
		got, want := scanSplit(s), refSplit(s)
		if !slices.Equal(got, want) {
			t.Fatalf("string %d %q:\nscanner   %q\nreference %q", i, s, got, want)
		}
	}
}

func TestPreTokenizeAllRunes(t *testing.T) {
	// Each character alone, and between letters and spaces: the scanner's
	// classes must agree with the reference on every rune.
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if 0xd800 <= r && r <= 0xdfff {
			continue
		}
		if r > 0x3000 && r%61 != 0 && r < 0xe0000 { // sample the rest, for speed
			continue
		}
		c := string(r)
		for _, s := range []string{c, "a" + c + "b", " " + c + " ", "1" + c + c + "\n", "'" + c} {
			if got, want := scanSplit(s), refSplit(s); !slices.Equal(got, want) {
				t.Fatalf("%U in %q: scanner %q, reference %q", r, s, got, want)
			}
		}
	}
}
