package tiny

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gasplab/gasp/pkg/grammar"
)

// Task is one benchmark task of data/gad: its prompt, reference solution and grammar.
type Task struct {
	Name     string // e.g. "SLIA/dr-name"
	Prompt   string
	Solution string
	Grammar  *grammar.Grammar
}

// LoadTasks reads the tasks under dir (data/gad): every dir/<family>/<task>/ with prompt.txt, solution.txt and
// grammar.ebnf, sorted by name. Grammars compile leniently (the CP grammars need it).
func LoadTasks(dir string) ([]Task, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*", "*", "prompt.txt"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("tiny: no tasks (*/*/prompt.txt) under %s", dir)
	}
	slices.Sort(paths)
	var tasks []Task
	for _, p := range paths {
		d := filepath.Dir(p)
		prompt, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		sol, err := os.ReadFile(filepath.Join(d, "solution.txt"))
		if err != nil {
			return nil, err
		}
		g, _, err := grammar.CompileFile(filepath.Join(d, "grammar.ebnf"), grammar.Options{Lenient: true})
		if err != nil {
			return nil, fmt.Errorf("tiny: %s: %w", d, err)
		}
		rel, _ := filepath.Rel(dir, d)
		tasks = append(tasks, Task{
			Name:     filepath.ToSlash(rel),
			Prompt:   string(prompt),
			Solution: strings.TrimSpace(string(sol)),
			Grammar:  g,
		})
	}
	return tasks, nil
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

// CorpusOptions configure BuildCorpus.
type CorpusOptions struct {
	Seed           uint64
	SamplesPerTask int     // grammar-generated completions per task
	HeldOut        float64 // fraction of the grammar-generated documents held out
	MaxSampleBytes int     // longer samples are drawn again; 0 means 300
}

// BuildCorpus builds the corpus from the tasks, deterministically from opts.Seed: for each task, the reference
// solution (always in the training part) and opts.SamplesPerTask distinct random sentences of the task's
// grammar (grammar.Sample with derivation depth 2 to 7), each answering the task's prompt; a fraction
// opts.HeldOut of the sampled documents (at least one per task when opts.HeldOut > 0) is held out.
func BuildCorpus(tasks []Task, opts CorpusOptions) Corpus {
	maxLen := opts.MaxSampleBytes
	if maxLen <= 0 {
		maxLen = 300
	}
	rng := rand.New(rand.NewPCG(opts.Seed, 0x7469_6e79))
	c := Corpus{Tasks: tasks}
	for _, t := range tasks {
		c.Train = append(c.Train, Doc{Task: t.Name, Prompt: t.Prompt, Completion: t.Solution})
		seen := map[string]bool{t.Solution: true}
		var docs []Doc
		for tries := 0; len(docs) < opts.SamplesPerTask && tries < 50*opts.SamplesPerTask; tries++ {
			s := string(grammar.Sample(t.Grammar, rng, 2+rng.IntN(6)))
			if len(s) > maxLen || seen[s] {
				continue
			}
			seen[s] = true
			docs = append(docs, Doc{Task: t.Name, Prompt: t.Prompt, Completion: s, Sample: true})
		}
		nHeld := int(opts.HeldOut*float64(len(docs)) + 0.5)
		if opts.HeldOut > 0 && nHeld == 0 && len(docs) > 1 {
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
