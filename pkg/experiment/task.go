package experiment

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gasplab/gasp/pkg/earley"
	"github.com/gasplab/gasp/pkg/gcd"
	"github.com/gasplab/gasp/pkg/grammar"
	"github.com/gasplab/gasp/pkg/grammarfile"
	"github.com/gasplab/gasp/pkg/infile"
	"github.com/gasplab/gasp/pkg/lm"
	"github.com/gasplab/gasp/pkg/mcmc"
	"github.com/gasplab/gasp/pkg/method"
	"github.com/gasplab/gasp/pkg/model"
	"github.com/gasplab/gasp/pkg/modroot"
	"github.com/gasplab/gasp/pkg/runs"
	"github.com/gasplab/gasp/pkg/sample"
)

// Task is a task ready to draw from: a model, the sampling configuration
// of its grammar, and its tokenized prompt. The grid builds one per task on
// the model it shares; OpenTask opens one alone.
type Task struct {
	Name   string // the task's name in records and seeds (RunSeed)
	LM     lm.Model
	Sample sample.Config
	Prompt []int
	Decode func(ids []int) (string, error) // a completion's text
	close  func()
}

// TaskConfig says what OpenTask opens.
type TaskConfig struct {
	// Dir is a task directory, with a grammar file (TaskGrammarNames) and
	// prompt.txt; or give Grammar and Prompt. A relative Dir that is not
	// there from the working directory is taken from the gasp module's
	// directory (package modroot: GASP_ROOT, or found from the working
	// directory or the program's source), so "data/gad/SLIA/lastname"
	// opens from anywhere.
	Dir     string
	Grammar string // grammar file
	Prompt  string // the prompt's text
	// Name is the task's name in records and seeds; "" names it by
	// TaskName(Dir, else Grammar), which does not depend on the spelling.
	Name    string
	Lenient bool // compile treating undefined rules as empty
	// Model is a model directory or a Hugging Face hub id ("": the
	// embedded model, data/models/tiny of the gasp module); Template the
	// prompt template ("chat", "raw", "": chat when the tokenizer has it).
	Model, Template string
	MaxNew          int          // length cap of a completion, EOS included
	Transform       lm.Transform // P; the zero value is temperature 1
	// Rows is the largest batch to draw, in model rows (method.Rows), for
	// the memory check (0: 1). A batch too large for memory fails OpenTask
	// with a *membound.Error, which a caller may wrap to name its input
	// (a command line's flag).
	Rows int
	// Usage, if not nil, receives the time and number of the model's calls
	// (lm.Timed).
	Usage *lm.Usage
	// Warn, if not nil, receives the grammar's warnings.
	Warn func(grammar.ErrorList)
}

// OpenTask compiles the task's grammar, opens the model (package model),
// tokenizes the prompt and loads the weights with sessions sized to it.
// A grammar's errors come back as a grammar.ErrorList. Close the task when
// done.
func OpenTask(ctx context.Context, c TaskConfig) (*Task, error) {
	if c.MaxNew < 1 {
		return nil, fmt.Errorf("experiment: TaskConfig.MaxNew must be at least 1, got %d", c.MaxNew)
	}
	if err := c.fromDir(); err != nil {
		return nil, err
	}
	if c.Model == "" {
		dir, err := modroot.Path(EmbeddedModel)
		if err != nil {
			return nil, fmt.Errorf("experiment: the embedded model: %w", err)
		}
		c.Model = dir
	}
	compile, err := compiler(c.Grammar, c.Lenient, c.Warn)
	if err != nil {
		return nil, err // the errors name the file
	}
	m, err := model.Open(ctx, c.Model)
	if err != nil {
		return nil, err
	}
	prompt, err := m.Prompt(c.Prompt, c.Template)
	if err != nil {
		return nil, err
	}
	seq := len(prompt) + c.MaxNew + 1
	if err := model.CheckMemory(m.Dir, max(c.Rows, 1), seq, "sampling"); err != nil {
		return nil, err
	}
	w, err := m.Load(seq)
	if err != nil {
		return nil, err
	}
	var lmodel lm.Model = w
	if c.Usage != nil {
		lmodel = lm.Timed(lmodel, c.Usage)
	}
	scfg := sample.Config{Masker: compile(m), Transform: c.Transform, MaxNew: c.MaxNew}
	return &Task{Name: c.Name, LM: lm.Finite(lmodel), Sample: scfg, Prompt: prompt, Decode: m.Decode, close: w.Close}, nil
}

// compiler compiles a grammar file and returns what makes its masker on a
// model; warnings go to warn when it is not nil.
func compiler(path string, lenient bool, warn func(grammar.ErrorList)) (func(*model.Model) *gcd.Masker, error) {
	g, warnings, err := grammarfile.Compile(path, grammar.Options{Lenient: lenient})
	if warn != nil && len(warnings) > 0 {
		warn(warnings)
	}
	if err != nil {
		return nil, err
	}
	return func(m *model.Model) *gcd.Masker { return gcd.NewMasker(earley.New(g), m.Vocab, m.Trie) }, nil
}

// task returns task i of the grid on the shared model, its sessions sized
// for its prompt.
func (r *runner) task(m *gridModel, i int, prompt []int) (*Task, error) {
	files := r.tasks[i]
	compile, err := compiler(files.Grammar, r.cfg.Lenient, nil)
	if err != nil {
		return nil, fmt.Errorf("task %s: %w", files.Name, err)
	}
	scfg := sample.Config{Masker: compile(m.Model), Transform: r.cfg.Transform(), MaxNew: r.cfg.MaxNewTokens}
	sized := m.weights.WithSeq(len(prompt) + r.cfg.MaxNewTokens + 1)
	return &Task{Name: files.Name, LM: lm.Finite(sized), Sample: scfg, Prompt: prompt, Decode: m.Decode}, nil
}

// EmbeddedModel is the embedded tiny model's directory, relative to the
// gasp module's.
const EmbeddedModel = "data/models/tiny"

// fromDir fills Grammar and Prompt from Dir, and Name when it is empty.
func (c *TaskConfig) fromDir() error {
	if c.Dir != "" {
		dir, err := TaskDir(c.Dir)
		if err != nil {
			return err
		}
		text, err := infile.Read(filepath.Join(dir, "prompt.txt"), MaxPromptBytes)
		if err != nil {
			return err
		}
		g, err := taskGrammar(dir)
		if err != nil {
			return err
		}
		if g == "" {
			return fmt.Errorf("%s: no grammar file (%s)", dir, strings.Join(TaskGrammarNames[:], ", "))
		}
		c.Dir, c.Grammar, c.Prompt = dir, g, string(text)
	}
	if c.Name == "" {
		path := c.Dir
		if path == "" {
			path = c.Grammar
		}
		name, err := TaskName(path)
		if err != nil {
			return err
		}
		c.Name = name
	}
	return nil
}

// TaskDir returns the task directory dir: as it is when it exists (or is
// absolute), else, when relative, the one under the gasp module's
// directory (package modroot). The error names both places.
func TaskDir(dir string) (string, error) {
	_, err := os.Stat(dir)
	if err == nil || filepath.IsAbs(dir) || !errors.Is(err, fs.ErrNotExist) {
		return dir, nil
	}
	root, rerr := modroot.Find()
	if rerr != nil {
		return "", fmt.Errorf("task %s: not in the working directory, and %w", dir, rerr)
	}
	under := filepath.Join(root, dir)
	if _, err := os.Stat(under); err != nil {
		return "", fmt.Errorf("task %s: neither in the working directory nor in the gasp module: %w", dir, err)
	}
	return under, nil
}

// Close releases the model OpenTask loaded.
func (t *Task) Close() {
	if t.close != nil {
		t.close()
	}
}

// Sample opens a task, draws batch b of method m under the name name, and
// closes it, returning the records: a notebook's one call. Cancelling ctx
// stops the draw (Draw). Task.Draw returns MCMC's statistics too.
func Sample(ctx context.Context, c TaskConfig, name string, m method.Method, b Batch) ([]runs.Record, error) {
	t, err := OpenTask(ctx, c)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	res, err := t.Draw(ctx, name, m, b)
	return res.Records, err
}

// Batch says which runs Task.Draw draws together, and how.
type Batch struct {
	// Seed is the experiment's seed: run i draws from
	// sample.NewRand(RunSeed(Seed, task, method, i)), whichever runs
	// share its batch.
	Seed uint64
	// The batch's rows are runs First…First+Size−1, run i on row i−First.
	// Runs lists those to draw, the other rows idle (nil: all). Drawing
	// part of a batch again on the same rows gives the same records bit
	// for bit (see package sample).
	First, Size int
	Runs        []int
	K           int   // steps: an MCMC chain's length, ASAp's samples
	At          []int // the k to return, increasing (nil: every k of the method's Steps)
	Budget      int   // method.Request.Budget
	Trie        *sample.Trie
	Proposals   bool                 // keep MCMC proposals in the records (Config.KeepProposals)
	Ended       func(*sample.Record) // called as each completion ends (progress)
}

// Drawn is what Task.Draw returns: a batch's records and, for MCMC, its
// chains' statistics.
type Drawn struct {
	Records []runs.Record // by run and then k
	Stats   mcmc.Stats    // MCMC: the chains' statistics; zero for other methods
}

// Draw draws batch b of method m, named name in the records and seeds,
// and returns the runs' records, by run and then k. Once ctx is done, the
// method's next model call fails (lm.WithContext), so the draw stops
// within one decoding step and returns ctx's error and no record: a batch
// is kept whole or not at all.
func (t *Task) Draw(ctx context.Context, name string, m method.Method, b Batch) (Drawn, error) {
	rands, seeds, err := b.rands(t.Name, name)
	if err != nil {
		return Drawn{}, err
	}
	ks, err := b.ks(name, m)
	if err != nil {
		return Drawn{}, err
	}
	cfg := t.Sample
	if b.Ended != nil {
		cfg.Ended = func(_ int, r *sample.Record) { b.Ended(r) }
	}
	start := time.Now()
	res, err := m.Draw(method.Request{LM: lm.WithContext(ctx, t.LM), Sample: cfg, Prompt: t.Prompt, Rands: rands,
		K: b.K, Budget: b.Budget, Trie: b.Trie})
	if err != nil {
		if ctx.Err() != nil {
			return Drawn{}, ctx.Err()
		}
		return Drawn{}, err
	}
	elapsed := float64(time.Since(start).Microseconds()) / 1000
	at := map[[2]int]method.Drawn{} // (row, k)
	for _, d := range res.Drawn {
		at[[2]int{d.Run, d.K}] = d
	}
	out := Drawn{Stats: res.Stats}
	for _, i := range b.Runs {
		for _, k := range ks {
			d, ok := at[[2]int{i - b.First, k}]
			if !ok {
				return Drawn{}, fmt.Errorf("%s: run %d left no record at k = %d", name, i, k)
			}
			r, err := t.record(name, d, i, seeds[i-b.First], elapsed, b.Proposals)
			if err != nil {
				return Drawn{}, err
			}
			out.Records = append(out.Records, r)
		}
	}
	return out, nil
}

// rands returns the batch's random sources and seeds by row, setting Runs
// to all the batch's runs when it is nil.
func (b *Batch) rands(task, name string) ([]*rand.Rand, []uint64, error) {
	if b.Size < 1 || b.K < 0 {
		return nil, nil, fmt.Errorf("experiment: a batch of %d rows and %d steps", b.Size, b.K)
	}
	if b.Runs == nil {
		for i := range b.Size {
			b.Runs = append(b.Runs, b.First+i)
		}
	}
	rands := make([]*rand.Rand, b.Size)
	seeds := make([]uint64, b.Size)
	for _, i := range b.Runs {
		if i < b.First || i-b.First >= b.Size || rands[i-b.First] != nil {
			return nil, nil, fmt.Errorf("run %d outside the batch [%d, %d) or listed twice", i, b.First, b.First+b.Size)
		}
		seeds[i-b.First] = RunSeed(b.Seed, task, name, i)
		rands[i-b.First] = sample.NewRand(seeds[i-b.First])
	}
	return rands, seeds, nil
}

// ks returns the k to return: At, checked against the method's steps, or
// all of them.
func (b *Batch) ks(name string, m method.Method) ([]int, error) {
	lo, hi := m.Steps().Range(b.K)
	if b.At == nil {
		var ks []int
		for k := lo; k <= hi; k++ {
			ks = append(ks, k)
		}
		return ks, nil
	}
	if len(b.At) == 0 || b.At[0] < lo || slices.Max(b.At) > hi {
		return nil, fmt.Errorf("%s: k %v outside its steps %d…%d", name, b.At, lo, hi)
	}
	return b.At, nil
}

// record returns d, run run drawn with seed, as the run store keeps it.
func (t *Task) record(name string, d method.Drawn, run int, seed uint64, elapsed float64, proposals bool) (runs.Record, error) {
	ids, eos := SplitEOS(d.Rec)
	text, err := t.Decode(ids)
	if err != nil {
		return runs.Record{}, err
	}
	r := runs.Record{
		Schema: runs.Schema, Task: t.Name, Method: name, K: d.K, Run: run, Seed: seed,
		PromptIDs: t.Prompt, IDs: ids, EOS: eos, Text: text,
		LogP: d.Rec.LogProb(), LogPGCD: d.Rec.LogQProb(), Valid: d.Rec.Valid(), Status: d.Rec.Status.String(),
		Accepted: d.Accepted, Evals: int64(d.Evals), Rejections: int64(d.Rejections), ElapsedMS: elapsed,
	}
	if proposals && d.Proposal != nil {
		r.Proposal = ProposalRecord(d.Proposal)
	}
	return r, nil
}
