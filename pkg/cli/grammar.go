package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"

	"github.com/gasplab/gasp/pkg/grammar"
	"github.com/gasplab/gasp/pkg/grammarfile"
	"github.com/gasplab/gasp/pkg/infile"
)

// A subcommand is one entry of a command group such as "gasp grammar".
type subcommand struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

var grammarCommands = []subcommand{
	{"check", "compile grammar files and report errors and warnings", runGrammarCheck},
	{"sample", "print random sentences of a grammar", runGrammarSample},
}

// grammarAbout introduces the subcommands of "gasp grammar".
const grammarAbout = `A grammar file's extension names its language: .json (such as
x.schema.json) is a JSON Schema, .regex a regular expression (RE2 syntax,
matched as a whole), .lark a Lark grammar (start rule "start"), anything
else GBNF (start rule "root"; examples are in grammar/).`

// group returns the run function of a command group, which runs its
// subcommands: "gasp NAME SUB args..." (see runGroup).
func group(name, about string, subs []subcommand) func(args []string, stdout, stderr io.Writer) int {
	return func(args []string, stdout, stderr io.Writer) int {
		return runGroup(name, about, subs, args, stdout, stderr)
	}
}

// runGroup dispatches a command group: "gasp NAME SUB args...".
func runGroup(name, about string, subs []subcommand, args []string, stdout, stderr io.Writer) int {
	groupUsage := func(w io.Writer) {
		fmt.Fprintf(w, "usage: gasp %s <subcommand> [arguments]\n\n%s\n\nThe subcommands are:\n\n", name, about)
		for _, s := range subs {
			fmt.Fprintf(w, "\t%-10s %s\n", s.name, s.summary)
		}
		fmt.Fprintf(w, "\nRun \"gasp help %s <subcommand>\" for the usage of a subcommand.\n", name)
	}
	if len(args) == 0 {
		groupUsage(stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		if args[0] == "help" && len(args) > 1 {
			return runGroup(name, about, subs, append(args[1:len(args):len(args)], "-h"), stdout, stderr)
		}
		groupUsage(stdout)
		return 0
	}
	for _, s := range subs {
		if s.name == args[0] {
			return s.run(args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "gasp %s: unknown subcommand %q\n", name, args[0])
	groupUsage(stderr)
	return 2
}

func runGrammarCheck(args []string, stdout, stderr io.Writer) int {
	cl := newCmdLine("gasp grammar check", "gasp grammar check [--lenient] [--start NAME] [-q] [-v] FILE...", `
Compiles each grammar file and reports its problems: warnings as
FILE:LINE:COL: warning: MESSAGE and errors as FILE:LINE:COL: MESSAGE, on
standard error. Exits with 1 if any file has errors, else 0.`, stdout, stderr)
	lenient := cl.Bool("lenient", false, "treat references to undefined rules as rules with no alternatives, with a warning, instead of errors")
	start := cl.String("start", "", "start rule (default \"root\"; \"start\" for .lark)")
	quiet := cl.Bool("q", false, "do not print warnings")
	verbose := cl.Bool("v", false, "print a line with the size of each grammar that compiles")
	files, done, code := cl.parse(args)
	if done {
		return code
	}
	if len(files) == 0 {
		return cl.usageError("no grammar files given")
	}
	opts := grammar.Options{Start: *start, Lenient: *lenient}
	code = 0
	for _, path := range files {
		g, warnings := compileReporting(stderr, path, opts, *quiet)
		if g == nil {
			code = 1
			continue
		}
		if *verbose {
			fmt.Fprintf(stdout, "%s: ok: %d rules, %d productions, %d terminals, %d warnings\n",
				path, len(g.Rules), len(g.Prods), len(g.Terminals), len(warnings))
		}
	}
	return code
}

// compileReporting compiles the grammar file at path and writes its
// problems to w: its errors, and its warnings unless quiet. It returns nil
// when the file does not compile.
func compileReporting(w io.Writer, path string, opts grammar.Options, quiet bool) (*grammar.Grammar, grammar.ErrorList) {
	if err := infile.Check(path, maxGrammarBytes); err != nil {
		fmt.Fprintln(w, err)
		return nil, nil
	}
	g, warnings, err := grammarfile.Compile(path, opts)
	if !quiet {
		printWarnings(w, warnings)
	}
	if err != nil {
		printCompileError(w, path, err)
		return nil, warnings
	}
	return g, warnings
}

// printWarnings writes each warning as FILE:LINE:COL: warning: MESSAGE.
func printWarnings(w io.Writer, warnings grammar.ErrorList) {
	for _, e := range warnings {
		fmt.Fprintf(w, "%s: warning: %s\n", e.Pos, e.Msg)
	}
}

// printCompileError writes err, one line per error, each naming the file.
func printCompileError(w io.Writer, path string, err error) {
	var list grammar.ErrorList
	var one *grammar.Error
	var perr *fs.PathError
	switch {
	case errors.As(err, &list) && len(list) > 0:
		for _, e := range list {
			fmt.Fprintln(w, e.Error())
		}
	case errors.As(err, &one):
		fmt.Fprintln(w, one.Error())
	case errors.As(err, &perr):
		fmt.Fprintf(w, "%s: %v\n", perr.Path, perr.Err)
	default:
		fmt.Fprintf(w, "%s: %v\n", path, err)
	}
}

// maxSentenceBytes bounds grammar sample's -max-len.
const maxSentenceBytes = 1 << 30

func runGrammarSample(args []string, stdout, stderr io.Writer) int {
	cl := newCmdLine("gasp grammar sample", "gasp grammar sample [--lenient] [--start NAME] [-q] [-n N] [-seed S] [-depth D] [-max-len L] [--json] FILE", `
Prints N random sentences of the grammar in FILE, one per line: the raw
bytes of each sentence followed by a newline, or with --json each as a JSON
string (bytes that are not valid UTF-8 become U+FFFD). The sentences are
drawn by grammar.Sample, which expands rules at random and closes them off
with short derivations past the depth limit; this is not the distribution of
any language model. The same seed gives the same output. A sentence longer
than -max-len bytes is an error (a grammar's sentences can grow
exponentially with the depth; its shortest can have 2^64 bytes).`, stdout, stderr)
	lenient := cl.Bool("lenient", false, "treat references to undefined rules as rules with no alternatives, with a warning, instead of errors")
	start := cl.String("start", "", "start rule (default \"root\"; \"start\" for .lark)")
	quiet := cl.Bool("q", false, "do not print warnings")
	n := cl.Int("n", 10, "number of sentences")
	seed := cl.Uint64("seed", 1, "random seed")
	depth := cl.Int("depth", 8, "derivation depth after which sampling closes off rules (sentences can grow exponentially with it)")
	maxLen := cl.Int("max-len", 1<<20, fmt.Sprintf("longest sentence, in bytes (at most %d)", maxSentenceBytes))
	asJSON := cl.Bool("json", false, "print each sentence as a JSON string")
	files, done, code := cl.parse(args)
	if done {
		return code
	}
	if bad := firstBad(
		flagCheck{len(files) != 1, fmt.Sprintf("want one grammar file, got %d", len(files))},
		flagCheck{*n < 0, fmt.Sprintf("-n must not be negative, got %d", *n)},
		flagCheck{*depth < 0 || *depth > maxDepth, fmt.Sprintf("-depth must be in [0, %d], got %d", maxDepth, *depth)},
		flagCheck{*maxLen < 1 || *maxLen > maxSentenceBytes, fmt.Sprintf("-max-len must be in [1, %d], got %d", maxSentenceBytes, *maxLen)},
	); bad != "" {
		return cl.usageError("%s", bad)
	}
	g, _ := compileReporting(stderr, files[0], grammar.Options{Start: *start, Lenient: *lenient}, *quiet)
	if g == nil {
		return 1
	}
	rng := rand.New(rand.NewPCG(*seed, *seed^0x9e3779b97f4a7c15))
	for i := range *n {
		line, err := grammar.SampleLimit(g, rng, *depth, *maxLen)
		if err != nil {
			return cl.fail(fmt.Errorf("%s: sentence %d: %w; give a smaller -depth or a larger -max-len", files[0], i, err))
		}
		if *asJSON {
			line, _ = json.Marshal(string(line)) // a string always marshals
		}
		if _, err := stdout.Write(append(line, '\n')); err != nil {
			return cl.fail(err)
		}
	}
	return 0
}
