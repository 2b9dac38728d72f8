package experiment

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gasplab/gasp/pkg/mcmc"
	"github.com/gasplab/gasp/pkg/method"
	"github.com/gasplab/gasp/pkg/runs"
)

// A task's name is where it is, not how its path was spelled.
func TestTaskName(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(filepath.Join(root, "data", "gad", "SLIA", "lastname"), link); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "mytask")
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"../../data/gad/SLIA/lastname":                      "SLIA/lastname",
		"../../data/gad/SLIA/lastname/":                     "SLIA/lastname",
		"../../data/gad/SLIA/../SLIA/lastname/grammar.ebnf": "SLIA/lastname",
		filepath.Join(root, "data/gad/SLIA/lastname"):       "SLIA/lastname",
		link:                               "SLIA/lastname",
		"../../data/fuzz/tasks/xml":        "xml",
		"testdata/tasks/toy/bv":            "toy/bv",
		"../../pkg/cli/testdata/demo-task": "pkg/cli/testdata/demo-task", // no task root: the module's path
		"../../grammar/json.gbnf":          "grammar/json.gbnf",
		outside:                            "mytask", // neither: the base name
		filepath.Join(outside, "grammar.ebnf", "..", "..", "mytask"): "mytask",
	} {
		if got, err := TaskName(path); err != nil || got != want {
			t.Errorf("TaskName(%q) = %q, %v; want %q", path, got, err, want)
		}
	}
	t.Chdir(root)
	if got, err := TaskName("data/gad/SLIA/lastname"); err != nil || got != "SLIA/lastname" {
		t.Errorf("from the root: TaskName = %q, %v", got, err)
	}
	if _, err := TaskName("data/gad/SLIA/nosuch"); err == nil {
		t.Error("TaskName of a missing task: no error")
	}
}

// Every task of the committed experiments is named by TaskName as the grid
// names it (its path under TaskRoot), so the grid's seeds stay those its
// stores were made with and gasp sample and a program draw the same runs.
func TestGridNamesAreTaskNames(t *testing.T) {
	files, err := filepath.Glob("../../experiments/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("experiments: %v, %d files", err, len(files))
	}
	for _, f := range files {
		c, err := Load(f)
		if err != nil {
			t.Fatal(err)
		}
		tasks, err := c.TaskList()
		if err != nil {
			t.Fatal(err)
		}
		for _, task := range tasks {
			if got, err := TaskName(filepath.Dir(task.Grammar)); err != nil || got != task.Name {
				t.Errorf("%s: TaskName(%s) = %q, %v; the grid names it %q", f, filepath.Dir(task.Grammar), got, err, task.Name)
			}
		}
	}
}

// The same task, spelled from three working directories (the module's
// root, a package directory, a directory outside the module), gives the
// same records.
func TestSameRecordsFromAnywhere(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the embedded model")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	var first []runs.Record
	for _, at := range []struct{ wd, dir string }{
		{root, "data/gad/SLIA/lastname"},
		{filepath.Join(root, "pkg", "experiment"), "../../data/gad/SLIA/lastname/"},
		{filepath.Join(root, "pkg", "experiment"), "data/gad/SLIA/lastname"}, // from the module's root
		{outside, filepath.Join(root, "data", "gad", "SLIA", "lastname")},
		{outside, "data/gad/SLIA/lastname"}, // found through modroot
	} {
		t.Chdir(at.wd)
		recs, err := Sample(context.Background(), TaskConfig{Dir: at.dir, MaxNew: 16}, "mcmc-uniform", method.MCMC{Proposal: mcmc.Uniform{}},
			Batch{Seed: 3, Size: 4, K: 2})
		if err != nil {
			t.Fatalf("from %s, Dir %s: %v", at.wd, at.dir, err)
		}
		for i := range recs {
			recs[i].ElapsedMS = 0
		}
		if first == nil {
			first = recs
			if len(recs) == 0 || recs[0].Task != "SLIA/lastname" {
				t.Fatalf("records %+v, want task SLIA/lastname", recs)
			}
			continue
		}
		if !slices.EqualFunc(first, recs, func(a, b runs.Record) bool {
			ja, _ := a.MarshalJSON()
			jb, _ := b.MarshalJSON()
			return string(ja) == string(jb)
		}) {
			t.Errorf("from %s with Dir %s: records differ from the first", at.wd, at.dir)
		}
	}
}
