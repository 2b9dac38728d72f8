// Command nbcheck checks executed Jupyter notebooks for failures that the
// GoNB kernel does not report as cell errors.
//
// Usage:
//
//	nbcheck NOTEBOOK.ipynb...
//
// GoNB runs each cell as a Go program. When that program panics, calls
// os.Exit with a non-zero code, or a %test cell has a failing test, GoNB
// only prints the failure to the cell's output: "jupyter nbconvert
// --execute" succeeds. nbcheck reads notebooks that nbconvert executed and
// reports, one line per problem as FILE: cell N: LINE, every error output
// and every output line that says a program failed: "panic: ", "fatal
// error: ", "error: ", "exit status N" (N > 0), "signal: ", "--- FAIL: " and
// "FAIL".
// It exits with status 1 if it found a problem, 2 if a notebook could not be
// read. scripts/notebooks-run.sh runs it on every notebook of notebooks/.
//
// With -compare, it checks that a committed notebook's outputs are what a
// fresh execution of it gives (Compare: cell by cell, durations and
// temporary paths masked), so that the outputs a reader sees on a
// repository browser are the current code's.
package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(stderr, "usage: nbcheck NOTEBOOK.ipynb...\n       nbcheck -compare COMMITTED.ipynb EXECUTED.ipynb")
		return 2
	}
	if args[0] == "-compare" {
		return runCompare(args[1:], stdout, stderr)
	}
	code := 0
	for _, path := range args {
		data, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintf(stderr, "nbcheck: %v\n", err)
			return 2
		}
		problems, err := Check(data)
		if err != nil {
			fmt.Fprintf(stderr, "nbcheck: %s: %v\n", path, err)
			return 2
		}
		for _, p := range problems {
			fmt.Fprintf(stdout, "%s: %s\n", path, p)
			code = 1
		}
	}
	return code
}

// runCompare compares a committed notebook's outputs with a fresh
// execution's (Compare). A committed notebook without outputs passes.
func runCompare(args []string, stdout, stderr io.Writer) int {
	if len(args) != 2 {
		fmt.Fprintln(stderr, "usage: nbcheck -compare COMMITTED.ipynb EXECUTED.ipynb")
		return 2
	}
	var data [2][]byte
	for i, p := range args {
		b, err := os.ReadFile(p)
		if err != nil {
			fmt.Fprintf(stderr, "nbcheck: %v\n", err)
			return 2
		}
		data[i] = b
	}
	if has, err := HasOutputs(data[0]); err != nil || !has {
		if err != nil {
			fmt.Fprintf(stderr, "nbcheck: %s: %v\n", args[0], err)
			return 2
		}
		return 0
	}
	diffs, err := Compare(data[0], data[1])
	if err != nil {
		fmt.Fprintf(stderr, "nbcheck: %s: %v\n", args[0], err)
		return 2
	}
	for _, d := range diffs {
		fmt.Fprintf(stdout, "%s: %s\n", args[0], d)
	}
	if len(diffs) > 0 {
		fmt.Fprintf(stdout, "%s: regenerate its outputs with scripts/notebooks-outputs.sh\n", args[0])
		return 1
	}
	return 0
}
