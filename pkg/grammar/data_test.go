package grammar

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const gadDir = "../../data/gad"

// solutionOutside lists the GAD tasks whose reference solution is not in
// the language of their grammar (a property of the data, checked so that a
// change in what the compiler accepts shows up).
var solutionOutside = map[string]string{
	"find_inv_bvsge_bvashr1_4bit": "binary constant #b1000; the grammar has hex constants only",
	"find_inv_bvsge_bvnot_4bit":   "binary constant #b1000",
	"find_inv_bvsgt_bvor_4bit":    "binary constant #b0111",
	"find_inv_bvugt_bvurem1_4bit": "binary constant #b0000",
	"find_inv_ne_bvudiv1_4bit":    "binary constant #b1000",
	"phone-3-long":                `string constants "(" and ")"; the grammar has "( " and " )"`,
	"CP_re_ptb_460":               `tags "They" as PRP, which the grammar's WordTag list lacks`,
	"CP_re_ptb_605":               "nests deeper (3) than the grammar allows (2)",
}

// TestGADTasks compiles the 35 GAD task grammars and checks their reference
// solutions against them.
func TestGADTasks(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(gadDir, "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, dir := range dirs {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		subset, task := filepath.Base(filepath.Dir(dir)), filepath.Base(dir)
		count[subset]++
		path := filepath.Join(dir, "grammar.ebnf")
		sol, err := os.ReadFile(filepath.Join(dir, "solution.txt"))
		if err != nil {
			t.Fatal(err)
		}
		solution := strings.TrimSpace(string(sol))
		t.Run(subset+"/"+task, func(t *testing.T) {
			g, _, err := CompileFile(path, Options{})
			if subset == "CP" {
				// The CP grammars use undefined rules C_<i>_<depth>.
				if err == nil || !strings.Contains(err.Error(), ": undefined rule C_") {
					t.Fatalf("strict compile: err = %v, want undefined rule C_...", err)
				}
				if task == "CP_re_ptb_460" && !strings.Contains(err.Error(), "grammar.ebnf:9:28: undefined rule C_0_7\n") {
					t.Errorf("strict compile: err = %v, want C_0_7 at 9:28", err)
				}
				var warns ErrorList
				g, warns, err = CompileFile(path, Options{Lenient: true})
				if err != nil {
					t.Fatalf("lenient compile: %v", err)
				}
				if !strings.Contains(warns.Error(), "undefined rule C_") {
					t.Errorf("lenient compile: no undefined-rule warning in %v", warns)
				}
				// The reference solutions lack the "[ " ... " ]" wrapper.
				solution = "[ " + solution + " ]"
			} else if err != nil {
				t.Fatalf("compile: %v", err)
			}
			if err := g.Validate(); err != nil {
				t.Fatal(err)
			}
			if got, want := recognize(g, []byte(solution)), solutionOutside[task] == ""; got != want {
				t.Errorf("grammar accepts the reference solution %q: %v, want %v", solution, got, want)
			}
			rng := rand.New(rand.NewPCG(3, 4))
			for range 5 {
				if s := Sample(g, rng, 6); !recognize(g, s) {
					t.Errorf("grammar rejects its own sample %q", s)
				}
			}
		})
	}
	if count["SLIA"] != 15 || count["BV4"] != 14 || count["CP"] != 6 {
		t.Errorf("task counts %v, want SLIA 15, BV4 14, CP 6", count)
	}
}

// TestBenchGrammars compiles the mask benchmark grammars and checks that
// each accepts its benchmark sentence and rejects a damaged one.
func TestBenchGrammars(t *testing.T) {
	for _, name := range []string{"json", "sygus", "sqltest"} {
		g, warns, err := CompileFile("testdata/"+name+".gbnf", Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(warns) > 0 {
			t.Errorf("%s: warnings %v", name, warns)
		}
		if err := g.Validate(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		text, err := os.ReadFile("testdata/" + name + ".txt")
		if err != nil {
			t.Fatal(err)
		}
		if !recognize(g, text) {
			t.Errorf("%s: rejects its benchmark sentence", name)
		}
		if recognize(g, text[:len(text)-1]) {
			t.Errorf("%s: accepts its benchmark sentence without the last byte", name)
		}
	}
}

func TestSampleJSON(t *testing.T) {
	g, _, err := CompileFile("testdata/json.gbnf", Options{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	nonTrivial := 0
	for i := range 300 {
		s := Sample(g, rng, 10)
		if !json.Valid(s) {
			t.Fatalf("sample %d is not valid JSON: %q", i, s)
		}
		if len(s) < 300 && !recognize(g, s) {
			t.Fatalf("sample %d rejected by the grammar: %q", i, s)
		}
		if strings.ContainsAny(string(s), "[{") {
			nonTrivial++
		}
	}
	if nonTrivial == 0 {
		t.Errorf("no sample has an array or object")
	}
}

func TestSampleSygus(t *testing.T) {
	g, _, err := CompileFile("testdata/sygus.gbnf", Options{})
	if err != nil {
		t.Fatal(err)
	}
	shape := regexp.MustCompile(`^\(define-fun f \(\(x Int\) \(y Int\)\) Int (.*)\)$`)
	atom := `(?:x|y|[0-9]+)`
	innermost := regexp.MustCompile(`\((?:[-+*]|<=|>=|=|ite) (?:` + atom + `|#) (?:` + atom + `|#)(?: (?:` + atom + `|#))?\)`)
	rng := rand.New(rand.NewPCG(7, 8))
	for range 200 {
		s := string(Sample(g, rng, 8))
		m := shape.FindStringSubmatch(s)
		if m == nil {
			t.Fatalf("sample %q does not have the define-fun shape", s)
		}
		// Reduce innermost applications to "#" until one term is left.
		body := m[1]
		for {
			next := innermost.ReplaceAllString(body, "#")
			if next == body {
				break
			}
			body = next
		}
		if !regexp.MustCompile(`^(?:` + atom + `|#)$`).MatchString(body) {
			t.Fatalf("sample %q: body does not reduce to a term (left %q)", s, body)
		}
	}
}

func TestSampleSQLTest(t *testing.T) {
	g, _, err := CompileFile("testdata/sqltest.gbnf", Options{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for range 20 {
		s := Sample(g, rng, 6)
		if !strings.HasPrefix(string(s), "set testdir [file dirname $argv0]\n") || !strings.HasSuffix(string(s), "\nfinish_test\n") {
			t.Fatalf("sample has the wrong frame: %q", s)
		}
		if len(s) < 2000 && !recognize(g, s) {
			t.Fatalf("sample rejected by the grammar: %q", s)
		}
	}
}

func TestSampleTerminates(t *testing.T) {
	tests := []struct {
		src      string
		maxDepth int
		maxLen   int
	}{
		{`root ::= root root | "x"`, 12, 1 << 14},
		{`root ::= "(" root root root ")" | "x"`, 5, 1 << 12},
		{`root ::= "a"* "b"+ [0-9]{0,1000}`, 10, 2000},
		{"root ::= a\na ::= b | \"(\" a \")\"\nb ::= a a | \"x\"", 10, 1 << 16},
		{`root ::= (root | "y") "x"`, 0, 2},
	}
	rng := rand.New(rand.NewPCG(11, 12))
	for _, tt := range tests {
		g, _ := mustCompile(t, tt.src, Options{})
		for range 50 {
			s := Sample(g, rng, tt.maxDepth)
			if len(s) > tt.maxLen {
				t.Fatalf("%s: sample of %d bytes", tt.src, len(s))
			}
			if len(s) < 500 && !recognize(g, s) {
				t.Fatalf("%s: sample %q rejected", tt.src, s)
			}
		}
	}
}

// TestSampleMinimalHeight checks the fallback past maxDepth: only
// alternatives of minimal derivation height.
func TestSampleMinimalHeight(t *testing.T) {
	g, _ := mustCompile(t, `root ::= "a" root | "b" | "c" "d"`, Options{})
	rng := rand.New(rand.NewPCG(13, 14))
	got := map[string]bool{}
	for range 200 {
		got[string(Sample(g, rng, -1))] = true
	}
	if len(got) != 2 || !got["b"] || !got["cd"] {
		t.Errorf("maxDepth -1: samples %v, want b and cd", got)
	}
	got = map[string]bool{}
	for range 200 {
		got[string(Sample(g, rng, 0))] = true
	}
	if len(got) != 4 || !got["ab"] || !got["acd"] {
		t.Errorf("maxDepth 0: samples %v, want b, cd, ab, acd", got)
	}
	// Uniform choice: all five alternatives of a chain appear.
	g, _ = mustCompile(t, `root ::= [a-e]`, Options{})
	got = map[string]bool{}
	for range 200 {
		got[string(Sample(g, rng, 3))] = true
	}
	if len(got) != 5 {
		t.Errorf("samples of [a-e]: %v", got)
	}
}
