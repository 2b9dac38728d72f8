package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/runs"
)

func TestFuzzSeeds(t *testing.T) {
	out := t.TempDir()
	code, _, errOut := gasp("fuzz", "seeds", "--target", "sql", "-n", "7", "--root", "../..", "--out", out)
	if code != 0 {
		t.Fatalf("fuzz seeds: exit %d: %s", code, errOut)
	}
	files, _ := filepath.Glob(filepath.Join(out, "seed-*.test"))
	if len(files) != 7 {
		t.Fatalf("%d seed files, want 7", len(files))
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "set ::timeout 60000") {
		t.Errorf("seed lacks the timeout directive:\n%s", data)
	}
}

func TestFuzzUsage(t *testing.T) {
	for _, sub := range []string{"seeds", "validity", "run", "table"} {
		code, out, _ := gasp("fuzz", sub, "-h")
		if code != 0 || !strings.Contains(out, "usage: gasp fuzz "+sub) {
			t.Errorf("fuzz %s -h: exit %d, %q", sub, code, out)
		}
	}
	if code, _, errOut := gasp("fuzz", "seeds", "--target", "json", "--root", "../..", "--out", t.TempDir()); code == 0 || !strings.Contains(errOut, "unknown fuzz target") {
		t.Errorf("unknown target: exit %d, %q", code, errOut)
	}
	if code, _, _ := gasp("fuzz", "run", "--target", "xml"); code != 2 {
		t.Errorf("run without --seeds and --out: exit %d, want 2", code)
	}
	if code, _, errOut := gasp("fuzz", "run", "--target", "sql", "--seeds", t.TempDir(), "--out", t.TempDir(), "--grammar-dict", "--root", t.TempDir()); code != 1 || !strings.Contains(errOut, "sqlite-test.gbnf") {
		t.Errorf("--grammar-dict without the grammar: exit %d, %q", code, errOut)
	}
	if code, _, errOut := gasp("fuzz", "run", "--target", "xml", "--seeds", t.TempDir(), "--out", t.TempDir(), "--toolchain", t.TempDir()); code != 1 || !strings.Contains(errOut, "fuzz-setup.sh") {
		t.Errorf("run without a toolchain: exit %d, %q", code, errOut)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--trials", "5", "--only-trial", "6"}, "--only-trial must be in [1, 5] (--trials), got 6"},
		{[]string{"--protocol", "paper", "--only-trial", "6"}, "--only-trial must be in [1, 5] (--trials), got 6"},
		{[]string{"--only-trial", "-1"}, "--only-trial must be in [1, --trials], got -1"},
		{[]string{"--trials", "5", "--only-trial", "2", "--resume"}, "--only-trial and --resume exclude each other"},
	} {
		args := append([]string{"fuzz", "run", "--target", "xml", "--seeds", t.TempDir(), "--out", t.TempDir()}, c.args...)
		if code, _, errOut := gasp(args...); code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

func TestFuzzSeedsFromStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "fuzz-quick")
	st, err := runs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Runs 0..5 of mcmc-uniform at k = 0 and 2; run 3 is invalid at k = 2.
	for run := 5; run >= 0; run-- { // stored out of run order
		for _, k := range []int{0, 2} {
			valid := !(run == 3 && k == 2)
			status := runs.StatusComplete
			if !valid {
				status = runs.StatusCapped
			}
			r := runs.Record{Task: "xml", Method: "mcmc-uniform", K: k, Run: run, Seed: uint64(run + 1),
				Text: fmt.Sprintf("<run%d k%d/>", run, k), Valid: valid, Status: status, IDs: []int{}, PromptIDs: []int{}}
			if err := st.Append(r); err != nil {
				t.Fatal(err)
			}
		}
	}
	st.Close()
	out := t.TempDir()
	code, _, errOut := gasp("fuzz", "seeds", "--target", "xml", "--store", dir, "--task", "xml", "--method", "mcmc-uniform", "--k", "2", "-n", "4", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	files, _ := filepath.Glob(filepath.Join(out, "seed-*.xml"))
	var got []string
	for _, f := range files {
		data, _ := os.ReadFile(f)
		got = append(got, string(data))
	}
	if want := []string{"<run0 k2/>", "<run1 k2/>", "<run2 k2/>", "<run4 k2/>"}; !slices.Equal(got, want) {
		t.Errorf("seeds %q, want %q", got, want)
	}
	// Fewer valid samples than asked: a warning; none: an error.
	out = t.TempDir()
	code, _, errOut = gasp("fuzz", "seeds", "--target", "xml", "--store", dir, "--task", "xml", "--method", "mcmc-uniform", "--k", "2", "-n", "100", "--out", out)
	if files, _ := filepath.Glob(filepath.Join(out, "seed-*.xml")); code != 0 || len(files) != 5 || !strings.Contains(errOut, "only 5 valid samples") {
		t.Errorf("n > valid: exit %d, %d files, %q", code, len(files), errOut)
	}
	code, _, errOut = gasp("fuzz", "seeds", "--target", "xml", "--store", dir, "--task", "xml", "--method", "gcd", "--out", t.TempDir())
	if code != 1 || !strings.Contains(errOut, "no valid samples") {
		t.Errorf("no samples: exit %d, %q", code, errOut)
	}
}

func TestFuzzTable(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := gasp("fuzz", "table", dir); code != 1 || !strings.Contains(errOut, "no results") {
		t.Errorf("empty directory: exit %d, %q", code, errOut)
	}
	// A seeds-only report as gasp fuzz run writes it.
	rep := `{"target": "sql", "library": "sqlite3", "version": "3.40.1", "seeds": 3, "time_seconds": 0, "trials": 1,
		"seconds": 0, "branch_pct": 20, "line_pct": 28, "function_pct": 40,
		"branch_ci": [20, 20], "line_ci": [28, 28], "function_ci": [40, 40],
		"over_time": [{"seconds": 0, "branch_pct": 20, "line_pct": 28, "function_pct": 40,
		"branch_ci": [20, 20], "line_ci": [28, 28], "function_ci": [40, 40]}],
		"trial_results": [{"trial": 0, "afl_seed": 43, "execs": 0, "queue": 0, "over_time": null,
		"branch_pct": 20, "line_pct": 28, "function_pct": 40}]}`
	// mcmc-priority at two k: the ablation figure (one panel per method with several k) is drawn.
	for m, b := range map[string]string{"gcd": "20", "mcmc-priority-k10": "25", "mcmc-priority-k2": "22"} {
		os.MkdirAll(filepath.Join(dir, "sql", m), 0o755)
		os.WriteFile(filepath.Join(dir, "sql", m, "coverage.json"), []byte(strings.ReplaceAll(rep, "20", b)), 0o644)
	}
	code, out, errOut := gasp("fuzz", "table", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	md, err := os.ReadFile(filepath.Join(dir, "tab2-supp-metrics-sql.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "| MCMC-Priority | 10 | 3 | 1 | 25.00 (n < 3: no interval) | 40.00 (n < 3: no interval) | 28.00 (n < 3: no interval) | +25.0 | 1.00 large | 1.000 |") {
		t.Errorf("tab2-supp-metrics-sql.md:\n%s", md)
	}
	if !strings.Contains(out, "fig8-abl-sql.svg") {
		t.Errorf("files written:\n%s", out)
	}
}
