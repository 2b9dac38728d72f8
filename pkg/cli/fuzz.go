package cli

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

	"github.com/gasplab/gasp/pkg/experiment"
	"github.com/gasplab/gasp/pkg/fuzz"
	"github.com/gasplab/gasp/pkg/grammar"
	"github.com/gasplab/gasp/pkg/infile"
	"github.com/gasplab/gasp/pkg/runs"
)

var fuzzCommands = []subcommand{
	{"seeds", "write grammar-baseline seeds (random derivations, no LM) for a target", runFuzzSeeds},
	{"validity", "fraction of grammar samples the real library accepts", runFuzzValidity},
	{"run", "fuzz a target with AFL++ from a seed directory and measure coverage", runFuzzRun},
	{"table", "coverage tables (paper Tables 2-3) and coverage-over-time plots from coverage.json files", runFuzzTable},
}

// fuzzAbout introduces the subcommands of "gasp fuzz".
const fuzzAbout = `Fuzzing experiment (paper Sec. 4.2): libxml2 (target xml) and SQLite (target sql)
under AFL++, coverage with llvm-cov. The toolchain is built by scripts/fuzz-setup.sh
into .cache/fuzz (or --toolchain DIR); every target execution is sandboxed.`

// seedFlags are the flags of "gasp fuzz seeds" and "gasp fuzz validity"
// that draw sentences from a target's grammar.
type seedFlags struct {
	target, root string
	n, depth     int
	seed         uint64
}

// define defines the flags on cl: -n's default is n, and what says what it
// counts.
func (f *seedFlags) define(cl *cmdLine, n int, what, depthHelp string) {
	cl.StringVar(&f.target, "target", "", "fuzz target: xml or sql")
	cl.IntVar(&f.n, "n", n, "number of "+what)
	cl.Uint64Var(&f.seed, "seed", 1, "random seed")
	cl.IntVar(&f.depth, "depth", 0, depthHelp)
	cl.StringVar(&f.root, "root", ".", "repository root (where grammar/ is)")
}

// check is the first problem of -n and -depth.
func (f *seedFlags) check() flagCheck {
	msg := firstBad(
		flagCheck{f.n < 1 || f.n > maxSeeds, fmt.Sprintf("-n must be in [1, %d], got %d", maxSeeds, f.n)},
		flagCheck{f.depth < 0 || f.depth > maxDepth, fmt.Sprintf("-depth must be in [0, %d] (0: the target's default), got %d", maxDepth, f.depth)},
	)
	return flagCheck{msg != "", msg}
}

// sentences compiles the target's grammar, relative to the repository root
// or the current directory, and draws its -n random derivations.
func (f *seedFlags) sentences() ([][]byte, error) {
	rel, err := fuzz.GrammarFile(f.target)
	if err != nil {
		return nil, err
	}
	g, _, err := grammar.CompileFile(filepath.Join(f.root, rel), grammar.Options{})
	if err != nil {
		return nil, err
	}
	depth := f.depth
	if depth == 0 {
		if depth, err = fuzz.DefaultDepth(f.target); err != nil {
			return nil, err
		}
	}
	seeds, err := fuzz.GrammarSeeds(g, f.n, f.seed, depth)
	if err != nil {
		return nil, fmt.Errorf("%s: -depth %d: %w; give a smaller -depth", rel, depth, err)
	}
	return seeds, nil
}

func runFuzzSeeds(args []string, stdout, stderr io.Writer) int {
	cl := newCmdLine("gasp fuzz seeds", `gasp fuzz seeds --target xml|sql [-n 100] [-seed S] [-depth D] --out DIR
       gasp fuzz seeds --target xml|sql --store DIR --task T --method M [--k K] [-n 100] --out DIR`, `
Writes N seed files for the target to DIR (seed-NNNN.xml or .test).

Without --store: N random derivations of the target's grammar
(grammar/xml.gbnf or grammar/sqlite-test.gbnf), the Grammarinator-style
baseline of the paper, which uses no language model.

With --store: the first N valid samples, in run order, of --task and
--method at step --k in a run store (mcmc/<experiment>, see
mcmc/README.md): k is the number of MH steps for mcmc-*, the sample number
for asap, and 0 for gcd. Fewer than N valid samples are written with a
warning; none is an error.`, stdout, stderr)
	var f seedFlags
	f.define(cl, 100, "seeds", "derivation depth (default: per target, xml 16, sql 12)")
	out := cl.String("out", "", "output directory")
	store := cl.String("store", "", "run store directory: take the seeds from its samples")
	task := cl.String("task", "", "with --store: the task name of the samples")
	method := cl.String("method", "", "with --store: the method of the samples")
	k := cl.Int("k", 0, "with --store: the step index of the samples")
	if done, code := cl.parseNoArgs(args); done {
		return code
	}
	if bad := firstBad(
		flagCheck{*out == "" || f.target == "", "--target and --out are required"},
		f.check(),
		flagCheck{*k < 0, fmt.Sprintf("--k must not be negative, got %d", *k)},
	); bad != "" {
		return cl.usageError("%s", bad)
	}
	if err := checkEmptyOut(*out); err != nil {
		return cl.fail(err)
	}
	ext := map[string]string{"xml": ".xml", "sql": ".test"}[f.target]
	if ext == "" {
		return cl.usageError("unknown fuzz target %q (want xml or sql)", f.target)
	}
	if *store != "" && (*task == "" || *method == "") {
		return cl.usageError("--store needs --task and --method")
	}
	var samples [][]byte
	var err error
	if *store != "" {
		samples, err = storeSeeds(*store, *task, *method, *k, f.n, stderr)
	} else {
		samples, err = f.sentences()
	}
	if err == nil {
		err = fuzz.WriteSeeds(*out, ext, samples)
	}
	if err != nil {
		return cl.fail(err)
	}
	return 0
}

// storeSeeds returns the first n valid samples of (task, method) at step
// k of the run store, with a warning to warn when there are fewer.
func storeSeeds(store, task, method string, k, n int, warn io.Writer) ([][]byte, error) {
	opt, err := experiment.StoreOptions(store)
	if err != nil {
		return nil, err
	}
	st, err := runs.OpenWith(store, opt)
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

func runFuzzValidity(args []string, stdout, stderr io.Writer) int {
	cl := newCmdLine("gasp fuzz validity", "gasp fuzz validity --target xml|sql [-n 1000] [-seed S] [-depth D] [--json]", `
Samples N sentences from the target's grammar and runs each through the real
library in the sandbox: for xml, the fraction xmllint parses without errors
(and the fraction also valid against its DTD); for sql, the fraction
testfixture runs to finish_test without a Tcl error (and without a failing
test).`, stdout, stderr)
	var f seedFlags
	f.define(cl, 1000, "samples", "derivation depth (default: per target)")
	tcDir := cl.String("toolchain", ".cache/fuzz", "toolchain directory (scripts/fuzz-setup.sh)")
	asJSON := cl.Bool("json", false, "print the result as JSON")
	if done, code := cl.parseNoArgs(args); done {
		return code
	}
	if c := f.check(); c.bad {
		return cl.usageError("%s", c.msg)
	}
	res, err := validity(*tcDir, &f)
	if err != nil {
		return cl.fail(err)
	}
	writeValidity(stdout, res, *asJSON)
	return 0
}

// validity runs the sentences of f through the target's library, with the
// toolchain in tcDir, and returns the tally.
func validity(tcDir string, f *seedFlags) (*fuzz.ValidityResult, error) {
	tc, err := fuzz.OpenToolchain(tcDir)
	if err != nil {
		return nil, err
	}
	sentences, err := f.sentences()
	if err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp("", "gasp-validity")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return tc.Validity(ctx, f.target, sentences, work)
}

// writeValidity prints the tally, as JSON or as text with the most
// frequent errors.
func writeValidity(w io.Writer, res *fuzz.ValidityResult, asJSON bool) {
	if asJSON {
		data, _ := json.MarshalIndent(res, "", "  ")
		fmt.Fprintf(w, "%s\n", data)
		return
	}
	fmt.Fprintf(w, "%s (%s): %d samples, accepted %d (%.1f%%), strict %d (%.1f%%)\n",
		res.Target, res.Version, res.Samples, res.Accepted, 100*res.Fraction, res.Strict, 100*res.StrictFr)
	if res.Target == "sql" {
		fmt.Fprintf(w, "  ran to finish_test: %d (%.1f%%)\n", res.Completed, 100*float64(res.Completed)/float64(max(res.Samples, 1)))
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
		fmt.Fprintf(w, "  %4d  %s\n", e.v, e.k)
	}
}

func runFuzzRun(args []string, stdout, stderr io.Writer) int {
	cl := newCmdLine("gasp fuzz run", "gasp fuzz run --target xml|sql --seeds DIR [--protocol quick|paper] [--time D] [--trials N] [--resume | --only-trial I] --out DIR", `
Fuzzes the target with AFL++ (in the sandbox) from the seed files in DIR for
--time per trial, trial i (1..N) with AFL_RANDOM_SEED=42+i, replays each
trial's queue through the coverage build, and writes DIR/coverage.json:
branch_pct, line_pct and function_pct (final, mean over trials, with
bootstrap 95% CIs) and over_time. --time 0 measures the seeds alone.
--protocol sets the defaults of --time and --trials: quick (20s, 1 trial)
or paper (1h, 5 trials).

Each finished trial i is stored in OUT/trial-<i-1>/trial.json. --resume
keeps the stored trials made with the same target, seeds, --time,
--snapshots, --exec-timeout and dictionary, and runs the others: a run
stopped part way goes on where it stopped. --only-trial I runs trial I
alone (or keeps it, if stored), as one task of a Slurm array; coverage.json
is written by the task that stores the last trial, or by a --resume after.`, stdout, stderr)
	f := fuzzRunFlags{}
	cl.StringVar(&f.target, "target", "", "fuzz target: xml or sql")
	cl.StringVar(&f.seeds, "seeds", "", "directory of seed files")
	cl.StringVar(&f.protocol, "protocol", "quick", "quick or paper")
	cl.StringVar(&f.time, "time", "", "AFL++ time per trial (Go duration; 0: seeds only)")
	cl.IntVar(&f.trials, "trials", 0, "number of trials")
	cl.IntVar(&f.snaps, "snapshots", 10, "points of the coverage-over-time curve")
	cl.BoolVar(&f.grammarDict, "grammar-dict", false, "give afl-fuzz a dictionary of the target grammar's literals (-x; the paper uses none)")
	cl.StringVar(&f.root, "root", ".", "repository root (where grammar/ is), for --grammar-dict")
	cl.DurationVar(&f.execTimeout, "exec-timeout", 0, "afl-fuzz's fixed per-execution timeout (default: per target, xml 1s, sql 1s); seeds slower than half of it are not fuzzed")
	cl.StringVar(&f.out, "out", "", "output directory")
	cl.BoolVar(&f.resume, "resume", false, "keep the trials stored under --out by an earlier run with the same options; run the others")
	cl.IntVar(&f.only, "only-trial", 0, "run trial I (1..N) alone, or keep it if stored")
	cl.Float64Var(&f.minCPU, "min-cpu-share", 0, "with --resume or --only-trial, run a stored trial again if it had less than this share of a core (CPU seconds over --time), or no CPU record")
	tcDir := cl.String("toolchain", ".cache/fuzz", "toolchain directory (scripts/fuzz-setup.sh)")
	quiet := cl.Bool("q", false, "no progress lines on standard error")
	if done, code := cl.parseNoArgs(args); done {
		return code
	}
	opts, usage, err := f.options()
	if usage {
		return cl.usageError("%v", err)
	}
	if err != nil {
		return cl.fail(err)
	}
	if !*quiet {
		opts.Log = stderr
	}
	tc, err := fuzz.OpenToolchain(*tcDir)
	if err != nil {
		return cl.fail(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := fuzz.Run(ctx, tc, opts)
	if errors.Is(err, fuzz.ErrTrialsPending) {
		fmt.Fprintf(stdout, "%s %s: trial %d stored; %v\n", opts.Target, opts.Out, opts.Only, err)
		return 0
	}
	if err != nil {
		return cl.fail(err)
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
	trials, snaps, only                      int
	grammarDict, resume                      bool
	execTimeout                              time.Duration
	minCPU                                   float64
}

// options checks the flags and returns the options of the run; on error,
// usage says whether the command line is wrong (else the run failed).
func (f *fuzzRunFlags) options() (opts fuzz.Options, usage bool, err error) {
	if bad := firstBad(
		flagCheck{f.target == "" || f.seeds == "" || f.out == "", "--target, --seeds and --out are required"},
		flagCheck{f.trials < 0 || f.trials > 1000, fmt.Sprintf("--trials must be in [1, 1000] (0: the protocol's), got %d", f.trials)},
		flagCheck{f.snaps < 1 || f.snaps > 10000, fmt.Sprintf("--snapshots must be in [1, 10000], got %d", f.snaps)},
		flagCheck{f.execTimeout < 0, fmt.Sprintf("--exec-timeout must not be negative, got %v", f.execTimeout)},
		flagCheck{f.only < 0, fmt.Sprintf("--only-trial must be in [1, --trials], got %d", f.only)},
		flagCheck{f.only > 0 && f.resume, "--only-trial and --resume exclude each other (--only-trial keeps a stored trial too)"},
		flagCheck{!(f.minCPU >= 0 && f.minCPU <= 1), fmt.Sprintf("--min-cpu-share must be in [0, 1], got %g", f.minCPU)},
	); bad != "" {
		return fuzz.Options{}, true, errors.New(bad)
	}
	if err := checkRunOut(f.out); err != nil {
		return fuzz.Options{}, false, err
	}
	p, err := fuzz.LookupProtocol(f.protocol)
	if err != nil {
		return fuzz.Options{}, true, err
	}
	opts = fuzz.Options{Target: f.target, Seeds: f.seeds, Out: f.out, Time: p.Time, Trials: p.Trials, Snapshots: f.snaps, ExecTimeout: f.execTimeout}
	if f.time != "" {
		d, err := time.ParseDuration(f.time)
		if f.time == "0" {
			d, err = 0, nil
		}
		if err != nil || d < 0 {
			return fuzz.Options{}, true, fmt.Errorf("bad --time %q", f.time)
		}
		opts.Time = d
	}
	if f.trials > 0 {
		opts.Trials = f.trials
	}
	if f.only > opts.Trials {
		return fuzz.Options{}, true, fmt.Errorf("--only-trial must be in [1, %d] (--trials), got %d", opts.Trials, f.only)
	}
	opts.Resume, opts.Only, opts.MinCPUShare = f.resume, f.only, f.minCPU
	if f.grammarDict {
		rel, err := fuzz.GrammarFile(f.target)
		if err != nil {
			return fuzz.Options{}, true, err
		}
		src, err := infile.Read(filepath.Join(f.root, rel), maxGrammarBytes)
		if err != nil {
			return fuzz.Options{}, false, err
		}
		file, errs := grammar.Parse(rel, src)
		if len(errs) > 0 {
			return fuzz.Options{}, false, fmt.Errorf("%v", errs)
		}
		opts.Dict = fuzz.Dictionary(file)
	}
	return opts, false, nil
}

func runFuzzTable(args []string, stdout, stderr io.Writer) int {
	cl := newCmdLine("gasp fuzz table", "gasp fuzz table DIR", `
Reads DIR/<target>/<method>/coverage.json (written by gasp fuzz run; target
xml or sql; method gcd, asap-kN, grammarinator, mcmc-uniform-kN,
mcmc-priority-kN, mcmc-restart-kN) and writes into DIR the coverage tables
of the paper's Tables 2-3 (tab2-supp-metrics-sql.md and .csv, tab3-…-xml,
and tables.md: branch, function and line coverage with bootstrap 95% CIs
over trials (none from fewer than 3), the branch gain over GCD, and on the
trials' final branch coverage against GCD's the Vargha-Delaney A12 and the
two-sided Mann-Whitney U test's p, * below 0.05) and coverage-over-time figures
as SVG, named after the paper's: Figs. 3b/6b (branch coverage, MCMC at
k = 10) and Figs. 7-12 (ablations of branch, function and line coverage:
one panel per proposal, k as line style, GCD for reference). The output
depends on the coverage.json files alone.`, stdout, stderr)
	pos, done, code := cl.parse(args)
	if done {
		return code
	}
	if len(pos) != 1 {
		return cl.usageError("want one DIR, got %d arguments", len(pos))
	}
	files, err := fuzz.WriteReport(pos[0])
	if err != nil {
		return cl.fail(err)
	}
	for _, f := range files {
		fmt.Fprintln(stdout, f)
	}
	return 0
}
