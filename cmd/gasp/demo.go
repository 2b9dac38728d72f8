package main

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gasplab/gasp/pkg/analysis"
	"github.com/gasplab/gasp/pkg/experiment"
	"github.com/gasplab/gasp/pkg/lm"
	"github.com/gasplab/gasp/pkg/runs"
	"github.com/gasplab/gasp/pkg/sample"
)

// defaultDemoTask is the SyGuS task of "gasp demo": among the SyGuS tasks it
// has the shortest prompt (the embedded model's cost grows with it), and the
// embedded model gives it varied valid completions.
const defaultDemoTask = "data/gad/SLIA/lastname"

// demoMethods are the samplers "gasp demo" compares.
var demoMethods = []string{"gcd", "asap", "mcmc-uniform", "mcmc-priority", "mcmc-restart"}

func runDemo(args []string, stdout, stderr io.Writer) int {
	fset := newFlagSet("gasp demo", "gasp demo [--task DIR] [--model DIR] [--runs R] [--k K] [--max-new-tokens T] [--seed S] [--out DIR] [--analysis DIR] [--resume] [--quiet]", `
The main job's demonstration: on one SyGuS task (default `+defaultDemoTask+`)
and the embedded model, draws R runs each of GCD, ASAp(1…K) and MCMC with the
Uniform, Priority and Restart proposals (K steps, every intermediate state
kept), stores every sample in a run store (--out), and prints the paper's
§4.1 estimate of KL(method ‖ P^G) at each k with a 95 % bootstrap interval:
KL to P renormalised over every distinct valid sample of the run, which
differs from KL to P^G by the same constant for every method. Tables and an
SVG plot of KL against k per method go to --analysis (package analysis).

Runs of one method are drawn together, one row each, and stored once drawn;
--resume continues a killed demo from its store, and gives the same store
and tables as an uninterrupted run, elapsed_ms aside. Everything follows
from --seed: run i of a method has the seed pkg/experiment gives it, so
the methods' runs are independent. A progress bar is shown on standard
error when it is a terminal (not with --quiet).`)
	taskDir := fset.String("task", "", "task directory with grammar.ebnf and prompt.txt (default "+defaultDemoTask+" of the repository)")
	modelDir := fset.String("model", "", "model directory (default: data/models/tiny of the repository)")
	nRuns := fset.Int("runs", 20, "independent runs per method")
	k := fset.Int("k", 10, "largest k: MCMC steps, ASAp samples")
	maxNew := fset.Int("max-new-tokens", 40, "length cap of a completion, EOS included")
	seed := fset.Uint64("seed", 1, "random seed")
	out := fset.String("out", "mcmc/demo", "run store directory")
	anaDir := fset.String("analysis", "analysis/demo", "directory of the tables and figures")
	resume := fset.Bool("resume", false, "continue the demo stored in --out")
	resamples := fset.Int("resamples", 500, "bootstrap resamples")
	quiet := fset.Bool("quiet", false, "no progress bar")
	pos, done, code := parseFlags(fset, args, stdout, stderr)
	if done {
		return code
	}
	if bad := firstBad(
		flagCheck{len(pos) > 0, fmt.Sprintf("unexpected arguments %q", pos)},
		flagCheck{*nRuns < 1 || *nRuns > 1_000_000, fmt.Sprintf("--runs must be in [1, 1000000], got %d", *nRuns)},
		flagCheck{*k < 1 || *k > 100_000, fmt.Sprintf("--k must be in [1, 100000], got %d", *k)},
		flagCheck{*maxNew < 1 || *maxNew > maxNewTokens, fmt.Sprintf("--max-new-tokens must be in [1, %d], got %d", maxNewTokens, *maxNew)},
		flagCheck{*resamples < 1 || *resamples > 1_000_000, fmt.Sprintf("--resamples must be in [1, 1000000], got %d", *resamples)},
	); bad != "" {
		fmt.Fprintf(stderr, "gasp demo: %s\n", bad)
		fset.SetOutput(stderr)
		fset.Usage()
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "gasp demo: %v\n", err)
		return 1
	}
	name, dir := *taskDir, *taskDir
	if dir == "" {
		root, err := repoRoot()
		if err != nil {
			return fail(err)
		}
		dir = filepath.Join(root, defaultDemoTask)
		name = strings.TrimPrefix(defaultDemoTask, "data/gad/")
	} else if i := strings.Index(filepath.ToSlash(dir), "data/gad/"); i >= 0 {
		name = strings.Trim(filepath.ToSlash(dir)[i+len("data/gad/"):], "/")
	}
	for _, f := range []string{"grammar.ebnf", "prompt.txt"} {
		if err := checkInput("--task", filepath.Join(dir, f), maxGrammarBytes); err != nil {
			return fail(err)
		}
	}
	settings, err := sampleSettings(sampleSettingsOf{grammar: filepath.Join(dir, "grammar.ebnf"), prompt: filepath.Join(dir, "prompt.txt"),
		model: *modelDir, maxNew: *maxNew, tf: lm.Transform{Temperature: 1, TopP: 1}}, stderr)
	if err != nil {
		return fail(err)
	}

	st, err := runs.OpenWith(*out, runs.Options{Warn: func(w runs.Warning) {
		fmt.Fprintf(stderr, "gasp demo: warning: %v\n", w)
	}})
	if err != nil {
		return fail(err)
	}
	defer st.Close()

	// What each method still has to draw.
	type plan struct {
		method string
		ks     []int
		stored map[runs.Sample]bool
		todo   []int
	}
	var plans []plan
	units := 0
	for _, m := range demoMethods {
		p := plan{method: m, ks: demoKs(m, *k)}
		if p.stored, err = st.Done(name, m); err != nil {
			return fail(err)
		}
		if len(p.stored) > 0 && !*resume {
			return fail(fmt.Errorf("%s already holds %s samples of %s; --resume continues the demo, or choose another --out", *out, m, name))
		}
		recs, err := st.Records(name, m)
		if err != nil {
			return fail(err)
		}
		for _, r := range recs {
			if r.Seed != experiment.RunSeed(*seed, name, m, r.Run) {
				return fail(fmt.Errorf("%s: %s run %d was drawn with another --seed than %d", *out, m, r.Run, *seed))
			}
			if r.Settings != settings {
				return fail(fmt.Errorf("--resume: %s: %s run %d was drawn with other settings (%s): one store would hold two distributions",
					*out, m, r.Run, settingsDiff(r.Settings, settings)))
			}
		}
		for i := range *nRuns {
			for _, kk := range p.ks {
				if !p.stored[runs.Sample{K: kk, Run: i}] {
					p.todo = append(p.todo, i)
					break
				}
			}
		}
		units += len(p.todo) * unitsPerRun(m, slices.Max(p.ks))
		plans = append(plans, p)
	}

	if units > 0 {
		t, err := loadTask(taskOptions{grammar: filepath.Join(dir, "grammar.ebnf"), prompt: filepath.Join(dir, "prompt.txt"),
			modelDir: *modelDir, maxNew: *maxNew, tf: lm.Transform{}, rows: *nRuns, rowsFlag: fmt.Sprintf("--runs %d", *nRuns)}, io.Discard)
		if err != nil {
			return fail(err)
		}
		defer t.Close()
		b := newBar(stderr, *quiet, units, "")
		start := time.Now()
		for _, p := range plans {
			if len(p.todo) == 0 {
				continue
			}
			b.describe(p.method)
			t0 := time.Now()
			d, err := t.draw(name, p.method, p.ks, experiment.DrawOptions{}, *seed, *nRuns, 0, p.todo, func(*sample.Record) { b.add(1) })
			if err != nil {
				b.finish()
				return fail(fmt.Errorf("%s: %w", p.method, err))
			}
			for _, rs := range d.recs {
				for _, r := range rs {
					if p.stored[runs.Sample{K: r.K, Run: r.Run}] {
						continue // stored before an interruption
					}
					r.Settings = settings
					if err := st.Append(r); err != nil {
						b.finish()
						return fail(err)
					}
				}
			}
			if !*quiet && !isTerminal(stderr) {
				fmt.Fprintf(stderr, "gasp demo: %s: %d runs in %.1f s\n", p.method, len(p.todo), time.Since(t0).Seconds())
			}
		}
		b.finish()
		if !*quiet {
			fmt.Fprintf(stderr, "gasp demo: sampled in %.1f s\n", time.Since(start).Seconds())
		}
	}

	// Analysis: of this task only, whatever else the store holds.
	var recs []runs.Record
	for _, m := range demoMethods {
		rs, err := st.Records(name, m)
		if err != nil {
			return fail(err)
		}
		for _, r := range rs {
			if r.Run < *nRuns {
				recs = append(recs, r)
			}
		}
	}
	rep, err := analysis.Analyze(analysis.Group(recs), analysis.Options{Resamples: *resamples, Seed: *seed})
	if err != nil {
		return fail(err)
	}
	if len(rep.Tasks) != 1 {
		return fail(fmt.Errorf("analysis found %d tasks, want 1", len(rep.Tasks)))
	}
	title := fmt.Sprintf("gasp demo: %s, %d runs, k ≤ %d, seed %d", name, *nRuns, *k, *seed)
	if err := rep.WriteDir(*anaDir, title); err != nil {
		return fail(err)
	}
	writeDemoTable(stdout, &rep.Tasks[0], *k, title)
	fmt.Fprintf(stdout, "\nsamples: %s; tables and plots (KL vs k per method; README.md indexes them): %s\n", *out, *anaDir)
	return 0
}

// demoKs returns the k of the records a demo run of method stores.
func demoKs(method string, k int) []int {
	switch method {
	case "gcd":
		return []int{0}
	case "asap":
		return seq(1, k)
	}
	return seq(0, k)
}

func seq(a, b int) []int {
	var out []int
	for i := a; i <= b; i++ {
		out = append(out, i)
	}
	return out
}

// writeDemoTable prints KL [95 % interval] per k (rows) and method
// (columns). GCD has no k: its one value is repeated on every row.
func writeDemoTable(w io.Writer, tr *analysis.TaskResult, k int, title string) {
	fmt.Fprintf(w, "%s\n", title)
	fmt.Fprintf(w, "KL(method ‖ reference) in nats, [95 %% bootstrap interval]; reference: P over the %d distinct valid samples\n\n", tr.Size)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "k\t")
	for _, m := range demoMethods {
		fmt.Fprintf(tw, "%s\t", m)
	}
	fmt.Fprintln(tw)
	for kk := 0; kk <= k; kk++ {
		fmt.Fprintf(tw, "%d\t", kk)
		for _, m := range demoMethods {
			at := kk
			if m == "gcd" {
				at = 0
			}
			s, ok := tr.Method(m)
			var p analysis.Point
			if ok {
				p, ok = s.At(at)
			}
			if !ok {
				fmt.Fprint(tw, "-\t")
				continue
			}
			fmt.Fprintf(tw, "%s [%s, %s]\t", num(p.KL), num(p.Lo), num(p.Hi))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	for _, s := range tr.Invalid {
		fmt.Fprintf(w, "no valid sample: %s\n", s)
	}
}

func num(x float64) string {
	if math.IsInf(x, 1) {
		return "inf"
	}
	return fmt.Sprintf("%.3f", x)
}
