package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gasplab/gasp/pkg/authors"
)

func runImport(args []string, stdout, stderr io.Writer) int {
	cl := newCmdLine("gasp import", "gasp import authors [--out STORE] [--task-root DIR] [--model N] [--eos IDS] DIR", `
Converts the run logs of the paper's authors' sampler (DIR: their runs_log
directory, or one holding it) into a gasp run store (pkg/authors), so that
"gasp analyze NAME --store STORE --protocol authors|gasp" analyses them.
Task directories are mapped to the tasks under --task-root; methods are
prefix → mcmc-uniform, priority → mcmc-priority, restart → mcmc-restart,
rs → rejection, ars → asap, rsft, cars; GCD is the chains' starting states
(restart's). Every file is checked first: problems are listed with their
paths and nothing is written; STORE must not exist.`, stdout, stderr)
	out := cl.String("out", "", "run store to write (required; must not exist)")
	taskRoot := cl.String("task-root", "", "task directory the logs' tasks map to (default: data/gad of the repository)")
	model := cl.Int("model", 1, "model index of the task directories to import (1: Llama-3.1-8B-Instruct)")
	eos := cl.String("eos", "128001,128008,128009", "the model's end-of-sequence token ids, comma-separated")
	pos, done, code := cl.parse(args)
	if done {
		return code
	}
	if len(pos) != 2 || pos[0] != "authors" {
		return cl.usageError("want: authors DIR")
	}
	if *out == "" {
		return cl.usageError("--out STORE is required")
	}
	if *model < 1 {
		return cl.usageError("--model must be positive")
	}
	var ids []int
	for _, f := range strings.Split(*eos, ",") {
		id, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || id < 0 {
			return cl.usageError("--eos: %q is not a token id", f)
		}
		ids = append(ids, id)
	}
	if *taskRoot == "" {
		root, err := experimentRoot()
		if err != nil {
			return cl.fail(err)
		}
		*taskRoot = filepath.Join(root, "data", "gad")
	}
	sum, err := authors.Import(pos[1], *out, authors.Options{TaskRoot: *taskRoot, Model: *model, EOS: ids})
	if err != nil {
		return cl.fail(err)
	}
	for _, d := range sum.Removed {
		fmt.Fprintf(stderr, "gasp import: removed %s, the temporary directory of an import that did not finish\n", d)
	}
	for _, s := range sum.Skipped {
		fmt.Fprintf(stderr, "gasp import: skipped %s (not model %d)\n", s, *model)
	}
	fmt.Fprintf(stderr, "gasp import: %d tasks, %d files: %d records in %s; GCD from %s\n",
		sum.Tasks, sum.Files, sum.Records, *out, strings.Join(sum.GCDFrom, "; "))
	return 0
}
