package regex

import (
	"errors"
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gasplab/gasp/pkg/earley"
	"github.com/gasplab/gasp/pkg/grammar"
)

// corpus covers literals, classes, Unicode classes, case folding,
// repetition with bounds, alternation, anchors and ".".
var corpus = []string{
	`abc`,
	`a|b|cd`,
	`[a-c]+x?`,
	`[^a-c]{2,4}`,
	`\d{3}-\d{2,}`,
	`\w+@\w+\.(com|org)`,
	`\s*\S+\s*`,
	`[[:alpha:]][[:digit:]]*`,
	`\p{L}+`,
	`\p{Greek}\P{Greek}`,
	`\pN{1,3}`,
	`(?i)straße|ǅ`,
	`(?i)[a-f]k`,
	`a.b`,
	`(?s)a.b`,
	`^ab`,
	`ab$`,
	`^a|b$`,
	`^(ab|cd)*$`,
	`x(a|)*y`,
	`(a{2}){0,3}b`,
	`é[à-ÿ]€?😀*`,
	`[\x{10000}-\x{10FFFF}]`,
	`a*?b+?c??`,
	`(?:foo|foobar)(?:bar)?`,
	`^$`,
	`^`,
	`$`,
	``,
	`[^\n]+`,
	`(a|b)*abb`,
	`\Aab\z`,
	`[a-z&&[^x]]`,
	`\.\*\+\?\(\)\[\]\{\}\|\\\^\$`,
	`\x41\x{263a}\t\n`,
	`[\pL--]{0,2}z`,
	`(?i)\x{212a}`,
	`^\d+(\.\d+)?(e[+-]?\d+)?$`,
	// What an unanchored side absorbs in Search mode (trimSearch,
	// firstOccurrence): repetitions, nullable items, one character.
	`[a-z0-9_-]+`,
	`^dev|alpha|beta|rc|RC|stable$`,
	`x{2,5}y*`,
	`^a{1,3}`,
	`b?c*$`,
	`[^b]`,
	`.`,
	`(?i)k`,
	`(ab)+c+`,
}

// alphabet returns characters that matter to pattern: its own, their case
// variants, neighbours, and a few from other scripts and planes.
func alphabet(pattern string) []rune {
	rs := []rune("aAbBcC0123456789 \t\n\r.-_@xyzXYZéΣσς€😀\u212a\u017fkKsS")
	for _, r := range pattern {
		rs = append(rs, r, r+1, r-1)
	}
	return rs
}

func randomString(rng *rand.Rand, alpha []rune, maxLen int) string {
	var b strings.Builder
	for n := rng.IntN(maxLen + 1); n > 0; n-- {
		r := alpha[rng.IntN(len(alpha))]
		if !utf8.ValidRune(r) {
			r = 'q'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// mutate inserts, deletes or replaces a few characters of s.
func mutate(rng *rand.Rand, s string, alpha []rune) string {
	rs := []rune(s)
	for n := 1 + rng.IntN(3); n > 0; n-- {
		i := rng.IntN(len(rs) + 1)
		c := alpha[rng.IntN(len(alpha))]
		if !utf8.ValidRune(c) {
			c = 'q'
		}
		switch op := rng.IntN(3); {
		case op == 0 || len(rs) == 0 || i == len(rs):
			rs = append(rs[:i], append([]rune{c}, rs[i:]...)...)
		case op == 1:
			rs = append(rs[:i], rs[i+1:]...)
		default:
			rs[i] = c
		}
	}
	return string(rs)
}

func accepts(m *earley.Machine, s string) bool {
	p := m.NewParser()
	return p.FeedBytes([]byte(s)) && p.Complete()
}

// oracle is Go's regexp with the semantics of mode.
func oracle(t testing.TB, pattern string, mode Mode) *regexp.Regexp {
	if mode == Full {
		// Wrapped as parsed: a \Q that quotes to the end would take a
		// closing ")$" written after it.
		parsed, err := syntax.Parse(pattern, syntax.Perl)
		if err != nil {
			t.Fatalf("oracle: %v", err)
		}
		pattern = `^(?:` + parsed.String() + `)$`
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		t.Fatalf("oracle: %v", err)
	}
	return re
}

// checkStrings compares membership in g with the oracle on strings: those
// sampled from g, mutations of those, and random strings.
func checkStrings(t *testing.T, pattern string, mode Mode, rng *rand.Rand, n int) (in, out int) {
	g, err := Compile("p.regex", pattern, mode)
	if err != nil {
		t.Fatalf("%q: %v", pattern, err)
	}
	m := earley.New(g)
	re := oracle(t, pattern, mode)
	alpha := alphabet(pattern)
	var samples []string
	for i := 0; i < n; i++ {
		var s string
		switch i % 3 {
		case 0:
			b, err := grammar.SampleLimit(g, rng, 30, 64)
			if err != nil {
				continue
			}
			s = string(b)
			samples = append(samples, s)
			if !re.MatchString(s) {
				t.Fatalf("%q (mode %d): sample %q does not match", pattern, mode, s)
			}
		case 1:
			if len(samples) > 0 {
				s = mutate(rng, samples[rng.IntN(len(samples))], alpha)
			}
		default:
			s = randomString(rng, alpha, 8)
		}
		want, got := re.MatchString(s), accepts(m, s)
		if want != got {
			t.Fatalf("%q (mode %d): %q: grammar says %v, regexp says %v", pattern, mode, s, got, want)
		}
		if want {
			in++
		} else {
			out++
		}
	}
	return in, out
}

// TestCorpusAgainstRegexp checks membership against Go's regexp on
// thousands of sampled, mutated and random strings per pattern and mode.
func TestCorpusAgainstRegexp(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 1))
	n := 3000
	if testing.Short() {
		n = 300
	}
	for _, p := range corpus {
		for _, mode := range []Mode{Full, Search} {
			in, out := checkStrings(t, p, mode, rng, n)
			if in == 0 {
				t.Errorf("%q (mode %d): no member among %d strings", p, mode, n)
			}
			t.Logf("%-40q mode %d: %d members, %d non-members agree", p, mode, in, out)
		}
	}
}

// TestInvalidUTF8 checks that a compiled pattern accepts no invalid UTF-8,
// even where regexp (which reads a bad byte as U+FFFD) would match.
func TestInvalidUTF8(t *testing.T) {
	g, err := Compile("p.regex", `.*`, Full)
	if err != nil {
		t.Fatal(err)
	}
	m := earley.New(g)
	for _, s := range []string{"\xff", "a\xc3", "\xed\xa0\x80", "\xc0\x80"} {
		if accepts(m, s) {
			t.Errorf("accepts invalid UTF-8 %q", s)
		}
	}
	if !accepts(m, "a\u00e9\U0001F600") {
		t.Errorf("rejects valid UTF-8")
	}
}

// TestErrors checks that unsupported constructs are errors that name
// their position.
func TestErrors(t *testing.T) {
	cases := []struct{ pattern, want string }{
		{`ab(?=c)`, `p.regex:1:3: error parsing regexp: invalid or unsupported Perl syntax: ` + "`(?=`" + ` (lookaround is not supported)`},
		{`x(?<!c)`, `p.regex:1:2: error parsing regexp: invalid named capture: ` + "`(?<!c)`" + ` (lookaround is not supported)`},
		{`(a)\1`, `p.regex:1:4: error parsing regexp: invalid escape sequence: ` + "`\\1`" + ` (backreferences are not supported)`},
		{`a[b`, `p.regex:1:2: error parsing regexp: missing closing ]: ` + "`[b`"},
		{`a^b`, `p.regex:1:2: start anchor (^ or \A) that does not lead a top-level alternative is not supported`},
		{`a$b`, `p.regex:1:2: end anchor ($ or \z) that does not end a top-level alternative is not supported`},
		{`(^a|b)c`, `p.regex:1:2: start anchor (^ or \A) that does not lead a top-level alternative is not supported`},
		{`a\bc`, `p.regex:1:2: word boundary \b is not supported`},
		{`(?m)^a`, `p.regex:1:5: multi-line anchor (flag m) is not supported`},
		{`[^\x00-\x{10FFFF}]`, `p.regex:1:1: pattern matches no string`},
		{"\xff", `p.regex:1:1: pattern is not valid UTF-8`},
	}
	for _, c := range cases {
		_, err := Compile("p.regex", c.pattern, Search)
		var list grammar.ErrorList
		if !errors.As(err, &list) {
			t.Errorf("%q: error %v is not an ErrorList", c.pattern, err)
			continue
		}
		if err.Error() != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.pattern, err, c.want)
		}
	}
}

// TestOptionsPos checks that error columns count from Options.Pos.
func TestOptionsPos(t *testing.T) {
	_, err := Expr("s.json", `a\1`, Options{Pos: grammar.Pos{Filename: "s.json", Line: 3, Col: 10}})
	if err == nil || !strings.HasPrefix(err.Error(), "s.json:3:11: ") {
		t.Errorf("got %v", err)
	}
}

// FuzzCompile checks, for any pattern Go's regexp accepts and this package
// compiles, that membership agrees with regexp on sampled, mutated and
// random strings; and that no pattern makes it panic.
func FuzzCompile(f *testing.F) {
	for _, p := range corpus {
		f.Add(p, uint64(1))
	}
	f.Fuzz(func(t *testing.T, pattern string, seed uint64) {
		if len(pattern) > 64 || strings.Contains(pattern, "{") && strings.Count(pattern, "{") > 2 {
			return // keep each run small
		}
		for _, mode := range []Mode{Full, Search} {
			g, err := Compile("p.regex", pattern, mode)
			if err != nil {
				var list grammar.ErrorList
				if !errors.As(err, &list) || len(list) == 0 || !list[0].Pos.IsValid() {
					t.Fatalf("%q: error %v has no position", pattern, err)
				}
				continue
			}
			if _, err := regexp.Compile(pattern); err != nil {
				t.Fatalf("%q compiles here but not in regexp: %v", pattern, err)
			}
			if g.Validate() != nil {
				t.Fatal(g.Validate())
			}
			checkStrings(t, pattern, mode, rand.New(rand.NewPCG(seed, 2)), 60)
		}
	})
}

// TestSearchStates checks that Search mode writes what an unanchored side
// absorbs out of the grammar (trimSearch, firstOccurrence) and searched
// words as their automaton (words.go): a string that must contain a letter
// is two loops, before and after the first one, whatever follows; written
// .*[a-z]+.*, an Earley State also tracked each way the letters so far
// could be the match, and written .*abab.*|.*-b-.*|.*9a, each way the text
// may end in part of a word.
func TestSearchStates(t *testing.T) {
	for _, c := range []struct {
		pattern string
		most    int // States after the 20 strings, with a view of an origin (written as .*(p).*: 17, 9, 35)
	}{{`[a-z]+`, 6}, {`^x?[a-z]{2,}`, 7}, {`abab|-b-|9a$`, 13}} {
		g, err := Compile("p.regex", c.pattern, Search)
		if err != nil {
			t.Fatal(err)
		}
		m := earley.New(g)
		rng := rand.New(rand.NewPCG(1, 2))
		for range 20 {
			s := []byte("ab")
			for range 40 {
				s = append(s, "ab- 9"[rng.IntN(5)])
			}
			if !m.NewParser().FeedBytes(s) {
				t.Fatalf("%q: %q not viable", c.pattern, s)
			}
		}
		if n := m.NumStates(); n > c.most {
			t.Errorf("%q: %d States, want at most %d", c.pattern, n, c.most)
		}
	}
}
