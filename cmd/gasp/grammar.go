package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"

	"github.com/gasplab/gasp/pkg/grammar"
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

func runGrammar(args []string, stdout, stderr io.Writer) int {
	return runGroup("grammar", "Grammar files use the GBNF dialect (start rule \"root\"); examples are in grammar/.",
		grammarCommands, args, stdout, stderr)
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
	fset := newFlagSet("gasp grammar check", "gasp grammar check [--lenient] [--start NAME] [-q] [-v] FILE...", `
Compiles each grammar file and reports its problems: warnings as
FILE:LINE:COL: warning: MESSAGE and errors as FILE:LINE:COL: MESSAGE, on
standard error. Exits with 1 if any file has errors, else 0.`)
	lenient := fset.Bool("lenient", false, "treat references to undefined rules as rules with no alternatives, with a warning, instead of errors")
	start := fset.String("start", "", "start rule (default \"root\")")
	quiet := fset.Bool("q", false, "do not print warnings")
	verbose := fset.Bool("v", false, "print a line with the size of each grammar that compiles")
	files, done, code := parseFlags(fset, args, stdout, stderr)
	if done {
		return code
	}
	if len(files) == 0 {
		fmt.Fprintln(stderr, "gasp grammar check: no grammar files given")
		fset.SetOutput(stderr)
		fset.Usage()
		return 2
	}
	opts := grammar.Options{Start: *start, Lenient: *lenient}
	code = 0
	for _, path := range files {
		if err := inputProblem(path, maxGrammarBytes); err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", path, err)
			code = 1
			continue
		}
		g, warnings, err := grammar.CompileFile(path, opts)
		if !*quiet {
			printWarnings(stderr, warnings)
		}
		if err != nil {
			printCompileError(stderr, path, err)
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

func runGrammarSample(args []string, stdout, stderr io.Writer) int {
	fset := newFlagSet("gasp grammar sample", "gasp grammar sample [--lenient] [--start NAME] [-q] [-n N] [-seed S] [-depth D] [--json] FILE", `
Prints N random sentences of the grammar in FILE, one per line: the raw
bytes of each sentence followed by a newline, or with --json each as a JSON
string (bytes that are not valid UTF-8 become U+FFFD). The sentences are
drawn by grammar.Sample, which expands rules at random and closes them off
with short derivations past the depth limit; this is not the distribution of
any language model. The same seed gives the same output.`)
	lenient := fset.Bool("lenient", false, "treat references to undefined rules as rules with no alternatives, with a warning, instead of errors")
	start := fset.String("start", "", "start rule (default \"root\")")
	quiet := fset.Bool("q", false, "do not print warnings")
	n := fset.Int("n", 10, "number of sentences")
	seed := fset.Uint64("seed", 1, "random seed")
	depth := fset.Int("depth", 8, "derivation depth after which sampling closes off rules (sentences can grow exponentially with it)")
	asJSON := fset.Bool("json", false, "print each sentence as a JSON string")
	files, done, code := parseFlags(fset, args, stdout, stderr)
	if done {
		return code
	}
	if len(files) != 1 {
		fmt.Fprintf(stderr, "gasp grammar sample: want one grammar file, got %d\n", len(files))
		fset.SetOutput(stderr)
		fset.Usage()
		return 2
	}
	if *n < 0 {
		fmt.Fprintf(stderr, "gasp grammar sample: -n must not be negative, got %d\n", *n)
		return 2
	}
	if *depth < 0 || *depth > maxDepth {
		fmt.Fprintf(stderr, "gasp grammar sample: -depth must be in [0, %d], got %d\n", maxDepth, *depth)
		return 2
	}
	path := files[0]
	if err := inputProblem(path, maxGrammarBytes); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", path, err)
		return 1
	}
	g, warnings, err := grammar.CompileFile(path, grammar.Options{Start: *start, Lenient: *lenient})
	if !*quiet {
		printWarnings(stderr, warnings)
	}
	if err != nil {
		printCompileError(stderr, path, err)
		return 1
	}
	rng := rand.New(rand.NewPCG(*seed, *seed^0x9e3779b97f4a7c15))
	for range *n {
		s := grammar.Sample(g, rng, *depth)
		if *asJSON {
			b, _ := json.Marshal(string(s)) // a string always marshals
			b = append(b, '\n')
			if _, err := stdout.Write(b); err != nil {
				fmt.Fprintf(stderr, "gasp grammar sample: %v\n", err)
				return 1
			}
			continue
		}
		if _, err := fmt.Fprintf(stdout, "%s\n", s); err != nil {
			fmt.Fprintf(stderr, "gasp grammar sample: %v\n", err)
			return 1
		}
	}
	return 0
}
