package cli

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
// flag it writes the error and where the usage is (helpHint) to stderr and
// returns done with code 2.
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
			helpHint(stderr, fs.Name())
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

// helpHint writes where a command's usage is to w, after a usage error:
// one line, not the usage itself, which would bury the error under the
// flags. name is the command's ("gasp bench lm").
func helpHint(w io.Writer, name string) {
	fmt.Fprintf(w, "Run \"gasp help %s\" for its usage.\n", strings.TrimPrefix(name, "gasp "))
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

// A cmdLine is one command's command line: its flag set, with the usage
// newFlagSet gives it, and where the command writes. It carries gasp's
// conventions so that a command says only what is its own:
//
//	func runFoo(args []string, stdout, stderr io.Writer) int {
//		cl := newCmdLine("gasp foo", "gasp foo [--n N] FILE", `
//	Does foo to FILE.`, stdout, stderr)
//		n := cl.Int("n", 1, "how many")
//		pos, done, code := cl.parse(args) // or parseNoArgs, for flags only
//		if done {
//			return code // -h (0) or a flag the flag package rejects (2)
//		}
//		if bad := firstBad(
//			flagCheck{len(pos) != 1, "want one FILE"},
//			flagCheck{*n < 1, fmt.Sprintf("--n must be at least 1, got %d", *n)},
//		); bad != "" {
//			return cl.usageError("%s", bad) // "gasp foo: MSG" and where its usage is on stderr, 2
//		}
//		if err := foo(pos[0], *n); err != nil {
//			return cl.fail(err) // "gasp foo: ERR" on stderr, 1
//		}
//		return 0
//	}
//
// Exit codes: 0 success or -h, 1 the command failed, 2 the command line is
// wrong. cmdLine replaces the per-command closures usageErr and fail and
// the "unexpected arguments" check (parseNoArgs); flags that several
// commands share with the same meaning are defined by a method (modelFlag),
// so that their help reads the same everywhere. The commands not moved yet
// call newFlagSet and parseFlags directly; once none does, those two are
// cmdLine's internals.
type cmdLine struct {
	*flag.FlagSet
	stdout, stderr io.Writer
}

// newCmdLine returns the command line of the command name ("gasp bench
// lm"), whose usage is synopsis and description followed by the flags.
func newCmdLine(name, synopsis, description string, stdout, stderr io.Writer) *cmdLine {
	return &cmdLine{newFlagSet(name, synopsis, description), stdout, stderr}
}

// parse parses args as parseFlags does and returns the positional
// arguments; when done, the command returns code.
func (c *cmdLine) parse(args []string) (pos []string, done bool, code int) {
	return parseFlags(c.FlagSet, args, c.stdout, c.stderr)
}

// parseNoArgs parses args of a command that takes flags only: a
// positional argument is a usage error ("unexpected arguments").
func (c *cmdLine) parseNoArgs(args []string) (done bool, code int) {
	pos, done, code := c.parse(args)
	if !done && len(pos) > 0 {
		return true, c.usageError("unexpected arguments %q", pos)
	}
	return done, code
}

// modelFlag defines --model, the model directory, whose default "" stands
// for the embedded model (findDefaultModel).
func (c *cmdLine) modelFlag() *string {
	p := new(string)
	c.modelVar(p)
	return p
}

// modelVar defines --model as modelFlag does, stored in *p.
func (c *cmdLine) modelVar(p *string) {
	c.StringVar(p, "model", "", "model directory (default: data/models/tiny of the repository)")
}

// usageError writes "NAME: MSG" and where the usage is (helpHint) to
// stderr and returns 2, the exit code of a wrong command line.
func (c *cmdLine) usageError(format string, a ...any) int {
	fmt.Fprintf(c.stderr, "%s: %s\n", c.Name(), fmt.Sprintf(format, a...))
	helpHint(c.stderr, c.Name())
	return 2
}

// fail writes "NAME: ERR" to stderr and returns 1, the exit code of a
// command that failed.
func (c *cmdLine) fail(err error) int {
	fmt.Fprintf(c.stderr, "%s: %v\n", c.Name(), err)
	return 1
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
