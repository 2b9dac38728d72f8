package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// parseFlags parses args with fs, allowing flags before and after positional
// arguments ("gasp grammar sample FILE -n 3"). Everything after "--" is
// positional. It returns the positional arguments.
//
// On -h it writes the usage to stdout and returns done with code 0; on a bad
// flag it writes the error and the usage to stderr and returns done with
// code 2.
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (pos []string, done bool, code int) {
	fs.SetOutput(io.Discard) // errors and usage are written below
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			fs.Usage()
			return nil, true, 0
		}
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", fs.Name(), err)
			fs.SetOutput(stderr)
			fs.Usage()
			return nil, true, 2
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, false, 0
		}
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), false, 0
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// newFlagSet returns a flag set whose usage is the given synopsis and
// description followed by the flag defaults.
func newFlagSet(name, synopsis, description string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "usage: %s\n\n%s\n", synopsis, strings.TrimSpace(description))
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprint(w, "\nFlags:\n")
			fs.PrintDefaults()
		}
	}
	return fs
}

// A flagCheck is one condition on a command's flags: when bad, msg says
// what is wrong, naming the flag and its allowed values.
type flagCheck struct {
	bad bool
	msg string
}

// firstBad returns the message of the first failing check, "" if none.
func firstBad(checks ...flagCheck) string {
	for _, c := range checks {
		if c.bad {
			return c.msg
		}
	}
	return ""
}
