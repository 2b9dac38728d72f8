package authors_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gasplab/gasp/pkg/authors"
)

// Importing the authors' run logs into a run store, here the package's
// fixtures (testdata/runs_log, with the tasks of data/gad); gasp analyze
// then reads the store as it reads gasp's own. What could not be imported
// is listed, not fatal (Options.Strict makes it an error).
func Example() {
	tmp, err := os.MkdirTemp("", "authors-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(tmp)
	sum, err := authors.Import("testdata", filepath.Join(tmp, "store"), authors.Options{TaskRoot: "../../data/gad"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d tasks, %d files, %d records\n", sum.Tasks, sum.Files, sum.Records)
	for _, r := range sum.SkippedByReason() {
		fmt.Printf("skipped %d: %s\n", r.N, r.Reason)
	}
	m, _ := authors.MethodOf("prefix")
	fmt.Println("prefix is", m, "and the exact samplers are", authors.ExactMethods())
	// Output:
	// 2 tasks, 36 files, 154 records
	// skipped 1: model index 2 (Qwen/Qwen2.5-7B-Instruct), not 1
	// skipped 1: an unfinished run (the authors' sampler renames it .json when done)
	// skipped 1: not a style directory (<style>-<timestamp>, style one of ars, cars, prefix, priority, restart, rs, rsft)
	// skipped 1: task fuzzing-json-generate_json is not under the task root
	// skipped 1: not a task directory
	// prefix is mcmc-uniform and the exact samplers are [ars cars rejection rsft]
}
