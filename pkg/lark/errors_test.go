package lark

import (
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"
)

// TestErrors checks that what cannot be compiled exactly is an error that
// names its position.
func TestErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"start: x\n", "g.lark:1:8: undefined rule x"},
		{"start: X\n", "g.lark:1:8: undefined terminal X"},
		{"start: \"a\"\nstart: \"b\"\n", "g.lark:2:1: start is defined twice"},
		{"other: \"a\"\n", `no start rule "start"`},
		{"start: A\nA: a\na: \"x\"\n", "g.lark:2:4: a terminal cannot use the rule a"},
		{"start: A\nA: \"a\" A?\n", "g.lark:2:4: terminal A is recursive"},
		{"start: A\nA: \"a\"?\n", "g.lark:1:8: terminal A matches the empty string"},
		{"start: /a*/\n", "g.lark:1:8: regular expression matches the empty string"},
		{"start: \"\"\n", "g.lark:1:8: empty string literals"},
		{"start: /a+?/\n", "g.lark:1:8: lazy quantifiers"},
		{"start: /^a/\n", "g.lark:1:8: anchors"},
		{"start: /a\\b/\n", `g.lark:1:8: \b (an anchor or word boundary) is not supported`},
		{"start: /(a)\\1/\n", "g.lark:1:8: \\1: backreferences"},
		{"start: /[[:alpha:]]/\n", "g.lark:1:8: [: in a class"},
		{"start: /\\pL/\n", `g.lark:1:8: \p is not Python regexp syntax`},
		{"start: /[\\S]/\n", `g.lark:1:8: \S inside a [...] class`},
		{"start: /a/x\n", "g.lark:1:8: the regexp flag x"},
		{"start: /a(?<=b)/\n", "g.lark:1:8: error parsing regexp"},
		{"start: \"b\"..\"a\"\n", `g.lark:1:8: range "b".."a" is empty`},
		{"start: \"ab\"..\"c\"\n", "g.lark:1:8: range bounds must be single characters"},
		{"start: \"a\" ~ 3..2\n", "g.lark:1:12: repetition ~ 3..2"},
		{"start: \"a\" ~ 1001\n", "g.lark:1:14: repetition count 1001"},
		{"start: x{\"a\"}\nx{p}: p\n", "g.lark:1:9: templates are not supported"},
		{"start{p}: p\n", "g.lark:1:6: templates (rule parameters) are not supported"},
		{"%declare A\nstart: A\n", "g.lark:1:1: %declare is not supported"},
		{"%override start: \"a\"\n", "g.lark:1:1: %override is not supported"},
		{"%import common.FOO\nstart: FOO\n", "g.lark:1:16: common has no terminal FOO"},
		{"%import other.FOO\nstart: FOO\n", "g.lark:1:9: only the module common"},
		{"%import .x.FOO\nstart: FOO\n", "g.lark:1:9: relative imports"},
		{"start: (\"a\"\n", "g.lark:1:12: expected ), found newline"},
		{"start: \"a\n", "g.lark:1:8: unterminated string"},
		{"start: /a\n", "g.lark:1:8: unterminated regular expression"},
		{"start: /a\nb/\n", "g.lark:1:8: a regular expression cannot span lines"},
		{"start: \"\\x4\"\n", `g.lark:1:8: truncated \x escape`},
		{"start: \"\\xZZ\"\n", `g.lark:1:8: bad \x escape`},
		{"start: \"a\" $\n", "g.lark:1:12: unexpected character '$'"},
		{"start: \"a\" \"\\rb\"?\n%import common.NEWLINE\n%ignore NEWLINE\n", "g.lark:3:9: after some match of terminal NEWLINE (ignored), '\\r' can begin a longer match that needs more characters"},
		{"start: \"y\"+\n%ignore /xy?/\n", "g.lark:2:9: the characters that extend a match of the regular expression /xy?/ (ignored) and can begin a token or ignored terminal depend on the match"},
		{"start: \"a\"\n%ignore /x*/\n", "g.lark:2:9: terminal %ignore matches the empty string"},
		{"start: \"a\" \xff\n", "g.lark:1:1: grammar is not valid UTF-8"},
	}
	for _, c := range cases {
		_, err := Compile("g.lark", []byte(c.src), "")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.src, err, c.want)
		}
	}
}

// TestStart compiles from a start rule other than "start".
func TestStart(t *testing.T) {
	if _, err := Compile("g.lark", []byte("a: \"x\"\n"), "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := Compile("g.lark", []byte("A: \"x\"\n"), "A"); err == nil {
		t.Fatal("a terminal as the start rule is not an error")
	}
}

// extensions returns the characters that extend some complete match of x
// into a longer one (at once or through more characters), from its stops.
func (c *compiler) extensions(x node) runeSet {
	ss, ok := c.stops(x)
	if !ok {
		return nil
	}
	var ext runeSet
	for _, s := range ss {
		ext = append(ext, s.acc...)
		ext = append(ext, s.mid...)
	}
	return ext.normal()
}

// TestExtensions checks the characters that extend complete matches of
// some terminals.
func TestExtensions(t *testing.T) {
	cases := []struct {
		src string // defines T
		in  string // characters in the set
		out string // characters not in it
	}{
		{"T: /[ \\t]+/", " \t", "a\n"},
		{"T: \"/*\" /[^*]/* \"*/\"", "", "a*/ \n"},
		{"T: \"#\" /[^\\n]/*", "a #", "\n"},
		{"T: \"ab\" | \"abc\"i", "cC", "ab"},
		{"T: \"x\" ~ 2..3", "x", "y"},
	}
	for _, c := range cases {
		f, err := parse("g.lark", c.src+"\n")
		if err != nil {
			t.Fatal(err)
		}
		cp := &compiler{defs: map[string]*def{}, nullMemo: map[string]bool{}, nullBusy: map[string]bool{}, acyclic: map[string]bool{}, setMemo: map[string][2]runeSet{}}
		cp.collect(f)
		ext := cp.extensions(&nameNode{name: "T"})
		for _, r := range c.in {
			if !ext.intersects(runeSet{{Lo: r, Hi: r}}) {
				t.Errorf("%s: %q is not in %v", c.src, r, ext)
			}
		}
		for _, r := range c.out {
			if ext.intersects(runeSet{{Lo: r, Hi: r}}) {
				t.Errorf("%s: %q is in %v", c.src, r, ext)
			}
		}
	}
}

// TestRestrictFirst checks restrictFirst against Go's regexp: a string is
// in the restricted language exactly when it is a non-empty string of the
// pattern that does not begin with a character of the set.
func TestRestrictFirst(t *testing.T) {
	bad := runeSet{{Lo: 'a', Hi: 'b'}, {Lo: '\n', Hi: '\n'}, {Lo: 'K', Hi: 'K'}}
	patterns := []string{`ab*c`, `(?i:kab)`, `[a-d]+x?`, `(a|c)*b{2,3}`, `(?:x?){2}a`, `c|ac|`, `(?:ab)*`,
		`.[^x]`, `(?s:.)b`, `(?:a|\n)?c{0,2}d?`, `x{0}a`, `(?i:k)`}
	alpha := []rune("abcdxkK\n")
	rng := rand.New(rand.NewPCG(28, 4))
	for _, pat := range patterns {
		re, err := syntax.Parse(pat, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		full := regexp.MustCompile(`^(?:` + pat + `)$`)
		var restricted *regexp.Regexp
		if r := restrictFirst(re, bad); r != nil {
			restricted = regexp.MustCompile(`^(?:` + r.String() + `)$`)
		}
		for i := 0; i < 3000; i++ {
			s := randomString(rng, alpha, 5)
			want := full.MatchString(s) && s != "" && !bad.intersects(runeSet{{Lo: []rune(s)[0], Hi: []rune(s)[0]}})
			got := restricted != nil && restricted.MatchString(s)
			if got != want {
				t.Errorf("%s restricted (%v): %q: got %v, want %v", pat, restricted, s, got, want)
				break
			}
		}
	}
}
