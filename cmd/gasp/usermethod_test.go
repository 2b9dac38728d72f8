package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/experiment"
	"github.com/gasplab/gasp/pkg/mcmc"
	"github.com/gasplab/gasp/pkg/method"
	"github.com/gasplab/gasp/pkg/sample"
)

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
	var stdout, stderr bytes.Buffer
	if code := run([]string{"analyze", "--store", store, "--out", out, "--resamples", "20", "user"}, &stdout, &stderr); code != 0 {
		t.Fatalf("gasp analyze: exit %d: %s", code, stderr.String())
	}
	for _, f := range []string{"kl.csv", "geomean.csv"} {
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil || !strings.Contains(string(b), "mcmc-floor") || !strings.Contains(string(b), "mcmc-uniform") {
			t.Errorf("%s: %v; want mcmc-floor beside mcmc-uniform:\n%s", f, err, b)
		}
	}
}
