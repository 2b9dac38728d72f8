package authors

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gasplab/gasp/pkg/infile"
	"github.com/gasplab/gasp/pkg/runs"
)

// Llama31EOS are the end-of-sequence ids of Llama-3.1-8B-Instruct:
// <|end_of_text|>, <|eom_id|>, <|eot_id|>.
var Llama31EOS = []int{128001, 128008, 128009}

// Methods maps the authors' styles to gasp's method names.
var Methods = map[string]string{
	"prefix": "mcmc-uniform", "priority": "mcmc-priority", "restart": "mcmc-restart",
	"rs": "rejection", "ars": "asap", "rsft": "rsft", "cars": "cars",
}

// gcdSources are the styles whose starting states are the GCD records, in
// order of preference.
var gcdSources = []string{"restart", "prefix", "priority"}

// Options configure Import.
type Options struct {
	// TaskRoot is the directory of the tasks the logs' task directories are
	// mapped to (data/gad): a task is a directory with a prompt.txt.
	TaskRoot string
	// Model is the model index to import (1: Llama-3.1-8B-Instruct); 0
	// means 1. Task directories of other indices are skipped.
	Model int
	// EOS are the model's end-of-sequence ids; nil means Llama31EOS.
	EOS []int
}

// Summary is what Import did.
type Summary struct {
	Tasks   int      // tasks imported
	Files   int      // log files read
	Records int      // records written
	Skipped []string // task directories of another model index
	GCDFrom []string // per task: "task: style" whose starting states are its GCD
}

// Import reads the authors' run logs under dir (a runs_log directory, or
// one holding runs_log/) and writes them as a run store at out, which must
// not exist. It reads and checks every file before writing anything; on
// error, out does not exist and the error lists every problem with its path.
func Import(dir, out string, opt Options) (Summary, error) {
	var sum Summary
	if opt.Model == 0 {
		opt.Model = 1
	}
	if opt.EOS == nil {
		opt.EOS = Llama31EOS
	}
	if _, err := os.Lstat(out); err == nil {
		return sum, fmt.Errorf("authors: %s exists; give a new store directory", out)
	}
	if fi, err := os.Stat(filepath.Join(dir, "runs_log")); err == nil && fi.IsDir() {
		dir = filepath.Join(dir, "runs_log")
	}
	tasks, err := taskNames(opt.TaskRoot)
	if err != nil {
		return sum, err
	}
	recs, err := readAll(dir, tasks, opt, &sum)
	if err != nil {
		return sum, err
	}
	sum.Records = len(recs)
	return sum, write(out, recs)
}

// taskDirRE is a task directory's name: <family>_<name>-<8 hex>-<model>.
var taskDirRE = regexp.MustCompile(`^(.+)-([0-9a-fA-F]{8})-([0-9]+)$`)

// styleDirRE is a style directory's name: <style>-<timestamp>.
var styleDirRE = regexp.MustCompile(`^([a-z]+)-(.+)$`)

// taskNames maps the logs' spelling of every task under root
// (<family>_<name with "-" as "_">, and the name alone when it already
// starts with <family>_) to its name.
func taskNames(root string) (map[string]string, error) {
	names := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "prompt.txt" {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		task := filepath.ToSlash(rel)
		family, name, ok := strings.Cut(task, "/")
		if !ok {
			return nil
		}
		spell := []string{family + "_" + strings.ReplaceAll(name, "-", "_")}
		if strings.HasPrefix(name, family+"_") {
			spell = append(spell, strings.ReplaceAll(name, "-", "_"))
		}
		for _, s := range spell {
			if old, ok := names[s]; ok && old != task {
				return fmt.Errorf("authors: tasks %s and %s are both spelled %s in the logs", old, task, s)
			}
			names[s] = task
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("authors: task root: %w", err)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("authors: no task (directory with a prompt.txt) under %q", root)
	}
	return names, nil
}

// readAll reads every log file under dir and returns the records of the
// store, or every problem found.
func readAll(dir string, tasks map[string]string, opt Options, sum *Summary) ([]runs.Record, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("authors: %w", err)
	}
	var recs []runs.Record
	var errs []error
	seen := map[string]string{} // task → its directory
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if !e.IsDir() {
			errs = append(errs, fmt.Errorf("%s: not a task directory", path))
			continue
		}
		m := taskDirRE.FindStringSubmatch(e.Name())
		if m == nil {
			errs = append(errs, fmt.Errorf("%s: not a task directory name (<family>_<task>-<8 hex>-<model index>)", path))
			continue
		}
		if model, _ := strconv.Atoi(m[3]); model != opt.Model {
			sum.Skipped = append(sum.Skipped, path)
			continue
		}
		task, ok := tasks[m[1]]
		if !ok {
			errs = append(errs, fmt.Errorf("%s: unknown task %s (not under the task root)", path, m[1]))
			continue
		}
		if old, ok := seen[task]; ok {
			errs = append(errs, fmt.Errorf("%s: task %s again (also %s)", path, task, old))
			continue
		}
		seen[task] = path
		tr, err := readTask(path, task, opt.EOS, sum)
		errs = append(errs, err)
		recs = append(recs, tr...)
		sum.Tasks++
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("authors: %s:\n%w", dir, err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("authors: %s: no runs of model %d", dir, opt.Model)
	}
	return recs, nil
}

// readTask reads the style directories of one task directory.
func readTask(path, task string, eos []int, sum *Summary) ([]runs.Record, error) {
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	files := map[string][]string{} // style → its files, in order
	var errs []error
	for _, e := range entries {
		p := filepath.Join(path, e.Name())
		m := styleDirRE.FindStringSubmatch(e.Name())
		if !e.IsDir() || m == nil || Methods[m[1]] == "" {
			errs = append(errs, fmt.Errorf("%s: not a style directory (<style>-<timestamp>, style one of %s)", p, strings.Join(styleNames(), ", ")))
			continue
		}
		fs, err := filepath.Glob(filepath.Join(p, "*.json"))
		if err != nil || len(fs) == 0 {
			errs = append(errs, fmt.Errorf("%s: no .json run file", p))
			continue
		}
		sort.Strings(fs)
		files[m[1]] = append(files[m[1]], fs...)
	}
	var recs []runs.Record
	starts := map[string][]runs.Record{} // style → its chains' starting states
	for _, style := range styleNames() {
		for run, f := range files[style] {
			sum.Files++
			rs, err := readRun(f, task, style, run, eos)
			var named *infile.Error // names the file already
			if err != nil && !errors.As(err, &named) {
				err = fmt.Errorf("%s: %w", f, err)
			}
			if err != nil {
				errs = append(errs, err)
				continue
			}
			recs = append(recs, rs...)
			if rs[0].K == 0 {
				starts[style] = append(starts[style], rs[0])
			}
		}
	}
	for _, style := range gcdSources {
		if len(starts[style]) > 0 {
			for _, r := range starts[style] {
				r.Method, r.Accepted, r.Proposal = "gcd", nil, nil
				recs = append(recs, r)
			}
			sum.GCDFrom = append(sum.GCDFrom, task+": "+style)
			break
		}
	}
	return recs, errors.Join(errs...)
}

// styleNames returns the styles, sorted.
func styleNames() []string {
	var out []string
	for s := range Methods {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// write writes recs as a run store at out, through a temporary directory
// beside it renamed into place when complete.
func write(out string, recs []runs.Record) error {
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return fmt.Errorf("authors: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(out), "."+filepath.Base(out)+".import-*")
	if err != nil {
		return fmt.Errorf("authors: %w", err)
	}
	err = func() error {
		st, err := runs.OpenWith(tmp, runs.Options{SyncEvery: len(recs) + 1})
		if err != nil {
			return err
		}
		for _, r := range recs {
			if err := st.Append(r); err != nil {
				st.Close()
				return err
			}
		}
		if err := st.Close(); err != nil {
			return err
		}
		if err := os.Chmod(tmp, 0o755); err != nil {
			return err
		}
		return os.Rename(tmp, out)
	}()
	if err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("authors: writing %s: %w", out, err)
	}
	return nil
}
