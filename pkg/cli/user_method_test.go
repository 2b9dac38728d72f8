package cli

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// userProgram is a user's command line: gasp's, with a method of its own,
// as a program outside the module writes it.
const userProgram = `package main

import (
	"os"

	"github.com/gasplab/gasp/pkg/cli"
	"github.com/gasplab/gasp/pkg/mcmc"
	"github.com/gasplab/gasp/pkg/method"
	"github.com/gasplab/gasp/pkg/sample"
)

func main() {
	floor := mcmc.ProposalFunc(func(x *sample.Record, w []float64) {
		for i := range w {
			w[i] = 0.1 + x.Entropy[i]
		}
	})
	mine := map[string]method.Method{"mcmc-floor": method.MCMC{Proposal: floor}}
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr, cli.Options{Methods: mine}))
}
`

// buildOutside builds program (package main) as module example.com/name
// outside gasp's module, in a workspace using the checkout at root (as a
// user's module with a replace directive would), and returns the binary.
func buildOutside(t *testing.T, root, name, program string) string {
	t.Helper()
	mod := t.TempDir()
	files := map[string]string{
		"main.go": program,
		"go.mod":  "module example.com/" + name + "\n\ngo 1.26\n",
		"go.work": "go 1.26.5\n\nuse (\n\t.\n\t" + root + "\n)\n",
	}
	for file, text := range files {
		if err := os.WriteFile(filepath.Join(mod, file), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	prog := filepath.Join(mod, name)
	build := exec.Command("go", "build", "-o", prog, ".")
	build.Dir, build.Env = mod, append(os.Environ(), "GOPROXY=off", "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build of %s: %v\n%s", name, err, out)
	}
	return prog
}

// A program outside the module that runs the command line with a method of
// its own (cli.Options.Methods) finds it in "gasp methods" and in "gasp
// sample"'s --method help, runs it through "experiment run" on a tiny
// grid, and finds it in "gasp analyze"'s tables and figures beside a
// built-in method.
// gasp itself does not know the name.
func TestUserMethodFromOutside(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	prog := buildOutside(t, root, "mygasp", userProgram)
	work := t.TempDir()
	mygasp := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(prog, args...)
		cmd.Dir = work
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("mygasp %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
		}
		return string(out)
	}

	if out := mygasp("methods"); !strings.Contains(out, "mcmc-floor") || !strings.Contains(out, "a chain: records at k = 0…K") ||
		!strings.Contains(out, "mcmc-uniform") {
		t.Errorf("mygasp methods lacks mcmc-floor or the built-in methods:\n%s", out)
	}
	if out := mygasp("help", "sample"); !strings.Contains(out, "sampler: mcmc-floor, gcd") {
		t.Errorf("mygasp help sample: --method does not list mcmc-floor first:\n%s", out)
	}
	if code, out, _ := gasp("methods"); code != 0 || strings.Contains(out, "mcmc-floor") {
		t.Errorf("gasp methods (exit %d) lists a user's method:\n%s", code, out)
	}

	config := filepath.Join(work, "user.json")
	grid := `{"name": "user", "task_root": "` + filepath.Join(root, "pkg/experiment/testdata/tasks") + `", "tasks": ["toy/*"],
		"methods": ["gcd", "mcmc-uniform", "mcmc-floor"], "k": 2, "runs": 4, "batch": 2,
		"model": "` + filepath.Join(root, "data/models/tiny") + `", "temperature": 1, "max_new_tokens": 16, "seed": 3}`
	if err := os.WriteFile(config, []byte(grid), 0o644); err != nil {
		t.Fatal(err)
	}
	store, analysis := filepath.Join(work, "store"), filepath.Join(work, "analysis")
	mygasp("experiment", "run", "--store", store, config)
	if _, err := os.Stat(filepath.Join(store, "toy%2Fbv", "mcmc-floor.jsonl")); err != nil {
		t.Errorf("the store has no mcmc-floor records: %v", err)
	}
	if code, _, errOut := gasp("experiment", "run", "--store", filepath.Join(work, "other"), config); code == 0 ||
		!strings.Contains(errOut, `unknown method "mcmc-floor"`) {
		t.Errorf("gasp experiment run of a grid naming a user's method: exit %d, %s", code, errOut)
	}
	mygasp("analyze", "--store", store, "--out", analysis, "--resamples", "20", "user")
	for _, f := range []string{"kl.csv", "geomean.csv"} {
		b, err := os.ReadFile(filepath.Join(analysis, f))
		if err != nil || !strings.Contains(string(b), "mcmc-floor") || !strings.Contains(string(b), "mcmc-uniform") {
			t.Errorf("%s: %v; want mcmc-floor beside mcmc-uniform:\n%s", f, err, b)
		}
	}
	var figures, drawn []string
	filepath.WalkDir(analysis, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".svg") {
			figures = append(figures, p)
			if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), "MCMC-Floor") { // as analysis names it
				drawn = append(drawn, p)
			}
		}
		return nil
	})
	if len(drawn) < 2 {
		t.Errorf("of the figures %v, only %v draw MCMC-Floor", figures, drawn)
	}
}
