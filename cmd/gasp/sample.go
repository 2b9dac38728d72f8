package main

import (
	"fmt"
	"io"
	"math"

	"github.com/gasplab/gasp/pkg/experiment"
	"github.com/gasplab/gasp/pkg/lm"
	"github.com/gasplab/gasp/pkg/membound"
	"github.com/gasplab/gasp/pkg/runs"
	"github.com/gasplab/gasp/pkg/sample"
)

func runSample(args []string, stdout, stderr io.Writer) int {
	fset := newFlagSet("gasp sample", "gasp sample --grammar G --prompt FILE|TEXT [--method M] [--k K] [--n N] [--seed S] [--first I] [--model DIR] [--template chat|raw] [--max-new-tokens T] [--temperature X] [--top-p P] [--top-k K] [--lenient] [--batch B] [--budget A] [--trie F] [--out F.jsonl [--resume]] [--quiet]", `
Samples completions of a prompt from a Llama model under a grammar and
writes one JSON line per sample, in the run-store schema (mcmc/README.md):
method, k, run, seed, prompt_ids, ids (EOS excluded), text, logp,
logp_gcd, valid, status, evals, ...

Methods: gcd (grammar-constrained decoding), rejection (each run draws
from P until a sentence of the grammar, at most --budget attempts),
asap (independent adaptive runs; each run's K-th sample, ASAp(K)),
mcmc-uniform, mcmc-priority, mcmc-restart, mcmc-mix-P (independent
chains; each chain's state after K MH steps; mcmc-mix-P restarts with
probability P, else cuts as Priority), cars, ars, rsft (exact samples of
P^G by constrained adaptive rejection sampling and its variants, at most
--budget attempts per run; the runs of a batch share what cars and ars
learn, kept across batches and invocations in --trie), smc, smc-N,
smc-awrs-N (sequential Monte Carlo with N particles, 10 for smc, per run;
the record is one particle drawn by weight, its evals those of all N).
--k is ignored by the methods without steps (all but asap and mcmc-*).

The runs are --first … --first+N-1. Run i has its own seed, derived from
--seed, --task, --method and i as in pkg/experiment and written in its
record, and draws its own random numbers. Runs are drawn B at a time
(--batch), one batched model call per token step, and written after each
batch. What is invariant: with the same --first, --n and --batch (so the
same batches, of the same sizes), run i's record is the same bit for bit
(elapsed_ms aside), however often the file was resumed (but for cars and ars, whose samples
depend on what the trie had learnt). With other
batches, run i draws the same random numbers from the same logits up to
float32 rounding: the pure-Go backend picks its matrix-product kernel by
the product's size, so a batch beyond some size sums in another order.
The tokens and text are then the same (a token differs only if a draw
falls within that rounding of a boundary, about 1e-7 per token), and logp
and logp_gcd agree to about 1e-6 relative, not bit for bit. Measured on
the tiny model, task SLIA/lastname, 100 runs of 40 tokens: batches of 1 to
33 rows give identical records; 50, 64, 65 and 100 rows give the same
texts with |Δlogp| ≤ 1.6e-5. "--first i --n 1 --batch 1" reproduces run
i's text alone. evals counts the model's token evaluations spent on that
run's row (the prompt, evaluated once per batch, excluded).

--out writes to a run-store file instead of standard output; a killed
run loses at most the batch in flight, and --resume with the same flags
continues it (a torn last line is dropped with a warning), giving the
same file as an uninterrupted run except for elapsed_ms. Each record holds
the sampling settings; --resume refuses a file of another task, method,
--seed or settings, and a file that is not a run-store file. Without
--resume, --out refuses a non-empty file; it must be a regular file (not
a directory or /dev/null).

--prompt is read from the file it names when that file exists (a
directory or device is an error), else taken as the text, with a warning
when the text looks like a path. With --template chat (the default when
the tokenizer has the Llama 3 chat tokens) it becomes one user message of
the chat template.
The default model is data/models/tiny of the gasp repository. A progress
bar is shown on standard error when it is a terminal (not with --quiet).`)
	grammarPath := fset.String("grammar", "", "grammar file (GBNF)")
	lenient := fset.Bool("lenient", false, "treat references to undefined rules as rules with no alternatives")
	promptArg := fset.String("prompt", "", "prompt file, or the prompt text")
	method := fset.String("method", "gcd", "sampler: gcd, rejection, asap, mcmc-uniform, mcmc-priority, mcmc-restart, mcmc-mix-P, cars, ars, rsft, smc, smc-N, smc-awrs-N")
	k := fset.Int("k", 1, "MCMC steps, or the ASAp sample number (from 1)")
	n := fset.Int("n", 10, "number of runs (samples, chains)")
	first := fset.Int("first", 0, "index of the first run")
	seed := fset.Uint64("seed", 1, "random seed of the experiment")
	modelDir := fset.String("model", "", "model directory (default: data/models/tiny of the repository)")
	template := fset.String("template", "", "prompt template: chat or raw (default chat when the tokenizer has chat tokens)")
	maxNew := fset.Int("max-new-tokens", 256, "length cap of a completion, EOS included")
	temperature := fset.Float64("temperature", 1, "sampling temperature")
	topP := fset.Float64("top-p", 1, "nucleus sampling mass (1: off)")
	topK := fset.Int("top-k", 0, "top-k sampling (0: off)")
	budget := fset.Int("budget", 20, "rejection, cars, ars, rsft: most attempts per run")
	triePath := fset.String("trie", "", "cars, ars: read the trie from this file if it exists, write it after each batch")
	batch := fset.Int("batch", 100, "runs drawn together, one row each")
	task := fset.String("task", "", "task name written in each record (default: the grammar file's path)")
	outPath := fset.String("out", "", "append the records to this run-store file instead of standard output")
	resume := fset.Bool("resume", false, "with --out: continue a killed run, skipping the runs already in the file")
	quiet := fset.Bool("quiet", false, "no progress bar")
	pos, done, code := parseFlags(fset, args, stdout, stderr)
	if done {
		return code
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "gasp sample: "+format+"\n", a...)
		fset.SetOutput(stderr)
		fset.Usage()
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "gasp sample: %v\n", err)
		return 1
	}
	meth, methErr := experiment.ParseMethod(*method)
	if bad := firstBad(
		flagCheck{len(pos) > 0, fmt.Sprintf("unexpected arguments %q", pos)},
		flagCheck{*grammarPath == "", "--grammar is required"},
		flagCheck{*promptArg == "", "--prompt is required"},
		flagCheck{methErr != nil, fmt.Sprintf("unknown --method %q: %v", *method, methErr)},
		flagCheck{*n < 1, fmt.Sprintf("--n must be at least 1, got %d", *n)},
		flagCheck{*first < 0, fmt.Sprintf("--first must not be negative, got %d", *first)},
		flagCheck{*k < 0 || (*method == "asap" && *k < 1), fmt.Sprintf("--k %d out of range", *k)},
		flagCheck{*maxNew < 1 || *maxNew > maxNewTokens, fmt.Sprintf("--max-new-tokens must be in [1, %d], got %d", maxNewTokens, *maxNew)},
		flagCheck{*template != "" && *template != "chat" && *template != "raw", fmt.Sprintf("--template must be chat or raw, got %q", *template)},
		flagCheck{*budget < 1 || *budget > 1_000_000, fmt.Sprintf("--budget must be in [1, 1000000], got %d", *budget)},
		flagCheck{*batch < 1, fmt.Sprintf("--batch must be at least 1, got %d", *batch)},
		flagCheck{*n > math.MaxInt-*first, fmt.Sprintf("--first %d + --n %d overflows the run numbers", *first, *n)},
		flagCheck{*resume && *outPath == "", "--resume needs --out"},
	); bad != "" {
		return usageErr("%s", bad)
	}
	*batch = min(*batch, *n) // a larger batch would only have idle rows
	if err := checkTransformFlags(*temperature, *topP, *topK); err != nil {
		return usageErr("%v", err)
	}
	tf := lm.Transform{Temperature: *temperature, TopP: *topP, TopK: *topK}
	// The runs still to draw are listed (8 bytes each); a batch's rows are
	// checked against the model when it is loaded.
	if err := membound.Check(fmt.Sprintf("--n %d", *n), 64*float64(*n)); err != nil {
		return fail(err)
	}
	if *task == "" {
		*task = *grammarPath
	}
	recK := *k
	if meth.Kind != experiment.KindASAp && meth.Kind != experiment.KindMCMC {
		recK = 0
	}
	adaptive := meth.Kind == experiment.KindExact && meth.Variant != sample.RSFT
	if *triePath != "" && !adaptive {
		return usageErr("--trie is for cars and ars only")
	}

	// Open the output first: a refused resume should not wait for the model.
	emit := func(r runs.Record) error {
		line, err := r.MarshalJSON()
		if err != nil {
			return err
		}
		_, err = stdout.Write(append(line, '\n'))
		return err
	}
	settings, err := sampleSettings(sampleSettingsOf{grammar: *grammarPath, lenient: *lenient, prompt: *promptArg,
		model: *modelDir, template: *template, maxNew: *maxNew, tf: tf, budget: *budget}, stderr)
	if err != nil {
		return fail(err)
	}
	stored := map[runs.Sample]bool{}
	if *outPath != "" {
		st, done, err := openSampleOut(*outPath, *resume, *task, *method, *seed, settings, stderr)
		if err != nil {
			return fail(err)
		}
		defer st.Close()
		stored = done
		emit = st.Append
	}
	write := emit
	emit = func(r runs.Record) error {
		r.Settings = settings
		return write(r)
	}
	var todo []int
	for i := *first; i < *first+*n; i++ {
		if !stored[runs.Sample{K: recK, Run: i}] {
			todo = append(todo, i)
		}
	}
	if len(todo) < *n {
		fmt.Fprintf(stderr, "gasp sample: resuming: %d of %d runs already in %s\n", *n-len(todo), *n, *outPath)
	}
	if len(todo) == 0 {
		return 0
	}

	t, err := loadTask(taskOptions{grammar: *grammarPath, lenient: *lenient, prompt: *promptArg, modelDir: *modelDir,
		template: *template, maxNew: *maxNew, tf: tf, rows: min(*batch, *n), rowsFlag: fmt.Sprintf("--batch %d", *batch),
		warnCmd: "gasp sample", quietPrompt: true}, stderr)
	if err != nil {
		return fail(err)
	}
	defer t.Close()

	opt := experiment.DrawOptions{Budget: *budget}
	if adaptive {
		// One trie for all batches: a new one, or the one saved in --trie.
		opt.Trie = sample.NewTrie()
		if *triePath != "" {
			if opt.Trie, err = experiment.LoadTrie(*triePath); err != nil {
				return fail(fmt.Errorf("--trie: %w", err))
			}
		}
	}
	b := newBar(stderr, *quiet, len(todo)*unitsPerRun(*method, recK), *method)
	err = t.drawRuns(sampleRuns{task: *task, method: *method, k: recK, opt: opt, trie: *triePath, seed: *seed,
		first: *first, n: *n, batch: *batch, todo: todo,
		rejecting: meth.Kind == experiment.KindRejection || meth.Kind == experiment.KindExact}, b, emit, stderr)
	b.finish()
	if err != nil {
		return fail(err)
	}
	return 0
}

// sampleRuns are the runs "gasp sample" draws.
type sampleRuns struct {
	task, method string
	k            int
	opt          experiment.DrawOptions // the attempts' budget; cars and ars: the trie they share
	trie         string                 // where to save opt.Trie after each batch ("": nowhere)
	rejecting    bool                   // a run may end with no sample (rejection, cars, ars, rsft)
	seed         uint64
	first, n     int
	batch        int   // ≤ n
	todo         []int // the runs not stored yet, ascending
}

// drawRuns draws the runs of o that are to do, batch by batch, and emits
// their records.
func (t *task) drawRuns(o sampleRuns, b *bar, emit func(runs.Record) error, stderr io.Writer) error {
	ended := func(r *sample.Record) {
		if !o.rejecting || r.Valid() {
			b.add(1)
		}
	}
	// Batches follow the run numbers, not the runs left to do, so that a
	// resumed run draws what remains of a batch on the same rows of a
	// batch of the same size, which reproduces it bit for bit. Offsets
	// from --first, not run numbers, are stepped: they cannot overflow.
	for off := 0; off < o.n; off += min(o.batch, o.n-off) {
		c0, size := o.first+off, min(o.batch, o.n-off)
		var ids []int
		for _, i := range o.todo {
			if i >= c0 && i-c0 < size {
				ids = append(ids, i)
			}
		}
		if len(ids) == 0 {
			continue
		}
		d, err := t.draw(o.task, o.method, []int{o.k}, o.opt, o.seed, size, c0, ids, ended)
		if err == nil && o.trie != "" {
			if err = experiment.SaveTrie(o.trie, o.opt.Trie); err != nil {
				err = fmt.Errorf("--trie: %w", err)
			}
		}
		if err != nil {
			return err
		}
		for _, rs := range d.recs {
			if o.rejecting && !rs[0].Valid {
				fmt.Fprintf(stderr, "gasp sample: %s: run %d accepted nothing in %d attempts\n", o.method, rs[0].Run, o.opt.Budget)
			}
			for _, r := range rs {
				if err := emit(r); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
