package cli

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/gasplab/gasp/pkg/analysis"
	"github.com/gasplab/gasp/pkg/experiment"
	"github.com/gasplab/gasp/pkg/lm"
	"github.com/gasplab/gasp/pkg/method"
	"github.com/gasplab/gasp/pkg/runs"
	"github.com/gasplab/gasp/pkg/sample"
)

// defaultDemoTask is the SyGuS task of "gasp demo": among the SyGuS tasks it
// has the shortest prompt (the embedded model's cost grows with it), and the
// embedded model gives it varied valid completions.
const defaultDemoTask = "data/gad/SLIA/lastname"

// demoMethods are the samplers "gasp demo" compares.
var demoMethods = []string{"gcd", "asap", "mcmc-uniform", "mcmc-priority", "mcmc-restart"}

const demoUsage = "gasp demo [--task DIR] [--model DIR] [--runs R] [--k K] [--max-new-tokens T] [--seed S] [--out DIR] [--analysis DIR] [--resume] [--quiet]"

const demoDoc = `
The main job's demonstration: on one SyGuS task (default ` + defaultDemoTask + `)
and the embedded model, draws R runs each of GCD, ASAp(1…K) and MCMC with the
Uniform, Priority and Restart proposals (K steps, every intermediate state
kept), stores every sample in a run store (--out), and prints the paper's
§4.1 estimate of KL(method ‖ P^G) at each k with a 95 % bootstrap interval:
KL to P renormalised over every distinct valid sample of the run, which
differs from KL to P^G by the same constant for every method. Tables and an
SVG plot of KL against k per method go to --analysis (package analysis).

Runs of one method are drawn together, one row each, and stored once drawn.
Running the demo again replaces the demo's samples in --out (those of its
task and methods; the store's other records stay); --resume instead
continues a killed demo from its store, and gives the same store and
tables as an uninterrupted run, elapsed_ms aside. Everything follows
from --seed: run i of a method has the seed pkg/experiment gives it, so
the methods' runs are independent. A progress bar is shown on standard
error when it is a terminal (not with --quiet).`

// demoCmd is "gasp demo" configured by its flags.
type demoCmd struct {
	task          experiment.TaskConfig // Dir is --task
	runs, k       int
	seed          uint64
	out, analysis string
	resume, quiet bool
	resamples     int
	settings      string // the records' settings
}

func runDemo(args []string, stdout, stderr io.Writer) int {
	return runConfigured("gasp demo", parseDemo, args, stdout, stderr)
}

// parseDemo parses and checks the flags; done is true when the command
// ends with code.
func parseDemo(args []string, stdout, stderr io.Writer) (*demoCmd, int, bool) {
	c := &demoCmd{}
	cl := newCmdLine("gasp demo", demoUsage, demoDoc, stdout, stderr)
	cl.StringVar(&c.task.Dir, "task", "", "task directory with grammar.ebnf and prompt.txt (default "+defaultDemoTask+" of the repository)")
	cl.modelVar(&c.task.Model)
	cl.IntVar(&c.runs, "runs", 20, "independent runs per method")
	cl.IntVar(&c.k, "k", 10, "largest k: MCMC steps, ASAp samples")
	cl.IntVar(&c.task.MaxNew, "max-new-tokens", 40, "length cap of a completion, EOS included")
	cl.Uint64Var(&c.seed, "seed", 1, "random seed")
	cl.StringVar(&c.out, "out", "mcmc/demo", "run store directory")
	cl.StringVar(&c.analysis, "analysis", "analysis/demo", "directory of the tables and figures")
	cl.BoolVar(&c.resume, "resume", false, "continue the demo stored in --out")
	cl.IntVar(&c.resamples, "resamples", 500, "bootstrap resamples")
	cl.BoolVar(&c.quiet, "quiet", false, "no progress bar")
	if done, code := cl.parseNoArgs(args); done {
		return c, code, true
	}
	if bad := firstBad(
		flagCheck{c.runs < 1 || c.runs > 1_000_000, fmt.Sprintf("--runs must be in [1, 1000000], got %d", c.runs)},
		flagCheck{c.k < 1 || c.k > method.MaxK, fmt.Sprintf("--k must be in [1, %d], got %d", method.MaxK, c.k)},
		flagCheck{c.task.MaxNew < 1 || c.task.MaxNew > maxNewTokens, fmt.Sprintf("--max-new-tokens must be in [1, %d], got %d", maxNewTokens, c.task.MaxNew)},
		flagCheck{c.resamples < 1 || c.resamples > analysis.MaxResamples, fmt.Sprintf("--resamples must be in [1, %d], got %d", analysis.MaxResamples, c.resamples)},
	); bad != "" {
		return c, cl.usageError("%s", bad), true
	}
	return c, 0, false
}

// run samples what the store lacks, then analyses and prints the table.
func (c *demoCmd) run(stdout, stderr io.Writer) error {
	if err := c.resolveTask(stderr); err != nil {
		return err
	}
	st, err := runs.OpenWith(c.out, runs.Options{Warn: func(w runs.Warning) {
		fmt.Fprintf(stderr, "gasp demo: warning: %v\n", w)
	}})
	if err != nil {
		return err
	}
	defer st.Close()
	plans, units, err := c.plan(st, stderr)
	if err != nil {
		return err
	}
	if units > 0 {
		if err := c.sample(st, plans, units, stderr); err != nil {
			return err
		}
	}
	return c.report(st, stdout)
}

// resolveTask sets the task's directory, name and files, and the records'
// settings.
func (c *demoCmd) resolveTask(stderr io.Writer) error {
	t := &c.task
	var err error
	if t.Dir == "" {
		if t.Dir, err = defaultTask(defaultDemoTask); err != nil {
			return err
		}
	}
	for _, f := range []string{"grammar.ebnf", "prompt.txt"} {
		if err := checkInput("--task", filepath.Join(t.Dir, f), maxGrammarBytes); err != nil {
			return err
		}
	}
	if t.Name, err = experiment.TaskName(t.Dir); err != nil {
		return fmt.Errorf("--task: %w", err)
	}
	t.Grammar, t.Prompt = filepath.Join(t.Dir, "grammar.ebnf"), filepath.Join(t.Dir, "prompt.txt")
	c.settings, err = sampleSettings(sampleSettingsOf{grammar: t.Grammar, prompt: t.Prompt,
		model: t.Model, maxNew: t.MaxNew, tf: lm.Transform{Temperature: 1, TopP: 1}}, stderr)
	return err
}

// demoPlan is what a method still has to draw.
type demoPlan struct {
	name   string
	meth   method.Method
	stored map[runs.Sample]bool
	todo   []int
}

// plan returns what each method still has to draw, and the completions
// that takes (for the progress bar). Without --resume, the demo's stored
// samples are replaced: their files are removed before they are read.
func (c *demoCmd) plan(st *runs.Store, stderr io.Writer) ([]demoPlan, int, error) {
	if !c.resume {
		if err := c.replace(st, stderr); err != nil {
			return nil, 0, err
		}
	}
	var plans []demoPlan
	units := 0
	for _, name := range demoMethods {
		p := demoPlan{name: name}
		p.meth, _ = method.Parse(name)
		var err error
		if p.stored, err = st.Done(c.task.Name, name); err != nil {
			return nil, 0, err
		}
		if err := c.checkStored(st, name); err != nil {
			return nil, 0, err
		}
		lo, hi := p.meth.Steps().Range(c.k)
		for i := range c.runs {
			for k := lo; k <= hi; k++ {
				if !p.stored[runs.Sample{K: k, Run: i}] {
					p.todo = append(p.todo, i)
					break
				}
			}
		}
		units += len(p.todo) * method.Units(p.meth, c.k)
		plans = append(plans, p)
	}
	return plans, units, nil
}

// checkStored refuses stored samples of a method drawn with another seed
// or other settings.
func (c *demoCmd) checkStored(st *runs.Store, name string) error {
	recs, err := st.Records(c.task.Name, name)
	if err != nil {
		return err
	}
	for _, r := range recs {
		if r.Seed != experiment.RunSeed(c.seed, c.task.Name, name, r.Run) {
			return fmt.Errorf("%s: %s run %d was drawn with another --seed than %d", c.out, name, r.Run, c.seed)
		}
		if r.Settings != c.settings {
			return fmt.Errorf("--resume: %s: %s run %d was drawn with other settings (%s): one store would hold two distributions",
				c.out, name, r.Run, runs.SettingsDiff(r.Settings, c.settings))
		}
	}
	return nil
}

// sample draws the plans' runs, one batch per method, and stores them.
func (c *demoCmd) sample(st *runs.Store, plans []demoPlan, units int, stderr io.Writer) error {
	c.task.Rows = c.runs
	t, err := openTask(c.task, io.Discard, fmt.Sprintf("--runs %d", c.runs))
	if err != nil {
		return err
	}
	defer t.Close()
	b := newBar(stderr, c.quiet, units, "")
	defer b.finish()
	start := time.Now()
	for _, p := range plans {
		if len(p.todo) == 0 {
			continue
		}
		b.describe(p.name)
		t0 := time.Now()
		drawn, err := t.Draw(context.Background(), p.name, p.meth, experiment.Batch{Seed: c.seed, Size: c.runs, Runs: p.todo, K: c.k,
			Ended: func(*sample.Record) { b.add(1) }})
		if err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
		for _, r := range drawn.Records {
			if p.stored[runs.Sample{K: r.K, Run: r.Run}] {
				continue // stored before an interruption
			}
			r.Settings = c.settings
			if err := st.Append(r); err != nil {
				return err
			}
		}
		if !c.quiet && !isTerminal(stderr) {
			fmt.Fprintf(stderr, "gasp demo: %s: %d runs in %.1f s\n", p.name, len(p.todo), time.Since(t0).Seconds())
		}
	}
	b.finish()
	if !c.quiet {
		fmt.Fprintf(stderr, "gasp demo: sampled in %.1f s\n", time.Since(start).Seconds())
	}
	return nil
}

// report analyses the demo's samples (of its task and runs only, whatever
// else the store holds), writes the tables and figures and prints the KL
// table.
func (c *demoCmd) report(st *runs.Store, stdout io.Writer) error {
	var recs []runs.Record
	for _, m := range demoMethods {
		rs, err := st.Records(c.task.Name, m)
		if err != nil {
			return err
		}
		for _, r := range rs {
			if r.Run < c.runs {
				recs = append(recs, r)
			}
		}
	}
	rep, err := analysis.Analyze(analysis.Group(recs), analysis.Options{Resamples: c.resamples, Seed: c.seed})
	if err != nil {
		return err
	}
	if len(rep.Tasks) != 1 {
		return fmt.Errorf("analysis found %d tasks, want 1", len(rep.Tasks))
	}
	title := fmt.Sprintf("gasp demo: %s, %d runs, k ≤ %d, seed %d", c.task.Name, c.runs, c.k, c.seed)
	if err := rep.WriteDir(c.analysis, title); err != nil {
		return err
	}
	writeDemoTable(stdout, &rep.Tasks[0], c.k, title)
	fmt.Fprintf(stdout, "\nsamples: %s; tables and plots (KL vs k per method; README.md indexes them): %s\n", c.out, c.analysis)
	return nil
}

// writeDemoTable prints KL [95 % interval] per k (rows) and method
// (columns). A method without steps (GCD) has one value, repeated on every
// row.
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
			if meth, err := method.Parse(m); err == nil && meth.Steps() == method.None {
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
