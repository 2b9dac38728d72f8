package main

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/gasplab/gasp/pkg/tiny"
)

// runTrainTiny implements "gasp train-tiny".
func runTrainTiny(args []string, stdout, stderr io.Writer) int {
	d := tiny.DefaultOptions()
	fset := newFlagSet("gasp train-tiny", "gasp train-tiny [--seed S] [--out DIR] [--steps N] [--minutes M] [--data DIR]", `
Trains the embedded model (see pkg/tiny): a byte-level BPE tokenizer and a
small Llama-architecture model, with GoMLX, on a corpus built from the
benchmark tasks (data/gad prompts and solutions, and sentences sampled from
their grammars), deterministically from the seed. Writes the model in
Hugging Face layout to --out and prints the held-out perplexity.

With the defaults it reproduces data/models/tiny. --minutes stops training
early (the result then depends on the machine's speed).`)
	seed := fset.Uint64("seed", d.Seed, "random seed (corpus, tokenizer, initialization, batches)")
	out := fset.String("out", "data/models/tiny", "output directory")
	steps := fset.Int("steps", d.Steps, "training steps")
	minutes := fset.Float64("minutes", 0, "stop training after this many minutes (0: no limit)")
	data := fset.String("data", d.DataDir, "benchmark tasks directory")
	pos, done, code := parseFlags(fset, args, stdout, stderr)
	if done {
		return code
	}
	if len(pos) > 0 {
		fmt.Fprintf(stderr, "gasp train-tiny: unexpected arguments %q\n", pos)
		return 2
	}
	opts := d
	opts.Seed, opts.Steps, opts.DataDir, opts.Log = *seed, *steps, *data, stdout
	opts.MaxTime = time.Duration(*minutes * float64(time.Minute))
	res, err := tiny.Train(opts)
	if err != nil {
		fmt.Fprintf(stderr, "gasp train-tiny: %v\n", err)
		return 1
	}
	meta := map[string]string{"seed": strconv.FormatUint(*seed, 10), "steps": strconv.Itoa(res.Steps)}
	if err := res.Save(*out, meta); err != nil {
		fmt.Fprintf(stderr, "gasp train-tiny: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s: %d parameters, held-out perplexity %.4f, %d steps in %s\n",
		*out, res.Params, res.HeldOutPPL, res.Steps, res.Duration.Round(time.Second))
	return 0
}
