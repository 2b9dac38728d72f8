package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gasplab/gasp/pkg/atomicfile"
	"github.com/gasplab/gasp/pkg/infile"
	"github.com/gasplab/gasp/pkg/runs"
)

// A store has one owner and one grid: its experiment.json records the
// sampling settings every record was drawn with and the grid (tasks,
// methods, runs, k) its records lie in. A writer checks both, and writes
// experiment.json, while it holds the store's lock, so that of two
// writers with other settings the second always sees the first's file.
// experiment.json is replaced only by a configuration of the same
// settings whose grid holds the stored one: a grid grows, never shrinks,
// so that every stored record stays inside it.

// settingsFile is the file in the store that records the configuration.
const settingsFile = "experiment.json"

// Stored returns the configuration recorded in the store dir, nil if it
// has no experiment.json. A file that does not parse as a configuration
// (Parse: unknown or duplicate keys, bad settings) is an error naming it,
// with the line and column where known: a store whose grid cannot be read
// cannot be checked.
func Stored(dir string) (*Config, error) {
	p := filepath.Join(dir, settingsFile)
	data, err := infile.Read(p, MaxConfigBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	c, err := parseFile(p, data)
	if err != nil {
		return nil, err
	}
	c.File = p
	return c, nil
}

// gridString describes c's grid for a message.
func (c *Config) gridString() string {
	return fmt.Sprintf("tasks %v, methods %v, runs %d, k ≤ %d", c.Tasks, c.Methods, c.Runs, c.K)
}

// where names c in a message: its file and grid.
func (c *Config) where() string {
	f := c.File
	if f == "" {
		f = "the configuration"
	}
	return fmt.Sprintf("%s (%s)", f, c.gridString())
}

// within reports whether c's grid lies within big's: each task pattern of
// c is one of big's or matched by one (path.Match, "SLIA/*" holds
// "SLIA/lastname"), each method of c is one of big's, and c's runs and k
// are at most big's.
func (c *Config) within(big *Config) bool {
	if c.Runs > big.Runs || c.K > big.K {
		return false
	}
	for _, m := range c.Methods {
		if !slices.Contains(big.Methods, m) {
			return false
		}
	}
	for _, p := range c.Tasks {
		if !slices.ContainsFunc(big.Tasks, func(q string) bool {
			ok, _ := path.Match(q, p)
			return q == p || ok
		}) {
			return false
		}
	}
	return true
}

// gridDiff names the parts of the grid in which a and b differ ("" if
// none).
func gridDiff(a, b *Config) string {
	var diffs []string
	add := func(name string, x, y any) {
		if fmt.Sprint(x) != fmt.Sprint(y) {
			diffs = append(diffs, fmt.Sprintf("%s was %v, now %v", name, x, y))
		}
	}
	add("tasks", a.Tasks, b.Tasks)
	add("methods", a.Methods, b.Methods)
	add("runs", a.Runs, b.Runs)
	add("k", a.K, b.K)
	return strings.Join(diffs, ", ")
}

// checkStore fails unless cfg may write into the store dir: the store has
// no experiment.json, or one of cfg's sampling settings whose grid lies
// within cfg's. It returns the stored configuration (nil if none).
func checkStore(dir string, cfg *Config) (*Config, error) {
	old, err := Stored(dir)
	if err != nil || old == nil {
		return nil, err
	}
	if d := settingsDiff(old, cfg); d != "" {
		return nil, fmt.Errorf("experiment: %s was run with other sampling settings (%s); use another name or store", dir, d)
	}
	if !old.within(cfg) {
		return nil, fmt.Errorf("experiment: the grid of %s is not within that of %s: a store's grid may only grow, "+
			"so that its records stay in it; give every task, method, run and k it has, or use another store", old.where(), cfg.where())
	}
	return old, nil
}

// writeSettings records cfg as the store's experiment.json, checking it
// against the recorded one under the store's lock (waiting up to
// Options.LockWait for another writer), and says so when the grid grows.
// It returns the mark that the run is writing the store (runs.Writing),
// for the run to close when it ends: the run takes the lock only to
// append, and a reader must see it between appends too.
func (r *runner) writeSettings(ctx context.Context) (io.Closer, error) {
	st, err := openStore(ctx, r.dir, r.cfg.storeOptions(), r.opt.LockWait)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	old, err := checkStore(r.dir, r.cfg)
	if err != nil {
		return nil, err
	}
	if old != nil && gridDiff(old, r.cfg) != "" {
		r.say("experiment %s: the grid of %s grows (%s)", r.cfg.Name, old.File, gridDiff(old, r.cfg))
	}
	b, err := json.MarshalIndent(r.cfg, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := atomicfile.WriteFile(filepath.Join(r.dir, settingsFile), append(b, '\n')); err != nil {
		return nil, err
	}
	writing, err := runs.Writing(r.dir)
	if err != nil {
		return nil, err
	}
	if err := st.Close(); err != nil {
		writing.Close()
		return nil, err
	}
	return writing, nil
}

// openStore opens the store dir for appending, as opt says, waiting up to
// wait while another writer holds its lock.
func openStore(ctx context.Context, dir string, opt runs.Options, wait time.Duration) (*runs.Store, error) {
	deadline := time.Now().Add(wait)
	for {
		st, err := runs.OpenWith(dir, opt)
		if err == nil || !errors.Is(err, runs.ErrLocked) || time.Now().After(deadline) {
			return st, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}
