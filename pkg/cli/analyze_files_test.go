package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gasp analyze takes gasp sample's output files directly: their records
// analysed together, MCMC's KL at every k (a curve, not a dot), the output
// beside the first file by default; a file given twice is refused.
func TestAnalyzeSampleFiles(t *testing.T) {
	dir := t.TempDir()
	gcd, mcmc := filepath.Join(dir, "gcd.jsonl"), filepath.Join(dir, "mcmc.jsonl")
	for file, m := range map[string]string{gcd: "gcd", mcmc: "mcmc-uniform"} {
		gaspOK(t, []string{"sample", "--grammar", sampleGrammar, "--prompt", samplePrompt, "--method", m, "--k", "2",
			"--n", "4", "--max-new-tokens", "12", "--quiet", "--out", file})
	}
	if code, _, errOut := gasp("analyze", gcd, mcmc, "--resamples", "5"); code != 0 {
		t.Fatalf("gasp analyze FILES: exit %d\n%s", code, errOut)
	}
	csv, err := os.ReadFile(filepath.Join(dir, "gcd-analysis", "kl.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range []string{",gcd,0,4,", ",mcmc-uniform,0,4,", ",mcmc-uniform,1,4,", ",mcmc-uniform,2,4,"} {
		if !strings.Contains(string(csv), row) {
			t.Errorf("kl.csv lacks a row %q:\n%s", row, csv)
		}
	}
	out := filepath.Join(dir, "alone")
	if code, _, errOut := gasp("analyze", "--out", out, "--resamples", "5", mcmc); code != 0 {
		t.Errorf("gasp analyze of one file: exit %d\n%s", code, errOut)
	} else if _, err := os.Stat(filepath.Join(out, "README.md")); err != nil {
		t.Error(err)
	}
	code, _, errOut := gasp("analyze", "--out", filepath.Join(dir, "twice"), gcd, gcd)
	if code != 1 || !strings.Contains(errOut, "give each sample file once") {
		t.Errorf("a file given twice: exit %d, %q", code, errOut)
	}
	if code, _, errOut := gasp("analyze", "--store", dir, gcd); code != 2 || !strings.Contains(errOut, "--store is for an EXPERIMENT") {
		t.Errorf("--store with files: exit %d, %q", code, errOut)
	}
}
