package main

import (
	"github.com/gasplab/gasp/pkg/experiment"

	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/gasplab/gasp/pkg/lm"
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

func runBenchSample(args []string, stdout, stderr io.Writer) int {
	fset := newFlagSet("gasp bench sample", "gasp bench sample [--task DIR | --grammar G --prompt P] [--model DIR] [--method M] [--k K] [--chains N] [--max-new-tokens T] [--seed S] [--json] [--cpuprofile F]", `
Times MCMC on a model: N chains of K Metropolis-Hastings steps, batched
(one model call per token step for all chains), on one task (default
`+defaultBenchTask+` and the embedded model data/models/tiny). Reports
samples/s, the share of the sampling wall time spent outside the model's
calls (Prefill, Step, Truncate, timed in the adapter), and the model's
token evaluations per MH step against the mean regenerated suffix length
and against the authors' algorithm (prompt and prefix re-encoded for each
proposal, and a second pass to score it). Model loading is not timed.`)
	taskDir := fset.String("task", "", "task directory with grammar.ebnf and prompt.txt (default "+defaultBenchTask+")")
	grammarPath := fset.String("grammar", "", "grammar file (instead of --task)")
	promptArg := fset.String("prompt", "", "prompt file or text (instead of --task)")
	modelDir := fset.String("model", "", "model directory (default: data/models/tiny of the repository)")
	method := fset.String("method", "mcmc-priority", "mcmc-uniform, mcmc-priority or mcmc-restart")
	k := fset.Int("k", 10, "MH steps per chain")
	chains := fset.Int("chains", 100, "chains, drawn together")
	maxNew := fset.Int("max-new-tokens", 64, "length cap of a completion, EOS included")
	seed := fset.Uint64("seed", 1, "random seed")
	asJSON := fset.Bool("json", false, "print one JSON object")
	cpuProfile := fset.String("cpuprofile", "", "write a CPU profile of the sampling to this file")
	pos, done, code := parseFlags(fset, args, stdout, stderr)
	if done {
		return code
	}
	_, ok := proposal(*method)
	if bad := firstBad(
		flagCheck{!ok, fmt.Sprintf("--method %q is not mcmc-uniform, mcmc-priority or mcmc-restart", *method)},
		flagCheck{len(pos) > 0, fmt.Sprintf("unexpected arguments %q", pos)},
		flagCheck{*k < 1 || *k > 100_000, fmt.Sprintf("--k must be in [1, 100000], got %d", *k)},
		flagCheck{*chains < 1, fmt.Sprintf("--chains must be at least 1, got %d", *chains)},
		flagCheck{*maxNew < 1 || *maxNew > maxNewTokens, fmt.Sprintf("--max-new-tokens must be in [1, %d], got %d", maxNewTokens, *maxNew)},
		flagCheck{(*grammarPath == "") != (*promptArg == "") || (*grammarPath != "" && *taskDir != ""), "give --grammar and --prompt together, or --task"},
	); bad != "" {
		fmt.Fprintf(stderr, "gasp bench sample: %s\n", bad)
		fset.SetOutput(stderr)
		fset.Usage()
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "gasp bench sample: %v\n", err)
		return 1
	}
	name := *taskDir
	if *grammarPath == "" {
		if *taskDir == "" {
			root, err := repoRoot()
			if err != nil {
				return fail(err)
			}
			*taskDir = filepath.Join(root, defaultBenchTask)
			name = defaultBenchTask
		}
		*grammarPath = filepath.Join(*taskDir, "grammar.ebnf")
		*promptArg = filepath.Join(*taskDir, "prompt.txt")
	} else {
		name = *grammarPath
	}
	if _, err := os.Stat(*promptArg); *taskDir != "" && err != nil {
		return fail(err)
	}

	t0 := time.Now()
	t, err := loadTask(taskOptions{grammar: *grammarPath, prompt: *promptArg, modelDir: *modelDir,
		maxNew: *maxNew, tf: lm.Transform{}, timeLM: true, rows: *chains, rowsFlag: fmt.Sprintf("--chains %d", *chains)}, io.Discard)
	if err != nil {
		return fail(err)
	}
	defer t.Close()
	load := time.Since(t0)

	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return fail(err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fail(err)
		}
		defer pprof.StopCPUProfile()
	}
	ids := make([]int, *chains)
	for i := range ids {
		ids[i] = i
	}
	t.use = lmUse{}
	start := time.Now()
	d, err := t.draw(name, *method, []int{*k}, experiment.DrawOptions{}, *seed, *chains, 0, ids, nil)
	if err != nil {
		return fail(err)
	}
	wall := time.Since(start)
	st := d.stats
	rep := sampleReport{
		Task: name, Method: *method, K: *k, Chains: *chains, MaxNew: *maxNew,
		LoadMS:       ms(load),
		WallMS:       ms(wall),
		LMMS:         ms(t.use.time),
		Overhead:     1 - t.use.time.Seconds()/wall.Seconds(),
		SamplesPerS:  float64(*chains) / wall.Seconds(),
		StepsPerS:    float64(st.Steps) / wall.Seconds(),
		Accept:       st.AcceptanceRate(),
		EvalsPerStep: st.EvalsPerStep(),
		RegenPerStep: st.RegeneratedPerStep(),
		Authors:      st.AuthorsEvalsPerStep(),
		Restored:     st.Restored,
		RestoredIn:   st.RestoredSteps,
		AfterReject:  st.AfterRejection,
		InitEvals:    st.InitEvals,
		ModelSteps:   t.use.steps,
		RowsPerStep:  float64(t.use.stepped) / float64(max(1, t.use.steps)),
	}
	for _, rs := range d.recs {
		if rs[0].Valid {
			rep.Valid++
		}
	}
	if *asJSON {
		b, _ := json.Marshal(rep)
		fmt.Fprintf(stdout, "%s\n", b)
		return 0
	}
	fmt.Fprintf(stdout, "task %s, %s, k=%d, %d chains, max %d new tokens (model loaded in %.0f ms)\n",
		rep.Task, rep.Method, rep.K, rep.Chains, rep.MaxNew, rep.LoadMS)
	fmt.Fprintf(stdout, "wall %.0f ms, in the model %.0f ms: %.1f %% of the wall time outside the model\n",
		rep.WallMS, rep.LMMS, 100*rep.Overhead)
	fmt.Fprintf(stdout, "%.2f samples/s (%.1f MH steps/s); %d of %d final states valid; acceptance %.3f\n",
		rep.SamplesPerS, rep.StepsPerS, rep.Valid, rep.Chains, rep.Accept)
	fmt.Fprintf(stdout, "LM token evaluations per MH step: %.2f; mean regenerated suffix %.2f; authors' algorithm %.2f (%.1f× more)\n",
		rep.EvalsPerStep, rep.RegenPerStep, rep.Authors, rep.Authors/max(rep.EvalsPerStep, 1e-9))
	fmt.Fprintf(stdout, "%d batched model steps, %.1f of %d rows busy on average\n", rep.ModelSteps, rep.RowsPerStep, rep.Chains)
	fmt.Fprintf(stdout, "restoring x after rejections: %d evaluations in %d of %d steps that followed a rejection\n",
		rep.Restored, rep.RestoredIn, rep.AfterReject)
	return 0
}

// repoRoot returns the directory of the gasp repository around the current
// directory: the one holding the embedded model.
func repoRoot() (string, error) {
	dir, err := findDefaultModel()
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(abs, string(filepath.Separator)+filepath.FromSlash(defaultModelDir)), nil
}
