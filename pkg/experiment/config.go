package experiment

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gasplab/gasp/pkg/infile"
	"github.com/gasplab/gasp/pkg/jsontext"
	"github.com/gasplab/gasp/pkg/lm"
	"github.com/gasplab/gasp/pkg/method"
	"github.com/gasplab/gasp/pkg/modroot"
)

// Config is an experiment: a grid of tasks × methods × runs, sampled with
// one model and one set of sampling settings. It is read from a JSON file
// in which lines may carry // comments.
type Config struct {
	// Name names the experiment: its run store is mcmc/<Name>.
	Name string `json:"name"`
	// Protocol says which protocol the experiment follows ("quick",
	// "paper"); it is informative only.
	Protocol string `json:"protocol"`
	// TaskRoot is the directory of the tasks (e.g. data/gad); a task is a
	// directory under it with a grammar file (see TaskGrammarNames) and
	// prompt.txt, named by its
	// path relative to TaskRoot ("SLIA/name-combine-4").
	TaskRoot string `json:"task_root"`
	// Tasks are glob patterns (path.Match) over task paths relative to
	// TaskRoot: "SLIA/*", "CP/CP_re_ptb_460".
	Tasks []string `json:"tasks"`
	// Methods run on every task: built-in names (method.Parse) or names
	// of Options.Methods.
	Methods []string `json:"methods"`
	// K is the largest k: MCMC chains take K steps (records k = 0…K), ASAp
	// runs draw K samples (k = 1…K). GCD and rejection ignore it.
	K int `json:"k"`
	// Runs is the number of independent runs per task and method. For
	// rejection sampling a run is one attempt (so the store gives the
	// acceptance rate).
	Runs int `json:"runs"`
	// Batch is the number of runs sampled together, one row each; 0 means
	// all Runs. Runs are grouped into fixed batches [b·Batch, (b+1)·Batch),
	// the unit of resuming and sharding.
	Batch int `json:"batch"`
	// Model is a model directory or a Hugging Face hub id.
	Model string `json:"model"`
	// Template is the prompt template: "chat", "raw", or "" (chat when the
	// tokenizer has the chat tokens).
	Template string `json:"template"`
	// Temperature, TopP and TopK define P (lm.Transform); TopP 1 and TopK 0
	// are off. Temperature must be given.
	Temperature float64 `json:"temperature"`
	TopP        float64 `json:"top_p"`
	TopK        int     `json:"top_k"`
	// MaxNewTokens caps a completion, its end-of-sequence token included.
	MaxNewTokens int `json:"max_new_tokens"`
	// Seed seeds every run: run r of (task, method) has the seed
	// RunSeed(Seed, task, method, r).
	Seed uint64 `json:"seed"`
	// Lenient compiles grammars treating undefined rules as empty (the CP
	// grammars of data/gad need it).
	Lenient bool `json:"lenient"`
	// KeepProposals stores, with each MCMC record at k ≥ 1, the proposal of
	// step k, accepted or not (runs.Record.Proposal): the authors'
	// analysis protocol puts every proposal in the reference set. It does
	// not change the samples.
	KeepProposals bool `json:"keep_proposals,omitempty"`

	// Root is the directory relative paths (TaskRoot, Model) are taken
	// from: set by Load to the repository holding the configuration file.
	Root string `json:"-"`
	// File is the file Load or Stored read, which messages name.
	File string `json:"-"`
}

// Size limits of the files of an experiment: a configuration has a few KB,
// a task's prompt a few hundred bytes.
const (
	MaxConfigBytes = 16 << 20
	MaxPromptBytes = 4 << 20
)

// Load reads a configuration file and sets Root to the nearest directory
// at or above the file that holds go.mod (the repository), else the file's
// directory.
func Load(path string) (*Config, error) {
	data, err := infile.Read(path, MaxConfigBytes)
	if err != nil {
		return nil, err
	}
	c, err := parseFile(path, data)
	if err != nil {
		return nil, err
	}
	c.File = path
	abs, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	c.Root = abs
	if mod, ok := modroot.Nearest(abs); ok {
		c.Root = mod
	}
	return c, nil
}

// parseFile parses data, the configuration file path, naming the file and
// where known the line and column in its error.
func parseFile(path string, data []byte) (*Config, error) {
	c, err := Parse(data)
	if line, col, ok := jsontext.ErrorPosition(data, err); ok {
		return nil, fmt.Errorf("%s:%d:%d: %w", path, line, col, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Parse parses a configuration: JSON whose lines may end in // comments.
// Unknown keys are errors, so that a misspelt setting is not ignored, and
// so is a key given twice (jsontext.DuplicateKey), whose first value
// encoding/json would drop. The
// settings are checked but not the methods' names: a store's
// experiment.json may name a user's method (Options.Methods), which only
// Run, given the methods, can resolve (Validate checks built-in names).
func Parse(data []byte) (*Config, error) {
	text := jsontext.StripComments(data)
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	var c Config
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("experiment config: %w", err)
	}
	if dec.More() {
		return nil, errors.New("experiment config: data after the object")
	}
	if err := jsontext.DuplicateKey(text); err != nil {
		return nil, fmt.Errorf("experiment config: %w", err)
	}
	if err := c.check(); err != nil {
		return nil, err
	}
	return &c, nil
}

// Validate checks the settings and that every method is built in, as Run
// without Options.Methods needs.
func (c *Config) Validate() error { return c.ValidateWith(nil) }

// ValidateWith checks the settings and that every method is built in or
// one of user's, as Run with Options.Methods user needs.
func (c *Config) ValidateWith(user map[string]method.Method) error {
	_, err := c.methods(user)
	return err
}

// methods checks the settings and returns the methods by name: user's
// first, then built-in.
func (c *Config) methods(user map[string]method.Method) (map[string]method.Method, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	out := map[string]method.Method{}
	for _, name := range c.Methods {
		m, err := method.Resolve(name, user)
		if err != nil {
			return nil, fmt.Errorf("experiment config: %w; a user method runs only from a Go program, given to experiment.Run in Options.Methods or to cli.Main in cli.Options.Methods", err)
		}
		out[name] = m
	}
	return out, nil
}

// check checks the settings but the methods' names, which Run resolves.
func (c *Config) check() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("experiment config: "+format, a...)
	}
	switch {
	case c.Name == "" || strings.ContainsAny(c.Name, `/\`) || c.Name == "." || c.Name == "..":
		return bad("name %q must be a non-empty file name", c.Name)
	case c.TaskRoot == "":
		return bad("task_root is required")
	case len(c.Tasks) == 0:
		return bad("tasks is empty")
	case len(c.Methods) == 0:
		return bad("methods is empty")
	case c.K < 1 || c.K > method.MaxK:
		return bad("k must be in [1, %d], got %d", method.MaxK, c.K)
	case c.Runs < 1:
		return bad("runs must be at least 1, got %d", c.Runs)
	case c.Batch < 0:
		return bad("batch must not be negative")
	case c.Model == "":
		return bad("model is required")
	case c.Template != "" && c.Template != "chat" && c.Template != "raw":
		return bad("template must be chat, raw or empty, got %q", c.Template)
	case c.Temperature <= 0:
		return bad("temperature must be positive, got %v", c.Temperature)
	case c.MaxNewTokens < 1:
		return bad("max_new_tokens must be at least 1, got %d", c.MaxNewTokens)
	}
	for _, p := range c.Tasks {
		if _, err := filepath.Match(p, ""); err != nil {
			return bad("task pattern %q: %v", p, err)
		}
	}
	seen := map[string]bool{}
	for _, name := range c.Methods {
		if seen[name] {
			return bad("method %q listed twice", name)
		}
		seen[name] = true
	}
	return c.Transform().Validate()
}

// Transform returns the logits transform that defines P.
func (c *Config) Transform() lm.Transform {
	return lm.Transform{Temperature: c.Temperature, TopP: c.TopP, TopK: c.TopK}
}

// path resolves p against Root.
func (c *Config) path(p string) string {
	if filepath.IsAbs(p) || c.Root == "" {
		return p
	}
	return filepath.Join(c.Root, p)
}

// ModelRef returns Model, resolved against Root when it names a directory
// there (else it is a hub id).
func (c *Config) ModelRef() string {
	if p := c.path(c.Model); p != c.Model {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return c.Model
}

// TaskFiles are the files of one task of an experiment.
type TaskFiles struct {
	Name    string // path relative to TaskRoot, with '/' separators
	Grammar string // grammar.ebnf, grammar.schema.json, grammar.regex or grammar.lark
	Prompt  string // prompt.txt
}

// TaskGrammarNames are the names a task directory's grammar file may have:
// GBNF, a JSON Schema, a regular expression or a Lark grammar
// (pkg/grammarfile).
var TaskGrammarNames = [...]string{"grammar.ebnf", "grammar.schema.json", "grammar.regex", "grammar.lark"}

// taskGrammar returns the path of the grammar file of task directory dir:
// the one of TaskGrammarNames it holds, or "" if it holds none. More than
// one is an error.
func taskGrammar(dir string) (string, error) {
	var found []string
	for _, n := range TaskGrammarNames {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			found = append(found, filepath.Join(dir, n))
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", nil
	}
	return "", fmt.Errorf("%s: more than one grammar file: %s", dir, strings.Join(found, ", "))
}

// TaskList returns the tasks the patterns select, sorted by name. A
// pattern that matches no task is an error.
func (c *Config) TaskList() ([]TaskFiles, error) {
	root := c.path(c.TaskRoot)
	set := map[string]bool{}
	for _, p := range c.Tasks {
		matches, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			return nil, fmt.Errorf("task pattern %q: %w", p, err)
		}
		n := 0
		for _, m := range matches {
			if g, err := taskGrammar(m); err != nil {
				return nil, err
			} else if g == "" {
				continue
			}
			rel, err := filepath.Rel(root, m)
			if err != nil {
				return nil, err
			}
			set[filepath.ToSlash(rel)] = true
			n++
		}
		if n == 0 {
			return nil, fmt.Errorf("task pattern %q matches no task directory (with one grammar file: grammar.ebnf, grammar.schema.json, grammar.regex or grammar.lark) under %s", p, root)
		}
	}
	names := make([]string, 0, len(set))
	for n := range set {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]TaskFiles, len(names))
	for i, n := range names {
		d := filepath.Join(root, filepath.FromSlash(n))
		g, err := taskGrammar(d)
		if err != nil {
			return nil, err
		}
		out[i] = TaskFiles{Name: n, Grammar: g, Prompt: filepath.Join(d, "prompt.txt")}
	}
	return out, nil
}
