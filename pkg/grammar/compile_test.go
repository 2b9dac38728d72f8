package grammar

import (
	"errors"
	"io/fs"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestLanguage checks each construct by enumerating the sentences of small
// grammars.
func TestLanguage(t *testing.T) {
	tests := []struct {
		name   string
		src    string
		maxLen int
		want   string // space-separated sentences, ε for ""
	}{
		{"literal", `root ::= "ab"`, 4, "ab"},
		{"empty literal", `root ::= ""`, 4, "ε"},
		{"sequence", `root ::= "a" "b" "" "c"`, 4, "abc"},
		{"alternatives", `root ::= "a" | "bc" | "a"`, 4, "a bc"},
		{"empty alternative", `root ::= "a" | | ("b" | )`, 4, "ε a b"},
		{"group", `root ::= ("a" | "b") "c"`, 4, "ac bc"},
		{"nested groups", `root ::= ((("a")) (("b")))`, 4, "ab"},
		{"star", `root ::= "a"*`, 3, "ε a aa aaa"},
		{"plus", `root ::= "ab"+`, 6, "ab abab ababab"},
		{"optional", `root ::= "a" "b"?`, 4, "a ab"},
		{"exactly", `root ::= "a"{2}`, 6, "aa"},
		{"range", `root ::= "a"{2,4}`, 6, "aa aaa aaaa"},
		{"range with spaces", `root ::= "a"{ 1 , 2 }`, 6, "a aa"},
		{"at least", `root ::= "a"{2,}`, 5, "aa aaa aaaa aaaaa"},
		{"at least 0", `root ::= "a"{0,}`, 2, "ε a aa"},
		{"at least 1", `root ::= "a"{1,}`, 2, "a aa"},
		{"at most", `root ::= "a"{,2}`, 6, "ε a aa"},
		{"zero", `root ::= "x" "a"{0}`, 4, "x"},
		{"zero to zero", `root ::= "x" "a"{0,0}`, 4, "x"},
		{"one to one", `root ::= "x" "a"{1,1}`, 4, "xa"},
		{"zero to one", `root ::= "a"{0,1} "b"`, 4, "ab b"},
		{"group repeat", `root ::= ("a" | "b"){2}`, 4, "aa ab ba bb"},
		{"stacked repeat", `root ::= "a"{2}{2}`, 6, "aaaa"},
		{"repeat of empty", `root ::= ""* "x" ("")+ ""{3}`, 4, "x"},
		{"class", `root ::= [abc]`, 2, "a b c"},
		{"class range", `root ::= [a-c]`, 2, "a b c"},
		{"class trailing dash", `root ::= [a-]`, 2, "- a"},
		{"class leading dash", `root ::= [-a]`, 2, "- a"},
		{"class escapes", `root ::= [\]\-\[\\]`, 2, `- [ \ ]`},
		{"recursion", `root ::= "(" root ")" | ""`, 6, "ε () (()) ((()))"},
		{"left recursion", `root ::= root "a" | "b"`, 3, "b ba baa"},
		{"references", "root ::= a b\na ::= \"x\" | \"y\"\nb ::= a", 2, "xx xy yx yy"},
		{"names", "root ::= 1-a_B\n1-a_B ::= \"n\"", 2, "n"},
		{"comments", "# head\nroot ::= \"a\" # tail\n# more\n\n  \n", 2, "a"},
		{"multi-line rule", "root ::= a\n  | b     # comment\na ::= \"a\" |\n  \"b\"\nb ::=\n  \"c\" (\n    \"d\"\n\n  | \"e\"  # in a group\n  )", 2, "a b cd ce"},
		{"leading bar", "root ::= \"a\"\n\n# c\n  | \"b\"\n|\"c\"", 2, "a b c"},
		{"CRLF", "root ::= \"a\" |\r\n \"b\"\r\nx ::= root\r\n", 2, "a b"},
		{"BOM", "\uFEFFroot ::= \"a\"", 2, "a"},
		{"definition after empty body", "root ::=\n\"a\"", 2, "a"},
		{"empty body", "root ::= \"a\" x\nx ::=", 2, "a"},
		{"escapes", `root ::= "\x41\t\n\r\\\"\[\]\-\'\/\^"`, 20, "A\t\n\r\\\"[]-'/^"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, _ := mustCompile(t, tt.src, Options{})
			got := enumerate(g, tt.maxLen)
			if want := words(tt.want); tt.name == "escapes" {
				if !slices.Equal(got, []string{tt.want}) {
					t.Errorf("language = %q, want %q", got, tt.want)
				}
			} else if !slices.Equal(got, want) {
				t.Errorf("language up to length %d = %q, want %q\n%s", tt.maxLen, got, want, g)
			}
		})
	}
}

// TestLanguageRegexp compares regular constructs with Go regexps over a
// small alphabet: every string of length up to 6 over {a,b,c}.
func TestLanguageRegexp(t *testing.T) {
	tests := []struct{ gbnf, re string }{
		{`("a" "b"?)*`, `(ab?)*`},
		{`("a" | "b" "c")+ "c"?`, `(a|bc)+c?`},
		{`"a"{1,3} "b"{,2} "c"{2,}`, `a{1,3}b{0,2}c{2,}`},
		{`("ab"{0,2} | "c"){2}`, `((ab){0,2}|c){2}`},
		{`[ab]* "c" [^ab]`, `[ab]*c[^ab]`},
		{`("a"?){3} "b"+`, `(a?){3}b+`},
		{`("a"* | "b"*)*`, `(a*|b*)*`},
		{`(("a" | "b"){2,3})?`, `([ab]{2,3})?`},
		{`"a" ("b" ("c" "a"?)+)* "b"{0,1}`, `a(b(ca?)+)*b?`},
	}
	alphabet := "abc"
	var all []string
	var gen func(prefix string)
	gen = func(prefix string) {
		all = append(all, prefix)
		if len(prefix) < 6 {
			for _, c := range alphabet {
				gen(prefix + string(c))
			}
		}
	}
	gen("")
	for _, tt := range tests {
		g, _ := mustCompile(t, "root ::= "+tt.gbnf, Options{})
		re := regexp.MustCompile(`^(?:` + tt.re + `)$`)
		for _, s := range all {
			if got, want := recognize(g, []byte(s)), re.MatchString(s); got != want {
				t.Errorf("%s: accepts %q = %v, want %v (regexp %s)", tt.gbnf, s, got, want, tt.re)
			}
		}
	}
}

// TestAcceptReject checks membership for classes and escapes with large
// alphabets, where enumerating is impractical.
func TestAcceptReject(t *testing.T) {
	tests := []struct {
		src            string
		accept, reject []string
	}{
		{`root ::= .`, []string{"\n", "a", "\x00", "\x7f", "é", "€", "😀", "\U0010FFFF", "\uFFFD"},
			[]string{"", "ab", "\xff", "\x80", "\xed\xa0\x80", "\xc0\x80", "\xe0\x80\x80", "\xf4\x90\x80\x80", "\xc3"}},
		{`root ::= [^a]`, []string{"b", "\n", "é"}, []string{"a", ""}},
		{`root ::= [^a-c]`, []string{"d", "`", "é"}, []string{"a", "b", "c"}},
		{`root ::= [^\n]`, []string{"x", "\r"}, []string{"\n"}},
		{`root ::= [\u00e9-\u00ea]`, []string{"é", "ê"}, []string{"e", "\xe9", "ë"}},
		{`root ::= [\x00-\x1F]`, []string{"\x00", "\x1f"}, []string{" "}},
		{`root ::= [\x80-\xFF]`, []string{"\u0080", "ÿ"}, []string{"\x80", "\xff", "Ā"}},
		{`root ::= [\uD7FF-\uE000]`, []string{"\uD7FF", "\uE000"}, []string{"\xed\xa0\x80", "\xed\xbf\xbf"}},
		{`root ::= "\xE9"`, []string{"é"}, []string{"\xe9"}},
		{`root ::= "\u20AC\U0001F600"`, []string{"€😀"}, []string{"€"}},
		{`root ::= "é😀"`, []string{"é😀"}, []string{"é"}},
		{`root ::= [é😀]`, []string{"é", "😀"}, []string{"é😀"}},
		{`root ::= "a"{1000}`, []string{strings.Repeat("a", 1000)}, []string{strings.Repeat("a", 999), strings.Repeat("a", 1001)}},
		{`root ::= "a"{3,300}`, []string{"aaa", strings.Repeat("a", 300)}, []string{"aa", strings.Repeat("a", 301)}},
	}
	for _, tt := range tests {
		g, _ := mustCompile(t, tt.src, Options{})
		for _, s := range tt.accept {
			if !recognize(g, []byte(s)) {
				t.Errorf("%s: rejects %q", tt.src, s)
			}
		}
		for _, s := range tt.reject {
			if recognize(g, []byte(s)) {
				t.Errorf("%s: accepts %q", tt.src, s)
			}
		}
	}
}

// TestErrors checks each kind of error, with its exact position.
func TestErrors(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		lenient bool
		want    []string // "line:col: message substring", in order
	}{
		{"undefined rule", `root ::= "a" | a`, false, []string{`1:16: undefined rule a`}},
		{"undefined once per name", "root ::= a a b\nx ::= a", false, []string{`1:10: undefined rule a`, `1:14: undefined rule b`}},
		{"duplicate", "root ::= \"a\"\n\nroot ::= \"b\"", false, []string{`3:1: duplicate definition of rule root (first defined at 1:1)`}},
		{"bad escape", `root ::= "a\qb"`, false, []string{`1:12: bad escape "\\q"`}},
		{"bad escape in class", `root ::= [a\d]`, false, []string{`1:12: bad escape "\\d"`}},
		{"short hex escape", `root ::= "\x4"`, false, []string{`1:11: bad escape: \x needs 2 hexadecimal digits`}},
		{"short unicode escape", `root ::= [\u12]`, false, []string{`1:11: bad escape: \u needs 4 hexadecimal digits`}},
		{"escape beyond max", `root ::= "\U00110000"`, false, []string{`1:11: bad escape: U+110000 is beyond U+10FFFF`}},
		{"surrogate escape", `root ::= "x\uD800"`, false, []string{`1:12: bad escape: surrogate U+D800`}},
		{"escaped newline", "root ::= \"a\\\n\"", false, []string{`1:10: unterminated string literal`, `1:12: bad escape: backslash at end of line`, `2:1: unterminated string literal`}},
		{"unterminated literal", "root ::= \"abc\nx ::= \"y\"", false, []string{`1:10: unterminated string literal`}},
		{"unterminated literal at EOF", `root ::= "a" "abc`, false, []string{`1:14: unterminated string literal`}},
		{"unterminated class", "root ::= [abc\n", false, []string{`1:10: unterminated character class`}},
		{"unterminated class at EOF", "root ::= [a-", false, []string{`1:10: unterminated character class`}},
		{"empty class", `root ::= "x" []`, false, []string{`1:14: empty character class`}},
		{"empty negated class", `root ::= [^]`, false, []string{`1:10: empty character class`}},
		{"class matches nothing", `root ::= [^\x00-\U0010FFFF]`, false, []string{`1:10: character class matches no character`}},
		{"class of surrogates", `root ::= [\uD800-\uDFFF]`, false, []string{`1:10: character class matches no character`}},
		{"inverted range", `root ::= [az-a]`, false, []string{`1:12: inverted range in character class: 'z' > 'a'`}},
		{"bounds min > max", `root ::= "a"{3,2}`, false, []string{`1:13: invalid repetition bounds {3,2}`}},
		{"bounds missing", `root ::= "a"{}`, false, []string{`1:13: missing repetition count`}},
		{"bounds comma only", `root ::= "a"{,}`, false, []string{`1:13: missing repetition bounds`}},
		{"bound too large", `root ::= "a"{2,1001}`, false, []string{`1:16: repetition bound 1001 exceeds the limit of 1000`}},
		{"bound huge", `root ::= "a"{99999999999999999999999}`, false, []string{`1:14: repetition bound 99999999999999999999999 exceeds`}},
		{"bound not a number", `root ::= "a"{x}`, false, []string{`1:14: expected number in repetition bounds, found name x`}},
		{"bounds unclosed", `root ::= "a"{2`, false, []string{`1:15: expected "}", found end of file`}},
		{"bounds negative", `root ::= "a"{-1}`, false, []string{`1:14: expected number in repetition bounds, found name -1`}},
		{"missing ::=", "root \"a\"", false, []string{`1:6: expected "::=" after rule name root, found string literal`}},
		{"missing ::= at EOF", "root", false, []string{`1:5: expected "::=" after rule name root, found end of file`}},
		{"colon", "root : \"a\"", false, []string{`1:6: unexpected ":" (did you mean "::="?)`}},
		{"unexpected paren", `root ::= "a" )`, false, []string{`1:14: unexpected ")"`}},
		{"unclosed paren", `root ::= ( "a"`, false, []string{`1:15: expected ")", found end of file`}},
		{"unclosed paren before rule", "root ::= ( \"a\"\nx ::= \"b\"", false, []string{`2:3: expected ")", found "::="`}},
		{"nothing to repeat", `root ::= * "a"`, false, []string{`1:10: "*" has nothing to repeat`}},
		{"two rules on a line", `root ::= "a" b ::= "c"`, false, []string{`1:16: unexpected "::=" (a rule definition must start on a new line)`}},
		{"continuation without bar", "root ::= \"a\"\n  \"b\"", false, []string{`2:3: expected rule name, found string literal`}},
		{"unexpected character", `root ::= "a" ; "b"`, false, []string{`1:14: unexpected character ';'`}},
		{"invalid UTF-8", "root ::= \"\xff\"", false, []string{`1:11: invalid UTF-8 encoding`}},
		{"invalid UTF-8 in comment", "root ::= \"a\" # \xc3(", false, []string{`1:16: invalid UTF-8 encoding`}},
		{"invalid UTF-8 outside", "root ::= \"a\" \xe2\x82", false, []string{`1:14: invalid UTF-8 encoding`}},
		{"missing start rule", "a ::= \"x\"", false, []string{`1:1: start rule root is not defined`}},
		{"empty file", "", false, []string{`1:1: start rule root is not defined`}},
		{"empty language", "x ::= \"a\"\nroot ::= \"a\" root", false, []string{`2:1: empty language: start rule root derives no finite string`}},
		{"lenient empty language", "root ::= nothing", true, []string{`1:1: empty language`}},
		{"several parse errors", "root ::= a | \"x\nb ::= [z-a] c\nc ::= \"q\"{5,1}\nd ::= \"\\q\"", false,
			[]string{`1:14: unterminated string literal`, `2:8: inverted range`, `3:10: invalid repetition bounds {5,1}`, `4:8: bad escape`}},
		{"several semantic errors", "root ::= a b a\nroot ::= \"x\"\nb ::= [^\\x00-\\U0010FFFF]", false,
			[]string{`1:10: undefined rule a`, `2:1: duplicate definition of rule root`, `3:7: character class matches no character`}},
		{"nesting", "root ::= " + strings.Repeat("(", 600) + `"a"` + strings.Repeat(")", 600), false, []string{`1:510: expression nested too deeply`}},
		{"too many errors", strings.Repeat("x ::= )\n", 30), false, []string{"1:7", "2:7", "3:7", "4:7", "5:7", "6:7", "7:7", "8:7", "9:7", "10:7", "11:7: too many errors"}},
		{"too many semantic errors", "root ::= " + strings.Repeat("u ", 30) + "\n" + strings.Repeat("x ::= \"\"\n", 12), false,
			[]string{"1:10: undefined rule u", "3:1: duplicate", "4:1", "5:1", "6:1", "7:1", "8:1", "9:1", "10:1", "11:1", "12:1: too many errors"}},
		{"too large", "root ::= \"x\"\nz ::= " + strings.Repeat(`("a" "b"){0,1000}`, 900), false, []string{"2:1: grammar too large"}},
		{"too large in one production", "root ::= \"x\"\nz ::= " + strings.Repeat(`"a"{1000} `, 5000), false, []string{"2:1: grammar too large"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, _, err := Compile("t.gbnf", []byte(tt.src), Options{Lenient: tt.lenient})
			if err == nil {
				t.Fatalf("no error; grammar:\n%s", g)
			}
			if g != nil {
				t.Errorf("grammar returned along with errors")
			}
			var list ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("error is %T, want ErrorList", err)
			}
			checkPositions(t, "error", list, tt.want)
		})
	}
}

// checkPositions fails unless list holds one problem (an error or warning:
// what) per want, each starting with "t.gbnf:" and its want.
func checkPositions(t *testing.T, what string, list ErrorList, want []string) {
	t.Helper()
	if len(list) != len(want) {
		t.Fatalf("got %d %ss, want %d:\n%v", len(list), what, len(want), list)
	}
	for i, e := range list {
		if w := "t.gbnf:" + want[i]; !strings.HasPrefix(e.Error(), w) {
			t.Errorf("%s %d = %q, want prefix %q", what, i, e.Error(), w)
		}
	}
}

// TestPosition checks every field of an error position.
func TestPosition(t *testing.T) {
	_, _, err := Compile("dir/g.gbnf", []byte("root ::= x\n\n  y ::= \"a\" zz\n"), Options{})
	list := err.(ErrorList)
	want := Pos{Filename: "dir/g.gbnf", Offset: 24, Line: 3, Col: 13}
	if len(list) != 2 || list[1].Pos != want {
		t.Fatalf("errors = %v; want the second at %+v", err, want)
	}
	if got := err.Error(); got != "dir/g.gbnf:1:10: undefined rule x\ndir/g.gbnf:3:13: undefined rule zz" {
		t.Errorf("Error() = %q", got)
	}
}

func TestWarnings(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		lenient bool
		lang    string // language up to length 3
		want    []string
	}{
		{"pruning", `root ::= a | b | "z"
a ::= "a" a
b ::= "b" | a "c"
unused ::= "u"* "v"
`, false, "b z", []string{
			`1:10: alternative of rule root derives no finite string; removed`,
			`2:1: rule a derives no finite string; removed`,
			`3:13: alternative of rule b derives no finite string; removed`,
			`4:1: rule unused is unreachable from root; removed`,
		}},
		{"generated rules pruned", `root ::= ("x" a | "y")* (a | "z")` + "\na ::= a", false, "z yz yyz", []string{
			`1:11: alternative of rule root_group_1 derives no finite string; removed`,
			`1:26: alternative of rule root_group_3 derives no finite string; removed`,
			`2:1: rule a derives no finite string; removed`,
		}},
		{"unreachable after pruning", "root ::= \"r\" | x y\nx ::= x\ny ::= \"y\"", false, "r", []string{
			`1:16: alternative of rule root derives no finite string; removed`,
			`2:1: rule x derives no finite string; removed`,
			`3:1: rule y is unreachable from root; removed`,
		}},
		{"lenient", "root ::= \"a\" | u1 \"b\" | u1 | u2\nx ::= root u3", true, "a", []string{
			`1:16: undefined rule u1 (treated as a rule with no alternatives)`,
			`1:16: alternative of rule root derives no finite string; removed`,
			`1:25: alternative of rule root derives no finite string; removed`,
			`1:30: undefined rule u2`,
			`1:30: alternative of rule root derives no finite string; removed`,
			`2:1: rule x derives no finite string; removed`,
			`2:12: undefined rule u3`,
		}},
		{"clean", "root ::= \"a\" | \"b\"+ x\nx ::= \"\"", false, "a b bb bbb", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, warns := mustCompile(t, tt.src, Options{Lenient: tt.lenient})
			if got := enumerate(g, 3); !slices.Equal(got, words(tt.lang)) {
				t.Errorf("language = %q, want %q\n%s", got, tt.lang, g)
			}
			checkPositions(t, "warning", warns, tt.want)
		})
	}
}

// TestDump pins the shape of the compiled grammar: names of generated rules,
// left-recursive loops, the optional chain, shared classes, ASCII classes as
// one terminal, deduplicated terminals, and rule order.
func TestDump(t *testing.T) {
	src := `item ::= [a-c]
root ::= item* "," item+ "," [0-9]? "," "ab"{2,3} ("x" | "y") "," item{2,} "," . .`
	g, _ := mustCompile(t, src, Options{})
	want := `item ::= [a-c]
root ::= root_star_1 [,] root_plus_2 [,] root_opt_3 [,] root_group_4 root_group_4 root_rep_5 root_group_6 [,] item root_plus_7 [,] root_class_8 root_class_8
root_star_1 ::= root_star_1 item
             | ""
root_plus_2 ::= root_plus_2 item
             | item
root_opt_3 ::= [0-9]
            | ""
root_group_4 ::= [a] [b]
root_rep_5 ::= root_group_4
            | ""
root_group_6 ::= [x]
              | [y]
root_plus_7 ::= root_plus_7 item
             | item
root_class_8 ::= [\x00-\x7F]
              | [\xC2-\xDF] [\x80-\xBF]
              | [\xE0] [\xA0-\xBF] [\x80-\xBF]
              | [\xE1-\xEC] [\x80-\xBF] [\x80-\xBF]
              | [\xED] [\x80-\x9F] [\x80-\xBF]
              | [\xEE\xEF] [\x80-\xBF] [\x80-\xBF]
              | [\xF0] [\x90-\xBF] [\x80-\xBF] [\x80-\xBF]
              | [\xF1-\xF3] [\x80-\xBF] [\x80-\xBF] [\x80-\xBF]
              | [\xF4] [\x80-\x8F] [\x80-\xBF] [\x80-\xBF]
`
	if got := g.String(); got != want {
		t.Errorf("dump:\n%s\nwant:\n%s", got, want)
	}
	if g.Rules[g.Start].Name != "root" || g.Rules[0].Generated || g.Rules[1].Generated || !g.Rules[2].Generated {
		t.Errorf("start %d, rules %+v", g.Start, g.Rules[:3])
	}
	for i, s := range g.Terminals {
		for j := range i {
			if g.Terminals[j] == s {
				t.Errorf("terminals %d and %d are both %v", j, i, s)
			}
		}
	}
	// Generated rules carry the position of their expression.
	if r := g.Rules[3]; r.Name != "root_plus_2" || r.Pos.Line != 2 || r.Pos.Col != 20 {
		t.Errorf("rule %s at %v, want root_plus_2 at 2:20", r.Name, r.Pos)
	}
}

func TestGeneratedNamesAvoidUserNames(t *testing.T) {
	g, _ := mustCompile(t, "root ::= \"a\"* root_star_1\nroot_star_1 ::= \"b\"", Options{})
	seen := map[string]bool{}
	for _, r := range g.Rules {
		if seen[r.Name] {
			t.Errorf("two rules named %s:\n%s", r.Name, g)
		}
		seen[r.Name] = true
	}
}

func TestASCIIClassIsOneTerminal(t *testing.T) {
	g, _ := mustCompile(t, `root ::= [a-z0-9_] [^\x00-\x60\x7B-\U0010FFFF]`, Options{})
	if len(g.Rules) != 1 || len(g.Prods) != 1 || len(g.Prods[0].RHS) != 2 || len(g.Terminals) != 2 {
		t.Fatalf("want one rule with two terminals, got\n%s", g)
	}
	var want ByteSet
	want.AddRange('a', 'z')
	want.AddRange('0', '9')
	want.Add('_')
	if g.Terminals[0] != want {
		t.Errorf("terminal 0 = %v, want %v", g.Terminals[0], want)
	}
}

// TestRepeatSize checks that bounded repetition grows linearly.
func TestRepeatSize(t *testing.T) {
	for _, src := range []string{
		`root ::= "ab"{0,1000}`,
		`root ::= "ab"{1000}`,
		`root ::= "ab"{500,1000}`,
		`root ::= ("a" | "b"){1000,}`,
		`root ::= (("a"{0,1000}){0,1000}){1000}`,
	} {
		g, _ := mustCompile(t, src, Options{})
		size := 0
		for _, p := range g.Prods {
			size += len(p.RHS) + 1
		}
		if size > 10000 {
			t.Errorf("%s: %d symbols", src, size)
		}
	}
}

// TestRepeatLinks: bounded repetitions of one item share their links
// (O_j, by item and j): x{0,3} and x{0,5} beside each other lower to five
// links, not eight, and their language is unchanged.
func TestRepeatLinks(t *testing.T) {
	g, _ := mustCompile(t, `root ::= "a" x{0,3} | "b" x{0,5} | "c" x{1,2}
x ::= "x" | "y"`, Options{})
	links := 0
	for _, r := range g.Rules {
		if strings.Contains(r.Name, "_rep_") {
			links++
		}
	}
	if links != 5 {
		t.Errorf("%d links, want 5:\n%s", links, g)
	}
	got := enumerate(g, 6)
	for _, w := range []string{"a", "axyx", "b", "byyyyy", "cx", "cxy"} {
		if !slices.Contains(got, w) {
			t.Errorf("%q missing", w)
		}
	}
	for _, w := range got {
		n := len(w) - 1
		if ok := w[0] == 'a' && n <= 3 || w[0] == 'b' && n <= 5 || w[0] == 'c' && n >= 1 && n <= 2; !ok {
			t.Errorf("%q is not in the language", w)
		}
	}
}

func TestStartOption(t *testing.T) {
	src := "root ::= \"r\"\nStart ::= \"s\" root"
	g, warns := mustCompile(t, src, Options{Start: "Start"})
	if got := enumerate(g, 3); !slices.Equal(got, []string{"sr"}) {
		t.Errorf("language = %q", got)
	}
	if len(warns) != 0 || g.Rules[g.Start].Name != "Start" || g.Rules[0].Name != "root" {
		t.Errorf("warnings %v, grammar\n%s", warns, g)
	}
	if _, _, err := Compile("t.gbnf", []byte(src), Options{Start: "nope"}); err == nil || !strings.Contains(err.Error(), "start rule nope is not defined") {
		t.Errorf("err = %v", err)
	}
}

func TestCompileFile(t *testing.T) {
	g, _, err := CompileFile("testdata/sygus.gbnf", Options{})
	if err != nil || g.Validate() != nil {
		t.Fatalf("CompileFile: %v", err)
	}
	_, _, err = CompileFile("testdata/no-such.gbnf", Options{})
	if err == nil || !strings.Contains(err.Error(), "testdata/no-such.gbnf") || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: err = %v", err)
	}
	_, _, err = CompileFile("testdata/bad.gbnf", Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "testdata/bad.gbnf:2:") {
		t.Errorf("bad file: err = %v", err)
	}
}

func TestDeterministic(t *testing.T) {
	for _, name := range []string{"json", "sqltest", "sygus"} {
		g1, w1, err1 := CompileFile("testdata/"+name+".gbnf", Options{})
		for range 5 {
			g2, w2, err2 := CompileFile("testdata/"+name+".gbnf", Options{})
			if !reflect.DeepEqual(g1, g2) || !reflect.DeepEqual(w1, w2) || !reflect.DeepEqual(err1, err2) {
				t.Fatalf("%s: two compilations differ", name)
			}
		}
	}
}

func TestValidateCatchesBrokenGrammars(t *testing.T) {
	fresh := func() *Grammar {
		g, _ := mustCompile(t, "root ::= \"a\" x | \"b\"\nx ::= \"c\" | x \"d\"", Options{})
		return g
	}
	breaks := map[string]func(g *Grammar){
		"start out of range":   func(g *Grammar) { g.Start = 7 },
		"no rules":             func(g *Grammar) { g.Rules = nil },
		"empty terminal":       func(g *Grammar) { g.Terminals[0] = ByteSet{} },
		"rule without prods":   func(g *Grammar) { g.Rules[1].Prods = nil },
		"wrong LHS":            func(g *Grammar) { g.Prods[0].LHS = 1 },
		"prod in two rules":    func(g *Grammar) { g.Rules[1].Prods = append(g.Rules[1].Prods, 0) },
		"prod out of range":    func(g *Grammar) { g.Rules[1].Prods[0] = 99 },
		"bad terminal":         func(g *Grammar) { g.Prods[0].RHS[0] = T(50) },
		"bad rule":             func(g *Grammar) { g.Prods[0].RHS[1] = NT(50) },
		"unproductive":         func(g *Grammar) { g.Prods[2].RHS = []Symbol{NT(1)} },
		"unreachable":          func(g *Grammar) { g.Prods[0].RHS = g.Prods[0].RHS[:1] },
		"orphan production":    func(g *Grammar) { g.Prods = append(g.Prods, Prod{LHS: 0}) },
		"prod listed in wrong": func(g *Grammar) { g.Rules[0].Prods[0], g.Rules[1].Prods[0] = g.Rules[1].Prods[0], g.Rules[0].Prods[0] },
	}
	for name, f := range breaks {
		g := fresh()
		f(g)
		if err := g.Validate(); err == nil {
			t.Errorf("%s: Validate accepted\n%v", name, g.Prods)
		}
	}
}

func TestPrint(t *testing.T) {
	src := "root ::= a | \"x\\\"\\\\\\n\\u00e9\" (b | ) [^\\]\\-a-z\\x00é] . \"a\"* b+ (a b)? \"c\"{2} \"d\"{2,} \"e\"{1,3} \"f\"{,4}\n" +
		"b ::= ( \"q\" \n | \"\" )\na ::="
	f, errs := Parse("t.gbnf", []byte(src))
	if errs != nil {
		t.Fatal(errs)
	}
	want := `root ::= a | "x\"\\\né" (b | "") [^\]\-a-z\x00é] . "a"* b+ (a b)? "c"{2} "d"{2,} "e"{1,3} "f"{0,4}
b ::= ("q" | "")
a ::= ""
`
	if got := f.String(); got != want {
		t.Errorf("printed:\n%s\nwant:\n%s", got, want)
	}
}

func TestNullable(t *testing.T) {
	g, _ := mustCompile(t, "root ::= a b | \"x\" d\na ::= \"\" | \"a\"\nb ::= a a\nd ::= \"d\" a", Options{})
	got := map[string]bool{}
	for i, null := range g.Nullable() {
		got[g.Rules[i].Name] = null
	}
	for name, want := range map[string]bool{"root": true, "a": true, "b": true, "d": false} {
		if got[name] != want {
			t.Errorf("Nullable[%s] = %v, want %v (all: %v)", name, got[name], want, got)
		}
	}
}

// TestRegexMark: a rule marked Regex keeps the mark, and so do the rules
// Compile generates for its groups and repetitions, but not a class's
// rule (shared by every use of the class) nor the rules of another.
func TestRegexMark(t *testing.T) {
	f, errs := Parse("r.gbnf", []byte(`root ::= pat other
pat ::= ("ab" | "c")+ [a-zé]
other ::= ("x" "y")*`))
	if errs != nil {
		t.Fatal(errs)
	}
	f.Rules[1].Regex = true
	g, _, err := CompileSyntax(f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	kinds := 0
	for _, r := range g.Rules {
		want := strings.HasPrefix(r.Name, "pat") && !strings.Contains(r.Name, "class")
		if r.Regex != want {
			t.Errorf("rule %s: Regex %v, want %v", r.Name, r.Regex, want)
		}
		for _, k := range []string{"pat_group", "pat_plus", "pat_class"} {
			if strings.HasPrefix(r.Name, k) {
				kinds++
			}
		}
	}
	if kinds != 3 {
		t.Errorf("%d of pat's group, plus and class rules, want 3", kinds)
	}
}
