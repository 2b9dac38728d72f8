package cli

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/gasplab/gasp/pkg/method"
)

// methodsCommand is "gasp methods": the methods "gasp sample" and "gasp
// experiment run" know, a program's own (Options.Methods) first.
func methodsCommand(user map[string]method.Method) func(args []string, stdout, stderr io.Writer) int {
	return func(args []string, stdout, stderr io.Writer) int {
		cl := newCmdLine("gasp methods", "gasp methods", `
Lists the sampling methods that "gasp sample --method" and an experiment's
"methods" may name: a program's own (one that runs this command line with
methods of its own; package pkg/cli), then the built-in ones, each with the
records a run leaves.`, stdout, stderr)
		if done, code := cl.parseNoArgs(args); done {
			return code
		}
		for _, name := range slices.Sorted(maps.Keys(user)) {
			fmt.Fprintf(stdout, "%-18s %-9s %s\n", name, "user", stepsText(user[name]))
		}
		for _, name := range method.Names() {
			m, _ := method.Parse(name)
			fmt.Fprintf(stdout, "%-18s %-9s %s\n", name, "built-in", stepsText(m))
		}
		for _, p := range method.Patterns() {
			fmt.Fprintf(stdout, "%-18s %-9s %s\n", p, "built-in", "P a probability, N a count: go doc ./pkg/method Parse")
		}
		return 0
	}
}

// stepsText says what records a run of m leaves.
func stepsText(m method.Method) string {
	if m == nil {
		return "no method"
	}
	switch m.Steps() {
	case method.Chain:
		return "a chain: records at k = 0…K"
	case method.Samples:
		return "successive samples: records at k = 1…K"
	}
	return "one record a run, at k = 0"
}

// methodList is every method's name or name pattern, comma-separated: a
// program's own (sorted), then the built-in ones (method.List).
func methodList(user map[string]method.Method) string {
	return strings.Join(append(slices.Sorted(maps.Keys(user)), method.List()), ", ")
}
