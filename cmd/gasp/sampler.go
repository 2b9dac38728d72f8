package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/gasplab/gasp/pkg/earley"
	"github.com/gasplab/gasp/pkg/experiment"
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
// It lives here so that pkg/lm and the samplers stay free of GoMLX. It
// adds the time and number of the model's calls to *use when that is set,
// so that "gasp bench sample" can tell the model's share of the wall time.
type llamaLM struct {
	*llama.Model
	use *lmUse
}

// lmUse is what a model's sessions spent.
type lmUse struct {
	time    time.Duration // in Prefill, Step and Truncate
	steps   int           // Step calls
	stepped int           // rows listed in them
}

func (m llamaLM) VocabSize() int { return m.Config().VocabSize }

func (m llamaLM) NewSession(rows int) (lm.Session, error) {
	s, err := m.Model.NewSession(rows)
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	if m.use == nil {
		return finiteSession{s}, nil
	}
	return finiteSession{timedSession{s, m.use}}, nil
}

// finiteSession is a session whose logits are checked: a NaN or infinite logit
// (NaN or infinite weights) is an error, not a silent dead end or a
// sample of logp 0. The check reads each logit once, far less than the
// forward pass that computed it.
type finiteSession struct{ lm.Session }

func (s finiteSession) Prefill(prompt []int) ([]float32, error) {
	out, err := s.Session.Prefill(prompt)
	if err == nil {
		err = checkLogits(out, "the prompt")
	}
	return out, err
}

func (s finiteSession) Step(tokens, rows []int) ([][]float32, error) {
	out, err := s.Session.Step(tokens, rows)
	for j := 0; err == nil && j < len(out); j++ {
		err = checkLogits(out[j], fmt.Sprintf("row %d", rows[j]))
	}
	return out, err
}

// checkLogits fails on a NaN or infinite logit.
func checkLogits(logits []float32, where string) error {
	for id, v := range logits {
		if v != v || math.IsInf(float64(v), 0) {
			return fmt.Errorf("the model gave token %d the logit %v after %s: its weights or config are not finite (NaN or infinite weights in model.safetensors?)", id, v, where)
		}
	}
	return nil
}

// timedSession is a llama.Session that counts its calls in *u.
type timedSession struct {
	*llama.Session
	u *lmUse
}

func (s timedSession) Prefill(prompt []int) ([]float32, error) {
	defer s.since(time.Now())
	return s.Session.Prefill(prompt)
}

func (s timedSession) Step(tokens, rows []int) ([][]float32, error) {
	defer s.since(time.Now())
	s.u.steps++
	s.u.stepped += len(rows)
	return s.Session.Step(tokens, rows)
}

func (s timedSession) Truncate(row, length int) error {
	defer s.since(time.Now())
	return s.Session.Truncate(row, length)
}

func (s timedSession) since(t0 time.Time) { s.u.time += time.Since(t0) }

// proposal returns the proposal of an "mcmc-..." method.
func proposal(method string) (mcmc.Proposal, bool) {
	m, err := experiment.ParseMethod(method)
	return m.Proposal, err == nil && m.Kind == experiment.KindMCMC
}

// defaultModelDir is the embedded tiny model, relative to the repository root.
const defaultModelDir = "data/models/tiny"

// taskOptions say what loadTask loads.
type taskOptions struct {
	grammar  string // grammar file
	lenient  bool
	prompt   string // prompt file, or the prompt text
	modelDir string // "" means the embedded model
	template string // "chat", "raw" or "" (chat when the tokenizer has chat tokens)
	maxNew   int
	tf       lm.Transform
	timeLM   bool   // time the model's calls (task.lmTime)
	rows     int    // rows of the largest session, for the memory check (0: 1)
	rowsFlag string // the flag that sets rows, named when they do not fit
	warnCmd  string // the command prefixing warnings ("gasp sample")
	// quietPrompt leaves out the warning about a path-like --prompt text
	// (the caller gave it already).
	quietPrompt bool
}

// task is everything a sampler needs for one grammar and prompt: the
// model, the tokenizer, the tokenized prompt and the sampling configuration.
type task struct {
	model  llamaLM
	tok    *tokenizer.Tokenizer
	cfg    sample.Config
	prompt []int
	use    lmUse // what the model spent, when timed
}

// loadTask compiles the grammar, loads the model and tokenizes the prompt.
// Grammar warnings go to warn. The caller closes the task.
func loadTask(o taskOptions, warn io.Writer) (*task, error) {
	if err := checkInput("--grammar", o.grammar, maxGrammarBytes); err != nil {
		return nil, err
	}
	pw := warn
	if o.quietPrompt {
		pw = io.Discard
	}
	text, err := promptText(o.prompt, pw, o.warnCmd)
	if err != nil {
		return nil, err
	}
	g, warnings, err := grammar.CompileFile(o.grammar, grammar.Options{Lenient: o.lenient})
	printWarnings(warn, warnings)
	if err != nil {
		var b strings.Builder
		printCompileError(&b, o.grammar, err)
		return nil, errors.New(strings.TrimSuffix(b.String(), "\n"))
	}
	dir := o.modelDir
	if dir == "" {
		if dir, err = findDefaultModel(); err != nil {
			return nil, err
		}
	}
	// A directory only: "gasp sample" does not resolve hub ids.
	if _, err := os.Stat(filepath.Join(dir, "config.json")); err != nil {
		return nil, fmt.Errorf("model directory %s: %w", dir, err)
	}
	m, err := experiment.OpenModel(context.Background(), dir)
	if err != nil {
		return nil, err
	}
	prompt, err := m.Prompt(text, o.template)
	if err != nil {
		return nil, err
	}
	seq := len(prompt) + o.maxNew + 1
	if err := checkModelMemory(m.Dir, max(o.rows, 1), seq, o.rowsFlag); err != nil {
		return nil, err
	}
	lmodel, err := m.Load(seq)
	if err != nil {
		return nil, err
	}
	t := &task{tok: m.Tokenizer, prompt: prompt}
	t.model = llamaLM{Model: lmodel.Model}
	if o.timeLM {
		t.model.use = &t.use
	}
	masker := gcd.NewMasker(earley.New(g), m.Vocab, m.Trie)
	t.cfg = sample.Config{Masker: masker, Transform: o.tf, MaxNew: o.maxNew}
	return t, nil
}

func (t *task) Close() { t.model.Close() }

// drawn is the outcome of draw: per run, its records for each k asked for.
type drawn struct {
	recs  [][]runs.Record // recs[j][i]: run ids[j] at ks[i]
	stats *mcmc.Stats     // MCMC methods only
}

// draw runs method for the runs ids together, run i with the random source
// sample.NewRand(experiment.RunSeed(seed, taskName, method, i)) (the seeds
// of pkg/experiment's runner), so that a run's records do not depend on
// which runs share its batch (except for cars and ars, whose runs share
// trie). The batch has size rows, run i on row i−base and the other rows
// idle: redrawing part of a batch on the same rows gives the same records
// bit for bit (see package sample). It returns each run's records at the
// steps ks (increasing; for methods without steps only 0): MCMC chains run
// max(ks) steps and ASAp runs draw max(ks) samples. ended is called each
// time a completion ends (for progress).
func (t *task) draw(taskName, method string, ks []int, o experiment.DrawOptions, seed uint64, size, base int, ids []int, ended func(*sample.Record)) (*drawn, error) {
	meth, err := experiment.ParseMethod(method)
	if err != nil {
		return nil, err
	}
	rands := make([]*rand.Rand, size)
	seeds := make([]uint64, len(ids))
	for j, i := range ids {
		if i < base || i >= base+size || rands[i-base] != nil {
			return nil, fmt.Errorf("run %d outside the batch [%d, %d) or listed twice", i, base, base+size)
		}
		seeds[j] = experiment.RunSeed(seed, taskName, method, i)
		rands[i-base] = sample.NewRand(seeds[j])
	}
	cfg := t.cfg
	if ended != nil {
		cfg.Ended = func(_ int, r *sample.Record) { ended(r) }
	}
	kmax := slices.Max(ks)
	switch meth.Kind {
	case experiment.KindASAp:
		if ks[0] < 1 {
			return nil, fmt.Errorf("asap: k starts at 1, got %d", ks[0])
		}
	case experiment.KindMCMC:
	default:
		if kmax != 0 {
			return nil, fmt.Errorf("%s has no steps: k must be 0, got %d", method, kmax)
		}
	}
	o.K = kmax
	out := &drawn{recs: make([][]runs.Record, len(ids))}
	if meth.Kind == experiment.KindMCMC {
		out.stats = &mcmc.Stats{}
		o.MCMCStats = out.stats
	}
	start := time.Now()
	all, err := experiment.Draw(t.model, cfg, meth, t.prompt, o, rands)
	if err != nil {
		return nil, err
	}
	elapsed := float64(time.Since(start).Microseconds()) / 1000
	at := map[[2]int]experiment.Drawn{} // (row, k)
	for _, d := range all {
		at[[2]int{d.Run, d.K}] = d
	}
	for j, i := range ids {
		for _, k := range ks {
			d, ok := at[[2]int{i - base, k}]
			if !ok {
				return nil, fmt.Errorf("%s: run %d left no record at k = %d", method, i, k)
			}
			r, err := t.record(taskName, method, d, seeds[j], i, elapsed)
			if err != nil {
				return nil, err
			}
			out.recs[j] = append(out.recs[j], r)
		}
	}
	return out, nil
}

// record is d as a run-store record.
func (t *task) record(taskName, method string, d experiment.Drawn, seed uint64, run int, elapsed float64) (runs.Record, error) {
	return d.Record(taskName, method, run, seed, t.prompt, t.tok.Decode, elapsed)
}

// unitsPerRun is how many completions a run of method ends (draw's ended
// calls) when it needs no retries: what a progress bar counts.
func unitsPerRun(method string, kmax int) int {
	m, _ := experiment.ParseMethod(method)
	switch m.Kind {
	case experiment.KindASAp:
		return kmax
	case experiment.KindMCMC:
		return kmax + 1 // the start and one proposal per step
	case experiment.KindSMC:
		return m.SMC.Particles
	}
	return 1
}

// bar is a progress bar on a terminal, or nothing.
type bar struct{ pb *progressbar.ProgressBar }

// newBar returns a progress bar of total units on w when w is a terminal
// and quiet is false, else a bar that shows nothing.
func newBar(w io.Writer, quiet bool, total int, desc string) *bar {
	if quiet || !isTerminal(w) {
		return &bar{}
	}
	return &bar{progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowCount(),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionClearOnFinish(),
	)}
}

// add advances the bar by n units, never past its end (retried starts
// and rejection attempts can end more completions than planned).
func (b *bar) add(n int) {
	if b.pb == nil {
		return
	}
	n = min(n, b.pb.GetMax()-int(b.pb.State().CurrentNum))
	if n > 0 {
		b.pb.Add(n)
	}
}

func (b *bar) describe(s string) {
	if b.pb != nil {
		b.pb.Describe(s)
	}
}

func (b *bar) finish() {
	if b.pb != nil {
		b.pb.Finish()
	}
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
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
