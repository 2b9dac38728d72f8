package tiny

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gasplab/gasp/pkg/grammar"
	"github.com/gasplab/gasp/pkg/infile"
)

// Task is one task of the corpus: its prompt, reference solution (if any), grammar, and the source it came from.
type Task struct {
	Name     string // relative to the source's directory, e.g. "SLIA/dr-name" or "xml"
	Prompt   string
	Solution string // "" when the task has no solution.txt
	Grammar  *grammar.Grammar
	Source   Source
}

// Source is a directory of tasks and how the corpus samples their grammars. A task is a directory under Dir
// (at any depth) that holds prompt.txt and grammar.ebnf, and optionally solution.txt.
type Source struct {
	Dir                string
	SamplesPerTask     int // grammar-generated answers per task
	MinDepth, MaxDepth int // derivation depths of grammar.Sample, drawn uniformly
	MaxSampleBytes     int // longer samples are drawn again
}

// DefaultSources are the corpus of the committed model, under the repository root: the 35 benchmark tasks
// (data/gad: short answers from shallow derivations) and the two fuzzing tasks (data/fuzz/tasks: XML
// documents and SQLite test scripts, from deeper derivations so that the model sees statements and elements
// beyond the grammars' minimal sentences).
func DefaultSources(root string) []Source {
	return []Source{
		{Dir: filepath.Join(root, "data", "gad"), SamplesPerTask: 60, MinDepth: 2, MaxDepth: 7, MaxSampleBytes: 300},
		{Dir: filepath.Join(root, "data", "fuzz", "tasks"), SamplesPerTask: 300, MinDepth: 6, MaxDepth: 14, MaxSampleBytes: 800},
	}
}

// LoadTasks reads the tasks of the sources, in the sources' order and sorted by name within each. Grammars
// compile leniently (the CP grammars need it).
func LoadTasks(sources []Source) ([]Task, error) {
	var tasks []Task
	for _, src := range sources {
		var dirs []string
		err := filepath.WalkDir(src.Dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Name() == "prompt.txt" {
				dirs = append(dirs, filepath.Dir(path))
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("tiny: %w", err)
		}
		if len(dirs) == 0 {
			return nil, fmt.Errorf("tiny: no tasks (prompt.txt) under %s", src.Dir)
		}
		slices.Sort(dirs)
		for _, d := range dirs {
			t, err := loadTask(src, d)
			if err != nil {
				return nil, err
			}
			tasks = append(tasks, t)
		}
	}
	return tasks, nil
}

// maxTextBytes bounds a task's prompt.txt and solution.txt.
const maxTextBytes = 4 << 20

func loadTask(src Source, dir string) (Task, error) {
	prompt, err := infile.Read(filepath.Join(dir, "prompt.txt"), maxTextBytes)
	if err != nil {
		return Task{}, fmt.Errorf("tiny: %w", err)
	}
	sol, err := infile.Read(filepath.Join(dir, "solution.txt"), maxTextBytes)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Task{}, fmt.Errorf("tiny: %w", err)
	}
	g, _, err := grammar.CompileFile(filepath.Join(dir, "grammar.ebnf"), grammar.Options{Lenient: true})
	if err != nil {
		return Task{}, fmt.Errorf("tiny: %w", err) // the grammar error names the file
	}
	rel, _ := filepath.Rel(src.Dir, dir)
	return Task{
		Name:     filepath.ToSlash(rel),
		Prompt:   string(prompt),
		Solution: strings.TrimSpace(string(sol)),
		Grammar:  g,
		Source:   src,
	}, nil
}

// Doc is one chat exchange of the corpus: the user's prompt and the assistant's answer.
type Doc struct {
	Task       string
	Prompt     string
	Completion string
	Sample     bool // the completion is grammar-generated (else the reference solution)
}

// Corpus is the training text, split deterministically into a training part and a held-out part.
type Corpus struct {
	Tasks   []Task
	Train   []Doc
	HeldOut []Doc
}

// maxDrawBytes bounds a sentence drawn for the corpus, far above every
// MaxSampleBytes: a grammar's sentences can grow exponentially with the
// depth. The bound is not MaxSampleBytes itself so that the random draws,
// and the corpus, stay those of the committed model (a sentence stopped
// early takes fewer of them).
const maxDrawBytes = 64 << 20

// BuildCorpus builds the corpus from the tasks, deterministically from seed: for each task, its reference
// solution (if any; always in the training part) and Source.SamplesPerTask distinct random sentences of the
// task's grammar, each answering the task's prompt; a fraction heldOut of the sampled documents (at least one
// per task when heldOut > 0) is held out.
func BuildCorpus(tasks []Task, seed uint64, heldOut float64) Corpus {
	rng := rand.New(rand.NewPCG(seed, 0x7469_6e79))
	c := Corpus{Tasks: tasks}
	for _, t := range tasks {
		src := t.Source
		seen := map[string]bool{}
		if t.Solution != "" {
			c.Train = append(c.Train, Doc{Task: t.Name, Prompt: t.Prompt, Completion: t.Solution})
			seen[t.Solution] = true
		}
		var docs []Doc
		for tries := 0; len(docs) < src.SamplesPerTask && tries < 50*src.SamplesPerTask; tries++ {
			b, err := grammar.SampleLimit(t.Grammar, rng, src.MinDepth+rng.IntN(src.MaxDepth-src.MinDepth+1), maxDrawBytes)
			s := string(b)
			if err != nil || len(s) > src.MaxSampleBytes || seen[s] {
				continue
			}
			seen[s] = true
			docs = append(docs, Doc{Task: t.Name, Prompt: t.Prompt, Completion: s, Sample: true})
		}
		nHeld := int(heldOut*float64(len(docs)) + 0.5)
		if heldOut > 0 && nHeld == 0 && len(docs) > 1 {
			nHeld = 1
		}
		rng.Shuffle(len(docs), func(i, j int) { docs[i], docs[j] = docs[j], docs[i] })
		c.HeldOut = append(c.HeldOut, docs[:nHeld]...)
		c.Train = append(c.Train, docs[nHeld:]...)
	}
	return c
}

// TokenizerTexts returns the texts the tokenizer is trained on: each task's chat prompt once, and every
// training completion.
func (c Corpus) TokenizerTexts(chat func(prompt string) string) []string {
	var texts []string
	for _, t := range c.Tasks {
		texts = append(texts, chat(t.Prompt))
	}
	for _, d := range c.Train {
		texts = append(texts, d.Completion+"<|eot_id|>")
	}
	return texts
}
