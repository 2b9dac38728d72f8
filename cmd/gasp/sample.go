package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/gasplab/gasp/pkg/earley"
	"github.com/gasplab/gasp/pkg/gcd"
	"github.com/gasplab/gasp/pkg/grammar"
	"github.com/gasplab/gasp/pkg/llama"
	"github.com/gasplab/gasp/pkg/lm"
	"github.com/gasplab/gasp/pkg/mcmc"
	"github.com/gasplab/gasp/pkg/runs"
	"github.com/gasplab/gasp/pkg/sample"
	"github.com/gasplab/gasp/pkg/tokenizer"
)

// llamaLM adapts a llama.Model to lm.Model (see pkg/lm's documentation).
// It lives here so that pkg/lm and the samplers stay free of GoMLX.
type llamaLM struct{ *llama.Model }

func (m llamaLM) VocabSize() int { return m.Config().VocabSize }

func (m llamaLM) NewSession(rows int) (lm.Session, error) {
	s, err := m.Model.NewSession(rows)
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return s, nil
}

// sampleMethods are the values of "gasp sample --method".
var sampleMethods = []string{"gcd", "rejection", "asap", "mcmc-uniform", "mcmc-priority", "mcmc-restart"}

// defaultModelDir is the embedded tiny model, relative to the repository root.
const defaultModelDir = "data/models/tiny"

func runSample(args []string, stdout, stderr io.Writer) int {
	fset := newFlagSet("gasp sample", "gasp sample --grammar G --prompt FILE|TEXT [--method M] [--k K] [--n N] [--seed S] [--model DIR] [--template chat|raw] [--max-new-tokens T] [--temperature X] [--top-p P] [--top-k K] [--lenient] [--out F.jsonl]", `
Samples completions of a prompt from a Llama model under a grammar and
writes one JSON line per sample, in the run-store schema (mcmc/README.md):
method, k, run, seed, prompt_ids, ids (EOS excluded), text, logp,
logp_gcd, valid, status, ...

Methods: gcd (grammar-constrained decoding; N samples), rejection (N
accepted samples of P within --budget attempts), asap (N independent
adaptive runs; each run's K-th sample, ASAp(K)), mcmc-uniform,
mcmc-priority, mcmc-restart (N chains; each chain's state after K MH
steps). --k is ignored by gcd and rejection.

--prompt is read from the file it names when that file exists, else taken
as the text. With --template chat (the default when the tokenizer has the
Llama 3 chat tokens) it becomes one user message of the chat template.
The default model is data/models/tiny of the gasp repository. The same
seed gives the same samples (elapsed_ms aside).`)
	grammarPath := fset.String("grammar", "", "grammar file (GBNF)")
	lenient := fset.Bool("lenient", false, "treat references to undefined rules as rules with no alternatives")
	promptArg := fset.String("prompt", "", "prompt file, or the prompt text")
	method := fset.String("method", "gcd", "sampler: gcd, rejection, asap, mcmc-uniform, mcmc-priority, mcmc-restart")
	k := fset.Int("k", 1, "MCMC steps, or the ASAp sample number (from 1)")
	n := fset.Int("n", 10, "number of samples (chains, runs)")
	seed := fset.Uint64("seed", 1, "random seed")
	modelDir := fset.String("model", "", "model directory (default: data/models/tiny of the repository)")
	template := fset.String("template", "", "prompt template: chat or raw (default chat when the tokenizer has chat tokens)")
	maxNew := fset.Int("max-new-tokens", 256, "length cap of a completion, EOS included")
	temperature := fset.Float64("temperature", 1, "sampling temperature")
	topP := fset.Float64("top-p", 1, "nucleus sampling mass (1: off)")
	topK := fset.Int("top-k", 0, "top-k sampling (0: off)")
	budget := fset.Int("budget", 0, "rejection: most attempts (default 20·N)")
	task := fset.String("task", "", "task name written in each record (default: the grammar file's path)")
	outPath := fset.String("out", "", "append the records to this JSONL file instead of standard output")
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
		return usageErr("unknown --method %q (want one of %v)", *method, sampleMethods)
	case *n < 1:
		return usageErr("--n must be at least 1, got %d", *n)
	case *k < 0 || (*method == "asap" && *k < 1):
		return usageErr("--k %d out of range", *k)
	case *maxNew < 1:
		return usageErr("--max-new-tokens must be at least 1, got %d", *maxNew)
	case *template != "" && *template != "chat" && *template != "raw":
		return usageErr("--template must be chat or raw, got %q", *template)
	case *budget < 0:
		return usageErr("--budget must not be negative")
	}
	tf := lm.Transform{Temperature: *temperature, TopP: *topP, TopK: *topK}
	if err := tf.Validate(); err != nil {
		return usageErr("%v", err)
	}
	if *task == "" {
		*task = *grammarPath
	}
	prog := newProgress(stderr)

	g, warnings, err := grammar.CompileFile(*grammarPath, grammar.Options{Lenient: *lenient})
	printWarnings(stderr, warnings)
	if err != nil {
		printCompileError(stderr, *grammarPath, err)
		return 1
	}
	dir := *modelDir
	if dir == "" {
		if dir, err = findDefaultModel(); err != nil {
			return fail(err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "config.json")); err != nil {
		return fail(fmt.Errorf("model directory %s: %w", dir, err))
	}
	cfg, err := llama.LoadConfig(dir)
	if err != nil {
		return fail(err)
	}
	tokPath := filepath.Join(dir, "tokenizer.json")
	tok, err := tokenizer.Load(tokPath)
	if err != nil {
		return fail(err)
	}
	vocab, err := gcd.LoadVocab(tokPath)
	if err != nil {
		return fail(err)
	}
	if vocab.Size() > cfg.VocabSize {
		return fail(fmt.Errorf("tokenizer has %d tokens, model only %d", vocab.Size(), cfg.VocabSize))
	}
	if len(cfg.EOSTokenIDs) > 0 {
		vocab.EOS = append([]int(nil), cfg.EOSTokenIDs...)
	}
	if len(vocab.EOS) == 0 {
		return fail(errors.New("no end-of-sequence token: neither config.json nor tokenizer.json names one"))
	}

	text := *promptArg
	if b, err := os.ReadFile(text); err == nil {
		text = string(b)
	}
	tmpl := *template
	if tmpl == "" {
		tmpl = "raw"
		if hasChatTokens(tok) {
			tmpl = "chat"
		}
	}
	var prompt []int
	if tmpl == "chat" {
		if !hasChatTokens(tok) {
			return fail(errors.New("--template chat: the tokenizer has no Llama 3 chat tokens"))
		}
		prompt = tok.ChatPrompt(text, tokenizer.ChatOptions{})
	} else {
		prompt = tok.Encode(text, true)
	}
	if len(prompt) == 0 {
		return fail(errors.New("empty prompt"))
	}

	maxSeq := len(prompt) + *maxNew + 1
	if maxSeq > cfg.MaxPositionEmbeddings {
		return fail(fmt.Errorf("prompt (%d tokens) plus --max-new-tokens %d exceed the model's %d positions",
			len(prompt), *maxNew, cfg.MaxPositionEmbeddings))
	}
	prog.say("loading model %s", dir)
	lmodel, err := llama.Load(dir, llama.Options{MaxSeq: maxSeq})
	if err != nil {
		return fail(err)
	}
	defer lmodel.Close()
	model := llamaLM{lmodel}

	masker := gcd.NewMasker(earley.New(g), vocab, gcd.NewTrie(vocab))
	scfg := sample.Config{Masker: masker, Transform: tf, MaxNew: *maxNew}
	rng := rand.New(rand.NewPCG(*seed, *seed^0x9e3779b97f4a7c15))

	var out io.Writer = stdout
	if *outPath != "" {
		f, err := os.OpenFile(*outPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return fail(err)
		}
		defer f.Close()
		out = f
	}

	prog.say("sampling: %s, n=%d, k=%d", *method, *n, *k)
	start := time.Now()
	type result struct {
		rec      *sample.Record
		k        int
		accepted []bool
		evals    int64
	}
	var results []result
	switch *method {
	case "gcd":
		recs, st, err := scfg.GCD(model, prompt, *n, rng)
		if err != nil {
			return fail(err)
		}
		for _, r := range recs {
			results = append(results, result{rec: r, evals: int64(st.Evals / max(1, len(recs)))})
		}
	case "rejection":
		b := *budget
		if b == 0 {
			b = 20 * *n
		}
		recs, st, err := scfg.Rejection(model, prompt, *n, b, min(*n, b), rng)
		if err != nil {
			return fail(err)
		}
		if len(recs) < *n {
			fmt.Fprintf(stderr, "gasp sample: rejection: only %d of %d samples accepted in %d attempts (acceptance rate %.3g)\n",
				len(recs), *n, st.Samples, st.AcceptanceRate())
		}
		for _, r := range recs {
			results = append(results, result{rec: r, evals: int64(st.Evals / max(1, len(recs)))})
		}
	case "asap":
		runsOut, st, err := scfg.ASAp(model, prompt, *n, *k, rng)
		if err != nil {
			return fail(err)
		}
		for _, rs := range runsOut {
			results = append(results, result{rec: rs[*k-1], k: *k, evals: int64(st.Evals / max(1, len(runsOut)))})
		}
	default:
		var prop mcmc.Proposal
		switch *method {
		case "mcmc-uniform":
			prop = mcmc.Uniform{}
		case "mcmc-priority":
			prop = mcmc.Priority{}
		case "mcmc-restart":
			prop = mcmc.Restart{}
		}
		res, err := mcmc.Run(model, prompt, *n, mcmc.Config{Sample: scfg, Proposal: prop, Steps: *k}, rng)
		if err != nil {
			return fail(err)
		}
		evals := int64((res.Stats.InitEvals + res.Stats.Evals) / max(1, len(res.Chains)))
		for _, c := range res.Chains {
			acc := make([]bool, 0, *k)
			for _, s := range c.Steps[:*k] {
				acc = append(acc, s.Accepted)
			}
			results = append(results, result{rec: c.At(*k), k: *k, accepted: acc, evals: evals})
		}
	}
	elapsed := float64(time.Since(start).Microseconds()) / 1000
	prog.say("done: %d samples in %.1fs", len(results), elapsed/1000)
	prog.end()

	for i, r := range results {
		ids := r.rec.Tokens
		if r.rec.Status == sample.Complete && len(ids) > 0 {
			ids = ids[:len(ids)-1] // the EOS
		}
		ids = append([]int{}, ids...)
		txt, err := tok.Decode(ids)
		if err != nil {
			return fail(err)
		}
		rec := runs.Record{
			Schema:    runs.Schema,
			Task:      *task,
			Method:    *method,
			K:         r.k,
			Run:       i,
			Seed:      *seed,
			PromptIDs: prompt,
			IDs:       ids,
			Text:      txt,
			LogP:      r.rec.LogProb(),
			LogPGCD:   r.rec.LogQProb(),
			Valid:     r.rec.Valid(),
			Status:    r.rec.Status.String(),
			Accepted:  r.accepted,
			Evals:     r.evals,
			ElapsedMS: elapsed,
		}
		line, err := json.Marshal(rec)
		if err != nil {
			return fail(err)
		}
		if _, err := out.Write(append(line, '\n')); err != nil {
			return fail(err)
		}
	}
	return 0
}

func validMethod(m string) bool {
	for _, s := range sampleMethods {
		if s == m {
			return true
		}
	}
	return false
}

// hasChatTokens reports whether tok has the special tokens of the Llama 3
// chat template.
func hasChatTokens(tok *tokenizer.Tokenizer) bool {
	for _, s := range []string{"<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"} {
		if _, ok := tok.ID(s); !ok {
			return false
		}
	}
	return true
}

// findDefaultModel looks for data/models/tiny in the current directory and
// its parents, up to the directory holding go.mod.
func findDefaultModel() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; {
		cand := filepath.Join(d, defaultModelDir)
		if _, err := os.Stat(filepath.Join(cand, "config.json")); err == nil {
			return cand, nil
		}
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			break
		}
		p := filepath.Dir(d)
		if p == d {
			break
		}
		d = p
	}
	return "", fmt.Errorf("default model %s not found from %s; give --model DIR", defaultModelDir, wd)
}

// progress writes status lines to stderr when it is a terminal.
type progress struct {
	w  io.Writer
	on bool
}

func newProgress(w io.Writer) *progress {
	f, ok := w.(*os.File)
	if !ok {
		return &progress{}
	}
	fi, err := f.Stat()
	return &progress{w: w, on: err == nil && fi.Mode()&os.ModeCharDevice != 0}
}

func (p *progress) say(format string, a ...any) {
	if p.on {
		fmt.Fprintf(p.w, "\r\033[K"+format, a...)
	}
}

func (p *progress) end() {
	if p.on {
		fmt.Fprint(p.w, "\n")
	}
}
