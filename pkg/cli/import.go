package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gasplab/gasp/pkg/authors"
)

func runImport(args []string, stdout, stderr io.Writer) int {
	cl := newCmdLine("gasp import", "gasp import authors [--out STORE] [--task-root DIR] [--model N] [--eos IDS] [--strict] DIR", `
Converts the run logs of the paper's authors' sampler (DIR: their runs_log
directory, or one holding it) into a gasp run store (pkg/authors), so that
"gasp analyze NAME --store STORE --protocol authors|gasp" analyses them, and
"gasp analyze-true --exact STORE --method cars" measures against their exact
samples. Task directories are mapped to the tasks under --task-root; methods
are prefix → mcmc-uniform, priority → mcmc-priority, restart → mcmc-restart,
rs → rejection, ars, rsft, cars (the last four exact samplers of P^G); GCD is
the chains' starting states (restart's). Directories and files that cannot
be imported (another model, a task not under --task-root, an unknown style
such as their old* runs, an unfinished .json.tmp, a malformed file) are
listed with the reason and the rest is imported; --strict makes them an
error. STORE must not exist; its authors.json records the model and what
was skipped.`, stdout, stderr)
	out := cl.String("out", "", "run store to write (required; must not exist)")
	taskRoot := cl.String("task-root", "", "task directory the logs' tasks map to (default: data/gad of the repository)")
	model := cl.Int("model", 1, "model index of the task directories to import (1: Llama-3.1-8B-Instruct)")
	eos := cl.String("eos", "", "the model's end-of-sequence token ids, comma-separated (default: Llama-3.1's 128001,128008,128009 for model 1)")
	strict := cl.Bool("strict", false, "import nothing unless every directory and file can be imported")
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
		if *eos == "" {
			break
		}
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
	sum, err := authors.Import(pos[1], *out, authors.Options{TaskRoot: *taskRoot, Model: *model, EOS: ids, Strict: *strict})
	if err != nil {
		return cl.fail(err)
	}
	for _, d := range sum.Removed {
		fmt.Fprintf(stderr, "gasp import: removed %s, the temporary directory of an import that did not finish\n", d)
	}
	for _, s := range sum.Skipped {
		fmt.Fprintf(stderr, "gasp import: skipped %s\n", s)
	}
	fmt.Fprintf(stderr, "gasp import: %d tasks, %d files: %d records in %s; %d skipped%s; GCD from %s\n",
		sum.Tasks, sum.Files, sum.Records, *out, len(sum.Skipped), skipCounts(sum), strings.Join(sum.GCDFrom, "; "))
	return 0
}

// skipCounts summarizes the skipped paths by reason: " (3 × reason, ...)".
func skipCounts(sum authors.Summary) string {
	var parts []string
	for _, r := range sum.SkippedByReason() {
		parts = append(parts, fmt.Sprintf("%d × %s", r.N, r.Reason))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}
