package main

import (
	"fmt"
	"io"
	"os"

	"github.com/gasplab/gasp/pkg/experiment"
	"github.com/gasplab/gasp/pkg/lm"
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
record, so it is the same sample whatever --first, --n and --batch (but for cars
and ars, whose samples depend on what the trie had learnt):
"--first i --n 1" reproduces it alone. Runs are
drawn B at a time (--batch), one batched model call per token step, and
written after each batch. evals counts the model's token evaluations
spent on that run's row (the prompt, evaluated once per batch, excluded).

--out writes to a run-store file instead of standard output; a killed
run loses at most the batch in flight, and --resume with the same flags
continues it (a torn last line is dropped with a warning), giving the same
file as an uninterrupted run except for elapsed_ms. Without --resume,
--out refuses a file that already holds records.

--prompt is read from the file it names when that file exists, else taken
as the text. With --template chat (the default when the tokenizer has the
Llama 3 chat tokens) it becomes one user message of the chat template.
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
	switch {
	case len(pos) > 0:
		return usageErr("unexpected arguments %q", pos)
	case *grammarPath == "":
		return usageErr("--grammar is required")
	case *promptArg == "":
		return usageErr("--prompt is required")
	case !validMethod(*method):
		_, err := experiment.ParseMethod(*method)
		return usageErr("unknown --method %q: %v", *method, err)
	case *n < 1:
		return usageErr("--n must be at least 1, got %d", *n)
	case *first < 0:
		return usageErr("--first must not be negative, got %d", *first)
	case *k < 0 || (*method == "asap" && *k < 1):
		return usageErr("--k %d out of range", *k)
	case *maxNew < 1:
		return usageErr("--max-new-tokens must be at least 1, got %d", *maxNew)
	case *template != "" && *template != "chat" && *template != "raw":
		return usageErr("--template must be chat or raw, got %q", *template)
	case *budget < 1:
		return usageErr("--budget must be at least 1, got %d", *budget)
	case *batch < 1:
		return usageErr("--batch must be at least 1, got %d", *batch)
	case *resume && *outPath == "":
		return usageErr("--resume needs --out")
	}
	tf := lm.Transform{Temperature: *temperature, TopP: *topP, TopK: *topK}
	if err := tf.Validate(); err != nil {
		return usageErr("%v", err)
	}
	if *task == "" {
		*task = *grammarPath
	}
	meth, _ := experiment.ParseMethod(*method)
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
	stored := map[runs.Sample]bool{}
	if *outPath != "" {
		if fi, err := os.Stat(*outPath); err == nil && fi.Size() > 0 && !*resume {
			return fail(fmt.Errorf("%s is not empty; --resume continues it", *outPath))
		}
		st, err := runs.OpenFile(*outPath, runs.Options{Warn: func(w runs.Warning) {
			fmt.Fprintf(stderr, "gasp sample: warning: %v\n", w)
		}})
		if err != nil {
			return fail(err)
		}
		defer st.Close()
		if stored, err = st.Done(*task, *method); err != nil {
			return fail(err)
		}
		// A resume with another --seed would mix two experiments.
		old, err := st.Records(*task, *method)
		if err != nil {
			return fail(err)
		}
		for _, r := range old {
			if r.Seed != experiment.RunSeed(*seed, *task, *method, r.Run) {
				return fail(fmt.Errorf("%s: run %d was drawn with another --seed than %d", *outPath, r.Run, *seed))
			}
		}
		emit = st.Append
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
		template: *template, maxNew: *maxNew, tf: tf}, stderr)
	if err != nil {
		return fail(err)
	}
	defer t.Close()

	ks := []int{recK}
	opt := experiment.DrawOptions{Budget: *budget}
	if adaptive {
		// One trie for all batches: a new one, or the one saved in --trie.
		opt.Trie = sample.NewTrie()
		if *triePath != "" {
			if opt.Trie, err = experiment.LoadTrie(*triePath); err != nil {
				return fail(err)
			}
		}
	}
	b := newBar(stderr, *quiet, len(todo)*unitsPerRun(*method, recK), *method)
	rejecting := meth.Kind == experiment.KindRejection || meth.Kind == experiment.KindExact
	ended := func(r *sample.Record) {
		if !rejecting || r.Valid() {
			b.add(1)
		}
	}
	// Batches follow the run numbers, not the runs left to do, so that a
	// resumed run draws what remains of a batch on the same rows of a
	// batch of the same size, which reproduces it bit for bit.
	for c0 := *first; c0 < *first+*n; c0 += *batch {
		var ids []int
		for _, i := range todo {
			if i >= c0 && i < c0+*batch {
				ids = append(ids, i)
			}
		}
		if len(ids) == 0 {
			continue
		}
		size := min(*batch, *first+*n-c0)
		d, err := t.draw(*task, *method, ks, opt, *seed, size, c0, ids, ended)
		if err == nil && *triePath != "" {
			err = experiment.SaveTrie(*triePath, opt.Trie)
		}
		if err != nil {
			b.finish()
			return fail(err)
		}
		for _, rs := range d.recs {
			if rejecting && !rs[0].Valid {
				fmt.Fprintf(stderr, "gasp sample: %s: run %d accepted nothing in %d attempts\n", *method, rs[0].Run, *budget)
			}
			for _, r := range rs {
				if err := emit(r); err != nil {
					b.finish()
					return fail(err)
				}
			}
		}
	}
	b.finish()
	return 0
}
