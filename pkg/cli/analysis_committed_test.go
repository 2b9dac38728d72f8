package cli

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/outdir"
)

// TestCommittedAnalysis regenerates, for every experiment whose run store is committed (mcmc/NAME/ written by
// "gasp experiment run", so with its experiment.json), the tables and figures of analysis/NAME/ with
// "gasp analyze" and checks that they are the committed ones, byte for byte, and all of them. A fuzzing
// store's KL analysis lives in analysis/NAME/kl/ (analysis/NAME holds gasp fuzz table's output).
func TestCommittedAnalysis(t *testing.T) {
	stores, _ := filepath.Glob("../../mcmc/*/experiment.json")
	n := 0
	for _, cfg := range stores {
		store := filepath.Dir(cfg)
		name := filepath.Base(store)
		committed := filepath.Join("../../analysis", name)
		if _, err := os.Stat(filepath.Join(committed, "kl.csv")); err != nil {
			committed = filepath.Join(committed, "kl")
			if _, err := os.Stat(filepath.Join(committed, "kl.csv")); err != nil {
				continue // not analyzed by gasp analyze
			}
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
			// A file the committed manifest does not list is a person's
			// (such as NOTES.md), which gasp leaves alone; the manifest itself
			// is compared above, so a generated file gasp no longer writes
			// is still caught.
			listed, err := outdir.ReadManifest(committed)
			if err != nil {
				t.Fatal(err)
			}
			generated := map[string]bool{outdir.ManifestName: true}
			for _, name := range listed {
				generated[filepath.FromSlash(name)] = true
			}
			filepath.WalkDir(committed, func(path string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				if rel, _ := filepath.Rel(committed, path); !files[rel] && generated[rel] {
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

// TestAnalysisKeepsOthersFiles runs every analysis command over a copy of
// the committed analysis/ tree, as it would run in the repository: "gasp
// analyze" for every committed experiment, "gasp fuzz table" for every
// committed fuzzing report, and demo's analysis. The first two must
// regenerate their directories byte for byte and touch nothing else; demo
// may change only the files its own manifest lists. A file of a person's
// beside the outputs stays.
func TestAnalysisKeepsOthersFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the analyses")
	}
	tree := t.TempDir()
	if err := os.CopyFS(tree, os.DirFS("../../analysis")); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(tree, "quick", "my-notes.md")
	os.WriteFile(mine, []byte("notes\n"), 0o644)
	before := snapshot(t, tree)
	stores, _ := filepath.Glob("../../mcmc/*/experiment.json")
	for _, cfg := range stores {
		name := filepath.Base(filepath.Dir(cfg))
		if _, err := os.Stat(filepath.Join(tree, name, "kl.csv")); err != nil {
			continue
		}
		if code, _, errOut := gasp("analyze", name, "--store", filepath.Dir(cfg), "--out", filepath.Join(tree, name)); code != 0 {
			t.Fatalf("gasp analyze %s: exit %d: %s", name, code, errOut)
		}
	}
	tables, _ := filepath.Glob(filepath.Join(tree, "*", "tables.md"))
	for _, tb := range tables {
		if code, _, errOut := gasp("fuzz", "table", filepath.Dir(tb)); code != 0 {
			t.Fatalf("gasp fuzz table %s: exit %d: %s", filepath.Dir(tb), code, errOut)
		}
	}
	for _, d := range diffSnapshots(before, snapshot(t, tree)) {
		t.Errorf("analyze or fuzz table changed %s", d)
	}

	demo := filepath.Join(tree, "demo")
	listed, err := outdir.ReadManifest(demo)
	if err != nil || len(listed) == 0 {
		t.Fatalf("analysis/demo has no manifest: %v", err)
	}
	before = snapshot(t, tree)
	if code, _, errOut := gasp("demo", "--task", "testdata/demo-task", "--runs", "2", "--k", "2", "--max-new-tokens", "8",
		"--out", filepath.Join(t.TempDir(), "store"), "--analysis", demo, "--quiet", "--resamples", "2"); code != 0 {
		t.Fatalf("gasp demo: exit %d: %s", code, errOut)
	}
	owned := map[string]bool{filepath.Join(demo, outdir.ManifestName): true}
	for _, n := range listed {
		owned[filepath.Join(demo, filepath.FromSlash(n))] = true
	}
	now, _ := outdir.ReadManifest(demo)
	for _, n := range now {
		owned[filepath.Join(demo, filepath.FromSlash(n))] = true
	}
	for _, d := range diffSnapshots(before, snapshot(t, tree)) {
		if p, _, _ := strings.Cut(d, " ("); !owned[p] && !holdsOwned(owned, p) {
			t.Errorf("demo's analysis changed %s, which neither manifest lists", d)
		}
	}
	if b, err := os.ReadFile(mine); err != nil || string(b) != "notes\n" {
		t.Errorf("a person's file beside the outputs: %q, %v", b, err)
	}
}

// holdsOwned says whether dir is a directory of owned files: one made or
// emptied only to hold the files a manifest lists.
func holdsOwned(owned map[string]bool, dir string) bool {
	for p := range owned {
		if strings.HasPrefix(p, dir+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// TestCommittedTrueAnalysis regenerates each committed true-distance analysis with "gasp analyze-true" from its
// committed stores, and checks that it is the committed one, byte for byte: analysis/quick-true from mcmc/quick,
// mcmc/quick-smc and mcmc/quick-true; analysis/paper-tiny-true from mcmc/paper-tiny and mcmc/paper-tiny-true.
func TestCommittedTrueAnalysis(t *testing.T) {
	for _, c := range []struct{ out, stores, exact string }{
		{"quick-true", "../../mcmc/quick,../../mcmc/quick-smc", "../../mcmc/quick-true"},
		{"paper-tiny-true", "../../mcmc/paper-tiny", "../../mcmc/paper-tiny-true"},
	} {
		t.Run(c.out, func(t *testing.T) {
			committed := filepath.Join("../../analysis", c.out)
			if _, err := os.Stat(filepath.Join(committed, "true.csv")); err != nil {
				t.Skipf("analysis/%s is not committed", c.out)
			}
			out := t.TempDir()
			if code, _, errOut := gasp("analyze-true", "--store", c.stores, "--exact", c.exact, "--out", out); code != 0 {
				t.Fatalf("gasp analyze-true: exit %d: %s", code, errOut)
			}
			for _, name := range []string{"README.md", "true.csv", "tasks.csv", "fig_true_vs_evals.svg"} {
				got, _ := os.ReadFile(filepath.Join(out, name))
				want, err := os.ReadFile(filepath.Join(committed, name))
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("%s: regenerated file differs from the committed one (%v)", name, err)
				}
			}
		})
	}
}
