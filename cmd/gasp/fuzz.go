package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/gasplab/gasp/pkg/fuzz"
	"github.com/gasplab/gasp/pkg/grammar"
	"github.com/gasplab/gasp/pkg/runs"
)

var fuzzCommands = []subcommand{
	{"seeds", "write grammar-baseline seeds (random derivations, no LM) for a target", runFuzzSeeds},
	{"validity", "fraction of grammar samples the real library accepts", runFuzzValidity},
	{"run", "fuzz a target with AFL++ from a seed directory and measure coverage", runFuzzRun},
	{"table", "coverage tables (paper Tables 2-3) and coverage-over-time plots from coverage.json files", runFuzzTable},
}

func runFuzz(args []string, stdout, stderr io.Writer) int {
	return runGroup("fuzz", `Fuzzing experiment (paper Sec. 4.2): libxml2 (target xml) and SQLite (target sql)
under AFL++, coverage with llvm-cov. The toolchain is built by scripts/fuzz-setup.sh
into .cache/fuzz (or --toolchain DIR); every target execution is sandboxed.`,
		fuzzCommands, args, stdout, stderr)
}

// fuzzGrammar compiles the grammar of target, relative to the repository
// root or the current directory.
func fuzzGrammar(target, root string) (*grammar.Grammar, error) {
	rel, err := fuzz.GrammarFile(target)
	if err != nil {
		return nil, err
	}
	g, _, err := grammar.CompileFile(filepath.Join(root, rel), grammar.Options{})
	return g, err
}

func runFuzzSeeds(args []string, stdout, stderr io.Writer) int {
	fset := newFlagSet("gasp fuzz seeds", `gasp fuzz seeds --target xml|sql [-n 100] [-seed S] [-depth D] --out DIR
       gasp fuzz seeds --target xml|sql --store DIR --task T --method M [--k K] [-n 100] --out DIR`, `
Writes N seed files for the target to DIR (seed-NNNN.xml or .test).

Without --store: N random derivations of the target's grammar
(grammar/xml.gbnf or grammar/sqlite-test.gbnf), the Grammarinator-style
baseline of the paper, which uses no language model.

With --store: the first N valid samples, in run order, of --task and
--method at step --k in a run store (mcmc/<experiment>, see
mcmc/README.md): k is the number of MH steps for mcmc-*, the sample number
for asap, and 0 for gcd. Fewer than N valid samples are written with a
warning; none is an error.`)
	target := fset.String("target", "", "fuzz target: xml or sql")
	n := fset.Int("n", 100, "number of seeds")
	seed := fset.Uint64("seed", 1, "random seed")
	depth := fset.Int("depth", 0, "derivation depth (default: per target, xml 16, sql 12)")
	out := fset.String("out", "", "output directory")
	root := fset.String("root", ".", "repository root (where grammar/ is)")
	store := fset.String("store", "", "run store directory: take the seeds from its samples")
	task := fset.String("task", "", "with --store: the task name of the samples")
	method := fset.String("method", "", "with --store: the method of the samples")
	k := fset.Int("k", 0, "with --store: the step index of the samples")
	pos, done, code := parseFlags(fset, args, stdout, stderr)
	if done {
		return code
	}
	if bad := firstBad(
		flagCheck{len(pos) > 0, fmt.Sprintf("unexpected arguments %q", pos)},
		flagCheck{*out == "" || *target == "", "--target and --out are required"},
		flagCheck{*n < 1 || *n > maxSeeds, fmt.Sprintf("-n must be in [1, %d], got %d", maxSeeds, *n)},
		flagCheck{*depth < 0 || *depth > maxDepth, fmt.Sprintf("-depth must be in [0, %d] (0: the target's default), got %d", maxDepth, *depth)},
		flagCheck{*k < 0, fmt.Sprintf("--k must not be negative, got %d", *k)},
	); bad != "" {
		fmt.Fprintf(stderr, "gasp fuzz seeds: %s\n", bad)
		return 2
	}
	if err := checkEmptyOut(*out); err != nil {
		fmt.Fprintf(stderr, "gasp fuzz seeds: %v\n", err)
		return 1
	}
	ext := map[string]string{"xml": ".xml", "sql": ".test"}[*target]
	if ext == "" {
		fmt.Fprintf(stderr, "gasp fuzz seeds: unknown fuzz target %q (want xml or sql)\n", *target)
		return 2
	}
	var samples [][]byte
	if *store != "" {
		if *task == "" || *method == "" {
			fmt.Fprintln(stderr, "gasp fuzz seeds: --store needs --task and --method")
			return 2
		}
		var err error
		if samples, err = storeSeeds(*store, *task, *method, *k, *n, stderr); err != nil {
			fmt.Fprintf(stderr, "gasp fuzz seeds: %v\n", err)
			return 1
		}
	} else {
		g, err := fuzzGrammar(*target, *root)
		if err != nil {
			fmt.Fprintf(stderr, "gasp fuzz seeds: %v\n", err)
			return 1
		}
		if *depth == 0 {
			*depth = fuzz.DefaultDepth[*target]
		}
		samples = fuzz.GrammarSeeds(g, *n, *seed, *depth)
	}
	if err := fuzz.WriteSeeds(*out, ext, samples); err != nil {
		fmt.Fprintf(stderr, "gasp fuzz seeds: %v\n", err)
		return 1
	}
	return 0
}

// storeSeeds returns the first n valid samples of (task, method) at step
// k of the run store, with a warning to warn when there are fewer.
func storeSeeds(store, task, method string, k, n int, warn io.Writer) ([][]byte, error) {
	st, err := runs.OpenReadOnly(store)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	samples, valid, err := fuzz.StoreSeeds(st, task, method, k, n)
	if err == nil && len(samples) < n {
		fmt.Fprintf(warn, "gasp fuzz seeds: warning: %s %s k=%d: only %d valid samples, wanted %d\n", task, method, k, valid, n)
	}
	return samples, err
}

// Bounds of "gasp fuzz seeds": more seeds than maxSeeds would not fit a
// fuzzing campaign, and a derivation deeper than maxDepth would not end.
const (
	maxSeeds = 1_000_000
	maxDepth = 1000
)

// checkEmptyOut fails unless dir does not exist or is an empty directory:
// seeds written beside an earlier run's (or a person's files) would mix,
// and "gasp fuzz run" uses every file of the directory.
func checkEmptyOut(dir string) error {
	ents, err := outEntries(dir)
	if err != nil {
		return err
	}
	if len(ents) > 0 {
		return fmt.Errorf("--out %s is not empty (%d entries, such as %s): seeds would mix with them; choose a new or empty directory",
			dir, len(ents), ents[0].Name())
	}
	return nil
}

// outEntries returns the entries of the --out directory dir, none when it
// does not exist; a dir that is not a directory is an error.
func outEntries(dir string) ([]os.DirEntry, error) {
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("--out %s exists and is not a directory", dir)
	}
	return os.ReadDir(dir)
}

// checkRunOut fails unless dir is new, empty, or the output of an earlier
// "gasp fuzz run" (coverage.json and trial-N directories only), which a
// run replaces.
func checkRunOut(dir string) error {
	if err := checkEmptyOut(dir); err == nil {
		return nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("--out %s: %w", dir, unwrapPath(err))
	}
	for _, e := range ents {
		if e.Name() == "coverage.json" || e.IsDir() && strings.HasPrefix(e.Name(), "trial-") {
			continue
		}
		return fmt.Errorf("--out %s holds %s, which gasp fuzz run did not write; choose a new or empty directory", dir, e.Name())
	}
	return nil
}

func openToolchain(dir string, stderr io.Writer, name string) *fuzz.Toolchain {
	tc, err := fuzz.OpenToolchain(dir)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return nil
	}
	return tc
}

func runFuzzValidity(args []string, stdout, stderr io.Writer) int {
	fset := newFlagSet("gasp fuzz validity", "gasp fuzz validity --target xml|sql [-n 1000] [-seed S] [-depth D] [--json]", `
Samples N sentences from the target's grammar and runs each through the real
library in the sandbox: for xml, the fraction xmllint parses without errors
(and the fraction also valid against its DTD); for sql, the fraction
testfixture runs to finish_test without a Tcl error (and without a failing
test).`)
	target := fset.String("target", "", "fuzz target: xml or sql")
	n := fset.Int("n", 1000, "number of samples")
	seed := fset.Uint64("seed", 1, "random seed")
	depth := fset.Int("depth", 0, "derivation depth (default: per target)")
	tcDir := fset.String("toolchain", ".cache/fuzz", "toolchain directory (scripts/fuzz-setup.sh)")
	root := fset.String("root", ".", "repository root (where grammar/ is)")
	asJSON := fset.Bool("json", false, "print the result as JSON")
	pos, done, code := parseFlags(fset, args, stdout, stderr)
	if done {
		return code
	}
	if bad := firstBad(
		flagCheck{len(pos) > 0, fmt.Sprintf("unexpected arguments %q", pos)},
		flagCheck{*n < 1 || *n > maxSeeds, fmt.Sprintf("-n must be in [1, %d], got %d", maxSeeds, *n)},
		flagCheck{*depth < 0 || *depth > maxDepth, fmt.Sprintf("-depth must be in [0, %d] (0: the target's default), got %d", maxDepth, *depth)},
	); bad != "" {
		fmt.Fprintf(stderr, "gasp fuzz validity: %s\n", bad)
		return 2
	}
	tc := openToolchain(*tcDir, stderr, "gasp fuzz validity")
	if tc == nil {
		return 1
	}
	g, err := fuzzGrammar(*target, *root)
	if err != nil {
		fmt.Fprintf(stderr, "gasp fuzz validity: %v\n", err)
		return 1
	}
	if *depth == 0 {
		*depth = fuzz.DefaultDepth[*target]
	}
	work, err := os.MkdirTemp("", "gasp-validity")
	if err != nil {
		fmt.Fprintf(stderr, "gasp fuzz validity: %v\n", err)
		return 1
	}
	defer os.RemoveAll(work)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := tc.Validity(ctx, *target, fuzz.GrammarSeeds(g, *n, *seed, *depth), work)
	if err != nil {
		fmt.Fprintf(stderr, "gasp fuzz validity: %v\n", err)
		return 1
	}
	if *asJSON {
		data, _ := json.MarshalIndent(res, "", "  ")
		fmt.Fprintf(stdout, "%s\n", data)
		return 0
	}
	fmt.Fprintf(stdout, "%s (%s): %d samples, accepted %d (%.1f%%), strict %d (%.1f%%)\n",
		res.Target, res.Version, res.Samples, res.Accepted, 100*res.Fraction, res.Strict, 100*res.StrictFr)
	if res.Target == "sql" {
		fmt.Fprintf(stdout, "  ran to finish_test: %d (%.1f%%)\n", res.Completed, 100*float64(res.Completed)/float64(max(res.Samples, 1)))
	}
	type kv struct {
		k string
		v int
	}
	var errs []kv
	for k, v := range res.Errors {
		errs = append(errs, kv{k, v})
	}
	sort.Slice(errs, func(i, j int) bool { return errs[i].v > errs[j].v || errs[i].v == errs[j].v && errs[i].k < errs[j].k })
	for i, e := range errs {
		if i == 8 {
			break
		}
		fmt.Fprintf(stdout, "  %4d  %s\n", e.v, e.k)
	}
	return 0
}

func runFuzzRun(args []string, stdout, stderr io.Writer) int {
	fset := newFlagSet("gasp fuzz run", "gasp fuzz run --target xml|sql --seeds DIR [--protocol quick|paper] [--time D] [--trials N] --out DIR", `
Fuzzes the target with AFL++ (in the sandbox) from the seed files in DIR for
--time per trial, trial i (1..N) with AFL_RANDOM_SEED=42+i, replays each
trial's queue through the coverage build, and writes DIR/coverage.json:
branch_pct, line_pct and function_pct (final, mean over trials, with
bootstrap 95% CIs) and over_time. --time 0 measures the seeds alone.
--protocol sets the defaults of --time and --trials: quick (20s, 1 trial)
or paper (1h, 5 trials).`)
	f := fuzzRunFlags{}
	fset.StringVar(&f.target, "target", "", "fuzz target: xml or sql")
	fset.StringVar(&f.seeds, "seeds", "", "directory of seed files")
	fset.StringVar(&f.protocol, "protocol", "quick", "quick or paper")
	fset.StringVar(&f.time, "time", "", "AFL++ time per trial (Go duration; 0: seeds only)")
	fset.IntVar(&f.trials, "trials", 0, "number of trials")
	fset.IntVar(&f.snaps, "snapshots", 10, "points of the coverage-over-time curve")
	fset.BoolVar(&f.grammarDict, "grammar-dict", false, "give afl-fuzz a dictionary of the target grammar's literals (-x; the paper uses none)")
	fset.StringVar(&f.root, "root", ".", "repository root (where grammar/ is), for --grammar-dict")
	fset.DurationVar(&f.execTimeout, "exec-timeout", 0, "afl-fuzz's fixed per-execution timeout (default: per target, xml 1s, sql 1s); seeds slower than half of it are not fuzzed")
	fset.StringVar(&f.out, "out", "", "output directory")
	tcDir := fset.String("toolchain", ".cache/fuzz", "toolchain directory (scripts/fuzz-setup.sh)")
	quiet := fset.Bool("q", false, "no progress lines on standard error")
	pos, done, code := parseFlags(fset, args, stdout, stderr)
	if done {
		return code
	}
	opts, code, err := f.options(pos)
	if err != nil {
		fmt.Fprintf(stderr, "gasp fuzz run: %v\n", err)
		return code
	}
	if !*quiet {
		opts.Log = stderr
	}
	tc := openToolchain(*tcDir, stderr, "gasp fuzz run")
	if tc == nil {
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := fuzz.Run(ctx, tc, opts)
	if err != nil {
		fmt.Fprintf(stderr, "gasp fuzz run: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s %s %s: %d seeds, %v x %d trials: branch %.2f%% [%.2f, %.2f], line %.2f%% [%.2f, %.2f], function %.2f%% [%.2f, %.2f]\n",
		rep.Target, rep.Library, rep.Version, rep.Seeds, opts.Time, rep.Trials,
		rep.BranchPct, rep.BranchCI[0], rep.BranchCI[1], rep.LinePct, rep.LineCI[0], rep.LineCI[1],
		rep.FunctionPct, rep.FunctionCI[0], rep.FunctionCI[1])
	return 0
}

// fuzzRunFlags are the flags of gasp fuzz run that make its fuzz.Options.
type fuzzRunFlags struct {
	target, seeds, protocol, time, root, out string
	trials, snaps                            int
	grammarDict                              bool
	execTimeout                              time.Duration
}

// options checks the flags and returns the options of the run; on error,
// also the exit code: 2 for a usage error, 1 for a failure.
func (f *fuzzRunFlags) options(pos []string) (fuzz.Options, int, error) {
	if bad := firstBad(
		flagCheck{len(pos) > 0, fmt.Sprintf("unexpected arguments %q", pos)},
		flagCheck{f.target == "" || f.seeds == "" || f.out == "", "--target, --seeds and --out are required"},
		flagCheck{f.trials < 0 || f.trials > 1000, fmt.Sprintf("--trials must be in [1, 1000] (0: the protocol's), got %d", f.trials)},
		flagCheck{f.snaps < 1 || f.snaps > 10000, fmt.Sprintf("--snapshots must be in [1, 10000], got %d", f.snaps)},
		flagCheck{f.execTimeout < 0, fmt.Sprintf("--exec-timeout must not be negative, got %v", f.execTimeout)},
	); bad != "" {
		return fuzz.Options{}, 2, errors.New(bad)
	}
	if err := checkRunOut(f.out); err != nil {
		return fuzz.Options{}, 1, err
	}
	p, ok := fuzz.Protocols[f.protocol]
	if !ok {
		return fuzz.Options{}, 2, fmt.Errorf("unknown protocol %q", f.protocol)
	}
	opts := fuzz.Options{Target: f.target, Seeds: f.seeds, Out: f.out, Time: p.Time, Trials: p.Trials, Snapshots: f.snaps, ExecTimeout: f.execTimeout}
	if f.time != "" {
		d, err := time.ParseDuration(f.time)
		if f.time == "0" {
			d, err = 0, nil
		}
		if err != nil || d < 0 {
			return fuzz.Options{}, 2, fmt.Errorf("bad --time %q", f.time)
		}
		opts.Time = d
	}
	if f.trials > 0 {
		opts.Trials = f.trials
	}
	if f.grammarDict {
		rel, err := fuzz.GrammarFile(f.target)
		if err != nil {
			return fuzz.Options{}, 2, err
		}
		src, err := os.ReadFile(filepath.Join(f.root, rel))
		if err != nil {
			return fuzz.Options{}, 1, err
		}
		file, errs := grammar.Parse(rel, src)
		if len(errs) > 0 {
			return fuzz.Options{}, 1, fmt.Errorf("%v", errs)
		}
		opts.Dict = fuzz.Dictionary(file)
	}
	return opts, 0, nil
}

func runFuzzTable(args []string, stdout, stderr io.Writer) int {
	fset := newFlagSet("gasp fuzz table", "gasp fuzz table DIR", `
Reads DIR/<target>/<method>/coverage.json (written by gasp fuzz run; target
xml or sql; method gcd, asap-kN, grammarinator, mcmc-uniform-kN,
mcmc-priority-kN, mcmc-restart-kN) and writes into DIR the coverage tables
of the paper's Tables 2-3 (tab2-supp-metrics-sql.md and .csv, tab3-…-xml,
and tables.md: branch, function and line coverage with bootstrap 95% CIs
over trials, and the branch gain over GCD) and coverage-over-time figures
as SVG, named after the paper's: Figs. 3b/6b (branch coverage, MCMC at
k = 10) and Figs. 7-12 (ablations of branch, function and line coverage:
one panel per proposal, k as line style, GCD for reference). The output
depends on the coverage.json files alone.`)
	pos, done, code := parseFlags(fset, args, stdout, stderr)
	if done {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "usage: gasp fuzz table DIR")
		return 2
	}
	files, err := fuzz.WriteReport(pos[0])
	if err != nil {
		fmt.Fprintf(stderr, "gasp fuzz table: %v\n", err)
		return 1
	}
	for _, f := range files {
		fmt.Fprintln(stdout, f)
	}
	return 0
}
