package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/earley"
	"github.com/gasplab/gasp/pkg/experiment"
	"github.com/gasplab/gasp/pkg/grammar"
	"github.com/gasplab/gasp/pkg/method"
)

// The tests sample short sentences after a short prompt: the embedded
// model's cost grows with the prompt and completion lengths.
const (
	sampleGrammar = "testdata/short.gbnf"
	samplePrompt  = "Two short names in parentheses."
)

// runSampleCmd runs "gasp sample" with the small settings the tests use and
// returns the decoded lines of its output.
func runSampleCmd(t *testing.T, extra ...string) ([]map[string]any, []string) {
	t.Helper()
	args := append([]string{"sample", "--grammar", sampleGrammar, "--prompt", samplePrompt,
		"--n", "2", "--max-new-tokens", "12", "--seed", "7"}, extra...)
	var stdout, stderr bytes.Buffer
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("gasp %v: exit %d\n%s", args, code, stderr.String())
	}
	var recs []map[string]any
	var lines []string
	for _, line := range strings.SplitAfter(stdout.String(), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("bad JSON line %q: %v", line, err)
		}
		recs = append(recs, m)
		delete(m, "elapsed_ms") // wall-clock time: the one field that varies
		b, _ := json.Marshal(m)
		lines = append(lines, string(b))
	}
	return recs, lines
}

func TestSample(t *testing.T) {
	g, _, err := grammar.CompileFile(sampleGrammar, grammar.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := earley.New(g)
	for _, tc := range []struct {
		method string
		k      string
	}{{"gcd", "0"}, {"rejection", "0"}, {"asap", "2"}, {"mcmc-priority", "2"}, {"mcmc-mix-0.5", "2"},
		{"cars", "0"}, {"rsft", "0"}, {"smc", "0"}, {"smc-awrs-3", "0"}} {
		t.Run(tc.method, func(t *testing.T) {
			recs, lines := runSampleCmd(t, "--method", tc.method, "--k", tc.k)
			// Every k up to --k, by run and then k, as the grid keeps them.
			meth, err := method.Parse(tc.method)
			if err != nil {
				t.Fatal(err)
			}
			K, _ := strconv.Atoi(tc.k)
			lo, hi := meth.Steps().Range(K)
			perRun := hi - lo + 1
			if len(recs) != 2*perRun {
				t.Fatalf("got %d records, want %d (k = %d…%d of 2 runs)", len(recs), 2*perRun, lo, hi)
			}
			for j, r := range recs {
				i := j / perRun
				if r["k"] != float64(lo+j%perRun) {
					t.Errorf("record %d: k %v, want %d", j, r["k"], lo+j%perRun)
				}
				for _, key := range []string{"method", "k", "run", "seed", "prompt_ids", "ids", "text", "logp", "logp_gcd", "valid", "status"} {
					if _, ok := r[key]; !ok {
						t.Errorf("record %d lacks %q: %v", j, key, lines[j])
					}
				}
				if r["method"] != tc.method || r["run"] != float64(i) || r["seed"] != float64(experiment.RunSeed(7, "pkg/cli/"+sampleGrammar, tc.method, i)) {
					t.Errorf("record %d: method/run/seed wrong: %v", j, lines[j])
				}
				// A GCD run's own evaluations: every token but the first
				// (the prompt's logits) and the last (never fed back).
				if ids := len(r["ids"].([]any)); tc.method == "gcd" {
					want := ids
					if r["status"] != "complete" {
						want = ids - 1 // no EOS in the record
					}
					if r["evals"] != float64(want) {
						t.Errorf("record %d: %v evaluations for %d tokens (%v), want %d", i, r["evals"], ids, r["status"], want)
					}
				} else if tc.method != "rejection" && tc.method != "rsft" && r["evals"].(float64) < float64(ids-1) {
					t.Errorf("record %d: %v evaluations for %d tokens", i, r["evals"], ids)
				}
				if r["valid"] == true {
					p := m.NewParser()
					text := r["text"].(string)
					if !p.FeedBytes([]byte(text)) || !p.Complete() {
						t.Errorf("record %d is valid but its text %q is not a sentence of the grammar", i, text)
					}
				}
			}
			if tc.method == "mcmc-priority" {
				// Same seed, same output; run 1 alone is run 1.
				_, again := runSampleCmd(t, "--method", tc.method, "--k", tc.k)
				if strings.Join(lines, "\n") != strings.Join(again, "\n") {
					t.Errorf("same seed, different output:\n%s\n---\n%s", strings.Join(lines, "\n"), strings.Join(again, "\n"))
				}
				_, alone := runSampleCmd(t, "--method", tc.method, "--k", tc.k, "--first", "1", "--n", "1")
				if !slices.Equal(alone, lines[perRun:]) {
					t.Errorf("run 1 alone:\n%s\nin a batch:\n%s", alone, lines[perRun:])
				}
			}
		})
	}
}

func TestSampleErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--grammar", "no/such/grammar.ebnf", "--prompt", "x"}, 1, "no/such/grammar.ebnf"},
		{[]string{"--grammar", sampleGrammar, "--prompt", "x", "--method", "bogus"}, 2, "--method: unknown method \"bogus\" (want one of gcd, asap"},
		{[]string{"--grammar", sampleGrammar, "--prompt", "x", "--model", "no/such/model"}, 1, "no/such/model"},
		{[]string{"--prompt", "x"}, 2, "--grammar is required"},
		{[]string{"--grammar", sampleGrammar, "--prompt", "x", "--resume"}, 2, "--resume needs --out"},
		{[]string{"--grammar", sampleGrammar, "--prompt", "x", "--method", "smc-0"}, 2, "--method: unknown method \"smc-0\""},
		{[]string{"--grammar", sampleGrammar, "--prompt", "x", "--method", "gcd", "--trie", "t"}, 2, "--trie is for cars and ars"},
		{[]string{"--grammar", sampleGrammar, "--prompt", "x", "--method", "cars", "--trie", "testdata/short.gbnf"}, 1, "not a saved trie"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"sample"}, tc.args...), &stdout, &stderr)
		if code != tc.code || !strings.Contains(stderr.String(), tc.msg) {
			t.Errorf("gasp sample %v: exit %d, stderr %q; want exit %d and %q", tc.args, code, stderr.String(), tc.code, tc.msg)
		}
		if stdout.Len() != 0 {
			t.Errorf("gasp sample %v wrote to stdout: %q", tc.args, stdout.String())
		}
	}
}

// A malformed grammar reaches the library path of "gasp sample" as a
// grammar.ErrorList, and the command prints every error with its place.
func TestSampleGrammarErrorTyped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.gbnf")
	if err := os.WriteFile(path, []byte("root ::= \"a\" (\nx ::= y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	c, _, done := parseSample([]string{"--grammar", path, "--prompt", "hi", "--n", "1", "--max-new-tokens", "4", "--quiet"}, &stdout, &stderr, nil)
	if done {
		t.Fatalf("flags refused: %s", stderr.String())
	}
	err := c.run(&stdout, &stderr)
	var list grammar.ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		t.Fatalf("run: %v (%T), want a grammar.ErrorList", err, err)
	}
	stderr.Reset()
	if code := run([]string{"sample", "--grammar", path, "--prompt", "hi", "--quiet"}, &stdout, &stderr); code != 1 ||
		!strings.Contains(stderr.String(), "gasp sample: "+list[0].Error()) {
		t.Errorf("exit %d, %q; want the error at %s", code, stderr.String(), list[0].Pos)
	}
}

// The same task spelled three ways (relative from here, relative from the
// repository's root, absolute), from two working directories, gives the
// same records: the task's name, hence its seeds, is the task's own
// (SLIA/lastname), and the default model is found from anywhere.
func TestSampleSameFromAnySpelling(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	task := filepath.Join(root, "data", "gad", "SLIA", "lastname")
	var want string
	for _, at := range []struct{ wd, grammar string }{
		{".", "../../data/gad/SLIA/lastname/grammar.ebnf"},
		{root, "data/gad/SLIA/lastname/grammar.ebnf"},
		{t.TempDir(), filepath.Join(task, "grammar.ebnf")},
	} {
		t.Chdir(at.wd)
		args := []string{"sample", "--grammar", at.grammar, "--prompt", filepath.Join(task, "prompt.txt"),
			"--method", "mcmc-uniform", "--k", "2", "--n", "2", "--max-new-tokens", "24", "--quiet"}
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 0 {
			t.Fatalf("from %s: gasp %v: exit %d\n%s", at.wd, args, code, stderr.String())
		}
		got := regexp.MustCompile(`"elapsed_ms":[0-9.e+-]+`).ReplaceAllString(stdout.String(), "")
		if !strings.Contains(got, `"task":"SLIA/lastname"`) {
			t.Fatalf("from %s: records of another task:\n%s", at.wd, got)
		}
		if want == "" {
			want = got
		} else if got != want {
			t.Errorf("from %s with --grammar %s: records differ:\n%s\nwant\n%s", at.wd, at.grammar, got, want)
		}
	}
}

// --method's help lists every built-in method, from pkg/method's list.
func TestSampleMethodHelpListsAll(t *testing.T) {
	code, help, _ := gasp("help", "sample")
	if code != 0 {
		t.Fatalf("gasp help sample: exit %d", code)
	}
	_, flagHelp, _ := strings.Cut(help, "-method string")
	flagHelp, _, _ = strings.Cut(flagHelp, "\n  -")
	for _, m := range append(method.Names(), method.Patterns()...) {
		if !strings.Contains(flagHelp, m) {
			t.Errorf("--method's help lacks %s:\n%s", m, flagHelp)
		}
	}
}
