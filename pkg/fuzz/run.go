package fuzz

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gasplab/gasp/pkg/atomicfile"
	"github.com/gasplab/gasp/pkg/infile"
)

// A Protocol is a named fuzzing protocol: how long each trial runs and how
// many trials there are (Options.Time and Options.Trials).
type Protocol struct {
	Time   time.Duration
	Trials int
}

// LookupProtocol returns the protocol of that name: quick fits in CI (one
// trial of 20 s), paper is the paper's (5 trials of one hour, offline).
func LookupProtocol(name string) (Protocol, error) {
	switch name {
	case "quick":
		return Protocol{20 * time.Second, 1}, nil
	case "paper":
		return Protocol{time.Hour, 5}, nil
	}
	return Protocol{}, fmt.Errorf("unknown fuzz protocol %q (want quick or paper)", name)
}

// aflAttempts is how many times a trial starts afl-fuzz when it gives up
// because every seed timed out or crashed in its dry run.
const aflAttempts = 3

// Options configure Run.
type Options struct {
	Target string        // "xml" or "sql"
	Seeds  string        // directory of seed files
	Time   time.Duration // AFL++ time per trial; 0 measures the seeds alone
	Trials int           // number of trials (at least 1)
	Out    string        // output directory; coverage.json is written there
	// ExecTimeout is afl-fuzz's per-execution timeout (-t), fixed for the
	// whole run; 0 means the target's Timeout. Seeds slower than half of it
	// are left out of the AFL++ run (they still count at time 0).
	ExecTimeout time.Duration
	// Dict, if not nil, is an AFL++ dictionary (afl-fuzz -x), such as
	// Dictionary of the target's grammar. The paper's runs use none.
	Dict []byte
	// Snapshots is the number of points of the coverage-over-time curve
	// after time 0 (default 10).
	Snapshots int
	// Log, if not nil, receives progress lines.
	Log io.Writer
	// Resume keeps the trials an earlier run stored under Out
	// (trial-N/trial.json) with the same target, seed files, time,
	// snapshots, execution timeout and dictionary, and runs only the
	// others; a trial stored with other options is an error.
	Resume bool
	// Only, if positive, runs trial Only (1 … Trials) alone, unless it is
	// stored, as with Resume. Run writes coverage.json once every trial is
	// stored, and until then returns an error wrapping ErrTrialsPending.
	// A Slurm array runs one trial per task this way.
	Only int
	// MinCPUShare, if positive, is the least share of the trial's time a
	// stored trial must have had of a core (its CPUSeconds over Time) to
	// be kept; one below it, or stored without a CPU record, is run again.
	// On a shared machine a trial that other work slowed measures less
	// fuzzing than the others, whatever its seeds.
	MinCPUShare float64
}

// A Point is the mean coverage over trials at a time, with bootstrap 95%
// confidence intervals.
type Point struct {
	Seconds float64 `json:"seconds"`
	Coverage
	BranchCI   [2]float64 `json:"branch_ci"`
	LineCI     [2]float64 `json:"line_ci"`
	FunctionCI [2]float64 `json:"function_ci"`
}

// A Trial is the result of one AFL++ run.
type Trial struct {
	Trial   int   `json:"trial"`
	AFLSeed int   `json:"afl_seed"`
	Execs   int64 `json:"execs"`
	Queue   int   `json:"queue"`
	// ExecTimeoutMs is afl-fuzz's per-execution timeout; SlowSeeds the
	// seeds left out of the AFL++ run for taking longer than half of it.
	ExecTimeoutMs int      `json:"exec_timeout_ms,omitempty"`
	SlowSeeds     []string `json:"slow_seeds,omitempty"`
	// Retries counts afl-fuzz runs started again because every seed timed
	// out in its dry run (see aflAttempts).
	Retries int `json:"afl_retries,omitempty"`
	// CPUSeconds is the CPU time (user and system) that afl-fuzz and the
	// executions it ran used, of the trial's wall time: near it where the
	// trial had a core of its own, well under it on a shared one.
	CPUSeconds float64 `json:"cpu_seconds,omitempty"`
	OverTime   []Point `json:"over_time"`
	Coverage
}

// A Report is what Run writes to coverage.json. The embedded Coverage and
// the CIs are those of the final point (mean over trials).
type Report struct {
	Target      string  `json:"target"`
	Library     string  `json:"library"`
	Version     string  `json:"version"`
	Seeds       int     `json:"seeds"`
	TimeSeconds float64 `json:"time_seconds"`
	Trials      int     `json:"trials"`
	Point
	OverTime    []Point `json:"over_time"`
	TrialReport []Trial `json:"trial_results"`
}

// Run fuzzes opts.Target from the seeds in opts.Seeds and writes
// opts.Out/coverage.json; it returns the report.
func Run(ctx context.Context, tc *Toolchain, opts Options) (*Report, error) {
	t, err := tc.Target(opts.Target)
	if err != nil {
		return nil, err
	}
	if opts.Trials < 1 {
		opts.Trials = 1
	}
	if opts.Snapshots < 1 {
		opts.Snapshots = 10
	}
	logf := func(format string, args ...any) {
		if opts.Log != nil {
			fmt.Fprintf(opts.Log, format+"\n", args...)
		}
	}
	seeds, err := seedFiles(opts.Seeds)
	if err != nil {
		return nil, err
	}
	out, err := filepath.Abs(opts.Out)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	grid := []float64{0}
	if opts.Time > 0 {
		for k := 1; k <= opts.Snapshots; k++ {
			grid = append(grid, opts.Time.Seconds()*float64(k)/float64(opts.Snapshots))
		}
	}
	if opts.Only > opts.Trials || opts.Only < 0 {
		return nil, fmt.Errorf("trial %d of %d: no such trial (want 1 … %d)", opts.Only, opts.Trials, opts.Trials)
	}
	if opts.Time == 0 {
		// The seeds alone are deterministic: one trial says it all.
		opts.Resume = opts.Resume || opts.Only > 0
		opts.Trials, opts.Only = 1, 0
	}
	key, err := newTrialKey(t, seeds, opts)
	if err != nil {
		return nil, err
	}
	rep := &Report{Target: t.Name, Library: t.Library, Version: t.Version, Seeds: len(seeds),
		TimeSeconds: opts.Time.Seconds(), Trials: opts.Trials}
	stored, err := storedTrials(out, opts, key)
	if err != nil {
		return nil, err
	}
	for i := range opts.Trials {
		tr := stored[i]
		switch {
		case tr != nil:
			logf("fuzz: %s trial %d: stored in %s, kept", t.Name, i, out)
		case opts.Only == 0 || opts.Only == i+1:
			dir := filepath.Join(out, fmt.Sprintf("trial-%d", i))
			if tr, err = tc.trial(ctx, t, seeds, opts, i, dir, grid, logf); err == nil {
				err = saveTrial(dir, key, tr)
			}
			if err != nil {
				return nil, fmt.Errorf("trial-%d: %w", i, err)
			}
		}
		if tr != nil {
			rep.TrialReport = append(rep.TrialReport, *tr)
		}
	}
	if n := len(rep.TrialReport); n < opts.Trials {
		return nil, fmt.Errorf("%s: %d of %d trials stored: %w; coverage.json is written when all are", out, n, opts.Trials, ErrTrialsPending)
	}
	for k, sec := range grid {
		var b, l, f []float64
		for _, tr := range rep.TrialReport {
			b = append(b, tr.OverTime[k].BranchPct)
			l = append(l, tr.OverTime[k].LinePct)
			f = append(f, tr.OverTime[k].FunctionPct)
		}
		p := Point{Seconds: sec, Coverage: Coverage{mean(b), mean(l), mean(f)}}
		p.BranchCI, p.LineCI, p.FunctionCI = bootstrapCI(b), bootstrapCI(l), bootstrapCI(f)
		rep.OverTime = append(rep.OverTime, p)
	}
	rep.Point = rep.OverTime[len(rep.OverTime)-1]
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return nil, err
	}
	// Whole or not at all: the Slurm tasks that store the last trials may
	// both write it.
	if err := atomicfile.WriteFile(filepath.Join(out, "coverage.json"), append(data, '\n')); err != nil {
		return nil, err
	}
	return rep, nil
}

// storedTrials returns, by index, the trials stored under out that a run
// with opts keeps (with opts.Resume or opts.Only; none otherwise), checking
// them all before anything runs: one stored by another run is an error.
func storedTrials(out string, opts Options, key trialKey) (map[int]*Trial, error) {
	stored := map[int]*Trial{}
	if !opts.Resume && opts.Only == 0 {
		return stored, nil
	}
	for i := range opts.Trials {
		dir := filepath.Join(out, fmt.Sprintf("trial-%d", i))
		tr, ok, err := loadTrial(dir, key)
		if err != nil {
			return nil, err
		}
		if ok && tr.Trial != i {
			return nil, fmt.Errorf("%s holds trial %d, not %d; remove it to run the trial again", filepath.Join(dir, trialFile), tr.Trial, i)
		}
		if ok && opts.MinCPUShare > 0 && opts.Time > 0 && tr.CPUSeconds < opts.MinCPUShare*opts.Time.Seconds() {
			if opts.Log != nil {
				fmt.Fprintf(opts.Log, "fuzz: %s: %.0f CPU seconds of %.0f, under the share %g: run again\n",
					filepath.Join(dir, trialFile), tr.CPUSeconds, opts.Time.Seconds(), opts.MinCPUShare)
			}
			ok = false
		}
		if ok {
			stored[i] = tr
		}
	}
	return stored, nil
}

// trial runs AFL++ once (unless opts.Time is 0) and replays its queue.
func (tc *Toolchain) trial(ctx context.Context, t *Target, seeds []string, opts Options, i int, dir string, grid []float64, logf func(string, ...any)) (*Trial, error) {
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	work := filepath.Join(dir, "work")
	local, err := copySeeds(seeds, filepath.Join(work, "seeds"), t.Ext)
	if err != nil {
		return nil, err
	}
	if err := t.prepare(work); err != nil {
		return nil, err
	}
	tr := &Trial{Trial: i, AFLSeed: 42 + i + 1}
	var found []queued
	if opts.Time > 0 {
		run := &aflRun{tc: tc, t: t, opts: opts, tr: tr, dir: dir, work: work, logf: logf}
		if found, err = run.fuzz(ctx, local); err != nil {
			return nil, err
		}
	}
	prof := &profiler{tc: tc, t: t, work: work}
	next := 0
	for _, sec := range grid {
		batch := local
		if sec > 0 {
			batch = nil
			for next < len(found) && float64(found[next].ms) <= sec*1000 {
				batch = append(batch, found[next].path)
				next++
			}
			if sec == grid[len(grid)-1] { // entries found after the deadline
				for ; next < len(found); next++ {
					batch = append(batch, found[next].path)
				}
			}
		}
		c, err := prof.add(ctx, batch)
		if err != nil {
			return nil, err
		}
		tr.OverTime = append(tr.OverTime, Point{Seconds: sec, Coverage: c})
		logf("fuzz: %s trial %d: %6.0f s: %d inputs: branch %.2f%% line %.2f%% function %.2f%%",
			t.Name, i, sec, len(batch), c.BranchPct, c.LinePct, c.FunctionPct)
	}
	tr.Coverage = tr.OverTime[len(tr.OverTime)-1].Coverage
	return tr, nil
}

// maxSeedBytes bounds a seed file, far above the 1 MB of it AFL++ reads
// (MAX_FILE).
const maxSeedBytes = 16 << 20

// copySeeds copies the seed files into dir as seed-NNNN<ext> and returns
// their paths.
func copySeeds(seeds []string, dir, ext string) ([]string, error) {
	data := make([][]byte, len(seeds))
	for k, s := range seeds {
		var err error
		if data[k], err = infile.Read(s, maxSeedBytes); err != nil {
			return nil, err
		}
	}
	return writeSeeds(dir, ext, data)
}

// A queued input is an entry of AFL++'s queue and when it was found, in
// milliseconds since the start of the run.
type queued struct {
	path string
	ms   int64
}

// An aflRun is the AFL++ run of one trial, filling in tr.
type aflRun struct {
	tc        *Toolchain
	t         *Target
	opts      Options
	tr        *Trial
	dir, work string // the trial's directory, and its work directory
	logf      func(string, ...any)
}

// fuzz runs afl-fuzz for opts.Time from the seeds that run fast enough and
// returns the entries it queued, oldest first (the seeds are not among
// them: they are replayed at time 0).
func (a *aflRun) fuzz(ctx context.Context, seeds []string) ([]queued, error) {
	t, tr := a.t, a.tr
	tr.ExecTimeoutMs = t.Timeout
	if a.opts.ExecTimeout > 0 {
		tr.ExecTimeoutMs = int(a.opts.ExecTimeout.Milliseconds())
	}
	aflIn, slow, err := a.tc.fastSeeds(ctx, t, a.work, seeds, time.Duration(tr.ExecTimeoutMs)*time.Millisecond/2)
	if err != nil {
		return nil, err
	}
	tr.SlowSeeds = slow
	a.logf("fuzz: %s trial %d: afl-fuzz for %v (AFL_RANDOM_SEED=%d, -t %d, %d of %d seeds: %d slow)",
		t.Name, tr.Trial, a.opts.Time, tr.AFLSeed, tr.ExecTimeoutMs, len(seeds)-len(slow), len(seeds), len(slow))
	aflOut := filepath.Join(a.work, "afl")
	args, err := a.args(aflIn, aflOut)
	if err != nil {
		return nil, err
	}
	if err := a.runWithRetries(ctx, aflOut, args); err != nil {
		return nil, err
	}
	queue, _ := filepath.Glob(filepath.Join(aflOut, "default", "queue", "id:*"))
	tr.Queue = len(queue)
	var found []queued
	for _, q := range queue {
		base := filepath.Base(q)
		if strings.Contains(base, ",orig:") {
			continue // the seeds are replayed at time 0
		}
		found = append(found, queued{q, queueTime(base)})
	}
	tr.Execs = aflStat(filepath.Join(aflOut, "default", "fuzzer_stats"), "execs_done")
	sort.Slice(found, func(i, j int) bool { return found[i].ms < found[j].ms })
	return found, nil
}

// args returns afl-fuzz's command line, writing the dictionary, if any,
// into the work directory.
func (a *aflRun) args(aflIn, aflOut string) ([]string, error) {
	// A fixed -t: with "-t N+" afl-fuzz 4.04c calibrates its own
	// timeout from the seeds (40 ms for SQLite), under which a mutant
	// running a longer test script counts as a hang.
	args := []string{"-i", aflIn, "-o", aflOut, "-s", strconv.Itoa(a.tr.AFLSeed),
		"-V", strconv.Itoa(int(math.Ceil(a.opts.Time.Seconds()))),
		"-t", strconv.Itoa(a.tr.ExecTimeoutMs), "-e", strings.TrimPrefix(a.t.Ext, "."), "--"}
	if a.opts.Dict != nil {
		dict := filepath.Join(a.work, "afl.dict")
		if err := os.WriteFile(dict, a.opts.Dict, 0o644); err != nil {
			return nil, err
		}
		args = append(args[:len(args)-1], "-x", dict, "--")
	}
	return append(args, a.t.args(a.t.AFLBin, "@@", a.work)...), nil
}

// childrenCPU returns the user and system seconds of the second line of
// the shell's times output ("0m0.01s 0m0.00s" for the shell, then its
// children), or 0 if it cannot read them.
func childrenCPU(times string) float64 {
	lines := strings.Split(strings.TrimSpace(times), "\n")
	if len(lines) != 2 {
		return 0
	}
	total := 0.0
	for _, f := range strings.Fields(lines[1]) {
		m, rest, ok := strings.Cut(strings.TrimSuffix(f, "s"), "m")
		mins, err1 := strconv.ParseFloat(m, 64)
		secs, err2 := strconv.ParseFloat(rest, 64)
		if !ok || err1 != nil || err2 != nil {
			return 0
		}
		total += 60*mins + secs
	}
	return total
}

// aflEnv is afl-fuzz's environment for a trial with the given seed.
// AFL_NO_AFFINITY leaves the choice of core to the kernel, so that trials
// run side by side (JOBS=2) get a core each. AFL_TRY_AFFINITY must stay
// unset: afl-fuzz turns it on whatever its value ("0" included), and then
// binds every instance to the first core it finds free, which for trials
// started together is the same core (both ran on one of two cores).
func aflEnv(seed int) []string {
	return []string{"AFL_NO_UI=1", "AFL_SKIP_CPUFREQ=1", "AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1",
		"AFL_NO_AFFINITY=1", "AFL_SKIP_CRASHES=1", "AFL_RANDOM_SEED=" + strconv.Itoa(seed),
		"AFL_NO_WARN_INSTABILITY=1"}
}

// runWithRetries runs afl-fuzz in the sandbox, logging to afl.log, and
// runs it again (up to aflAttempts in all) when every seed timed out in
// its dry run.
func (a *aflRun) runWithRetries(ctx context.Context, aflOut string, args []string) error {
	sb := a.tc.sandbox(a.work, aflEnv(a.tr.AFLSeed)...)
	scratch := filepath.Join(a.work, "afl-cwd")
	if err := os.MkdirAll(scratch, 0o755); err != nil {
		return err
	}
	logPath := filepath.Join(a.dir, "afl.log")
	runAFL := func() error {
		if err := os.RemoveAll(aflOut); err != nil {
			return err
		}
		actx, cancel := context.WithTimeout(ctx, a.opts.Time+5*time.Minute)
		defer cancel()
		// The shell waits for afl-fuzz and then reports, with times, the
		// CPU its children used: bwrap's own accounting loses it (its PID
		// namespace's init is not waited for as a child).
		times := filepath.Join(a.work, "afl-times")
		if err := os.Remove(times); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		cmd := sb.Command(actx, "sh", "-c", `cd "$1" && t="$2" && shift 2 && { afl-fuzz "$@"; s=$?; times >"$t"; exit $s; }`, "sh", scratch, times)
		cmd.Args = append(cmd.Args, args...)
		logOut, err := os.Create(logPath)
		if err != nil {
			return err
		}
		defer logOut.Close()
		cmd.Stdout, cmd.Stderr = logOut, logOut
		err = cmd.Run()
		if out, rerr := os.ReadFile(times); rerr == nil {
			a.tr.CPUSeconds = childrenCPU(string(out))
		}
		return err
	}
	for attempt := 1; ; attempt++ {
		err := runAFL()
		if err == nil {
			return nil
		}
		tail, _ := os.ReadFile(logPath)
		// A seed that ran well within the timeout can still time out in
		// afl-fuzz's dry run on a loaded machine; with every seed out,
		// afl-fuzz gives up. Such a run is tried again.
		if attempt < aflAttempts && ctx.Err() == nil && bytes.Contains(tail, []byte("All test cases time out or crash")) {
			a.tr.Retries++
			a.logf("fuzz: %s trial %d: every seed timed out or crashed in afl-fuzz's dry run; trying again", a.t.Name, a.tr.Trial)
			select {
			case <-ctx.Done():
			case <-time.After(5 * time.Second):
			}
			continue
		}
		if len(tail) > 2000 {
			tail = tail[len(tail)-2000:]
		}
		return fmt.Errorf("afl-fuzz: %v\n%s", err, tail)
	}
}

// fastSeeds times each seed on the target's AFL++ build in the sandbox and
// links those that end within limit into work/afl-in, which it returns with
// the base names of the slow ones. afl-fuzz with a fixed timeout stops at a
// seed that times out, so slow seeds must not reach it.
func (tc *Toolchain) fastSeeds(ctx context.Context, t *Target, work string, seeds []string, limit time.Duration) (string, []string, error) {
	dir := filepath.Join(work, "afl-in")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, err
	}
	execs, err := tc.runBatch(ctx, t, t.AFLBin, work, seeds, false)
	if err != nil {
		return "", nil, err
	}
	var slow []string
	for k, e := range execs {
		if e.dur > limit || e.code == 124 {
			slow = append(slow, filepath.Base(seeds[k]))
			continue
		}
		if err := os.Link(seeds[k], filepath.Join(dir, filepath.Base(seeds[k]))); err != nil {
			return "", nil, err
		}
	}
	if len(slow) == len(seeds) {
		return "", nil, fmt.Errorf("every seed runs longer than %v (half the execution timeout)", limit)
	}
	return dir, slow, nil
}

// queueTime returns the time:N field of an AFL++ queue file name, in
// milliseconds since the start of the run (0 if absent).
func queueTime(name string) int64 {
	for _, f := range strings.Split(name, ",") {
		if v, ok := strings.CutPrefix(f, "time:"); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return 0
}

// aflStat returns a numeric field of AFL++'s fuzzer_stats file.
func aflStat(path, key string) int64 {
	data, err := infile.Read(path, 1<<20) // a few dozen lines
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(l, ":")
		if ok && strings.TrimSpace(k) == key {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

// seedFiles returns the regular files in dir, sorted by name.
func seedFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range ents {
		if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") {
			files = append(files, filepath.Join(dir, e.Name()))
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: %w", dir, errNoSeeds)
	}
	return files, nil
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// bootstrapCI returns the percentile bootstrap 95% confidence interval of
// the mean of xs (10,000 resamples, a fixed random seed).
func bootstrapCI(xs []float64) [2]float64 {
	if len(xs) < 2 {
		m := mean(xs)
		return [2]float64{m, m}
	}
	const n = 10000
	rng := rand.New(rand.NewPCG(42, 95))
	means := make([]float64, n)
	for r := range means {
		s := 0.0
		for range xs {
			s += xs[rng.IntN(len(xs))]
		}
		means[r] = s / float64(len(xs))
	}
	sort.Float64s(means)
	return [2]float64{means[n*25/1000], means[n*975/1000-1]}
}
