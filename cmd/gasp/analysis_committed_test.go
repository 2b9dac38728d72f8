package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestCommittedAnalysis regenerates, for every experiment whose run store is committed (mcmc/NAME/ written by
// "gasp experiment run", so with its experiment.json), the tables and figures of analysis/NAME/ with
// "gasp analyze" and checks that they are the committed ones, byte for byte, and all of them.
func TestCommittedAnalysis(t *testing.T) {
	stores, _ := filepath.Glob("../../mcmc/*/experiment.json")
	n := 0
	for _, cfg := range stores {
		store := filepath.Dir(cfg)
		name := filepath.Base(store)
		committed := filepath.Join("../../analysis", name)
		if _, err := os.Stat(filepath.Join(committed, "kl.csv")); err != nil {
			continue // not analyzed by gasp analyze (the fuzzing stores feed gasp fuzz)
		}
		n++
		t.Run(name, func(t *testing.T) {
			out := t.TempDir()
			if code, _, errOut := gasp("analyze", name, "--store", store, "--out", out); code != 0 {
				t.Fatalf("gasp analyze %s: exit %d: %s", name, code, errOut)
			}
			files := map[string]bool{}
			filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				rel, _ := filepath.Rel(out, path)
				files[rel] = true
				got, _ := os.ReadFile(path)
				want, err := os.ReadFile(filepath.Join(committed, rel))
				if err != nil {
					t.Errorf("%s: not committed (%v)", rel, err)
				} else if !bytes.Equal(got, want) {
					t.Errorf("%s: regenerated file differs from the committed one", rel)
				}
				return nil
			})
			filepath.WalkDir(committed, func(path string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				if rel, _ := filepath.Rel(committed, path); !files[rel] {
					t.Errorf("%s: committed but not written by gasp analyze", rel)
				}
				return nil
			})
		})
	}
	if n == 0 {
		t.Skip("no committed experiment with its analysis")
	}
}

// TestCommittedTrueAnalysis regenerates analysis/quick-true/ with "gasp analyze-true" from the committed stores
// mcmc/quick, mcmc/quick-smc and mcmc/quick-true and checks that it is the committed one, byte for byte.
func TestCommittedTrueAnalysis(t *testing.T) {
	committed := "../../analysis/quick-true"
	if _, err := os.Stat(filepath.Join(committed, "true.csv")); err != nil {
		t.Skip("analysis/quick-true is not committed")
	}
	out := t.TempDir()
	if code, _, errOut := gasp("analyze-true", "--store", "../../mcmc/quick,../../mcmc/quick-smc", "--exact", "../../mcmc/quick-true", "--out", out); code != 0 {
		t.Fatalf("gasp analyze-true: exit %d: %s", code, errOut)
	}
	for _, name := range []string{"README.md", "true.csv", "tasks.csv", "fig_true_vs_evals.svg"} {
		got, _ := os.ReadFile(filepath.Join(out, name))
		want, err := os.ReadFile(filepath.Join(committed, name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: regenerated file differs from the committed one (%v)", name, err)
		}
	}
}
