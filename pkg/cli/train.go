package cli

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gasplab/gasp/pkg/tiny"
)

// runTrainTiny implements "gasp train-tiny".
func runTrainTiny(args []string, stdout, stderr io.Writer) int {
	d := tiny.DefaultOptions()
	cl := newCmdLine("gasp train-tiny", "gasp train-tiny [--seed S] [--out DIR] [--steps N] [--minutes M] [--root DIR]", `
Trains the embedded model (see pkg/tiny): a byte-level BPE tokenizer and a
small Llama-architecture model, with GoMLX, on a corpus built from the tasks
under the repository root: the benchmark tasks (data/gad prompts and
solutions, and sentences sampled from their grammars) and the fuzzing tasks
(data/fuzz/tasks prompts answered by XML documents and SQLite test scripts
sampled from their grammars), deterministically from the seed. Writes the model in
Hugging Face layout to --out and prints the held-out perplexity.

With the defaults it reproduces data/models/tiny. --minutes stops training
early (the result then depends on the machine's speed).`, stdout, stderr)
	seed := cl.Uint64("seed", d.Seed, "random seed (corpus, tokenizer, initialization, batches)")
	out := cl.String("out", "data/models/tiny", "output directory")
	steps := cl.Int("steps", d.Steps, "training steps")
	minutes := cl.Float64("minutes", 0, "stop training after this many minutes (0: no limit)")
	root := cl.String("root", ".", "repository root (holding data/gad and data/fuzz/tasks)")
	if done, code := cl.parseNoArgs(args); done {
		return code
	}
	if bad := firstBad(
		flagCheck{*steps < 1 || *steps > maxTrainSteps, fmt.Sprintf("--steps must be in [1, %d], got %d", maxTrainSteps, *steps)},
		flagCheck{!(*minutes >= 0) || math.IsInf(*minutes, 0) || *minutes > 1e6, fmt.Sprintf("--minutes must be a number in [0, 1e6] (0: no limit), got %v", *minutes)},
	); bad != "" {
		return cl.usageError("%s", bad)
	}
	if err := checkModelOut(*out); err != nil {
		return cl.fail(err)
	}
	opts := d
	opts.Seed, opts.Steps, opts.Sources, opts.Log = *seed, *steps, tiny.DefaultSources(*root), stdout
	opts.MaxTime = time.Duration(*minutes * float64(time.Minute))
	res, err := tiny.Train(opts)
	if err != nil {
		return cl.fail(err)
	}
	meta := map[string]string{"seed": strconv.FormatUint(*seed, 10), "steps": strconv.Itoa(res.Steps)}
	if err := res.Save(*out, meta); err != nil {
		return cl.fail(err)
	}
	fmt.Fprintf(stdout, "wrote %s: %d parameters, held-out perplexity %.4f, %d steps in %s\n",
		*out, res.Params, res.HeldOutPPL, res.Steps, res.Duration.Round(time.Second))
	return 0
}

// maxTrainSteps bounds --steps of train-tiny.
const maxTrainSteps = 10_000_000

// checkModelOut fails unless dir is new, empty, or a model directory (with
// config.json and model.safetensors), whose model files train-tiny then
// replaces: --out . must not scatter a model over a repository.
func checkModelOut(dir string) error {
	ents, err := outEntries(dir)
	if err != nil || len(ents) == 0 {
		return err
	}
	for _, f := range []string{"config.json", "model.safetensors"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || !fi.Mode().IsRegular() {
			return fmt.Errorf("--out %s is not empty and holds no model to replace (no %s); choose a new or empty directory", dir, f)
		}
	}
	return nil
}

// runEvalTiny implements "gasp eval-tiny".
func runEvalTiny(args []string, stdout, stderr io.Writer) int {
	d := tiny.DefaultOptions()
	cl := newCmdLine("gasp eval-tiny", "gasp eval-tiny [--model DIR] [--n N] [--max-tokens T] [--fuzz-max-tokens T] [--seed S] [--root DIR]", `
Evaluates an embedded model trained by "gasp train-tiny": the perplexity of
the held-out completions of its training corpus (rebuilt from --root and the
seed), and, per task family (SLIA, BV4, CP, and the fuzzing tasks xml and
sql), N unconstrained samples per task at temperature 1 (chat template, up
to T tokens, or --fuzz-max-tokens for xml and sql): how many are in the task's
grammar, the mean fraction of each sample's bytes that form a viable prefix
of the grammar (how close the invalid ones come), and how many equal the
reference solution. Deterministic from the seed.`, stdout, stderr)
	model := cl.modelFlag()
	n := cl.Int("n", 8, "samples per task")
	maxTokens := cl.Int("max-tokens", 96, "token cap of a sample")
	fuzzMaxTokens := cl.Int("fuzz-max-tokens", 256, "token cap of a sample of the fuzzing tasks")
	seed := cl.Uint64("seed", d.Seed, "seed of the corpus (must be the model's training seed) and of the samples")
	root := cl.String("root", ".", "repository root (holding data/gad and data/fuzz/tasks)")
	if done, code := cl.parseNoArgs(args); done {
		return code
	}
	if bad := firstBad(
		flagCheck{*n < 1 || *n > 100_000, fmt.Sprintf("--n must be in [1, 100000], got %d", *n)},
		flagCheck{*maxTokens < 1 || *maxTokens > 16384, fmt.Sprintf("--max-tokens must be in [1, 16384], got %d", *maxTokens)},
		flagCheck{*fuzzMaxTokens < 1 || *fuzzMaxTokens > 16384, fmt.Sprintf("--fuzz-max-tokens must be in [1, 16384], got %d", *fuzzMaxTokens)},
	); bad != "" {
		return cl.usageError("%s", bad)
	}
	var err error
	if *model == "" {
		if *model, err = findDefaultModel(); err != nil {
			return cl.fail(err)
		}
	}
	opts := d
	opts.Seed, opts.Sources = *seed, tiny.DefaultSources(*root)
	ppl, tokens, err := tiny.HeldOutPerplexity(*model, opts)
	if err != nil {
		return cl.fail(err)
	}
	if math.IsNaN(ppl) || math.IsInf(ppl, 0) {
		return cl.fail(fmt.Errorf("held-out perplexity %v over %d tokens: the model's log probabilities are not finite (NaN or infinite weights in %s?)",
			ppl, tokens, filepath.Join(*model, "model.safetensors")))
	}
	fmt.Fprintf(stdout, "held-out perplexity %.4f over %d completion tokens\n", ppl, tokens)
	tasks, err := tiny.LoadTasks(opts.Sources)
	if err != nil {
		return cl.fail(err)
	}
	if err := evalFamilies(stdout, *model, tasks, *n, *maxTokens, *fuzzMaxTokens, *seed); err != nil {
		return cl.fail(err)
	}
	return 0
}

// evalFamilies prints, per task family, the validity of n unconstrained
// samples per task of the model, then a few examples.
func evalFamilies(w io.Writer, model string, tasks []tiny.Task, n, maxTokens, fuzzMaxTokens int, seed uint64) error {
	fmt.Fprintf(w, "%-6s %8s %8s %8s %8s\n", "family", "samples", "valid", "viable", "perfect")
	var examples []string
	for _, fam := range []string{"SLIA/", "BV4/", "CP/", "xml", "sql"} {
		limit := maxTokens
		if !strings.HasSuffix(fam, "/") {
			limit = fuzzMaxTokens
		}
		st, err := tiny.EvalSamples(model, tasks, []string{fam}, n, limit, seed)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%-6s %8d %7.1f%% %7.1f%% %8d\n", strings.TrimSuffix(fam, "/"), st.Samples,
			100*float64(st.Valid)/float64(st.Samples), 100*st.Viable, st.Perfect)
		examples = append(examples, st.Examples[:min(3, len(st.Examples))]...)
	}
	fmt.Fprintln(w, "examples:")
	for _, e := range examples {
		fmt.Fprintf(w, "  %s\n", e)
	}
	return nil
}
