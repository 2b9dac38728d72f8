package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/gasplab/gasp/pkg/infile"
	"github.com/gasplab/gasp/pkg/mcmc"
	"github.com/gasplab/gasp/pkg/method"
	"github.com/gasplab/gasp/pkg/model"
	"github.com/gasplab/gasp/pkg/runs"
	"github.com/gasplab/gasp/pkg/sample"
)

// RunSeed returns the seed of run number run of (task, method) in an
// experiment seeded with seed; the run's random source is
// sample.NewRand(RunSeed(...)), so the run can be reproduced alone.
func RunSeed(seed uint64, task, method string, run int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00%s\x00%s", seed, task, method)
	return sample.DeriveSeed(h.Sum64(), run)
}

// Options configure Run.
type Options struct {
	// Store is the run store directory; "" means <Root>/mcmc/<Name>.
	Store string
	// Shard and Shards split the grid: this process runs the batches whose
	// index in the grid's fixed order is Shard modulo Shards. Shards 0
	// means 1. Shards may share a store directory: each takes the store's
	// lock only to append a finished batch.
	Shard, Shards int
	// Progress receives one line per batch; nil means none.
	Progress io.Writer
	// Limit stops the run once this many records were appended (0: no
	// limit), for a partial run.
	Limit int
	// LockWait bounds the wait for the store's lock held by another
	// process; 0 means 10 minutes.
	LockWait time.Duration
	// Methods are the user's methods by name: a name in Config.Methods
	// resolves here first, then to a built-in method (method.Parse), so
	// that a method defined in a notebook runs through the grid and the
	// run store like the built-ins.
	Methods map[string]method.Method
	// TaskTime, if positive, bounds the sampling time of each (task,
	// method), counting the batches already stored (their elapsed_ms):
	// once a pair has spent it, its remaining batches are left
	// (Summary.Deferred), so that a slow pair cannot starve the others,
	// and a rerun with a larger TaskTime continues them. It is checked
	// before each batch, and a batch started always finishes: whether a
	// batch runs depends on the batches before it, never on its own
	// samples, so that the samples kept are not selected by how long they
	// took (which would bias exact samplers towards quick samples).
	TaskTime time.Duration
	// Tasks, if not empty, restricts this process to the tasks whose name
	// (as in the records, e.g. "BV4/eq_bvand") matches one of these
	// path.Match patterns; the grid, and the store's record of it, is
	// unchanged. A pattern that matches no task of the grid is an error.
	Tasks []string
}

// Summary is what Run did.
type Summary struct {
	Batches  int // batches in this shard
	Skipped  int // ... already stored
	Ran      int // ... sampled
	Records  int // records appended
	Deferred int // batches left because their (task, method) spent Options.TaskTime
	Limited  bool
	Elapsed  time.Duration
	Store    string // the run store's directory
}

// unit is one batch of the grid: runs [lo, hi) of method on task.
type unit struct {
	task   int
	method string
	lo, hi int
}

// grid returns this shard's batches, in the grid's order: tasks by name,
// methods as configured, runs ascending.
func (c *Config) grid(ntasks int, shard, shards int) []unit {
	b := c.batchSize()
	var out []unit
	i := 0
	for t := range ntasks {
		for _, m := range c.Methods {
			for lo := 0; lo < c.Runs; lo += b {
				if i%shards == shard {
					out = append(out, unit{task: t, method: m, lo: lo, hi: min(lo+b, c.Runs)})
				}
				i++
			}
		}
	}
	return out
}

// Run runs the experiment's grid into its run store, skipping the batches
// already stored: a run killed at any moment is resumed by running it
// again. A batch is sampled whole whenever one of its records is missing,
// and only the missing records are appended: a run's records depend on its
// seed alone, so they are the ones an uninterrupted run would have stored.
func Run(ctx context.Context, cfg *Config, opt Options) (Summary, error) {
	start := time.Now()
	r, err := newRunner(cfg, opt)
	if err != nil {
		return Summary{}, err
	}
	sum := &r.sum
	if len(r.todo) > 0 {
		err = r.run(ctx, start)
	}
	sum.Elapsed = time.Since(start)
	return *sum, err
}

// runner is a run of a grid.
type runner struct {
	cfg   *Config
	opt   Options
	dir   string
	meths map[string]method.Method // by name, user's and built-in
	tasks []TaskFiles
	todo  []unit                      // batches not stored yet
	spent map[[2]string]time.Duration // sampling time by (task, method)
	sum   Summary
}

// newRunner checks the configuration and options and finds what is stored.
func newRunner(cfg *Config, opt Options) (*runner, error) {
	if opt.Shards == 0 {
		opt.Shards = 1
	}
	if opt.Shard < 0 || opt.Shard >= opt.Shards {
		return nil, fmt.Errorf("experiment: shard %d/%d out of range", opt.Shard, opt.Shards)
	}
	if opt.TaskTime < 0 {
		return nil, fmt.Errorf("experiment: task time %v is negative", opt.TaskTime)
	}
	if opt.LockWait == 0 {
		opt.LockWait = 10 * time.Minute
	}
	meths, err := cfg.methods(opt.Methods)
	if err != nil {
		return nil, err
	}
	r := &runner{cfg: cfg, opt: opt, dir: opt.Store, meths: meths}
	if r.dir == "" {
		r.dir = cfg.path(filepath.Join("mcmc", cfg.Name))
	}
	r.sum.Store = r.dir
	if r.tasks, err = cfg.TaskList(); err != nil {
		return nil, err
	}
	units := cfg.grid(len(r.tasks), opt.Shard, opt.Shards)
	if units, err = r.only(units); err != nil {
		return nil, err
	}
	r.sum.Batches = len(units)
	done, spent, err := cfg.scanStore(r.dir, r.tasks, units)
	if err != nil {
		return nil, err
	}
	r.spent = spent
	for _, u := range units {
		if r.stored(u, done[[2]string{r.tasks[u.task].Name, u.method}]) {
			r.sum.Skipped++
		} else {
			r.todo = append(r.todo, u)
		}
	}
	r.say("experiment %s: %d tasks, methods %v, %d runs, k ≤ %d; shard %d/%d: %d batches, %d stored, %d to run",
		cfg.Name, len(r.tasks), cfg.Methods, cfg.Runs, cfg.K, opt.Shard, opt.Shards, len(units), r.sum.Skipped, len(r.todo))
	return r, nil
}

// only keeps the units of the tasks Options.Tasks selects (all when it is empty).
func (r *runner) only(units []unit) ([]unit, error) {
	if len(r.opt.Tasks) == 0 {
		return units, nil
	}
	keep := make([]bool, len(r.tasks))
	for _, p := range r.opt.Tasks {
		found := false
		for i, t := range r.tasks {
			ok, err := path.Match(p, t.Name)
			if err != nil {
				return nil, fmt.Errorf("experiment: task pattern %q: %w", p, err)
			}
			keep[i] = keep[i] || ok
			found = found || ok
		}
		if !found {
			return nil, fmt.Errorf("experiment: task pattern %q matches none of the grid's %d tasks", p, len(r.tasks))
		}
	}
	var out []unit
	for _, u := range units {
		if keep[u.task] {
			out = append(out, u)
		}
	}
	return out, nil
}

func (r *runner) say(format string, a ...any) {
	if r.opt.Progress != nil {
		fmt.Fprintf(r.opt.Progress, format+"\n", a...)
	}
}

// run samples the batches to do.
func (r *runner) run(ctx context.Context, start time.Time) error {
	m, prompts, err := r.load(ctx)
	if err != nil {
		return err
	}
	defer m.close()
	var t *Task
	for i, u := range r.todo {
		if err := ctx.Err(); err != nil {
			return err
		}
		key := [2]string{r.tasks[u.task].Name, u.method}
		if r.opt.TaskTime > 0 && r.spent[key] >= r.opt.TaskTime {
			r.sum.Deferred++
			continue
		}
		if t == nil || t.Name != key[0] {
			if t, err = r.task(m, u.task, prompts[u.task]); err != nil {
				return err
			}
		}
		t0 := time.Now()
		n, valid, err := r.batch(ctx, t, u)
		if err != nil {
			return err
		}
		r.spent[key] += time.Since(t0)
		el := time.Since(start)
		eta := time.Duration(float64(el) / float64(i+1) * float64(len(r.todo)-i-1))
		r.say("[%d/%d] %s %s runs %d–%d: %d records appended (%d valid), %.1fs; elapsed %s, eta %s",
			i+1, len(r.todo), key[0], u.method, u.lo, u.hi-1, n, valid,
			time.Since(t0).Seconds(), el.Round(time.Second), eta.Round(time.Second))
		if r.opt.Limit > 0 && r.sum.Records >= r.opt.Limit {
			r.sum.Limited = true
			break
		}
	}
	return nil
}

// gridModel is the model a grid shares between its tasks.
type gridModel struct {
	*model.Model
	weights model.LM
	writing io.Closer // the run's mark on the store (runs.Writing)
}

func (m *gridModel) close() {
	m.weights.Close()
	m.writing.Close()
}

// load opens the model, tokenizes the prompts of the tasks to do and loads
// the weights, sized for the longest; then it records the configuration
// in the store.
func (r *runner) load(ctx context.Context) (*gridModel, map[int][]int, error) {
	m, err := model.Open(ctx, r.cfg.ModelRef())
	if err != nil {
		return nil, nil, err
	}
	prompts := map[int][]int{}
	maxPrompt := 0
	for _, u := range r.todo {
		if _, ok := prompts[u.task]; ok {
			continue
		}
		task := r.tasks[u.task]
		text, err := infile.Read(task.Prompt, MaxPromptBytes)
		if err != nil {
			return nil, nil, fmt.Errorf("task %s: %w", task.Name, err)
		}
		if prompts[u.task], err = m.Prompt(string(text), r.cfg.Template); err != nil {
			return nil, nil, fmt.Errorf("task %s: %w", task.Name, err)
		}
		maxPrompt = max(maxPrompt, len(prompts[u.task]))
	}
	r.say("loading model %s", m.Dir)
	// Sessions are sized per task (WithSeq); the loaded model holds the
	// longest, rounded as WithSeq rounds so that every task's cache length
	// depends on its own prompt only.
	need := maxPrompt + r.cfg.MaxNewTokens + 1
	w, err := m.Load(max(need, min(model.CacheLen(need), m.Config.MaxPositionEmbeddings)))
	if err != nil {
		return nil, nil, err
	}
	writing, err := r.writeSettings(ctx)
	if err != nil {
		w.Close()
		return nil, nil, err
	}
	return &gridModel{m, w, writing}, prompts, nil
}

// batch samples the runs of u and appends their records, returning how
// many records it appended (fewer than it drew at Options.Limit) and how
// many of those are valid. An adaptive method (cars,
// ars) learns in the task's trie kept in the store (TriePath), read before
// the batch and written after it.
func (r *runner) batch(ctx context.Context, t *Task, u unit) (n, valid int, err error) {
	meth := r.meths[u.method]
	b := Batch{Seed: r.cfg.Seed, First: u.lo, Size: u.hi - u.lo, K: r.cfg.K, Proposals: r.cfg.KeepProposals}
	trie := TriePath(r.dir, u.method, t.Name)
	if method.Learns(meth) {
		if b.Trie, err = LoadTrie(trie); err != nil {
			return 0, 0, err
		}
	}
	drawn, err := t.Draw(ctx, u.method, meth, b)
	if err == nil && b.Trie != nil {
		err = SaveTrie(trie, b.Trie)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("task %s, %s, runs %d–%d: %w", t.Name, u.method, u.lo, u.hi-1, err)
	}
	limit := -1
	if r.opt.Limit > 0 {
		limit = r.opt.Limit - r.sum.Records
	}
	added, valid, err := appendRecords(ctx, r.dir, r.cfg.storeOptions(), drawn.Records, limit, r.opt.LockWait)
	r.sum.Records += added
	if err != nil {
		return 0, 0, err
	}
	r.sum.Ran++
	return added, valid, nil
}

// scanStore returns, per (task, method) of units, the records stored in
// dir and the time their batches took; nothing if dir does not exist.
func (c *Config) scanStore(dir string, tasks []TaskFiles, units []unit) (map[[2]string]map[runs.Sample]bool, map[[2]string]time.Duration, error) {
	done := map[[2]string]map[runs.Sample]bool{}
	spent := map[[2]string]time.Duration{}
	if _, err := os.Stat(dir); err != nil {
		return done, spent, nil
	}
	if _, err := checkStore(dir, c); err != nil {
		return nil, nil, err
	}
	opt := c.storeOptions()
	opt.ReadOnly = true
	ro, err := runs.OpenWith(dir, opt)
	if err != nil {
		return nil, nil, err
	}
	defer ro.Close()
	for _, u := range units {
		key := [2]string{tasks[u.task].Name, u.method}
		if done[key] != nil {
			continue
		}
		if done[key], err = ro.Done(key[0], key[1]); err == nil {
			spent[key], err = storedTime(ro, key, c.batchSize())
		}
		if err != nil {
			return nil, nil, err
		}
	}
	return done, spent, nil
}

// batchSize returns the runs of a batch.
func (c *Config) batchSize() int {
	if c.Batch == 0 {
		return c.Runs
	}
	return c.Batch
}

// storedTime returns the sampling time of the stored batches of (task,
// method): per batch, the largest elapsed_ms of its records.
func storedTime(st *runs.Store, key [2]string, batch int) (time.Duration, error) {
	recs, err := st.Records(key[0], key[1])
	if err != nil {
		return 0, err
	}
	per := map[int]float64{}
	for _, r := range recs {
		per[r.Run/batch] = max(per[r.Run/batch], r.ElapsedMS)
	}
	ms := 0.0
	for _, v := range per {
		ms += v
	}
	return time.Duration(ms * float64(time.Millisecond)), nil
}

// stored reports whether every record of u is in done.
func (r *runner) stored(u unit, done map[runs.Sample]bool) bool {
	klo, khi := r.meths[u.method].Steps().Range(r.cfg.K)
	for run := u.lo; run < u.hi; run++ {
		for k := klo; k <= khi; k++ {
			if !done[runs.Sample{K: k, Run: run}] {
				return false
			}
		}
	}
	return true
}

// SplitEOS returns a copy of a completion's token ids without its final
// end-of-sequence token, and that token (runs.NoEOS unless the completion
// is complete): what a runs.Record stores as IDs and EOS.
func SplitEOS(rec *sample.Record) (ids []int, eos int) {
	ids, eos = rec.Tokens, runs.NoEOS
	if rec.Status == sample.Complete && len(ids) > 0 {
		ids, eos = ids[:len(ids)-1], ids[len(ids)-1]
	}
	return append([]int{}, ids...), eos
}

// ProposalRecord returns the proposal of an MH step as the run store keeps it.
func ProposalRecord(s *mcmc.Step) *runs.Proposal {
	ids, eos := SplitEOS(s.Proposal)
	return &runs.Proposal{IDs: ids, EOS: eos, LogP: s.Proposal.LogProb(), LogPGCD: s.Proposal.LogQProb(),
		Valid: s.Proposal.Valid(), Status: s.Proposal.Status.String(), Accepted: s.Accepted}
}

// appendRecords appends the records not yet stored, taking the store's
// lock for the time it takes (waiting up to wait for another writer), and
// stops after limit records when limit ≥ 0. It returns how many it
// appended, and how many of those are valid.
func appendRecords(ctx context.Context, dir string, opt runs.Options, recs []runs.Record, limit int, wait time.Duration) (n, valid int, err error) {
	st, err := openStore(ctx, dir, opt, wait)
	if err != nil {
		return 0, 0, err
	}
	for _, r := range recs {
		if limit >= 0 && n >= limit {
			break
		}
		has, err := st.Has(r.Task, r.Method, r.K, r.Run)
		if err != nil {
			st.Close()
			return n, valid, err
		}
		if has {
			continue
		}
		if err := st.Append(r); err != nil {
			st.Close()
			return n, valid, err
		}
		n++
		if r.Valid {
			valid++
		}
	}
	return n, valid, st.Close()
}

// settingsDiff names the sampling settings in which a and b differ ("" if
// none): every field of a Config but those a resumed run may change
// (name, protocol, tasks, methods, k, runs, batch, keep_proposals), so
// that a new field counts as a setting unless said otherwise.
func settingsDiff(a, b *Config) string {
	ma, mb := a.settings(), b.settings()
	var diffs []string
	for k, v := range mb {
		if !reflect.DeepEqual(ma[k], v) {
			diffs = append(diffs, fmt.Sprintf("%s was %v, now %v", k, ma[k], v))
		}
	}
	slices.Sort(diffs)
	return strings.Join(diffs, ", ")
}

// RecordSettings describes c's sampling settings as the records of its
// store carry them (runs.Record.Settings): the keys of experiment.json that
// the store's settings check compares (the model, template, temperature,
// top-p, top-k, max-new-tokens, seed, lenient and task root), sorted, as
// key=value pairs, separated by spaces (a space in a value is %20). The
// grid (tasks, methods, runs, k), which may grow, is not in it; a record
// names its task, method, run and k itself.
func (c *Config) RecordSettings() string {
	b, _ := json.Marshal(c.settings())
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // a seed keeps its digits
	var m map[string]any
	dec.Decode(&m)
	var out []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, k+"="+strings.ReplaceAll(fmt.Sprint(m[k]), " ", "%20"))
	}
	return strings.Join(out, " ")
}

// storeOptions are the options of c's store: its records' settings.
func (c *Config) storeOptions() runs.Options {
	from := c.File
	if from == "" {
		from = "the experiment's configuration"
	}
	return runs.Options{Settings: c.RecordSettings(), SettingsFrom: from}
}

// StoreOptions returns the options that open the store dir for reading
// with the settings of its experiment.json (runs.Options.Settings), so that
// a record drawn with others is refused, naming its file and line; those
// of a store without experiment.json hold only that its records agree.
func StoreOptions(dir string) (runs.Options, error) {
	c, err := Stored(dir)
	if err != nil || c == nil {
		return runs.Options{ReadOnly: true}, err
	}
	opt := c.storeOptions()
	opt.ReadOnly = true
	return opt, nil
}

// settings returns c's sampling settings by JSON key.
func (c Config) settings() map[string]any {
	c.Name, c.Protocol, c.Root = "", "", ""
	c.Tasks, c.Methods = nil, nil
	c.K, c.Runs, c.Batch, c.KeepProposals = 0, 0, 0, false
	b, _ := json.Marshal(c) // a Config always marshals
	var m map[string]any
	json.Unmarshal(b, &m)
	return m
}
