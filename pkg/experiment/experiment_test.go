package experiment

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gasplab/gasp/pkg/analysis"
	"github.com/gasplab/gasp/pkg/method"
	"github.com/gasplab/gasp/pkg/runs"
	"github.com/gasplab/gasp/pkg/runs/runstest"
)

func TestParse(t *testing.T) {
	src := `{
  // the experiment
  "name": "x", "task_root": "data/gad", "tasks": ["SLIA/*"], // trailing comment
  "methods": ["gcd", "mcmc-restart"], "k": 3, "runs": 4,
  "model": "http://not/a//comment", "temperature": 1, "top_p": 0.9, "max_new_tokens": 16, "seed": 7
}`
	c, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{Name: "x", TaskRoot: "data/gad", Tasks: []string{"SLIA/*"}, Methods: []string{"gcd", "mcmc-restart"},
		K: 3, Runs: 4, Model: "http://not/a//comment", Temperature: 1, TopP: 0.9, MaxNewTokens: 16, Seed: 7}
	if !reflect.DeepEqual(*c, want) {
		t.Errorf("Parse = %+v, want %+v", *c, want)
	}
	for _, bad := range []struct{ edit, want string }{
		{`"seed": 7`, `"seed": 7, "sede": 1`},
		{`"k": 3`, `"k": 0`},
		{`"runs": 4`, `"runs": 0`},
		{`"mcmc-restart"`, `"gcd"`},
		{`"temperature": 1`, `"temperature": 0`},
		{`"name": "x"`, `"name": "a/b"`},
		{`"top_p": 0.9`, `"top_p": 2`},
		{`"max_new_tokens": 16`, `"max_new_tokens": 0`},
		{`["SLIA/*"]`, `["SLIA/["]`},
	} {
		s := strings.Replace(src, bad.edit, bad.want, 1)
		if _, err := Parse([]byte(s)); err == nil {
			t.Errorf("Parse accepted %s", bad.want)
		}
	}
	// A method name that is not built in parses (a store's experiment.json
	// may name a user's method); Validate, for Run without
	// Options.Methods, refuses it by name.
	c, err = Parse([]byte(strings.Replace(src, `"mcmc-restart"`, `"mcmc-foo"`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), `"mcmc-foo"`) || !strings.Contains(err.Error(), "Options.Methods") {
		t.Errorf("Validate of mcmc-foo: %v", err)
	}
}

func TestLoadAndTasks(t *testing.T) {
	c, err := Load("../../experiments/quick.json")
	if err != nil {
		t.Fatal(err)
	}
	root, _ := filepath.Abs("../..")
	if c.Root != root {
		t.Errorf("Root = %s, want %s", c.Root, root)
	}
	tasks, err := c.TaskList()
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 35 {
		t.Errorf("quick: %d tasks, want 35", len(tasks))
	}
	if !slices.IsSortedFunc(tasks, func(a, b TaskFiles) int { return strings.Compare(a.Name, b.Name) }) {
		t.Error("tasks not sorted")
	}
	if _, err := os.Stat(tasks[0].Prompt); err != nil {
		t.Error(err)
	}
	p, err := Load("../../experiments/paper.json")
	if err != nil {
		t.Fatal(err)
	}
	if p.Runs != 100 || p.K != 10 || p.MaxNewTokens != 512 || p.ModelRef() != "meta-llama/Llama-3.1-8B-Instruct" {
		t.Errorf("paper config: %+v", p)
	}
	c.Tasks = []string{"SLIA/no-such-task*"}
	if _, err := c.TaskList(); err == nil {
		t.Error("a pattern matching nothing is not an error")
	}
}

func TestGridShards(t *testing.T) {
	c := &Config{Methods: []string{"gcd", "asap", "mcmc-uniform"}, Runs: 10, Batch: 4, K: 2}
	full := c.grid(3, 0, 1)
	if len(full) != 3*3*3 {
		t.Fatalf("%d batches, want 27", len(full))
	}
	if full[0] != (unit{0, "gcd", 0, 4}) || full[2] != (unit{0, "gcd", 8, 10}) || full[3] != (unit{0, "asap", 0, 4}) {
		t.Errorf("grid order: %v", full[:4])
	}
	var union []unit
	for s := range 4 {
		union = append(union, c.grid(3, s, 4)...)
	}
	slices.SortFunc(union, func(a, b unit) int { return slices.Index(full, a) - slices.Index(full, b) })
	if !slices.Equal(union, full) {
		t.Error("shards do not partition the grid")
	}
}

func TestRunSeed(t *testing.T) {
	seen := map[uint64]string{}
	for _, task := range []string{"a", "b"} {
		for _, m := range []string{"gcd", "asap"} {
			for run := range 50 {
				s := RunSeed(1, task, m, run)
				if s != RunSeed(1, task, m, run) {
					t.Fatal("RunSeed is not deterministic")
				}
				if prev, ok := seen[s]; ok {
					t.Fatalf("RunSeed collision: %s and %s/%s/%d", prev, task, m, run)
				}
				seen[s] = task + "/" + m
			}
		}
	}
	if RunSeed(1, "a", "gcd", 0) == RunSeed(2, "a", "gcd", 0) {
		t.Error("RunSeed ignores the seed")
	}
}

// toyConfig is a small grid over the embedded model on testdata/tasks.
func toyConfig(t *testing.T) *Config {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return &Config{Name: "toy", TaskRoot: "pkg/experiment/testdata/tasks", Tasks: []string{"toy/*"},
		Methods: []string{"gcd", "asap", "mcmc-priority", "rejection"}, K: 2, Runs: 3, Batch: 2,
		Model: "data/models/tiny", Temperature: 1, MaxNewTokens: 16, Seed: 3, Root: root}
}

// storeLines returns the records of a store as JSON lines, elapsed_ms
// zeroed, sorted.
func storeLines(t *testing.T, dir string) []string {
	t.Helper()
	lines := runstest.Lines(t, dir)
	slices.Sort(lines)
	return lines
}

// runToy runs the toy grid (toyConfig) into a new store and returns its
// configuration, the store and the summary. It skips in -short mode: it
// loads the embedded model.
func runToy(t *testing.T) (*Config, string, Summary) {
	t.Helper()
	if testing.Short() {
		t.Skip("loads the embedded model")
	}
	c := toyConfig(t)
	dir := filepath.Join(t.TempDir(), "full")
	sum, err := Run(context.Background(), c, Options{Store: dir})
	if err != nil {
		t.Fatal(err)
	}
	return c, dir, sum
}

func TestRunShardsAndSettings(t *testing.T) {
	ctx := context.Background()
	c, full, sum := runToy(t)
	// 3 runs in batches of 2: 2 batches per method; records 3·(1+2+3+1).
	if sum.Batches != 8 || sum.Ran != 8 || sum.Records != 21 {
		t.Errorf("summary %+v", sum)
	}
	want := storeLines(t, full)
	if len(want) != 21 {
		t.Fatalf("%d records stored", len(want))
	}
	// Two shards into one store give the same records.
	shared := filepath.Join(t.TempDir(), "shared")
	for s := range 2 {
		if _, err := Run(ctx, c, Options{Store: shared, Shard: s, Shards: 2}); err != nil {
			t.Fatal(err)
		}
	}
	if got := storeLines(t, shared); !slices.Equal(got, want) {
		t.Errorf("sharded store differs:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// A finished store: nothing to run.
	if sum, err := Run(ctx, c, Options{Store: full}); err != nil || sum.Ran != 0 || sum.Skipped != 8 {
		t.Errorf("rerun: %+v, %v", sum, err)
	}
	// Other sampling settings on the same store are refused.
	c = toyConfig(t)
	c.Seed++
	if _, err := Run(ctx, c, Options{Store: full}); err == nil || !strings.Contains(err.Error(), "other sampling settings") {
		t.Errorf("changed seed: %v", err)
	}
	if _, err := Run(ctx, toyConfig(t), Options{Store: full, Shard: 2, Shards: 2}); err == nil {
		t.Error("shard 2/2 accepted")
	}
}

func TestRunResume(t *testing.T) {
	ctx := context.Background()
	c, full, _ := runToy(t)
	want := storeLines(t, full)
	// Interrupted inside a batch (after 4 records: gcd's two batches and
	// one record of asap's first), then resumed.
	part := filepath.Join(t.TempDir(), "part")
	sum, err := Run(ctx, c, Options{Store: part, Limit: 4})
	if err != nil || !sum.Limited || sum.Records != 4 {
		t.Fatalf("limited run: %+v, %v", sum, err)
	}
	if n := len(storeLines(t, part)); n != 4 {
		t.Fatalf("limited run stored %d records", n)
	}
	sum, err = Run(ctx, c, Options{Store: part})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Skipped != 2 || sum.Records != 17 {
		t.Errorf("resume: %+v", sum)
	}
	if got := storeLines(t, part); !slices.Equal(got, want) {
		t.Errorf("resumed store differs:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The exact, SMC and mixture methods run in the grid: one record per run
// (k = 0…K for mcmc-mix), evaluations and rejections recorded, and the
// CARS trie kept in the store, learnt further by a later batch.
func TestRunNewMethods(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the embedded model")
	}
	c := toyConfig(t)
	c.Methods = []string{"cars", "rsft", "smc-3", "smc-awrs-2", "mcmc-mix-0.5"}
	dir := filepath.Join(t.TempDir(), "s")
	sum, err := Run(context.Background(), c, Options{Store: dir})
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := c.TaskList()
	if err != nil {
		t.Fatal(err)
	}
	if want := len(tasks) * 3 * (4 + 3); sum.Records != want {
		t.Errorf("%d records, want %d", sum.Records, want)
	}
	st, err := runs.OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, task := range tasks {
		for _, m := range []string{"cars", "rsft", "smc-3"} {
			recs, err := st.Records(task.Name, m)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range recs {
				// Plain rejection (rsft) may spend its budget: the
				// embedded model rarely writes a sentence unaided.
				spent := m == "rsft" && !r.Valid && r.Rejections == method.ExactBudget-1
				if !(r.Valid || spent) || r.K != 0 || r.Evals <= 0 {
					t.Errorf("%s %s run %d: valid %v k %d evals %d rejections %d", task.Name, m, r.Run, r.Valid, r.K, r.Evals, r.Rejections)
				}
			}
		}
		tr, err := LoadTrie(TriePath(dir, "cars", task.Name))
		if err != nil || tr.Nodes() < 2 {
			t.Errorf("%s: cars trie: %v nodes, %v", task.Name, tr.Nodes(), err)
		}
	}
	// gasp analyze's computation takes the new methods as they are.
	data, err := analysis.Load(st)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := analysis.Analyze(data, analysis.Options{Resamples: 20, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Methods, []string{"cars", "mcmc-mix-0.5", "rsft", "smc-3", "smc-awrs-2"}) {
		t.Errorf("analysed methods %v", rep.Methods)
	}
	// More runs, but every (task, method) has spent its time already: the
	// stored batches' elapsed_ms count.
	c.Runs = 6
	sum, err = Run(context.Background(), c, Options{Store: dir, TaskTime: time.Nanosecond})
	if err != nil || sum.Records != 0 || sum.Deferred != len(tasks)*5*2 {
		t.Errorf("with the time spent: %+v, %v", sum, err)
	}
}

// TestLoadErrorPosition: a malformed configuration file's error names the
// file, line and column.
func TestLoadErrorPosition(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct{ text, want string }{
		{"{\n  \"name\": \"x\",\n  \"runs\": x\n}", "bad.json:3:11: "},
		{"{\n  \"runs\": \"ten\"\n}", "bad.json:2:15: "},
		{"{\n  \"name\": \"x\"", "bad.json:2:13: "},
	} {
		path := filepath.Join(dir, "bad.json")
		if err := os.WriteFile(path, []byte(tt.text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(path)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.text, err, tt.want)
		}
	}
}

// TestOnlyTasks: Options.Tasks keeps the batches of the tasks it matches, in the grid's order, and refuses a
// pattern that matches no task or is malformed.
func TestOnlyTasks(t *testing.T) {
	r := &runner{tasks: []TaskFiles{{Name: "BV4/eq_bvand"}, {Name: "BV4/ne_bvudiv0"}, {Name: "SLIA/phone-3-long"}}}
	units := []unit{{task: 0, method: "cars"}, {task: 1, method: "cars"}, {task: 2, method: "cars"}, {task: 1, method: "gcd"}}
	r.opt.Tasks = []string{"BV4/ne_*", "SLIA/phone-3-long"}
	got, err := r.only(units)
	if want := []unit{units[1], units[2], units[3]}; err != nil || !slices.Equal(got, want) {
		t.Errorf("only %v: %v, %v; want %v", r.opt.Tasks, got, err, want)
	}
	r.opt.Tasks = nil
	if got, err := r.only(units); err != nil || len(got) != len(units) {
		t.Errorf("no patterns: %v, %v", got, err)
	}
	for _, p := range []string{"CP/*", "BV4/["} {
		r.opt.Tasks = []string{"BV4/*", p}
		if _, err := r.only(units); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("pattern %q: %v", p, err)
		}
	}
}
