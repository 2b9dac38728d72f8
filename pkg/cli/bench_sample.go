package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"time"

	"github.com/gasplab/gasp/pkg/experiment"
	"github.com/gasplab/gasp/pkg/lm"
	"github.com/gasplab/gasp/pkg/method"
)

// defaultBenchTask is the SyGuS task "gasp bench sample" and "gasp demo"
// use by default, relative to the repository root.
const defaultBenchTask = "data/gad/SLIA/firstname"

// sampleReport is what "gasp bench sample --json" prints.
type sampleReport struct {
	Task         string  `json:"task"`
	Method       string  `json:"method"`
	K            int     `json:"k"`
	Chains       int     `json:"chains"`
	MaxNew       int     `json:"max_new_tokens"`
	LoadMS       float64 `json:"load_ms"`        // grammar, tokenizer and model loading
	WallMS       float64 `json:"wall_ms"`        // sampling, loading excluded
	LMMS         float64 `json:"lm_ms"`          // in the model's Prefill, Step and Truncate calls
	Overhead     float64 `json:"overhead"`       // 1 − lm_ms / wall_ms
	SamplesPerS  float64 `json:"samples_per_s"`  // MCMC(k) samples (chains) per second
	StepsPerS    float64 `json:"steps_per_s"`    // MH steps per second, all chains
	Valid        int     `json:"valid"`          // chains whose state after k steps is valid
	Accept       float64 `json:"acceptance"`     // accepted proposals / steps
	EvalsPerStep float64 `json:"evals_per_step"` // LM token evaluations per MH step
	RegenPerStep float64 `json:"regenerated_per_step"`
	Authors      float64 `json:"authors_evals_per_step"` // the authors' algorithm on the same steps
	Restored     int     `json:"restored"`               // evaluations that restored x after a rejection
	RestoredIn   int     `json:"restored_steps"`         // ... in this many steps
	AfterReject  int     `json:"steps_after_rejection"`
	InitEvals    int     `json:"init_evals"`    // prefill and starts
	ModelSteps   int     `json:"model_steps"`   // batched Step calls
	RowsPerStep  float64 `json:"rows_per_step"` // rows listed per Step call, of Chains
}

const benchSampleUsage = "gasp bench sample [--task DIR | --grammar G --prompt P] [--model DIR] [--method M] [--k K] [--chains N] [--max-new-tokens T] [--seed S] [--json] [--cpuprofile F]"

const benchSampleDoc = `
Times MCMC on a model: N chains of K Metropolis-Hastings steps, batched
(one model call per token step for all chains), on one task (default
` + defaultBenchTask + ` and the embedded model data/models/tiny). Reports
samples/s, the share of the sampling wall time spent outside the model's
calls (Prefill, Step, Truncate, timed in the adapter), and the model's
token evaluations per MH step against the mean regenerated suffix length
and against the authors' algorithm (prompt and prefix re-encoded for each
proposal, and a second pass to score it). Model loading is not timed.`

// benchSampleCmd is "gasp bench sample" configured by its flags.
type benchSampleCmd struct {
	task       experiment.TaskConfig
	dir        string // --task
	name       string // --method
	meth       method.Method
	k, chains  int
	seed       uint64
	asJSON     bool
	cpuProfile string
}

func runBenchSample(args []string, stdout, stderr io.Writer) int {
	return runConfigured("gasp bench sample", parseBenchSample, args, stdout, stderr)
}

// parseBenchSample parses and checks the flags; done is true when the
// command ends with code.
func parseBenchSample(args []string, stdout, stderr io.Writer) (*benchSampleCmd, int, bool) {
	c := &benchSampleCmd{}
	cl := newCmdLine("gasp bench sample", benchSampleUsage, benchSampleDoc, stdout, stderr)
	t := &c.task
	cl.StringVar(&c.dir, "task", "", "task directory with grammar.ebnf and prompt.txt (default "+defaultBenchTask+")")
	cl.StringVar(&t.Grammar, "grammar", "", "grammar file (instead of --task)")
	cl.StringVar(&t.Prompt, "prompt", "", "prompt file or text (instead of --task)")
	cl.modelVar(&t.Model)
	cl.StringVar(&c.name, "method", "mcmc-priority", "mcmc-uniform, mcmc-priority or mcmc-restart")
	cl.IntVar(&c.k, "k", 10, "MH steps per chain")
	cl.IntVar(&c.chains, "chains", 100, "chains, drawn together")
	cl.IntVar(&t.MaxNew, "max-new-tokens", 64, "length cap of a completion, EOS included")
	cl.Uint64Var(&c.seed, "seed", 1, "random seed")
	cl.BoolVar(&c.asJSON, "json", false, "print one JSON object")
	cl.StringVar(&c.cpuProfile, "cpuprofile", "", "write a CPU profile of the sampling to this file")
	if done, code := cl.parseNoArgs(args); done {
		return c, code, true
	}
	c.meth, _ = method.Parse(c.name)
	_, ok := c.meth.(method.MCMC)
	if bad := firstBad(
		flagCheck{!ok, fmt.Sprintf("--method %q is not mcmc-uniform, mcmc-priority or mcmc-restart", c.name)},
		flagCheck{c.k < 1 || c.k > method.MaxK, fmt.Sprintf("--k must be in [1, %d], got %d", method.MaxK, c.k)},
		flagCheck{c.chains < 1, fmt.Sprintf("--chains must be at least 1, got %d", c.chains)},
		flagCheck{t.MaxNew < 1 || t.MaxNew > maxNewTokens, fmt.Sprintf("--max-new-tokens must be in [1, %d], got %d", maxNewTokens, t.MaxNew)},
		flagCheck{(t.Grammar == "") != (t.Prompt == "") || (t.Grammar != "" && c.dir != ""), "give --grammar and --prompt together, or --task"},
	); bad != "" {
		return c, cl.usageError("%s", bad), true
	}
	return c, 0, false
}

// resolveTask sets the task's grammar, prompt and name from --task or its
// default.
func (c *benchSampleCmd) resolveTask() error {
	t := &c.task
	if t.Grammar != "" {
		t.Name = t.Grammar
		return nil
	}
	t.Name = c.dir
	if c.dir == "" {
		var err error
		if c.dir, err = defaultTask(defaultBenchTask); err != nil {
			return err
		}
		t.Name = defaultBenchTask
	}
	t.Grammar, t.Prompt = filepath.Join(c.dir, "grammar.ebnf"), filepath.Join(c.dir, "prompt.txt")
	_, err := os.Stat(t.Prompt)
	return err
}

// run times the chains and prints the report.
func (c *benchSampleCmd) run(stdout, _ io.Writer) error {
	rep, err := c.time()
	if err != nil {
		return err
	}
	rep.write(stdout, c.asJSON)
	return nil
}

// time loads the task and times its chains.
func (c *benchSampleCmd) time() (*sampleReport, error) {
	if err := c.resolveTask(); err != nil {
		return nil, err
	}
	var use lm.Usage
	c.task.Usage, c.task.Rows = &use, method.Rows(c.meth, c.chains)
	t0 := time.Now()
	t, err := openTask(c.task, io.Discard, rowsFlag("--chains", c.chains, c.name, c.meth))
	if err != nil {
		return nil, err
	}
	defer t.Close()
	load := time.Since(t0)
	if c.cpuProfile != "" {
		f, err := os.Create(c.cpuProfile)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return nil, err
		}
		defer pprof.StopCPUProfile()
	}
	start := time.Now()
	drawn, err := t.Draw(context.Background(), c.name, c.meth, experiment.Batch{Seed: c.seed, Size: c.chains, K: c.k, At: []int{c.k}})
	if err != nil {
		return nil, err
	}
	recs, st := drawn.Records, drawn.Stats
	wall := time.Since(start)
	rep := &sampleReport{
		Task: t.Name, Method: c.name, K: c.k, Chains: c.chains, MaxNew: c.task.MaxNew,
		LoadMS: ms(load), WallMS: ms(wall), LMMS: ms(use.Time),
		Overhead:     1 - use.Time.Seconds()/wall.Seconds(),
		SamplesPerS:  float64(c.chains) / wall.Seconds(),
		StepsPerS:    float64(st.Steps) / wall.Seconds(),
		Accept:       st.AcceptanceRate(),
		EvalsPerStep: st.EvalsPerStep(),
		RegenPerStep: st.RegeneratedPerStep(),
		Authors:      st.AuthorsEvalsPerStep(),
		Restored:     st.Restored, RestoredIn: st.RestoredSteps, AfterReject: st.AfterRejection, InitEvals: st.InitEvals,
		ModelSteps:  use.Steps,
		RowsPerStep: float64(use.Stepped) / float64(max(1, use.Steps)),
	}
	for _, r := range recs {
		if r.Valid {
			rep.Valid++
		}
	}
	return rep, nil
}

// write prints the report, as one JSON object or as text.
func (rep *sampleReport) write(w io.Writer, asJSON bool) {
	if asJSON {
		b, _ := json.Marshal(rep)
		fmt.Fprintf(w, "%s\n", b)
		return
	}
	fmt.Fprintf(w, "task %s, %s, k=%d, %d chains, max %d new tokens (model loaded in %.0f ms)\n",
		rep.Task, rep.Method, rep.K, rep.Chains, rep.MaxNew, rep.LoadMS)
	fmt.Fprintf(w, "wall %.0f ms, in the model %.0f ms: %.1f %% of the wall time outside the model\n",
		rep.WallMS, rep.LMMS, 100*rep.Overhead)
	fmt.Fprintf(w, "%.2f samples/s (%.1f MH steps/s); %d of %d final states valid; acceptance %.3f\n",
		rep.SamplesPerS, rep.StepsPerS, rep.Valid, rep.Chains, rep.Accept)
	fmt.Fprintf(w, "LM token evaluations per MH step: %.2f; mean regenerated suffix %.2f; authors' algorithm %.2f (%.1f× more)\n",
		rep.EvalsPerStep, rep.RegenPerStep, rep.Authors, rep.Authors/max(rep.EvalsPerStep, 1e-9))
	fmt.Fprintf(w, "%d batched model steps, %.1f of %d rows busy on average\n", rep.ModelSteps, rep.RowsPerStep, rep.Chains)
	fmt.Fprintf(w, "restoring x after rejections: %d evaluations in %d of %d steps that followed a rejection\n",
		rep.Restored, rep.RestoredIn, rep.AfterReject)
}
