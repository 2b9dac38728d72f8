package runs_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gasplab/gasp/pkg/runs"
)

// Append records to a store, resume by asking what is done, and read them
// back as an analysis does.
func Example() {
	dir, err := os.MkdirTemp("", "store")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	st, err := runs.Open(filepath.Join(dir, "exp1")) // creates and locks it
	if err != nil {
		fmt.Println(err)
		return
	}
	task := "SLIA/name-combine-4"
	for run := range 3 {
		rec := runs.Record{Task: task, Method: "gcd", Run: run, Seed: uint64(run),
			IDs: []int{7}, Text: "x", LogP: -1.5, LogPGCD: -1, Valid: true, Status: runs.StatusComplete}
		if err := st.Append(rec); err != nil {
			fmt.Println(err)
			return
		}
	}
	done, _ := st.Has(task, "gcd", 0, 1)
	err = st.Append(runs.Record{Task: task, Method: "gcd", Run: 1, Status: runs.StatusComplete})
	fmt.Println(done, errors.Is(err, runs.ErrExists))
	st.Close()

	rd, err := runs.OpenReadOnly(filepath.Join(dir, "exp1"))
	if err != nil {
		fmt.Println(err)
		return
	}
	recs, err := rd.Records(task, "gcd")
	fmt.Println(len(recs), recs[2].LogP, err)
	// Output:
	// true true
	// 3 -1.5 <nil>
}
