package cli

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/experiment"
	"github.com/gasplab/gasp/pkg/mcmc"
	"github.com/gasplab/gasp/pkg/method"
	"github.com/gasplab/gasp/pkg/runs/runstest"
	"github.com/gasplab/gasp/pkg/sample"
)

// tinyExperiment writes a configuration of one toy task, three methods, two
// runs, k ≤ 2 and 8 new tokens over the embedded model.
func tinyExperiment(t *testing.T) string {
	t.Helper()
	tasks, err := filepath.Abs("../../pkg/experiment/testdata/tasks")
	if err != nil {
		t.Fatal(err)
	}
	model, err := filepath.Abs("../../data/models/tiny")
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, "tiny.json", `{
  // one toy task on the embedded model
  "name": "tiny", "task_root": "`+tasks+`", "tasks": ["toy/*"],
  "methods": ["gcd", "asap", "mcmc-restart"], "k": 2, "runs": 2,
  "model": "`+model+`", "temperature": 1, "top_p": 1, "max_new_tokens": 16, "seed": 5
}`)
}

// runTiny runs the tiny experiment (tinyExperiment) unsharded into a new
// store; it returns the configuration file, the store and what the run
// wrote to standard error. It skips in -short mode: it loads the embedded
// model.
func runTiny(t *testing.T) (cfg, store, progress string) {
	t.Helper()
	if testing.Short() {
		t.Skip("loads the embedded model")
	}
	cfg = tinyExperiment(t)
	store = filepath.Join(t.TempDir(), "full")
	code, _, errOut := gasp("experiment", "run", cfg, "--store", store)
	if code != 0 {
		t.Fatalf("unsharded run: exit %d: %s", code, errOut)
	}
	return cfg, store, errOut
}

func TestExperimentRunResume(t *testing.T) {
	cfg, full, errOut := runTiny(t)
	if !strings.Contains(errOut, "[3/3] toy/bv mcmc-restart runs 0–1") || !strings.Contains(errOut, "12 records appended") {
		t.Errorf("progress:\n%s", errOut)
	}
	want := runstest.Lines(t, full)
	if len(want) != 2+4+6 {
		t.Fatalf("%d records", len(want))
	}
	// Interrupted after 3 records (inside asap's batch), then resumed twice.
	part := filepath.Join(t.TempDir(), "part")
	if code, _, errOut := gasp("experiment", "run", "--limit", "3", cfg, "--store", part); code != 0 ||
		!strings.Contains(errOut, "stopped at --limit") {
		t.Fatalf("limited run: exit %d: %s", code, errOut)
	} else if !strings.Contains(errOut, "asap runs 0–1: 1 records appended (") || !strings.Contains(errOut, " 3 records appended in ") {
		t.Errorf("the limited run's progress does not count the records appended (2 of gcd, 1 of asap's 4):\n%s", errOut)
	}
	got := runstest.Lines(t, part)
	if len(got) != 3 {
		t.Fatalf("limited run stored %d records:\n%s", len(got), strings.Join(got, "\n"))
	}
	for _, r := range got {
		if !slices.Contains(want, r) {
			t.Errorf("limited run stored a record the full run does not have: %s", r)
		}
	}
	// Compacted, then resumed: the resume reads the sealed segments.
	compactStore(t, part)
	if open, _ := filepath.Glob(filepath.Join(part, "*", "*.jsonl")); len(open) != 0 {
		t.Fatalf("open segments after compaction: %v", open)
	}
	if got := runstest.Lines(t, part); len(got) != 3 {
		t.Fatalf("the compacted store reads %d records", len(got))
	}
	for range 2 {
		if code, _, errOut := gasp("experiment", "run", cfg, "--store", part); code != 0 {
			t.Fatalf("resume: exit %d: %s", code, errOut)
		}
	}
	if got := runstest.Lines(t, part); !slices.Equal(got, want) {
		t.Errorf("resumed store:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	compactStore(t, part)
	if got := runstest.Lines(t, part); !slices.Equal(got, want) {
		t.Errorf("resumed store:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The store analyzes.
	out := filepath.Join(t.TempDir(), "analysis")
	if code, _, errOut := gasp("analyze", "tiny", "--store", part, "--out", out); code != 0 {
		t.Fatalf("analyze: exit %d: %s", code, errOut)
	}
	if b, err := os.ReadFile(filepath.Join(out, "README.md")); err != nil || !bytes.Contains(b, []byte("protocol")) {
		t.Errorf("README.md: %v\n%s", err, b)
	}
}

// compactStore runs "gasp experiment compact" on store.
func compactStore(t *testing.T, store string) {
	t.Helper()
	if code, _, errOut := gasp("experiment", "compact", store); code != 0 || !strings.Contains(errOut, "series sealed") {
		t.Fatalf("compact: exit %d: %s", code, errOut)
	}
}

func TestExperimentErrors(t *testing.T) {
	cfg := tinyExperiment(t)
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	userCfg := writeFile(t, "user.json", strings.Replace(string(b), `"mcmc-restart"`, `"mcmc-floor"`, 1))
	for _, tt := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"experiment", "run"}, 2, "want one CONFIG"},
		{[]string{"experiment", "run", cfg, "--shard", "2/2"}, 2, "want i/n"},
		{[]string{"experiment", "run", cfg, "--shard", "x"}, 2, "want i/n"},
		{[]string{"experiment", "run", cfg, "--limit", "-1"}, 2, "--limit"},
		{[]string{"experiment", "run", writeFile(t, "bad.json", `{"name": "x", "k": 0}`)}, 1, "bad.json"},
		{[]string{"experiment", "run", "no-such.json"}, 1, "no-such.json"},
		{[]string{"experiment", "run", userCfg}, 1, `"mcmc-floor" (want one of gcd`},
		{[]string{"experiment", "run", userCfg}, 1, "a user method runs only from a Go program"},
		{[]string{"experiment", "nope"}, 2, `unknown subcommand "nope"`},
		{[]string{"analyze"}, 2, "EXPERIMENT"},
		{[]string{"analyze", "a/b"}, 2, "EXPERIMENT"},
		{[]string{"analyze", "x", "--store", filepath.Join(t.TempDir(), "none")}, 1, "none"},
		{[]string{"experiment", "compact"}, 2, "want at least one STORE"},
		{[]string{"experiment", "compact", filepath.Join(t.TempDir(), "none")}, 1, "does not exist"},
	} {
		code, _, errOut := gasp(tt.args...)
		if code != tt.code || !strings.Contains(errOut, tt.err) {
			t.Errorf("gasp %q: exit %d, stderr %q; want exit %d with %q", tt.args, code, errOut, tt.code, tt.err)
		}
	}
}

// readTree returns every file under dir, by relative path.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestAnalyzeDeterministic runs gasp analyze twice on the synthetic store
// of pkg/analysis, into one directory and into another, and compares bytes.
func TestAnalyzeDeterministic(t *testing.T) {
	store := "../../pkg/analysis/testdata/store"
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	for _, out := range []string{a, b, a} {
		if code, _, errOut := gasp("analyze", "toy", "--store", store, "--out", out); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
	}
	ta, tb := readTree(t, a), readTree(t, b)
	if len(ta) < 10 || len(ta) != len(tb) {
		t.Fatalf("%d and %d files", len(ta), len(tb))
	}
	for name, x := range ta {
		if !bytes.Equal(x, tb[name]) {
			t.Errorf("%s differs between runs", name)
		}
	}
	for _, name := range []string{"README.md", "kl.csv", "geomean.csv", "kl_mean.svg", "scatter_gcd.svg", filepath.Join("kl", "toy_utf8.svg")} {
		if len(ta[name]) == 0 {
			t.Errorf("%s missing", name)
		}
	}
}

// A proposal a user writes runs through experiment.Run into a store, and
// "gasp analyze" puts it in the tables beside the built-in methods.
func TestUserMethodAnalyzed(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	c := &experiment.Config{Name: "user", TaskRoot: "pkg/experiment/testdata/tasks", Tasks: []string{"toy/*"},
		Methods: []string{"gcd", "asap", "mcmc-uniform", "mcmc-floor"}, K: 2, Runs: 4, Batch: 2,
		Model: "data/models/tiny", Temperature: 1, MaxNewTokens: 16, Seed: 3, Root: root}
	floor := mcmc.ProposalFunc(func(x *sample.Record, w []float64) {
		for i := range w {
			w[i] = 0.1 + x.Entropy[i]
		}
	})
	dir := t.TempDir()
	store, out := filepath.Join(dir, "store"), filepath.Join(dir, "analysis")
	user := map[string]method.Method{"mcmc-floor": method.MCMC{Proposal: floor}}
	if _, err := experiment.Run(context.Background(), c, experiment.Options{Store: store, Methods: user}); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := gasp("analyze", "--store", store, "--out", out, "--resamples", "20", "user"); code != 0 {
		t.Fatalf("gasp analyze: exit %d: %s", code, errOut)
	}
	// The title comes from the store's experiment.json, which names the
	// user's method.
	if b, err := os.ReadFile(filepath.Join(out, "README.md")); err != nil || !strings.Contains(string(b), "4 runs, k ≤ 2") {
		t.Errorf("README.md lacks the stored configuration: %v\n%s", err, b)
	}
	for _, f := range []string{"kl.csv", "geomean.csv"} {
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil || !strings.Contains(string(b), "mcmc-floor") || !strings.Contains(string(b), "mcmc-uniform") {
			t.Errorf("%s: %v; want mcmc-floor beside mcmc-uniform:\n%s", f, err, b)
		}
	}
}

// TestAnalyzeReference: the same GCD and MCMC-Priority runs, in mcmc/quick beside other methods and in
// mcmc/quick-priority, give different ratios, each against its own store's samples; analysed each with the
// other as --reference, both against the union, they give the same.
func TestAnalyzeReference(t *testing.T) {
	quick, qp := "../../mcmc/quick", "../../mcmc/quick-priority"
	ratio := func(name, store string, ref ...string) string {
		out := t.TempDir()
		args := []string{"analyze", name, "--store", store, "--out", out, "--resamples", "20"}
		if len(ref) > 0 {
			args = append(args, "--reference", ref[0])
		}
		if code, _, errOut := gasp(args...); code != 0 {
			t.Fatalf("gasp %v: exit %d: %s", args, code, errOut)
		}
		b, err := os.ReadFile(filepath.Join(out, "geomean.csv"))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Split(line, ","); f[0] == "mcmc-priority" {
				return f[2] // vs GCD
			}
		}
		t.Fatalf("%s: no mcmc-priority row:\n%s", name, b)
		return ""
	}
	own, ownQP := ratio("quick", quick), ratio("quick-priority", qp)
	if own == ownQP {
		t.Errorf("without --reference both give %s; the reference sets differ", own)
	}
	if a, b := ratio("quick", quick, qp), ratio("quick-priority", qp, quick); a != b {
		t.Errorf("with each other as --reference: %s vs %s", a, b)
	}
	if code, _, errOut := gasp("analyze", "quick", "--store", quick, "--out", t.TempDir(), "--reference", "/no/such/store"); code != 1 ||
		!strings.Contains(errOut, "--reference") {
		t.Errorf("a missing --reference: exit %d: %s", code, errOut)
	}
}
