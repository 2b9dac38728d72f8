package tiny

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"time"

	backends "github.com/gomlx/compute"
	_ "github.com/gomlx/compute/gobackend" // the pure-Go backend
	. "github.com/gomlx/gomlx/core/graph"  //nolint:revive // the graph DSL reads best unqualified
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/gasplab/gasp/pkg/llama"
	"github.com/gasplab/gasp/pkg/tokenizer"
)

// Options configure Train. The zero value of a field means its default (see DefaultOptions).
type Options struct {
	Seed         uint64
	Sources      []Source // the corpus's tasks; nil means DefaultSources(".")
	VocabSize    int
	Hidden       int
	Layers       int
	Heads        int
	KVHeads      int
	Intermediate int
	MaxPositions int // max_position_embeddings written in config.json
	SeqLen       int // training window T
	Batch        int
	Steps        int
	LearningRate float64
	WarmupSteps  int
	HeldOut      float64
	Backend      string        // GoMLX backend configuration; "" means "go"
	MaxTime      time.Duration // stop early after this long (the result then depends on the machine's speed)
	Log          io.Writer     // progress; nil means none
}

// DefaultOptions are the options of the committed model (data/models/tiny).
func DefaultOptions() Options {
	return Options{
		Seed:         1,
		Sources:      DefaultSources("."),
		VocabSize:    2048,
		Hidden:       128,
		Layers:       2,
		Heads:        4,
		KVHeads:      4,
		Intermediate: 256,
		MaxPositions: 16384,
		SeqLen:       256,
		Batch:        8,
		Steps:        600,
		LearningRate: 5e-3,
		WarmupSteps:  30,
		HeldOut:      0.05,
	}
}

// fill sets the fields left zero to their defaults.
func (o *Options) fill() {
	d := DefaultOptions()
	if o.Sources == nil {
		o.Sources = d.Sources
	}
	for _, f := range []struct{ p, def *int }{
		{&o.VocabSize, &d.VocabSize}, {&o.Hidden, &d.Hidden}, {&o.Layers, &d.Layers}, {&o.Heads, &d.Heads},
		{&o.KVHeads, &o.Heads}, // after Heads
		{&o.Intermediate, &d.Intermediate}, {&o.MaxPositions, &d.MaxPositions}, {&o.SeqLen, &d.SeqLen},
		{&o.Batch, &d.Batch}, {&o.Steps, &d.Steps}, {&o.WarmupSteps, &d.WarmupSteps},
	} {
		if *f.p == 0 {
			*f.p = *f.def
		}
	}
	for _, f := range []struct{ p, def *float64 }{{&o.LearningRate, &d.LearningRate}, {&o.HeldOut, &d.HeldOut}} {
		if *f.p == 0 {
			*f.p = *f.def
		}
	}
	if o.Backend == "" {
		o.Backend = "go"
	}
}

// logf writes progress to o.Log, if any.
func (o *Options) logf(format string, args ...any) {
	if o.Log != nil {
		fmt.Fprintf(o.Log, format, args...)
	}
}

// Result describes a trained model.
type Result struct {
	Config          llama.Config
	Params          int
	TrainDocs       int
	HeldOutDocs     int
	TrainExamples   int
	HeldOutTokens   int
	HeldOutPPL      float64 // perplexity of the held-out completions (and their <|eot_id|>)
	FinalTrainLoss  float64 // mean loss per token of the last 50 steps
	Steps           int
	Duration        time.Duration
	TokenizerJSON   []byte
	Weights         map[string][]float32
	tok             *tokenizer.Tokenizer
	heldOutExamples []example
}

// example is a training window: T+1 token ids and a 0/1 loss weight for each of the T targets.
type example struct {
	ids  []int32
	mask []float32
}

// docIDs returns the ids of a document and the index of its first completion token.
func docIDs(tok *tokenizer.Tokenizer, d Doc) ([]int, int) {
	ids := tok.ChatPrompt(d.Prompt, tokenizer.ChatOptions{})
	start := len(ids)
	ids = tok.AppendEncode(ids, d.Completion, tokenizer.EncodeOptions{SpecialAsText: true})
	eot, _ := tok.ID("<|eot_id|>")
	return append(ids, eot), start
}

// docExample is the window of T+1 tokens that ends with the document (or the whole document, padded);
// the loss covers all its targets, or only the completion's when completionOnly.
func docExample(tok *tokenizer.Tokenizer, d Doc, T int, completionOnly bool) example {
	ids, start := docIDs(tok, d)
	off := max(0, len(ids)-(T+1))
	return window(ids, off, T, func(i int) bool { return !completionOnly || i >= start })
}

// window makes the example ids[off:off+T+1], padded; want(i) tells whether target i (predicting ids[i]) counts.
func window(ids []int, off, T int, want func(i int) bool) example {
	e := example{ids: make([]int32, T+1), mask: make([]float32, T)}
	for j := 0; j <= T && off+j < len(ids); j++ {
		e.ids[j] = int32(ids[off+j])
		if j > 0 && want(off+j) {
			e.mask[j-1] = 1
		}
	}
	return e
}

// Train builds the corpus, trains the tokenizer and the model, and evaluates the held-out perplexity.
func Train(opts Options) (*Result, error) {
	opts.fill()
	logf := opts.logf
	begin := time.Now()
	if err := checkSources(opts.Sources); err != nil {
		return nil, err
	}
	tasks, err := LoadTasks(opts.Sources)
	if err != nil {
		return nil, err
	}
	corpus := BuildCorpus(tasks, opts.Seed, opts.HeldOut)
	chat := func(p string) string { return tokenizer.ChatText(p, tokenizer.ChatOptions{}) }
	tokJSON, err := tokenizer.Train(corpus.TokenizerTexts(chat), tokenizer.TrainOptions{VocabSize: opts.VocabSize})
	if err != nil {
		return nil, err
	}
	tok, err := tokenizer.Parse(tokJSON)
	if err != nil {
		return nil, err
	}
	cfg := ModelConfig(opts, tok)
	res := &Result{Config: cfg, Params: cfg.NumParams(), TrainDocs: len(corpus.Train), HeldOutDocs: len(corpus.HeldOut),
		TokenizerJSON: tokJSON, tok: tok}
	logf("corpus: %d tasks, %d training documents, %d held out; tokenizer: %d tokens (%.1fs)\n",
		len(tasks), len(corpus.Train), len(corpus.HeldOut), tok.VocabSize(), time.Since(begin).Seconds())
	logf("model: %d parameters (hidden %d, %d layers, %d heads, intermediate %d, vocab %d)\n",
		res.Params, cfg.HiddenSize, cfg.NumHiddenLayers, cfg.NumAttentionHeads, cfg.IntermediateSize, cfg.VocabSize)

	T := opts.SeqLen
	examples := trainExamples(tok, corpus, tasks, T)
	for _, d := range corpus.HeldOut {
		res.heldOutExamples = append(res.heldOutExamples, docExample(tok, d, T, true))
	}
	res.TrainExamples = len(examples)
	logf("examples: %d training windows of %d tokens, %d held-out\n", len(examples), T, len(res.heldOutExamples))

	backend, err := backends.NewWithConfig(llama.BackendConfig(opts.Backend))
	if err != nil {
		return nil, err
	}
	defer backend.Finalize()
	rng := rand.New(rand.NewPCG(opts.Seed, 0x6d6f_64656c))
	w := newWeights(cfg, rng)
	opt, err := newAdam(backend, w)
	if err != nil {
		return nil, err
	}
	defer opt.exec.Finalize()

	if err := trainSteps(opt, examples, opts, rng, begin, res); err != nil {
		return nil, err
	}
	if err := opt.weightsInto(w); err != nil {
		return nil, err
	}
	res.Weights = w.values()
	nll, n, err := evalNLL(backend, cfg, res.Weights, res.heldOutExamples, opts.Batch)
	if err != nil {
		return nil, err
	}
	res.HeldOutTokens = n
	res.HeldOutPPL = math.Exp(nll / float64(n))
	res.Duration = time.Since(begin)
	logf("held-out perplexity %.4f over %d completion tokens; %s\n", res.HeldOutPPL, n, res.Duration.Round(time.Second))
	return res, nil
}

// trainExamples returns the training windows: those of the training documents, then those of every task's
// whole prompt.
func trainExamples(tok *tokenizer.Tokenizer, corpus Corpus, tasks []Task, T int) []example {
	var examples []example
	for _, d := range corpus.Train {
		examples = append(examples, docExample(tok, d, T, false))
	}
	for _, t := range tasks { // the whole prompts, in windows
		ids := tok.ChatPrompt(t.Prompt, tokenizer.ChatOptions{})
		for off := 0; off+1 < len(ids); off += T {
			examples = append(examples, window(ids, off, T, func(int) bool { return true }))
		}
	}
	return examples
}

// trainSteps runs opts.Steps Adam steps (fewer if opts.MaxTime runs out) on batches of examples drawn in
// random order, reshuffled at each pass, and records the steps and the final loss in res.
func trainSteps(opt *adam, examples []example, opts Options, rng *rand.Rand, begin time.Time, res *Result) error {
	B, T := opts.Batch, opts.SeqLen
	order := rng.Perm(len(examples))
	next := 0
	var recent []float64
	batch := make([]example, B)
	for s := range opts.Steps {
		if opts.MaxTime > 0 && time.Since(begin) > opts.MaxTime {
			opts.logf("time limit reached after %d steps\n", s)
			break
		}
		lr := schedule(opts, s)
		for b := range B {
			if next == len(order) {
				order, next = rng.Perm(len(examples)), 0
			}
			batch[b] = examples[order[next]]
			next++
		}
		toks, tgts, mask, _ := batchTensors(batch, B, T)
		loss, err := opt.step(lr, toks, tgts, mask)
		if err != nil {
			return err
		}
		if math.IsNaN(loss) {
			return fmt.Errorf("tiny: loss is NaN at step %d", s)
		}
		recent = append(recent, loss)
		if len(recent) > 50 {
			recent = recent[1:]
		}
		res.Steps = s + 1
		if s%10 == 0 || s == opts.Steps-1 {
			opts.logf("step %d/%d  loss %.4f  lr %.2g  %.0fs\n", s, opts.Steps, loss, lr, time.Since(begin).Seconds())
		}
	}
	for _, l := range recent {
		res.FinalTrainLoss += l / float64(len(recent))
	}
	return nil
}

// batchTensors returns the token, target and loss-weight tensors of a batch of B windows of T tokens
// holding examples (padded with zeros when fewer), and the number of weighted targets.
func batchTensors(examples []example, B, T int) (toks, tgts, mask *tensors.Tensor, n int) {
	a, b, m := make([]int32, B*T), make([]int32, B*T), make([]float32, B*T)
	for i, e := range examples {
		copy(a[i*T:], e.ids[:T])
		copy(b[i*T:], e.ids[1:])
		copy(m[i*T:], e.mask)
		for _, x := range e.mask {
			n += int(x)
		}
	}
	return tensors.FromFlatDataAndDimensions(a, B, T), tensors.FromFlatDataAndDimensions(b, B, T),
		tensors.FromFlatDataAndDimensions(m, B, T), n
}

// checkSources reports sources whose sampling settings BuildCorpus cannot use.
func checkSources(sources []Source) error {
	for _, s := range sources {
		if s.SamplesPerTask < 0 || s.MinDepth < 1 || s.MaxDepth < s.MinDepth || s.MaxSampleBytes < 1 {
			return fmt.Errorf("tiny: source %s: need SamplesPerTask ≥ 0, 1 ≤ MinDepth ≤ MaxDepth and MaxSampleBytes ≥ 1 (have %d, %d, %d, %d)",
				s.Dir, s.SamplesPerTask, s.MinDepth, s.MaxDepth, s.MaxSampleBytes)
		}
	}
	return nil
}

// schedule is the learning rate at step s: linear warm-up, then cosine decay to a tenth.
func schedule(o Options, s int) float64 {
	if s < o.WarmupSteps {
		return o.LearningRate * float64(s+1) / float64(o.WarmupSteps)
	}
	p := float64(s-o.WarmupSteps) / float64(max(1, o.Steps-o.WarmupSteps))
	return o.LearningRate * (0.1 + 0.9*0.5*(1+math.Cos(math.Pi*min(p, 1))))
}

// evalNLL returns the summed negative log-likelihood of the examples' weighted targets and their number.
func evalNLL(backend backends.Backend, cfg llama.Config, values map[string][]float32, examples []example, B int) (float64, int, error) {
	if len(examples) == 0 {
		return 0, 0, errors.New("tiny: no held-out examples")
	}
	w, err := fromWeights(cfg, values)
	if err != nil {
		return 0, 0, err
	}
	nw := len(w.names)
	exec, err := NewExec(backend, func(in []*Node) *Node {
		return w.lossGraph(in[:nw], in[nw], in[nw+1], in[nw+2])
	})
	if err != nil {
		return 0, 0, err
	}
	params := w.tensors()
	defer exec.Finalize()
	T := len(examples[0].mask)
	total, n := 0.0, 0
	for i := 0; i < len(examples); i += B {
		toks, tgts, mask, k := batchTensors(examples[i:min(i+B, len(examples))], B, T)
		n += k
		args := make([]any, 0, nw+3)
		for _, p := range params {
			args = append(args, p)
		}
		args = append(args, toks, tgts, mask)
		out, err := exec.Exec(args...)
		if err != nil {
			return 0, 0, err
		}
		total += float64(tensors.MustCopyFlatData[float32](out[0])[0])
	}
	return total, n, nil
}

// ModelConfig is the Llama configuration of a model trained with opts and tokenizer tok.
func ModelConfig(opts Options, tok *tokenizer.Tokenizer) llama.Config {
	opts.fill()
	bos, _ := tok.ID("<|begin_of_text|>")
	eot, _ := tok.ID("<|eot_id|>")
	eos, _ := tok.ID("<|end_of_text|>")
	return llama.Config{
		HiddenSize:            opts.Hidden,
		NumHiddenLayers:       opts.Layers,
		NumAttentionHeads:     opts.Heads,
		NumKeyValueHeads:      opts.KVHeads,
		HeadDim:               opts.Hidden / opts.Heads,
		IntermediateSize:      opts.Intermediate,
		RMSNormEps:            1e-5,
		RopeTheta:             10000,
		TieWordEmbeddings:     true,
		VocabSize:             tok.VocabSize(),
		MaxPositionEmbeddings: opts.MaxPositions,
		BOSTokenID:            bos,
		EOSTokenIDs:           []int{eos, eot},
		TorchDType:            "float32",
	}
}
