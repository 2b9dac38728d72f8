package cli

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// gasp runs the command line args and returns its exit code and output.
func gasp(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// writeFile writes a file in a temporary directory and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestUsage(t *testing.T) {
	tests := []struct {
		args       []string
		code       int
		out, inErr string // substrings of stdout and stderr
	}{
		{nil, 2, "", "The commands are:"},
		{[]string{"-h"}, 0, "The commands are:", ""},
		{[]string{"--help"}, 0, "The commands are:", ""},
		{[]string{"help"}, 0, "The commands are:", ""},
		{[]string{"nope"}, 2, "", `unknown command "nope"`},
		{[]string{"help", "nope"}, 2, "", `unknown command "nope"`},
		{[]string{"help", "help"}, 0, "usage: gasp help", ""},
		{[]string{"help", "grammar"}, 0, "The subcommands are:", ""},
		{[]string{"grammar"}, 2, "", "The subcommands are:"},
		{[]string{"grammar", "-h"}, 0, "The subcommands are:", ""},
		{[]string{"grammar", "nope"}, 2, "", `unknown subcommand "nope"`},
		{[]string{"help", "grammar", "check"}, 0, "usage: gasp grammar check", ""},
		{[]string{"help", "grammar", "sample"}, 0, "usage: gasp grammar sample", ""},
		{[]string{"grammar", "help", "sample"}, 0, "usage: gasp grammar sample", ""},
		{[]string{"grammar", "sample", "-h"}, 0, "-seed", ""},
		{[]string{"help", "grammar", "nope"}, 2, "", `unknown subcommand "nope"`},
	}
	for _, tt := range tests {
		code, out, errOut := gasp(tt.args...)
		if code != tt.code || !strings.Contains(out, tt.out) || !strings.Contains(errOut, tt.inErr) {
			t.Errorf("gasp %q: exit %d, stdout %q, stderr %q; want exit %d, stdout with %q, stderr with %q",
				tt.args, code, out, errOut, tt.code, tt.out, tt.inErr)
		}
		if tt.code == 0 && errOut != "" {
			t.Errorf("gasp %q: unexpected stderr %q", tt.args, errOut)
		}
	}
	// Every command is listed with its summary.
	_, out, _ := gasp("help")
	for _, c := range commandTable(Options{}) {
		if !strings.Contains(out, c.name) || !strings.Contains(out, c.summary) {
			t.Errorf("gasp help does not list %q", c.name)
		}
	}
}

func TestParseFlags(t *testing.T) {
	tests := []struct {
		args []string
		n    int
		s    string
		pos  []string
	}{
		{[]string{"a", "-n", "3", "b"}, 3, "", []string{"a", "b"}},
		{[]string{"-n=2", "a", "--s", "x", "b", "c"}, 2, "x", []string{"a", "b", "c"}},
		{[]string{"a", "--", "-n", "5"}, 0, "", []string{"a", "-n", "5"}},
		{[]string{"-", "-n", "1"}, 1, "", []string{"-"}},
		{nil, 0, "", nil},
	}
	for _, tt := range tests {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		n := fs.Int("n", 0, "")
		s := fs.String("s", "", "")
		var out, errOut bytes.Buffer
		pos, done, code := parseFlags(fs, tt.args, &out, &errOut)
		if done || code != 0 || *n != tt.n || *s != tt.s || !slices.Equal(pos, tt.pos) {
			t.Errorf("parseFlags(%q) = %q, %v, %d (n=%d s=%q); want %q (n=%d s=%q)",
				tt.args, pos, done, code, *n, *s, tt.pos, tt.n, tt.s)
		}
	}
}

var diagLine = regexp.MustCompile(`^[^:]+:\d+:\d+: `)

func TestGrammarCheck(t *testing.T) {
	good := writeFile(t, "good.gbnf", "root ::= \"a\" b*\nb ::= [bc]\n")
	bad := writeFile(t, "bad.gbnf", "root ::= \"a\" (\n")
	undef := writeFile(t, "undef.gbnf", "root ::= \"a\" | missing\n")
	missing := filepath.Join(t.TempDir(), "missing.gbnf")

	code, out, errOut := gasp("grammar", "check", good)
	if code != 0 || out != "" || errOut != "" {
		t.Errorf("check good: exit %d, stdout %q, stderr %q; want 0 and no output", code, out, errOut)
	}
	code, out, _ = gasp("grammar", "check", good, "-v")
	if code != 0 || !strings.HasPrefix(out, good+": ok: ") {
		t.Errorf("check -v good: exit %d, stdout %q", code, out)
	}

	code, _, errOut = gasp("grammar", "check", good, bad)
	if code != 1 || !strings.HasPrefix(errOut, bad+":") {
		t.Errorf("check bad: exit %d, stderr %q; want 1 and %s:LINE:COL: ...", code, errOut, bad)
	}
	for _, line := range strings.Split(strings.TrimSpace(errOut), "\n") {
		if !diagLine.MatchString(line) {
			t.Errorf("error line %q is not FILE:LINE:COL: MSG", line)
		}
	}

	code, _, errOut = gasp("grammar", "check", undef)
	if code != 1 || !strings.HasPrefix(errOut, undef+":1:") || strings.Contains(errOut, "warning") {
		t.Errorf("check undef: exit %d, stderr %q; want an error", code, errOut)
	}
	code, _, errOut = gasp("grammar", "check", "--lenient", undef)
	if code != 0 || !strings.HasPrefix(errOut, undef+":1:") || !strings.Contains(errOut, ": warning: ") {
		t.Errorf("check --lenient undef: exit %d, stderr %q; want 0 and a warning", code, errOut)
	}

	code, out, errOut = gasp("grammar", "check", "--lenient", "-q", "-v", undef)
	if code != 0 || errOut != "" || !regexp.MustCompile(`, [1-9]\d* warnings\n$`).MatchString(out) {
		t.Errorf("check --lenient -q -v undef: exit %d, stdout %q, stderr %q; want 0, a count of warnings and no stderr", code, out, errOut)
	}

	code, _, errOut = gasp("grammar", "check", missing, good)
	if code != 1 || !strings.HasPrefix(errOut, missing+": ") {
		t.Errorf("check missing: exit %d, stderr %q; want 1 and a line naming the file", code, errOut)
	}

	start := writeFile(t, "start.gbnf", "expr ::= \"x\"\n")
	if code, _, errOut := gasp("grammar", "check", start); code != 1 {
		t.Errorf("check without root: exit %d, stderr %q; want 1", code, errOut)
	}
	if code, _, errOut := gasp("grammar", "check", "--start", "expr", start); code != 0 {
		t.Errorf("check --start expr: exit %d, stderr %q; want 0", code, errOut)
	}

	if code, _, errOut := gasp("grammar", "check"); code != 2 || !strings.Contains(errOut, "no grammar files") {
		t.Errorf("check without files: exit %d, stderr %q; want 2", code, errOut)
	}
	if code, _, errOut := gasp("grammar", "check", "-bogus", good); code != 2 || !strings.Contains(errOut, "bogus") {
		t.Errorf("check -bogus: exit %d, stderr %q; want 2", code, errOut)
	}
}

// TestGrammarCheckRepo checks the grammars that the repository ships.
func TestGrammarCheckRepo(t *testing.T) {
	root := filepath.Join("..", "..")
	strict, _ := filepath.Glob(filepath.Join(root, "grammar", "*.gbnf"))
	masks, _ := filepath.Glob(filepath.Join(root, "data", "bench", "masks", "*.gbnf"))
	strict = append(strict, masks...)
	if len(strict) == 0 {
		t.Fatal("no grammars in grammar/ and data/bench/masks/")
	}
	if code, _, errOut := gasp(append([]string{"grammar", "check"}, strict...)...); code != 0 || errOut != "" {
		t.Errorf("check %v: exit %d, stderr:\n%s", strict, code, errOut)
	}

	tasks, _ := filepath.Glob(filepath.Join(root, "data", "gad", "*", "*", "grammar.ebnf"))
	if len(tasks) == 0 {
		t.Skip("no task grammars in data/gad")
	}
	code, out, errOut := gasp(append([]string{"grammar", "check", "--lenient", "-v"}, tasks...)...)
	if code != 0 {
		t.Errorf("check --lenient data/gad: exit %d, stderr:\n%s", code, errOut)
	}
	if n := strings.Count(out, ": ok: "); n != len(tasks) {
		t.Errorf("check --lenient -v: %d grammars ok, want %d", n, len(tasks))
	}
}

func TestGrammarSample(t *testing.T) {
	g := writeFile(t, "g.gbnf", "root ::= \"a\" [bc]* ( \"\\n\" | \"\\\"\" )?\n")
	lang := regexp.MustCompile(`\Aa[bc]*(\n|")?\z`)

	code, out, errOut := gasp("grammar", "sample", "--json", g, "-n", "50", "-seed", "7")
	if code != 0 || errOut != "" {
		t.Fatalf("sample: exit %d, stderr %q", code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 50 {
		t.Fatalf("sample -n 50 printed %d lines", len(lines))
	}
	distinct := make(map[string]bool)
	for _, line := range lines {
		var s string
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("line %q is not a JSON string: %v", line, err)
		}
		if !lang.MatchString(s) {
			t.Errorf("sample %q is not in the language", s)
		}
		distinct[s] = true
	}
	if len(distinct) < 5 {
		t.Errorf("only %d distinct sentences in 50 samples", len(distinct))
	}

	// Same seed, same output; flags before or after the file.
	_, again, _ := gasp("grammar", "sample", "-seed", "7", "-n", "50", "--json", g)
	if again != out {
		t.Errorf("same seed gave different output:\n%s\nvs\n%s", out, again)
	}
	_, other, _ := gasp("grammar", "sample", "-seed", "8", "-n", "50", "--json", g)
	if other == out {
		t.Errorf("seeds 7 and 8 gave the same 50 samples")
	}

	// Raw output: each sentence followed by a newline.
	one := writeFile(t, "one.gbnf", "root ::= \"x\\ty\"\n")
	if code, out, _ := gasp("grammar", "sample", one, "-n", "3"); code != 0 || out != "x\ty\nx\ty\nx\ty\n" {
		t.Errorf("raw sample: exit %d, stdout %q", code, out)
	}
	if code, out, _ := gasp("grammar", "sample", one, "-n", "0"); code != 0 || out != "" {
		t.Errorf("sample -n 0: exit %d, stdout %q", code, out)
	}

	bad := writeFile(t, "bad.gbnf", "root ::= (\n")
	for _, tt := range []struct {
		args []string
		code int
	}{
		{[]string{bad}, 1},
		{[]string{filepath.Join(t.TempDir(), "missing.gbnf")}, 1},
		{nil, 2},
		{[]string{g, g}, 2},
		{[]string{g, "-n", "-1"}, 2},
		{[]string{g, "-n", "x"}, 2},
	} {
		code, out, errOut := gasp(append([]string{"grammar", "sample"}, tt.args...)...)
		if code != tt.code || out != "" || errOut == "" {
			t.Errorf("sample %q: exit %d, stdout %q, stderr %q; want exit %d and a message", tt.args, code, out, errOut, tt.code)
		}
	}
}

// gasp grammar check and sample take a JSON Schema (.json) and a regular
// expression (.regex) by the file's extension; their errors name the JSON
// pointer or the column.
func TestGrammarLanguages(t *testing.T) {
	schema := writeFile(t, "p.schema.json", `{"type":"object","properties":{"n":{"type":"integer","minimum":1,"maximum":9}},"required":["n"],"additionalProperties":false}`)
	re := writeFile(t, "d.regex", "[0-9]{4}-[a-z]\n")
	for _, c := range []struct {
		file string
		lang *regexp.Regexp
	}{
		{schema, regexp.MustCompile(`\A\{"n":[1-9]\}\z`)},
		{re, regexp.MustCompile(`\A[0-9]{4}-[a-z]\z`)},
	} {
		if code, _, errOut := gasp("grammar", "check", c.file); code != 0 || errOut != "" {
			t.Errorf("check %s: exit %d, stderr %q", c.file, code, errOut)
		}
		code, out, errOut := gasp("grammar", "sample", c.file, "-n", "20")
		if code != 0 || errOut != "" {
			t.Fatalf("sample %s: exit %d, stderr %q", c.file, code, errOut)
		}
		for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if !c.lang.MatchString(line) {
				t.Errorf("%s: sample %q is not in the language", c.file, line)
			}
		}
	}
	badSchema := writeFile(t, "bad.schema.json", `{"properties":{"a":{"uniqueItems":true}}}`)
	badRe := writeFile(t, "bad.regex", `ab\1`)
	for file, want := range map[string]string{
		badSchema: badSchema + "#/properties/a/uniqueItems: keyword uniqueItems is not supported\n",
		badRe:     badRe + ":1:3: error parsing regexp: invalid escape sequence: `\\1` (backreferences are not supported)\n",
	} {
		if code, _, errOut := gasp("grammar", "check", file); code != 1 || errOut != want {
			t.Errorf("check %s: exit %d, stderr %q, want %q", file, code, errOut, want)
		}
	}
}
