package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func demoArgs(dir string, extra ...string) []string {
	return append([]string{"demo", "--task", "testdata/demo-task", "--runs", "3", "--k", "2", "--max-new-tokens", "12",
		"--resamples", "50", "--seed", "5", "--out", filepath.Join(dir, "mcmc"), "--analysis", filepath.Join(dir, "analysis")}, extra...)
}

func TestDemo(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := run(demoArgs(dir), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	table := stdout.String()
	for _, want := range []string{"gcd", "asap", "mcmc-uniform", "mcmc-priority", "mcmc-restart", "\n  0 ", "\n  2 "} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	for _, f := range []string{"kl_mean.svg", "kl.csv", "README.md"} {
		if _, err := os.Stat(filepath.Join(dir, "analysis", f)); err != nil {
			t.Error(err)
		}
	}
	store := filepath.Join(dir, "mcmc", "pkg%2Fcli%2Ftestdata%2Fdemo-task")
	want := map[string]int{"gcd": 3, "asap": 6, "mcmc-uniform": 9, "mcmc-priority": 9, "mcmc-restart": 9}
	full := map[string][]string{}
	for m, n := range want {
		full[m] = withoutElapsed(t, filepath.Join(store, m+".jsonl"))
		if len(full[m]) != n {
			t.Errorf("%s: %d records, want %d", m, len(full[m]), n)
		}
	}

	// same checks that the store and the table are the first demo's.
	same := func(after string) {
		t.Helper()
		for m := range want {
			if got := withoutElapsed(t, filepath.Join(store, m+".jsonl")); strings.Join(got, "\n") != strings.Join(full[m], "\n") {
				t.Errorf("%s after %s:\n%s\nfirst:\n%s", m, after, strings.Join(got, "\n"), strings.Join(full[m], "\n"))
			}
		}
		if stdout.String() != table {
			t.Errorf("table after %s:\n%s\nfirst:\n%s", after, stdout.String(), table)
		}
	}

	// A second demo into the same store replaces the first: the same
	// store and table, whatever else the store holds.
	other := filepath.Join(dir, "mcmc", "other", "gcd.jsonl")
	os.MkdirAll(filepath.Dir(other), 0o755)
	os.Link(filepath.Join(store, "gcd.jsonl"), other)
	stdout.Reset()
	stderr.Reset()
	if code := run(demoArgs(dir), &stdout, &stderr); code != 0 || !strings.Contains(stderr.String(), "replacing") {
		t.Errorf("second demo: exit %d, %q", code, stderr.String())
	}
	same("a second demo")
	if _, err := os.Stat(other); err != nil {
		t.Errorf("the second demo removed another series: %v", err)
	}
	// Interrupted in the middle of mcmc-priority: resumed, the same store
	// and the same table.
	p := filepath.Join(store, "mcmc-priority.jsonl")
	b, _ := os.ReadFile(p)
	lines := strings.SplitAfter(string(b), "\n")
	if err := os.WriteFile(p, []byte(strings.Join(lines[:4], "")+lines[4][:10]), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(store, "mcmc-restart.jsonl"))
	stdout.Reset()
	stderr.Reset()
	if code := run(demoArgs(dir, "--resume"), &stdout, &stderr); code != 0 {
		t.Fatalf("resume: exit %d: %s", code, stderr.String())
	}
	same("resume")
}
