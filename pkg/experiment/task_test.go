package experiment

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/analysis"
	"github.com/gasplab/gasp/pkg/grammar"
	"github.com/gasplab/gasp/pkg/mcmc"
	"github.com/gasplab/gasp/pkg/membound"
	"github.com/gasplab/gasp/pkg/method"
	"github.com/gasplab/gasp/pkg/runs"
	"github.com/gasplab/gasp/pkg/sample"
)

// floor is a user's proposal: p(i) ∝ 0.1 + H_i.
var floor = mcmc.ProposalFunc(func(x *sample.Record, w []float64) {
	for i := range w {
		w[i] = 0.1 + x.Entropy[i]
	}
})

// A grammar's errors reach OpenTask's caller, and the grid's, as a
// grammar.ErrorList.
func TestOpenTaskGrammarErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "grammar.ebnf"), []byte("root ::= \"a\" undefined\nx ::= (\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "prompt.txt"), []byte("hi"), 0o644)
	_, err := OpenTask(context.Background(), TaskConfig{Dir: dir, Model: "../../data/models/tiny", MaxNew: 4})
	var list grammar.ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		t.Fatalf("OpenTask: %v (%T), want a grammar.ErrorList", err, err)
	}
	// Through the grid.
	c := toyConfig(t)
	c.TaskRoot, c.Tasks = filepath.Dir(dir), []string{filepath.Base(dir)}
	_, err = Run(context.Background(), c, Options{Store: filepath.Join(t.TempDir(), "s")})
	if !errors.As(err, &list) {
		t.Errorf("Run: %v (%T), want a grammar.ErrorList inside", err, err)
	}
}

// A user's method, registered in Options.Methods, runs through the grid
// into the store and through the analysis beside the built-ins; its
// records are those Task.Draw gives alone.
func TestUserMethod(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the embedded model")
	}
	ctx := context.Background()
	c := toyConfig(t)
	c.Methods = []string{"gcd", "asap", "mcmc-floor", "mcmc-uniform"}
	if err := c.Validate(); err == nil {
		t.Error("Validate accepts mcmc-floor without Options.Methods")
	}
	dir := filepath.Join(t.TempDir(), "s")
	user := map[string]method.Method{"mcmc-floor": method.MCMC{Proposal: floor}}
	if _, err := Run(ctx, c, Options{Store: dir}); err == nil || !strings.Contains(err.Error(), `"mcmc-floor"`) {
		t.Fatalf("Run without Options.Methods: %v", err)
	}
	if _, err := Run(ctx, c, Options{Store: dir, Methods: user}); err != nil {
		t.Fatal(err)
	}
	// The store's configuration names the user's method and parses.
	b, err := os.ReadFile(filepath.Join(dir, settingsFile))
	if err != nil {
		t.Fatal(err)
	}
	if stored, err := Parse(b); err != nil || !slices.Equal(stored.Methods, c.Methods) {
		t.Errorf("stored configuration: %v, %v", stored, err)
	}
	st, err := runs.OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tasks, err := c.TaskList()
	if err != nil {
		t.Fatal(err)
	}
	got, err := st.Records(tasks[0].Name, "mcmc-floor")
	if err != nil || len(got) != c.Runs*(c.K+1) {
		t.Fatalf("%d mcmc-floor records, %v", len(got), err)
	}
	prompt, err := os.ReadFile(tasks[0].Prompt)
	if err != nil {
		t.Fatal(err)
	}
	alone, err := Sample(ctx, TaskConfig{Name: tasks[0].Name, Grammar: tasks[0].Grammar, Prompt: string(prompt), Model: c.ModelRef(),
		MaxNew: c.MaxNewTokens, Transform: c.Transform()}, "mcmc-floor", method.MCMC{Proposal: floor},
		Batch{Seed: c.Seed, First: 2, Size: 1, K: c.K})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range alone {
		g := got[2*(c.K+1)+i] // run 2 was alone in its batch of the grid too
		if r.Run != 2 || g.Run != 2 || r.K != g.K || !slices.Equal(r.IDs, g.IDs) || r.LogP != g.LogP {
			t.Errorf("run %d k=%d: alone %v %v, in the grid run %d %v %v", r.Run, r.K, r.IDs, r.LogP, g.Run, g.IDs, g.LogP)
		}
	}
	data, err := analysis.Load(st)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := analysis.Analyze(data, analysis.Options{Resamples: 20, Seed: 1, K: c.K})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(rep.Methods, "mcmc-floor") {
		t.Errorf("analysed methods %v", rep.Methods)
	}
	if s, ok := rep.Tasks[0].Method("mcmc-floor"); !ok || len(s.Points) != c.K+1 {
		t.Errorf("mcmc-floor series: %+v", s)
	}
	hasRatio := false
	for _, q := range rep.Ratios {
		hasRatio = hasRatio || q.Method == "mcmc-floor"
	}
	if !hasRatio {
		t.Errorf("no KL ratio of mcmc-floor: %+v", rep.Ratios)
	}
	if _, err := rep.Files(tasks[0].Name); err != nil {
		t.Errorf("figures: %v", err)
	}
}

// Misused, OpenTask and Draw say what is wrong.
func TestTaskMisuse(t *testing.T) {
	ctx := context.Background()
	for _, c := range []TaskConfig{{Dir: "testdata/tasks/toy/nosuch", MaxNew: 4}, {Dir: "testdata/tasks/toy/bv", Model: "../../data/models/tiny"}} {
		if _, err := OpenTask(ctx, c); err == nil {
			t.Errorf("OpenTask(%+v) accepted", c)
		}
	}
	task, err := OpenTask(ctx, TaskConfig{Dir: "testdata/tasks/toy/bv", Model: "../../data/models/tiny", MaxNew: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer task.Close()
	for _, b := range []Batch{{}, {Size: 2, Runs: []int{2}}, {Size: 2, Runs: []int{0, 0}}, {Size: 1, K: 2, At: []int{0, 3}}} {
		if _, err := task.Draw(context.Background(), "mcmc-uniform", method.MCMC{Proposal: mcmc.Uniform{}}, b); err == nil {
			t.Errorf("Draw(%+v) accepted", b)
		}
	}
	if _, err := task.Draw(context.Background(), "asap", method.ASAp{}, Batch{Size: 1, K: 2, At: []int{0}}); err == nil {
		t.Error("ASAp at k = 0 accepted")
	}
}

// A task directory's grammar may be GBNF, a JSON Schema or a regular
// expression; more than one grammar file is an error, and a schema's errors
// reach OpenTask's caller as a grammar.ErrorList naming the JSON pointer.
func TestTaskGrammarFiles(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) {
		path := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a/grammar.ebnf", `root ::= "a"`)
	write("b/grammar.schema.json", `{"type":"integer","minimum":3}`)
	write("c/grammar.regex", `[0-9]+`)
	write("e/grammar.lark", "start: INT\n%import common.INT\n")
	write("d/prompt.txt", "no grammar here")
	for _, d := range []string{"a", "b", "c", "e"} {
		write(d+"/prompt.txt", "hi")
	}
	c := &Config{Root: root, TaskRoot: ".", Tasks: []string{"*"}}
	tasks, err := c.TaskList()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tf := range tasks {
		got = append(got, tf.Name+":"+filepath.Base(tf.Grammar))
	}
	if want := []string{"a:grammar.ebnf", "b:grammar.schema.json", "c:grammar.regex", "e:grammar.lark"}; !slices.Equal(got, want) {
		t.Errorf("tasks %v, want %v", got, want)
	}
	write("c/grammar.ebnf", `root ::= "c"`)
	if _, err := c.TaskList(); err == nil || !strings.Contains(err.Error(), "more than one grammar file") {
		t.Errorf("two grammar files: %v", err)
	}
	write("b/grammar.schema.json", `{"type":"integer","multipleOf":3}`)
	_, err = OpenTask(context.Background(), TaskConfig{Dir: filepath.Join(root, "b"), Model: "../../data/models/tiny", MaxNew: 4})
	var list grammar.ErrorList
	if !errors.As(err, &list) || !strings.Contains(err.Error(), "grammar.schema.json#/multipleOf") {
		t.Errorf("OpenTask: %v (%T), want a grammar.ErrorList naming #/multipleOf", err, err)
	}
}

// Draw returns MCMC's chain statistics beside the records, counted as the
// records count them, and zero statistics for a method with none.
func TestDrawStats(t *testing.T) {
	task, err := OpenTask(context.Background(), TaskConfig{Dir: "testdata/tasks/toy/bv", Model: "../../data/models/tiny", MaxNew: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer task.Close()
	const runs, k = 3, 4
	got, err := task.Draw(context.Background(), "mcmc-uniform", method.MCMC{Proposal: mcmc.Uniform{}}, Batch{Seed: 7, Size: runs, K: k})
	if err != nil {
		t.Fatal(err)
	}
	accepted := 0
	for _, r := range got.Records {
		if r.K == k {
			for _, a := range r.Accepted {
				if a {
					accepted++
				}
			}
		}
	}
	if st := got.Stats; st.Chains != runs || st.Steps != runs*k || st.Accepted != accepted {
		t.Errorf("stats %+v, want %d chains, %d steps, %d accepted (the records')", st, runs, runs*k, accepted)
	}
	gcd, err := task.Draw(context.Background(), "gcd", method.GCD{}, Batch{Seed: 7, Size: runs})
	if err != nil {
		t.Fatal(err)
	}
	if gcd.Stats != (mcmc.Stats{}) || len(gcd.Records) != runs {
		t.Errorf("gcd: stats %+v, %d records", gcd.Stats, len(gcd.Records))
	}
}

// A batch too large for memory fails OpenTask with a *membound.Error, which
// says what it needs and which a caller can tell from others to name its
// own input.
func TestOpenTaskMemory(t *testing.T) {
	_, err := OpenTask(context.Background(), TaskConfig{Dir: "testdata/tasks/toy/bv", Model: "../../data/models/tiny", MaxNew: 4, Rows: 1 << 40})
	var mem *membound.Error
	if !errors.As(err, &mem) || !strings.HasPrefix(err.Error(), "sampling (model ") || mem.Need <= mem.Total {
		t.Errorf("OpenTask of 2^40 rows: %v", err)
	}
}
