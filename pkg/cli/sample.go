package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/gasplab/gasp/pkg/experiment"
	"github.com/gasplab/gasp/pkg/membound"
	"github.com/gasplab/gasp/pkg/method"
	"github.com/gasplab/gasp/pkg/runs"
	"github.com/gasplab/gasp/pkg/sample"
)

const sampleUsage = "gasp sample --grammar G --prompt FILE|TEXT [--method M] [--k K] [--n N] [--seed S] [--first I] [--model DIR] [--template chat|raw] [--max-new-tokens T] [--temperature X] [--top-p P] [--top-k K] [--lenient] [--batch B] [--budget A] [--trie F] [--out F.jsonl [--resume]] [--quiet]"

const sampleDoc = `
Samples completions of a prompt from a Llama model under a grammar and
writes one JSON line per sample, in the run-store schema (mcmc/README.md):
method, k, run, seed, prompt_ids, ids (EOS excluded), text, logp,
logp_gcd, valid, status, evals, ...

Methods: gcd (grammar-constrained decoding), rejection (each run draws
from P until a sentence of the grammar, at most --budget attempts),
asap (independent adaptive runs; a record of each run's k-th sample,
ASAp(k), for k = 1…K), mcmc-uniform, mcmc-priority, mcmc-restart,
mcmc-priority-pp, mcmc-mix-P (independent chains; a record of each
chain's state after k MH steps for k = 0…K, as the experiment grid keeps
them, so that gasp analyze draws KL against k; mcmc-priority-pp is
Priority as the paper defines it, by the perplexity of P(·|x_1:i);
mcmc-mix-P restarts with probability P, else cuts as Priority), cars, ars, rsft (exact samples of
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
the model has a chat template) it becomes one user message of the chat
template: Llama 3.1's or ChatML's (Qwen) when the tokenizer has their
tokens, else tokenizer_config.json's chat_template, which must be one gasp
renders exactly (Mistral-7B-Instruct's, Gemma 3's; any other is an error:
use --template raw).
The default model is data/models/tiny of the gasp repository. A progress
bar is shown on standard error when it is a terminal (not with --quiet).`

// sampleCmd is "gasp sample" configured by its flags: the task to open,
// the method, and the runs to draw.
type sampleCmd struct {
	task          experiment.TaskConfig // Grammar and Prompt as the flags give them
	name          string                // --method
	meth          method.Method
	user          map[string]method.Method // a program's methods beside the built-in ones (Options.Methods)
	k             int                      // the k of the records: --k, or 0 for methods without steps
	n, first      int
	batch         int // ≤ n
	budget        int
	seed          uint64
	trie          string // --trie
	settings      string // the records' settings, once output has read the inputs
	out           string // --out
	resume, quiet bool
}

// sampleCommand is "gasp sample" with a user's methods beside the
// built-in ones.
func sampleCommand(user map[string]method.Method) func(args []string, stdout, stderr io.Writer) int {
	return func(args []string, stdout, stderr io.Writer) int {
		parse := func(args []string, stdout, stderr io.Writer) (*sampleCmd, int, bool) {
			return parseSample(args, stdout, stderr, user)
		}
		return runConfigured("gasp sample", parse, args, stdout, stderr)
	}
}

// parseSample parses and checks the flags of "gasp sample", whose methods
// are the built-in ones and user's; done is true when the command ends
// with code (help, or a usage error).
func parseSample(args []string, stdout, stderr io.Writer, user map[string]method.Method) (*sampleCmd, int, bool) {
	c := &sampleCmd{user: user}
	cl := newCmdLine("gasp sample", sampleUsage, sampleDoc, stdout, stderr)
	t := &c.task
	cl.StringVar(&t.Grammar, "grammar", "", "grammar file: GBNF, or a JSON Schema (.json), a regular expression (.regex) or a Lark grammar (.lark)")
	cl.BoolVar(&t.Lenient, "lenient", false, "treat references to undefined rules as rules with no alternatives")
	cl.StringVar(&t.Prompt, "prompt", "", "prompt file, or the prompt text")
	cl.StringVar(&c.name, "method", "gcd", "sampler: "+methodList(user))
	cl.IntVar(&c.k, "k", 1, "MCMC steps, or ASAp samples (from 1): records for every k up to K")
	cl.IntVar(&c.n, "n", 10, "number of runs (samples, chains)")
	cl.IntVar(&c.first, "first", 0, "index of the first run")
	cl.Uint64Var(&c.seed, "seed", 1, "random seed of the experiment")
	cl.modelVar(&t.Model)
	cl.StringVar(&t.Template, "template", "", "prompt template: chat or raw (default chat when the model has a chat template)")
	cl.IntVar(&t.MaxNew, "max-new-tokens", 256, "length cap of a completion, EOS included")
	cl.Float64Var(&t.Transform.Temperature, "temperature", 1, "sampling temperature")
	cl.Float64Var(&t.Transform.TopP, "top-p", 1, "nucleus sampling mass (1: off)")
	cl.IntVar(&t.Transform.TopK, "top-k", 0, "top-k sampling (0: off)")
	cl.IntVar(&c.budget, "budget", 20, "rejection, cars, ars, rsft: most attempts per run")
	cl.StringVar(&c.trie, "trie", "", "cars, ars: read the trie from this file if it exists, write it after each batch")
	cl.IntVar(&c.batch, "batch", 100, "runs drawn together, one row each")
	cl.StringVar(&t.Name, "task", "", "task name written in each record, from which seeds derive (default: the task's name from --grammar, e.g. SLIA/lastname; go doc ./pkg/experiment TaskName)")
	cl.StringVar(&c.out, "out", "", "append the records to this run-store file instead of standard output")
	cl.BoolVar(&c.resume, "resume", false, "with --out: continue a killed run, skipping the runs already in the file")
	cl.BoolVar(&c.quiet, "quiet", false, "no progress bar")
	if done, code := cl.parseNoArgs(args); done {
		return c, code, true
	}
	bad := c.check()
	c.batch = min(c.batch, c.n) // a larger batch would only have idle rows
	if bad == "" && c.trie != "" && !method.Learns(c.meth) {
		bad = "--trie is for cars and ars only"
	}
	if bad != "" {
		return c, cl.usageError("%s", bad), true
	}
	return c, 0, false
}

// check checks the flags, returning the first problem ("" if none), and
// resolves the method.
func (c *sampleCmd) check() string {
	var err error
	c.meth, err = method.Resolve(c.name, c.user)
	firstK := 0 // the first k a run of the method has a record at
	if err == nil {
		firstK, _ = c.meth.Steps().Range(max(c.k, 1))
	}
	bad := firstBad(
		flagCheck{c.task.Grammar == "", "--grammar is required"},
		flagCheck{c.task.Prompt == "", "--prompt is required"},
		flagCheck{err != nil, fmt.Sprintf("--method: %v", err)},
		flagCheck{c.n < 1, fmt.Sprintf("--n must be at least 1, got %d", c.n)},
		flagCheck{c.first < 0, fmt.Sprintf("--first must not be negative, got %d", c.first)},
		flagCheck{c.k < firstK || c.k > method.MaxK, fmt.Sprintf("--k %d out of range [%d, %d]", c.k, firstK, method.MaxK)},
		flagCheck{c.task.MaxNew < 1 || c.task.MaxNew > maxNewTokens, fmt.Sprintf("--max-new-tokens must be in [1, %d], got %d", maxNewTokens, c.task.MaxNew)},
		flagCheck{c.task.Template != "" && c.task.Template != "chat" && c.task.Template != "raw", fmt.Sprintf("--template must be chat or raw, got %q", c.task.Template)},
		flagCheck{c.budget < 1 || c.budget > 1_000_000, fmt.Sprintf("--budget must be in [1, 1000000], got %d", c.budget)},
		flagCheck{c.batch < 1, fmt.Sprintf("--batch must be at least 1, got %d", c.batch)},
		flagCheck{c.n > math.MaxInt-c.first, fmt.Sprintf("--first %d + --n %d overflows the run numbers", c.first, c.n)},
		flagCheck{c.resume && c.out == "", "--resume needs --out"},
	)
	if bad == "" {
		if err := checkTransformFlags(c.task.Transform.Temperature, c.task.Transform.TopP, c.task.Transform.TopK); err != nil {
			bad = err.Error()
		}
	}
	if bad == "" && c.meth.Steps() == method.None {
		c.k = 0 // --k is ignored
	}
	if c.task.Name == "" {
		// A --grammar that cannot be read fails when it is read, naming it.
		c.task.Name, _ = experiment.TaskName(c.task.Grammar)
	}
	return bad
}

// run draws the runs not stored yet and writes their records.
func (c *sampleCmd) run(stdout, stderr io.Writer) error {
	// The runs still to draw are listed (8 bytes each); a batch's rows are
	// checked against the model when it is loaded.
	if err := membound.Check(fmt.Sprintf("--n %d", c.n), 64*float64(c.n)); err != nil {
		return err
	}
	// With --out, Ctrl-C stops between batches, keeping the file resumable.
	ctx, stop := context.Background(), func() bool { return false }
	if c.out != "" {
		ctx, stderr, stop = interruptible("gasp sample", stderr)
	}
	defer stop()
	// Open the output first: a refused resume should not wait for the model.
	emit, stored, closeOut, err := c.output(stdout, stderr)
	if err != nil {
		return err
	}
	defer closeOut()
	var todo []int
	for i := c.first; i < c.first+c.n; i++ {
		if !c.runStored(stored, i) {
			todo = append(todo, i)
		}
	}
	if len(todo) < c.n {
		fmt.Fprintf(stderr, "gasp sample: resuming: %d of %d runs already in %s\n", c.n-len(todo), c.n, c.out)
	}
	if len(todo) == 0 {
		return nil
	}
	c.task.Rows = method.Rows(c.meth, c.batch)
	t, err := openTask(c.task, stderr, rowsFlag("--batch", c.batch, c.name, c.meth))
	if err != nil {
		return err
	}
	defer t.Close()
	var trie *sample.Trie
	if method.Learns(c.meth) {
		// One trie for all batches: a new one, or the one saved in --trie.
		trie = sample.NewTrie()
		if c.trie != "" {
			if trie, err = experiment.LoadTrieUnder(c.trie, trieSettings(c.settings)); err != nil {
				return fmt.Errorf("--trie %w", err)
			}
		}
	}
	b := newBar(stderr, c.quiet, len(todo)*method.Units(c.meth, c.k), c.name)
	written := 0
	err = c.draw(ctx, t, todo, trie, b, func(r runs.Record) error {
		if stored[runs.Sample{K: r.K, Run: r.Run}] {
			return nil // kept from a killed run: the same record
		}
		written++
		return emit(r)
	}, stderr)
	b.finish()
	if stop() && errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "gasp sample: interrupted: %d records written to %s in this run; the same command with --resume continues it\n", written, c.out)
		return exitCode(130)
	}
	return err
}

// runStored reports whether stored holds every record of run i: one per k
// of the method's steps up to --k (k = 0 for a method without steps).
func (c *sampleCmd) runStored(stored map[runs.Sample]bool, i int) bool {
	lo, hi := c.meth.Steps().Range(c.k)
	for k := lo; k <= hi; k++ {
		if !stored[runs.Sample{K: k, Run: i}] {
			return false
		}
	}
	return true
}

// output returns where records go (standard output, or --out), with the
// records' settings, and the runs --out holds already.
func (c *sampleCmd) output(stdout, stderr io.Writer) (emit func(runs.Record) error, stored map[runs.Sample]bool, closeOut func(), err error) {
	t := c.task
	settings, err := sampleSettings(sampleSettingsOf{grammar: t.Grammar, lenient: t.Lenient, prompt: t.Prompt,
		model: t.Model, template: t.Template, maxNew: t.MaxNew, tf: t.Transform, budget: c.budget}, stderr)
	if err != nil {
		return nil, nil, nil, err
	}
	c.settings = settings
	write := func(r runs.Record) error {
		line, err := r.MarshalJSON()
		if err == nil {
			_, err = stdout.Write(append(line, '\n'))
		}
		return err
	}
	closeOut = func() {}
	if c.out != "" {
		st, done, err := openSampleOut(c.out, c.resume, t.Name, c.name, c.seed, settings, stderr)
		if err != nil {
			return nil, nil, nil, err
		}
		write, stored, closeOut = st.Append, done, func() { st.Close() }
	}
	emit = func(r runs.Record) error {
		r.Settings = settings
		return write(r)
	}
	return emit, stored, closeOut, nil
}

// draw draws the runs todo (ascending), batch by batch, and emits their
// records. cars and ars learn in trie, saved in --trie after each batch.
func (c *sampleCmd) draw(ctx context.Context, t *experiment.Task, todo []int, trie *sample.Trie, b *bar, emit func(runs.Record) error, stderr io.Writer) error {
	rejecting := method.Rejects(c.meth)
	ended := func(r *sample.Record) {
		if !rejecting || r.Valid() {
			b.add(1)
		}
	}
	// Batches follow the run numbers, not the runs left to do, so that a
	// resumed run draws what remains of a batch on the same rows of a
	// batch of the same size, which reproduces it bit for bit. Offsets
	// from --first, not run numbers, are stepped: they cannot overflow.
	for off := 0; off < c.n; off += min(c.batch, c.n-off) {
		batch := experiment.Batch{Seed: c.seed, First: c.first + off, Size: min(c.batch, c.n-off), K: c.k,
			Budget: c.budget, Trie: trie, Ended: ended}
		for _, i := range todo {
			if i >= batch.First && i-batch.First < batch.Size {
				batch.Runs = append(batch.Runs, i)
			}
		}
		if len(batch.Runs) == 0 {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		drawn, err := t.Draw(ctx, c.name, c.meth, batch)
		if err == nil && c.trie != "" {
			if err = experiment.SaveTrie(c.trie, trie); err != nil {
				err = fmt.Errorf("--trie: %w", err)
			}
		}
		if err != nil {
			return err
		}
		for _, r := range drawn.Records {
			if rejecting && !r.Valid {
				fmt.Fprintf(stderr, "gasp sample: %s: run %d accepted nothing in %d attempts\n", c.name, r.Run, c.budget)
			}
			if err := emit(r); err != nil {
				return err
			}
		}
	}
	return nil
}
