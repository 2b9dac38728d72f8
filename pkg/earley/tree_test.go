package earley

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/grammar"
)

// specGrammar builds a compiled Grammar from a compact description, one rule
// per line (a line without "::=" continues the rule above it):
//
//	sum ::= sum "+" num | num
//	_d  ::= _d [0-9] | [0-9] | ""
//
// The first rule is the start rule; rules named with a leading "_" are
// Generated. A quoted string is a sequence of one-byte terminals (`""` is
// nothing); a bracketed class such as [a-z \n] is one terminal. The grammar
// is not checked for being pruned.
func specGrammar(t testing.TB, src string) *grammar.Grammar {
	t.Helper()
	g := &grammar.Grammar{}
	type rawRule struct {
		name string
		alts [][]string
	}
	var raws []*rawRule
	index := map[string]int{}
	for line := range strings.Lines(src) {
		toks, err := specTokens(line)
		if err != nil {
			t.Fatalf("specGrammar: %q: %v", line, err)
		}
		if len(toks) == 0 {
			continue
		}
		if len(toks) >= 2 && toks[1] == "::=" {
			r := &rawRule{name: toks[0], alts: [][]string{nil}}
			if _, dup := index[r.name]; dup {
				t.Fatalf("specGrammar: rule %s defined twice", r.name)
			}
			index[r.name] = len(raws)
			raws = append(raws, r)
			toks = toks[2:]
		} else if len(raws) == 0 {
			t.Fatalf("specGrammar: %q: continuation before any rule", line)
		}
		r := raws[len(raws)-1]
		for _, tok := range toks {
			if tok == "|" {
				r.alts = append(r.alts, nil)
			} else {
				r.alts[len(r.alts)-1] = append(r.alts[len(r.alts)-1], tok)
			}
		}
	}
	terminal := func(set grammar.ByteSet) grammar.Symbol {
		for i, s := range g.Terminals {
			if s == set {
				return grammar.T(i)
			}
		}
		g.Terminals = append(g.Terminals, set)
		return grammar.T(len(g.Terminals) - 1)
	}
	for ri, r := range raws {
		rule := grammar.Rule{Name: r.name, Generated: strings.HasPrefix(r.name, "_")}
		for _, alt := range r.alts {
			p := grammar.Prod{LHS: ri}
			for _, tok := range alt {
				switch {
				case tok[0] == '"':
					lit, err := strconv.Unquote(tok)
					if err != nil {
						t.Fatalf("specGrammar: %s: %v", tok, err)
					}
					for i := 0; i < len(lit); i++ {
						var set grammar.ByteSet
						set.Add(lit[i])
						p.RHS = append(p.RHS, terminal(set))
					}
				case tok[0] == '[':
					p.RHS = append(p.RHS, terminal(specClass(t, tok)))
				default:
					i, ok := index[tok]
					if !ok {
						t.Fatalf("specGrammar: undefined rule %s", tok)
					}
					p.RHS = append(p.RHS, grammar.NT(i))
				}
			}
			rule.Prods = append(rule.Prods, len(g.Prods))
			g.Prods = append(g.Prods, p)
		}
		g.Rules = append(g.Rules, rule)
	}
	return g
}

// specTokens splits a spec line into names, "::=", "|", quoted strings and classes.
func specTokens(line string) ([]string, error) {
	var toks []string
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
			continue
		case c == '"' || c == '[':
			close := byte('"')
			if c == '[' {
				close = ']'
			}
			j := i + 1
			for j < len(line) && line[j] != close {
				if line[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(line) {
				return nil, fmt.Errorf("unterminated %c", c)
			}
			toks = append(toks, line[i:j+1])
			i = j + 1
		default:
			j := i
			for j < len(line) && !strings.ContainsRune(" \t\r\n\"[", rune(line[j])) {
				j++
			}
			toks = append(toks, line[i:j])
			i = j
		}
	}
	return toks, nil
}

// specClass parses a class such as [a-z_\n\]] into a byte set.
func specClass(t testing.TB, tok string) grammar.ByteSet {
	t.Helper()
	var bs []byte
	var isRange []bool // isRange[i]: bs[i] was an unescaped '-'
	for i := 1; i < len(tok)-1; i++ {
		c := tok[i]
		if c == '\\' {
			i++
			switch tok[i] {
			case 'n':
				c = '\n'
			case 't':
				c = '\t'
			case 'r':
				c = '\r'
			case 'x':
				v, err := strconv.ParseUint(tok[i+1:i+3], 16, 8)
				if err != nil {
					t.Fatalf("specClass: bad escape in %s", tok)
				}
				c = byte(v)
				i += 2
			default:
				c = tok[i]
			}
			bs, isRange = append(bs, c), append(isRange, false)
			continue
		}
		bs, isRange = append(bs, c), append(isRange, c == '-')
	}
	var set grammar.ByteSet
	for i := 0; i < len(bs); i++ {
		if i+2 < len(bs) && isRange[i+1] {
			if bs[i] > bs[i+2] {
				t.Fatalf("specClass: bad range in %s", tok)
			}
			set.AddRange(bs[i], bs[i+2])
			i += 2
			continue
		}
		set.Add(bs[i])
	}
	if set.Len() == 0 {
		t.Fatalf("specClass: empty class %s", tok)
	}
	return set
}

// checkTree validates a parse tree of input against g: the root is the start
// rule spanning the input, children tile their parent's span, leaves match
// their bytes, and each node's children spell a production of its rule.
func checkTree(g *grammar.Grammar, root *Node, input []byte) error {
	if root == nil {
		return fmt.Errorf("nil tree")
	}
	if root.Rule != g.Start || root.Start != 0 || root.End != len(input) {
		return fmt.Errorf("root is rule %d [%d,%d), want start rule %d [0,%d)", root.Rule, root.Start, root.End, g.Start, len(input))
	}
	stack := []*Node{root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.Rule < 0 {
			if n.Rule != -1 || n.Name != "" || n.End != n.Start+1 || len(n.Children) != 0 {
				return fmt.Errorf("bad leaf %+v", *n)
			}
			continue
		}
		if n.Rule >= len(g.Rules) || n.Name != g.Rules[n.Rule].Name {
			return fmt.Errorf("node %+v: bad rule or name", *n)
		}
		pos := n.Start
		for _, ch := range n.Children {
			if ch.Start != pos {
				return fmt.Errorf("node %s [%d,%d): child starts at %d, want %d", n.Name, n.Start, n.End, ch.Start, pos)
			}
			pos = ch.End
		}
		if pos != n.End {
			return fmt.Errorf("node %s [%d,%d): children end at %d", n.Name, n.Start, n.End, pos)
		}
		if !spellsProd(g, n, input) {
			return fmt.Errorf("node %s [%d,%d): children spell no production", n.Name, n.Start, n.End)
		}
		stack = append(stack, n.Children...)
	}
	return nil
}

func spellsProd(g *grammar.Grammar, n *Node, input []byte) bool {
	for _, pi := range g.Rules[n.Rule].Prods {
		rhs := g.Prods[pi].RHS
		if len(rhs) != len(n.Children) {
			continue
		}
		ok := true
		for i, s := range rhs {
			ch := n.Children[i]
			if s.IsTerminal() {
				ok = ch.Rule == -1 && g.Terminals[s.Terminal()].Has(input[ch.Start])
			} else {
				ok = ch.Rule == s.Rule()
			}
			if !ok {
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// treeShape returns the rule names of the tree in preorder, for comparing
// tree shapes compactly.
func treeShape(n *Node) string {
	var b strings.Builder
	var walk func(n *Node)
	walk = func(n *Node) {
		if n.Rule < 0 {
			b.WriteByte('.')
			return
		}
		b.WriteString(n.Name)
		if len(n.Children) > 0 {
			b.WriteByte('(')
			for i, ch := range n.Children {
				if i > 0 {
					b.WriteByte(' ')
				}
				walk(ch)
			}
			b.WriteByte(')')
		}
	}
	walk(n)
	return b.String()
}

const jsonSpec = `
json     ::= ws value ws
value    ::= object | array | string | number | "true" | "false" | "null"
object   ::= "{" ws "}" | "{" ws members ws "}"
members  ::= member | members ws "," ws member
member   ::= string ws ":" ws value
array    ::= "[" ws "]" | "[" ws elements ws "]"
elements ::= value | elements ws "," ws value
string   ::= "\"" _chars "\""
_chars   ::= _chars _char | ""
_char    ::= [a-z ] | "\\" [\"\\n]
number   ::= _minus _digits
_minus   ::= "-" | ""
_digits  ::= _digits [0-9] | [0-9]
ws       ::= _ws
_ws      ::= _ws [ \t\n] | ""
`

func mustParse(t *testing.T, g *grammar.Grammar, input string) *Node {
	t.Helper()
	n, err := Parse(g, []byte(input))
	if err != nil {
		t.Fatalf("Parse(%q): %v", input, err)
	}
	if err := checkTree(g, n, []byte(input)); err != nil {
		t.Fatalf("Parse(%q): bad tree: %v\n%s", input, err, n.Format([]byte(input)))
	}
	return n
}

func TestParseJSON(t *testing.T) {
	g := specGrammar(t, jsonSpec)
	for _, in := range []string{
		`{}`, `[]`, ` 1 `, `-42`, `"a b\n"`, `true`,
		`{"a": [1, 2, {"b": null}], "c" : "x\\y"}`,
		"[\n\t[], [[]], {\"k\":{\"k\":[-0]}}\n]",
	} {
		n := mustParse(t, g, in)
		// Every byte is covered by exactly one leaf.
		if got := countLeaves(n); got != len(in) {
			t.Errorf("Parse(%q): %d leaves, want %d", in, got, len(in))
		}
	}
	for _, in := range []string{`{`, `[1,`, `"ab`, ``, `  `} {
		if _, err := Parse(g, []byte(in)); err == nil || !strings.Contains(err.Error(), "incomplete prefix") {
			t.Errorf("Parse(%q) = %v, want incomplete-prefix error", in, err)
		}
	}
	for _, tc := range []struct {
		in  string
		off int
	}{{`}`, 0}, {`[1,]`, 3}, {`{"a" 1}`, 5}, {`[1] x`, 4}, {`tru`, -1}, {`trux`, 3}, {`"A"`, 1}} {
		_, err := Parse(g, []byte(tc.in))
		want := fmt.Sprintf("at byte offset %d ", tc.off)
		if tc.off < 0 {
			want = "incomplete prefix"
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want error containing %q", tc.in, err, want)
		}
	}
}

func countLeaves(n *Node) int {
	c := 0
	stack := []*Node{n}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.Rule < 0 {
			c++
		}
		stack = append(stack, n.Children...)
	}
	return c
}

func TestParseErrorMessages(t *testing.T) {
	g := specGrammar(t, `s ::= "ab" | "ac"`)
	_, err := Parse(g, []byte("ad"))
	if want := `earley: input is not viable at byte offset 1 (byte 'd')`; err == nil || err.Error() != want {
		t.Errorf("Parse(ad) error = %v, want %s", err, want)
	}
	_, err = Parse(g, []byte("a"))
	if want := `earley: input is an incomplete prefix: more input is needed after byte offset 1`; err == nil || err.Error() != want {
		t.Errorf("Parse(a) error = %v, want %s", err, want)
	}
	_, err = Parse(g, []byte("abc"))
	if want := `earley: input is not viable at byte offset 2 (byte 'c')`; err == nil || err.Error() != want {
		t.Errorf("Parse(abc) error = %v, want %s", err, want)
	}
}

func TestParseAmbiguous(t *testing.T) {
	g := specGrammar(t, `E ::= E "+" E | "a"`)
	for _, in := range []string{"a", "a+a", "a+a+a", "a+a+a+a+a+a+a"} {
		n := mustParse(t, g, in)
		// The choice among derivations must be deterministic.
		for range 3 {
			if m := mustParse(t, g, in); treeShape(m) != treeShape(n) {
				t.Fatalf("Parse(%q) not deterministic: %s vs %s", in, treeShape(m), treeShape(n))
			}
		}
	}
	for _, in := range []string{"a+", "+a", "aa"} {
		if _, err := Parse(g, []byte(in)); err == nil {
			t.Errorf("Parse(%q) succeeded", in)
		}
	}
}

func TestParseNullable(t *testing.T) {
	g := specGrammar(t, `
S ::= A B A "x" A | A
A ::= B B | "a" | ""
B ::= A | "b"
`)
	for _, in := range []string{"", "x", "ax", "abx", "bbbbx", "xa", "a", "b", "bb", "abaxab"} {
		mustParse(t, g, in)
	}
	if _, err := Parse(g, []byte("xx")); err == nil {
		t.Errorf("Parse(xx) succeeded")
	}
	// The empty input derives ε through nullable rules only.
	n := mustParse(t, g, "")
	if n.Start != 0 || n.End != 0 {
		t.Errorf("empty parse spans [%d,%d)", n.Start, n.End)
	}
}

func TestParseCycles(t *testing.T) {
	for _, tc := range []struct{ spec, sentence string }{
		{`A ::= A | "a"`, "a"},
		{`A ::= B | "a"
B ::= A`, "a"},
		{`A ::= B
B ::= C | A | ""
C ::= A A | "c"`, "ccc"},
		{`A ::= A A | A | "a" | ""`, "aaa"},
	} {
		g := specGrammar(t, tc.spec)
		for _, in := range []string{"", "a", "aa", "aaa", "c", "ac", "cca"} {
			n, err := Parse(g, []byte(in))
			if err != nil {
				continue
			}
			if err := checkTree(g, n, []byte(in)); err != nil {
				t.Errorf("%s: Parse(%q): %v", tc.spec, in, err)
			}
		}
		mustParse(t, g, tc.sentence)
	}
}

func TestParseLeftRecursiveLoops(t *testing.T) {
	g := specGrammar(t, `
list ::= "(" _items ")"
_items ::= _items item | ""
item ::= [a-z] | list
`)
	n := mustParse(t, g, "(ab(c()d)e)")
	f := n.Flatten(g)
	if got, want := treeShape(f), "list(. item(.) item(.) item(list(. item(.) item(list(. .)) item(.) .)) item(.) .)"; got != want {
		t.Errorf("flattened shape = %s, want %s", got, want)
	}
	// Right recursion, which is quadratic in a plain Earley chart, still works.
	r := specGrammar(t, `R ::= "a" R | ""`)
	mustParse(t, r, strings.Repeat("a", 2000))
}

func TestParseLongLoop(t *testing.T) {
	// root ::= [a]*, compiled as a left-recursive loop: the tree's left
	// spine is as deep as the input is long.
	g := specGrammar(t, `
root ::= _star
_star ::= _star [a] | ""
`)
	in := []byte(strings.Repeat("a", 100000))
	n, err := Parse(g, in)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkTree(g, n, in); err != nil {
		t.Fatal(err)
	}
	f := n.Flatten(g)
	if len(f.Children) != len(in) || f.Start != 0 || f.End != len(in) {
		t.Fatalf("flattened root has %d children spanning [%d,%d)", len(f.Children), f.Start, f.End)
	}
	for i, ch := range f.Children {
		if ch.Rule != -1 || ch.Start != i || ch.End != i+1 {
			t.Fatalf("child %d = %+v", i, *ch)
		}
	}
	if s := f.Format(in); strings.Count(s, "\n") != len(in)+1 {
		t.Errorf("Format has %d lines", strings.Count(s, "\n"))
	}
	if _, err := Parse(g, append(in, 'b')); err == nil || !strings.Contains(err.Error(), "offset 100000 ") {
		t.Errorf("Parse(a...ab) = %v, want error at offset 100000", err)
	}
}

func TestFlattenAndFormat(t *testing.T) {
	g := specGrammar(t, `
sum ::= sum "+" num | num
num ::= _d
_d  ::= _d [0-9] | [0-9]
`)
	in := []byte("12+3")
	n := mustParse(t, g, string(in))
	const wantRaw = `sum [0,4) "12+3"
  sum [0,2) "12"
    num [0,2) "12"
      _d [0,2) "12"
        _d [0,1) "1"
          [0,1) "1"
        [1,2) "2"
  [2,3) "+"
  num [3,4) "3"
    _d [3,4) "3"
      [3,4) "3"
`
	if got := n.Format(in); got != wantRaw {
		t.Errorf("Format =\n%s\nwant\n%s", got, wantRaw)
	}
	const wantFlat = `sum [0,4) "12+3"
  sum [0,2) "12"
    num [0,2) "12"
      [0,1) "1"
      [1,2) "2"
  [2,3) "+"
  num [3,4) "3"
    [3,4) "3"
`
	f := n.Flatten(g)
	if got := f.Format(in); got != wantFlat {
		t.Errorf("flattened Format =\n%s\nwant\n%s", got, wantFlat)
	}
	// Flatten copies: the original tree is unchanged.
	if got := n.Format(in); got != wantRaw {
		t.Errorf("Flatten changed the original tree:\n%s", got)
	}
	// Text is quoted, so control and non-UTF-8 bytes stay on one line.
	q := specGrammar(t, `s ::= [\n] [\x80-\xff]`)
	in = []byte("\n\x80")
	const wantQuoted = `s [0,2) "\n\x80"
  [0,1) "\n"
  [1,2) "\x80"
`
	if got := mustParse(t, q, string(in)).Format(in); got != wantQuoted {
		t.Errorf("Format =\n%s\nwant\n%s", got, wantQuoted)
	}
}

func mustCompile(t testing.TB, src string) *grammar.Grammar {
	t.Helper()
	g, _, err := grammar.Compile("test.gbnf", []byte(src), grammar.Options{})
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return g
}

func TestParseCompiled(t *testing.T) {
	g := mustCompile(t, `
root ::= "x" ("ab" | [c-d])+ "é"? item*
item ::= "," [0-9]+
`)
	in := []byte("xabcabdé,12,3")
	n := mustParse(t, g, string(in))
	const want = `root [0,14) "xabcabdé,12,3"
  [0,1) "x"
  [1,2) "a"
  [2,3) "b"
  [3,4) "c"
  [4,5) "a"
  [5,6) "b"
  [6,7) "d"
  [7,8) "\xc3"
  [8,9) "\xa9"
  item [9,12) ",12"
    [9,10) ","
    [10,11) "1"
    [11,12) "2"
  item [12,14) ",3"
    [12,13) ","
    [13,14) "3"
`
	f := n.Flatten(g)
	if got := f.Format(in); got != want {
		t.Errorf("flattened Format =\n%s\nwant\n%s", got, want)
	}
}

func TestParseCompiledLongLoop(t *testing.T) {
	g := mustCompile(t, `root ::= [a]*`)
	in := []byte(strings.Repeat("a", 100000))
	n := mustParse(t, g, string(in))
	f := n.Flatten(g)
	if len(f.Children) != len(in) {
		t.Fatalf("flattened root has %d children, want %d", len(f.Children), len(in))
	}
}
