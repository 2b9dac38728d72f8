package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gasplab/gasp/pkg/analysis"
	"github.com/gasplab/gasp/pkg/experiment"
	"github.com/gasplab/gasp/pkg/membound"
	"github.com/gasplab/gasp/pkg/method"
	"github.com/gasplab/gasp/pkg/modroot"
	"github.com/gasplab/gasp/pkg/runs"
)

// experimentCommands are the subcommands of "gasp experiment", whose grids
// may name user's methods beside the built-in ones.
func experimentCommands(user map[string]method.Method) []subcommand {
	return []subcommand{
		{"run", "run an experiment's grid into its run store (mcmc/<name>), resumably", func(args []string, stdout, stderr io.Writer) int {
			return runExperimentRun(args, stdout, stderr, user)
		}},
		{"merge", "merge the run stores of an experiment's shards into one", runExperimentMerge},
		{"compact", "seal a run store's records into gzip'd segments (a tenth of the size; for git)", runExperimentCompact},
	}
}

// experimentAbout introduces the subcommands of "gasp experiment".
const experimentAbout = "Experiments are declared in JSON files (with // comments) under experiments/; see pkg/experiment."

func runExperimentRun(args []string, stdout, stderr io.Writer, user map[string]method.Method) int {
	cl := newCmdLine("gasp experiment run", "gasp experiment run [--shard i/n] [--store DIR] [--limit N] [--task-time D] CONFIG", `
Runs the grid of an experiment configuration (tasks × methods × runs, k up
to K; see pkg/experiment and experiments/quick.json) into its run store,
mcmc/<name>/ of the repository holding CONFIG. Batches already stored are
skipped, so an interrupted run is resumed by running it again; every run
has its own seed, derived from the experiment's seed, the task, the method
and the run number, so a resumed or sharded store holds the same records as
an uninterrupted one (elapsed_ms aside).

--shard i/n runs the i-th (0-based) of n interleaved parts of the grid, for
a Slurm array or a Kubernetes indexed job; shards may share the store
directory. --task-time bounds the sampling time of each (task, method),
the stored batches' elapsed_ms included: it is checked before each batch
(a batch started finishes, so that no sample is kept for being quick),
the remaining batches are left, and a rerun with a larger --task-time
continues them. --tasks runs only some of the grid's tasks (say, those
still short of samples), with the same seeds and store as the whole run. A store records its experiment's settings and grid
(experiment.json): another configuration may grow the grid (more runs, a
larger k, more tasks or methods), not shrink it nor change the settings.
Progress goes to standard error.`, stdout, stderr)
	shard := cl.String("shard", "0/1", "run part i of n of the grid (i from 0)")
	store := cl.String("store", "", "run store directory (default: mcmc/<name> of the repository)")
	limit := cl.Int("limit", 0, "stop after appending N records (0: no limit)")
	taskTime := cl.Duration("task-time", 0, "stop sampling a (task, method) once it has taken this long, stored batches included (0: no bound)")
	tasks := cl.String("tasks", "", "comma-separated patterns (path.Match, e.g. BV4/eq_*): run only these tasks' batches; the grid is unchanged")
	pos, done, code := cl.parse(args)
	if done {
		return code
	}
	if len(pos) != 1 {
		return cl.usageError("want one CONFIG file, got %d arguments", len(pos))
	}
	i, n, err := parseShard(*shard)
	if err != nil {
		return cl.usageError("%v", err)
	}
	if *limit < 0 {
		return cl.usageError("--limit must not be negative")
	}
	if *taskTime < 0 {
		return cl.usageError("--task-time must not be negative, got %v", *taskTime)
	}
	cfg, err := loadGrid(pos[0], user)
	if err != nil {
		return cl.fail(err)
	}
	ctx, progress, stop := interruptible("gasp experiment run", stderr)
	sum, err := experiment.Run(ctx, cfg, experiment.Options{
		Store: *store, Shard: i, Shards: n, Limit: *limit, Progress: progress, TaskTime: *taskTime,
		Tasks: taskPatterns(*tasks), Methods: user,
	})
	interrupted := stop()
	if interrupted && errors.Is(err, context.Canceled) {
		fmt.Fprintf(progress, "gasp experiment run: interrupted: %d records appended in %d batches; the store %s keeps them and the %d batches stored before. "+
			"Run the same command again to resume: stored batches are skipped, the rest drawn as an uninterrupted run would.\n",
			sum.Records, sum.Ran, sum.Store, sum.Skipped)
		return 130
	}
	if err != nil {
		return cl.fail(err)
	}
	fmt.Fprintf(stderr, "gasp experiment run: %d batches (%d stored before, %d sampled), %d records appended in %s",
		sum.Batches, sum.Skipped, sum.Ran, sum.Records, sum.Elapsed.Round(1e6))
	if sum.Limited {
		fmt.Fprint(stderr, "; stopped at --limit")
	}
	if sum.Deferred > 0 {
		fmt.Fprintf(stderr, "; %d batches left by --task-time", sum.Deferred)
	}
	fmt.Fprintln(stderr)
	return 0
}

// loadGrid reads the configuration file at path for gasp to run: its
// methods must be built in or user's (a program's own, Options.Methods),
// and its batches must fit in memory.
func loadGrid(path string, user map[string]method.Method) (*experiment.Config, error) {
	if err := checkInput("CONFIG", path, maxConfigBytes); err != nil {
		return nil, err
	}
	cfg, err := experiment.Load(path)
	if err != nil {
		return nil, err
	}
	if err := cfg.ValidateWith(user); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, checkGridMemory(cfg, user)
}

// checkGridMemory refuses a grid whose batches, or one batch's records or
// rows on its model, do not fit in the machine's memory: the grid lists
// every batch (about 64 bytes each); a batch samples its runs together,
// on one row per run or, for SMC, per particle (method.Rows), and holds
// the records of all its runs' k until they are written.
func checkGridMemory(cfg *experiment.Config, user map[string]method.Method) error {
	b := cfg.Batch
	if b == 0 {
		b = cfg.Runs
	}
	batches := float64(len(cfg.Tasks)) * float64(len(cfg.Methods)) * math.Ceil(float64(cfg.Runs)/float64(b))
	what := fmt.Sprintf("experiment %s (runs %d, batch %d)", cfg.Name, cfg.Runs, cfg.Batch)
	if err := membound.Check(what, 64*batches); err != nil {
		return err
	}
	rows, rowsOf, records := b, "", 0.0
	for _, name := range cfg.Methods {
		m, err := method.Resolve(name, user)
		if err != nil {
			continue // ValidateWith has refused it
		}
		if r := method.Rows(m, b); r > rows {
			rows, rowsOf = r, fmt.Sprintf(", %d rows for %s", r, name)
		}
		records = max(records, float64(b)*float64(method.Units(m, cfg.K)))
	}
	what = fmt.Sprintf("experiment %s (runs %d, batch %d, k %d%s)", cfg.Name, cfg.Runs, cfg.Batch, cfg.K, rowsOf)
	if err := membound.Check(what, records*recordBytes(cfg.MaxNewTokens)); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(cfg.ModelRef(), "config.json")); err != nil {
		return nil // a hub model: checked once downloaded, by its loader
	}
	return checkModelMemory(cfg.ModelRef(), rows, cfg.MaxNewTokens+1, what)
}

// recordBytes estimates a record of at most maxNew tokens in memory: its
// ids and text (16 bytes a token at most) and 256 of fields.
func recordBytes(maxNew int) float64 {
	return 256 + 16*float64(maxNew)
}

// parseShard parses "i/n" with 0 ≤ i < n.
func parseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	if ok {
		i, err = strconv.Atoi(a)
		if err == nil {
			n, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("--shard %q: want i/n with 0 ≤ i < n", s)
	}
	return i, n, nil
}

func runAnalyze(args []string, stdout, stderr io.Writer) int {
	cl := newCmdLine("gasp analyze", "gasp analyze [--store DIR] [--out DIR] [--protocol gasp|authors] [--reference STORES] [--resamples N] [--seed S] [--k K] EXPERIMENT | FILE.jsonl...", `
Regenerates the tables (CSV, Markdown) and figures (SVG) of an experiment
from its run store: reads mcmc/EXPERIMENT/ and writes analysis/EXPERIMENT/
of the repository (the current directory's), replacing what was there.
Given instead the output files of "gasp sample --out F.jsonl" (one or
more: e.g. a gcd file and an mcmc one of the same task), it analyzes their
records together as one store, into --out (default: beside the first
file, F-analysis/).
The output is byte-identical for the same store and flags (pkg/analysis):
KL to the reference with 95 % bootstrap intervals, means over tasks,
geomean KL reductions of MCMC(K) vs GCD and ASAp(K), monotonicity in k and
rejection acceptance rates; README.md indexes them. Both estimation
protocols are computed (pkg/analysis): --protocol's tables and figures
at the top, the other's tables in a subdirectory named after it, and
their geomean ratios side by side (protocols.csv). Every KL is against P
renormalised over the reference set S of a task, the distinct valid
samples the store holds, so a ratio depends on the store's other methods;
--reference adds other stores' samples to S, so that stores analysed
apart, each with the others as reference, are comparable. A store that a
running gasp is writing (experiment run, demo, merge) is refused: it holds
only part of its records.`, stdout, stderr)
	store := cl.String("store", "", "run store directory (default: mcmc/EXPERIMENT of the repository)")
	out := cl.String("out", "", "output directory (default: analysis/EXPERIMENT of the repository)")
	resamples := cl.Int("resamples", 500, "bootstrap resamples")
	seed := cl.Uint64("seed", 1, "bootstrap seed")
	k := cl.Int("k", 0, "compare MCMC and ASAp at this k (0: the largest stored)")
	protocol := cl.String("protocol", "gasp", "estimation protocol of the main tables: gasp or authors (pkg/analysis)")
	reference := cl.String("reference", "", "run stores whose samples join the reference set, comma-separated")
	pos, done, code := cl.parse(args)
	if done {
		return code
	}
	files := sampleFiles(pos)
	if !files && (len(pos) != 1 || pos[0] == "" || strings.ContainsAny(pos[0], `/\`)) {
		return cl.usageError("want one EXPERIMENT name (the directory under mcmc/), or gasp sample output files (F.jsonl)")
	}
	if files && *store != "" {
		return cl.usageError("--store is for an EXPERIMENT, not with sample files")
	}
	switch {
	case *resamples < 1 || *resamples > analysis.MaxResamples:
		return cl.usageError("--resamples must be in [1, %d], got %d", analysis.MaxResamples, *resamples)
	case *k < 0:
		return cl.usageError("--k must not be negative (0: the largest stored), got %d", *k)
	}
	proto, err := analysis.ParseProtocol(*protocol)
	if err != nil || *protocol == "" {
		return cl.usageError("--protocol must be gasp or authors, not %q", *protocol)
	}
	opt := analysis.Options{Resamples: *resamples, Seed: *seed, K: *k, Protocol: proto}
	if *reference != "" {
		if opt.Reference, err = analysis.LoadDirsWith(experiment.StoreOptions, strings.Split(*reference, ",")...); err != nil {
			return cl.fail(fmt.Errorf("--reference: %w", err))
		}
	}
	var (
		rep      *analysis.Report
		title    string
		warnings []runs.Warning
	)
	if files {
		if *out == "" {
			*out = defaultFilesOut(pos)
		}
		rep, warnings, err = analyzeFiles(pos, opt)
		title = "Samples " + strings.Join(pos, ", ")
	} else {
		name := pos[0]
		if err := experimentDirs(name, store, out); err != nil {
			return cl.fail(err)
		}
		var cfg *experiment.Config
		rep, cfg, warnings, err = analyzeStore(*store, opt)
		title = analysisTitle(name, cfg)
	}
	if err != nil {
		return cl.fail(err)
	}
	if err := rep.WriteDir(*out, title); err != nil {
		return cl.fail(err)
	}
	for _, w := range warnings {
		fmt.Fprintf(stderr, "gasp analyze: warning: %v\n", w)
	}
	fmt.Fprintf(stderr, "gasp analyze: %d tasks, %d methods: wrote %s\n", len(rep.Tasks), len(rep.Methods), *out)
	return 0
}

// experimentDirs sets *store and *out, where empty, to mcmc/NAME and
// analysis/NAME of the repository.
func experimentDirs(name string, store, out *string) error {
	if *store != "" && *out != "" {
		return nil
	}
	root, err := experimentRoot()
	if err != nil {
		return err
	}
	if *store == "" {
		*store = filepath.Join(root, "mcmc", name)
	}
	if *out == "" {
		*out = filepath.Join(root, "analysis", name)
	}
	return nil
}

// analyzeStore reads a run store, checks it against its experiment.json
// (nil if it has none) and analyzes it under opt.Protocol and the other
// protocol; it returns the configuration and the store's warnings too.
func analyzeStore(store string, opt analysis.Options) (*analysis.Report, *experiment.Config, []runs.Warning, error) {
	sopt, err := experiment.StoreOptions(store)
	if err != nil {
		return nil, nil, nil, err
	}
	st, err := analysis.OpenStoreWith(store, sopt)
	if err != nil {
		return nil, nil, nil, err
	}
	defer st.Close()
	data, err := analysis.Load(st)
	if err != nil {
		return nil, nil, nil, err
	}
	if len(data.Tasks()) == 0 {
		return nil, nil, nil, fmt.Errorf("%s holds no records", store)
	}
	cfg, err := experiment.Stored(store)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := checkStoredGrid(st, data, cfg, opt.K); err != nil {
		return nil, nil, nil, err
	}
	rep, err := analysis.AnalyzeBoth(data, opt)
	if err != nil {
		return nil, nil, nil, err
	}
	return rep, cfg, st.Warnings(), nil
}

// analysisTitle is the title of an experiment's analysis.
func analysisTitle(name string, c *experiment.Config) string {
	if c == nil {
		return "Experiment " + name
	}
	return fmt.Sprintf("Experiment %s (protocol %s: model %s, %d runs, k ≤ %d, temperature %g, top-p %g, top-k %d, %d new tokens)",
		name, c.Protocol, c.Model, c.Runs, c.K, c.Temperature, c.TopP, c.TopK, c.MaxNewTokens)
}

// storedSteps says how the runs of method m leave records: the built-in
// method's own Steps, or, for a user's method, what its records show.
func storedSteps(m string, data *analysis.Data) method.Steps {
	if meth, err := method.Parse(m); err == nil {
		return meth.Steps()
	}
	return data.Steps(m)
}

// checkStoredGrid fails when a record lies outside the grid of cfg (the
// store's experiment.json; nil when it has none): a run ≥ runs, or a k
// above K (or above 0 for gcd and rejection). It also fails when k > 0 is
// not a step any ASAp or MCMC series of the store has: its table would be
// empty.
func checkStoredGrid(st *runs.Store, data *analysis.Data, cfg *experiment.Config, k int) error {
	found, largest := k == 0, 0
	for _, task := range data.Tasks() {
		for _, m := range data.Methods(task) {
			stepped := storedSteps(m, data) != method.None
			for _, kk := range data.Ks(task, m) {
				if stepped {
					found = found || kk == k
					largest = max(largest, kk)
				}
				if cfg == nil {
					continue
				}
				if kk > cfg.K || !stepped && kk != 0 {
					return fmt.Errorf("%s: records of k = %d, outside the grid of experiment.json (k ≤ %d)", st.Path(task, m), kk, cfg.K)
				}
				for _, r := range data.Records(task, m, kk) {
					if r.Run >= cfg.Runs {
						return fmt.Errorf("%s: a record of run %d, outside the grid of experiment.json (runs 0…%d)", st.Path(task, m), r.Run, cfg.Runs-1)
					}
				}
			}
		}
	}
	if !found {
		return fmt.Errorf("--k %d: no ASAp or MCMC series of the store has that step (they have k ≤ %d)", k, largest)
	}
	return nil
}

// experimentRoot returns the gasp module's directory (package modroot),
// else the current directory.
func experimentRoot() (string, error) {
	if root, err := modroot.Find(); err == nil {
		return root, nil
	}
	return os.Getwd()
}

// taskPatterns splits --tasks at commas; empty means every task.
func taskPatterns(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
