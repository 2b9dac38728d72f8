// Package cli is the command-line interface of gasp, a toolkit for
// grammar-aligned sampling from language models under context-free grammar
// constraints: cmd/gasp runs it, and a program that adds methods of its
// own runs it with them (Options.Methods):
//
//	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr, cli.Options{Methods: mine}))
//
// Usage:
//
//	gasp <command> [arguments]
//
// The commands are:
//
//	grammar     check grammar files and sample sentences from them
//	bench       benchmarks (token masks, tokenizer)
//	demo        GCD, ASAp and MCMC on a SyGuS task: KL per k, plots
//	fuzz        fuzzing experiment: seeds, grammar validity, AFL++ coverage
//	logits      next-token logits of a Llama model
//	doctor      checks the backend, PJRT plugin, devices and memory for a model
//	sample      sample completions of a language model under a grammar
//	methods     the sampling methods sample and experiment run know
//	experiment  run an experiment grid into the run store
//	analyze     tables and figures of an experiment from its run store
//	import      convert the authors' run logs into a run store
//	analyze-true  the true distance of every method to exact samples of P^G
//	tokenize    encode text to token ids
//	train-tiny  train the embedded tiny model
//	eval-tiny   evaluate the embedded model (perplexity, sample validity)
//	help        show help for a command
//
// Run "gasp help <command>" for the usage of a command.
package cli

import (
	"fmt"
	"io"

	"github.com/gasplab/gasp/pkg/method"
)

// Options say what a program adds to the command line.
type Options struct {
	// Methods are a user's methods by name, beside the built-in ones (a
	// name here wins): "gasp methods" and "gasp sample --method" list
	// them, "gasp sample" and "gasp experiment run" draw them, and "gasp
	// analyze" reads their records as it reads the built-ins' (by what the
	// records show: package analysis).
	Methods map[string]method.Method
}

// A command is one entry of the top-level dispatch table.
type command struct {
	name    string
	summary string
	// run executes the command with the arguments that follow its name and
	// returns the exit code. "-h" as an argument asks for its usage on
	// stdout (exit code 0).
	run func(args []string, stdout, stderr io.Writer) int
}

// commandTable is the dispatch table of a program with options o, in the
// order "gasp help" lists them.
func commandTable(o Options) []command {
	t := []command{
		{"grammar", "check grammar files and sample sentences from them", group("grammar", grammarAbout, grammarCommands)},

		{"bench", "benchmarks (token masks on data/bench/masks, tokenizer)", group("bench", benchAbout, benchCommands)},
		{"demo", "the main job: GCD, ASAp and MCMC on a SyGuS task, KL per k, plots", runDemo},

		{"fuzz", "fuzzing experiment: seeds, grammar validity, AFL++ coverage (libxml2, SQLite)", group("fuzz", fuzzAbout, fuzzCommands)},
		{"logits", "next-token logits of a Llama model for given token ids", runLogits},
		{"doctor", "check the backend, PJRT plugin, devices and memory for a model", runDoctor},
		{"sample", "sample completions of a Llama model under a grammar (gcd, rejection, asap, mcmc)", sampleCommand(o.Methods)},
		{"methods", "list the sampling methods of sample and experiment run (built-in, and a program's own)", methodsCommand(o.Methods)},
		{"experiment", "run an experiment grid (experiments/*.json) into the run store mcmc/<name>", group("experiment", experimentAbout, experimentCommands(o.Methods))},
		{"analyze", "regenerate analysis/<experiment> (KL tables, figures) from mcmc/<experiment>", runAnalyze},
		{"import", "convert the authors' run logs (runs_log/) into a run store: gasp import authors DIR --out STORE", runImport},
		{"analyze-true", "every method's true distance to P^G, from exact CARS samples (analysis/quick-true)", runAnalyzeTrue},
		{"tokenize", "encode text to token ids with a tokenizer.json (Llama 3)", runTokenize},
		{"train-tiny", "train the embedded tiny model (data/models/tiny) with GoMLX", runTrainTiny},
		{"eval-tiny", "evaluate the embedded model: held-out perplexity, validity of unconstrained samples", runEvalTiny},
		{"help", "show help for a command", nil},
	}
	t[len(t)-1].run = func(args []string, stdout, stderr io.Writer) int { return runHelp(t, args, stdout, stderr) }
	return t
}

// Main is the whole program, with options o: it dispatches args (without
// the program name) and returns the exit code. On amd64 with the simd
// experiment it first re-executes the program with GODEBUG=cpu.fma=off
// unless set (simd.go), for math.Exp's speed.
func Main(args []string, stdout, stderr io.Writer, o Options) int {
	ensureFastExp()
	return runWith(o, args, stdout, stderr)
}

// run is the whole program with the built-in methods (runWith).
func run(args []string, stdout, stderr io.Writer) int {
	return runWith(Options{}, args, stdout, stderr)
}

// runWith is the whole program with options o: it dispatches args
// (without the program name) and returns the exit code.
func runWith(o Options, args []string, stdout, stderr io.Writer) int {
	commands := commandTable(o)
	if len(args) == 0 {
		usage(commands, stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help":
		usage(commands, stdout)
		return 0
	}
	c := lookup(commands, "gasp", args[0], stderr)
	if c == nil {
		return 2
	}
	return c.run(args[1:], stdout, stderr)
}

// lookup returns the command called name; if there is none, it writes
// "CALLER: unknown command" and the usage to stderr and returns nil.
func lookup(commands []command, caller, name string, stderr io.Writer) *command {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	fmt.Fprintf(stderr, "%s: unknown command %q\n", caller, name)
	usage(commands, stderr)
	return nil
}

func usage(commands []command, w io.Writer) {
	fmt.Fprint(w, "gasp: grammar-aligned sampling from language models.\n\n")
	fmt.Fprint(w, "Usage:\n\n\tgasp <command> [arguments]\n\nThe commands are:\n\n")
	for _, c := range commands {
		fmt.Fprintf(w, "\t%-10s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, "\nRun \"gasp help <command>\" for the usage of a command.\n")
}

// runHelp implements "gasp help [command [subcommand]]".
func runHelp(commands []command, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(commands, stdout)
		return 0
	}
	c := lookup(commands, "gasp help", args[0], stderr)
	if c == nil {
		return 2
	}
	if c.name == "help" {
		fmt.Fprint(stdout, "usage: gasp help [command [subcommand]]\n\nShows the usage of a command.\n")
		return 0
	}
	return c.run(append(args[1:len(args):len(args)], "-h"), stdout, stderr)
}
