package authors

import (
	"encoding/json"
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

// Llama31EOS returns the end-of-sequence ids of Llama-3.1-8B-Instruct:
// <|end_of_text|>, <|eom_id|>, <|eot_id|>.
func Llama31EOS() []int { return []int{128001, 128008, 128009} }

// styleMethods maps the authors' styles to gasp's method names. Their ars is
// adaptive rejection sampling (the CARS paper's ARS), not ASAp.
var styleMethods = map[string]string{
	"prefix": "mcmc-uniform", "priority": "mcmc-priority", "restart": "mcmc-restart",
	"rs": "rejection", "ars": "ars", "rsft": "rsft", "cars": "cars",
}

// chainStyles are the styles whose files hold an MH chain ("steps"); the
// others are rejection-type samplers' attempts.
var chainStyles = map[string]bool{"prefix": true, "priority": true, "restart": true}

// MethodOf returns gasp's method name for one of the authors' styles
// ("prefix" → "mcmc-uniform", "ars" → "ars", ...), and whether it knows it.
func MethodOf(style string) (string, bool) {
	m, ok := styleMethods[style]
	return m, ok
}

// ExactMethods returns the methods of the rejection-type styles: each accepted
// sample is drawn exactly from P^G, the model's distribution restricted to
// the grammar (rs, rsft: P conditioned on acceptance; ars, cars: adaptive,
// exact given acceptance), up to the authors' 512-token cap.
func ExactMethods() []string { return []string{"ars", "cars", "rejection", "rsft"} }

// modelNames are the authors' model indices (run_task.py).
var modelNames = map[int]string{
	0: "hsultanbey/codegen350multi_finetuned", 1: "meta-llama/Llama-3.1-8B-Instruct",
	2: "Qwen/Qwen2.5-7B-Instruct", 3: "Qwen/Qwen2.5-14B-Instruct",
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
	// EOS are the model's end-of-sequence ids; nil means Llama31EOS, and is
	// an error for a model other than 1 (gasp has no tokenizer of it to tell
	// its EOS).
	EOS []int
	// Strict makes any skipped directory or file an error (nothing is
	// written); otherwise Import writes what it could read and lists the
	// rest in Summary.Skipped.
	Strict bool
}

// Summary is what Import did.
type Summary struct {
	Tasks   int      // tasks imported
	Files   int      // log files imported
	Records int      // records written
	Skipped []Skip   // what was not imported, and why
	GCDFrom []string // per task: "task: style" whose starting states are its GCD
	Removed []string // temporary directories of imports into out that were killed
}

// Skip is a directory or file Import did not import.
type Skip struct {
	Path   string
	Reason string
}

func (s Skip) String() string { return s.Path + ": " + s.Reason }

// ReasonCount is how many skips gave one reason.
type ReasonCount struct {
	Reason string
	N      int
}

// SkippedByReason counts the skips by reason, in the order the reasons first came.
func (s Summary) SkippedByReason() []ReasonCount {
	var out []ReasonCount
	at := map[string]int{}
	for _, k := range s.Skipped {
		i, ok := at[k.Reason]
		if !ok {
			i = len(out)
			at[k.Reason] = i
			out = append(out, ReasonCount{Reason: k.Reason})
		}
		out[i].N++
	}
	return out
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
	if opt.EOS == nil && opt.Model != 1 {
		return sum, fmt.Errorf("authors: model %d (%s): give its end-of-sequence ids (gasp knows Llama-3.1's only)", opt.Model, modelNames[opt.Model])
	}
	if opt.EOS == nil {
		opt.EOS = Llama31EOS()
	}
	// "s/" names the store s: unclean, its parent would be s itself.
	out = filepath.Clean(out)
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
	if sum.Removed, err = removeLeftovers(out); err != nil {
		return sum, err
	}
	return sum, write(out, recs, metadata(opt, sum))
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
// store. What it cannot import goes to sum.Skipped with the reason; with
// opt.Strict that is an error listing all of it.
func readAll(dir string, tasks map[string]string, opt Options, sum *Summary) ([]runs.Record, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("authors: %w", err)
	}
	var recs []runs.Record
	seen := map[string]string{} // task → its directory
	skip := func(path, format string, a ...any) {
		sum.Skipped = append(sum.Skipped, Skip{path, fmt.Sprintf(format, a...)})
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if !e.IsDir() {
			skip(path, "not a task directory")
			continue
		}
		m := taskDirRE.FindStringSubmatch(e.Name())
		if m == nil {
			skip(path, "not a task directory name (<family>_<task>-<8 hex>-<model index>)")
			continue
		}
		model, err := strconv.Atoi(m[3])
		if err != nil { // out of range: Atoi's value would be MaxInt
			skip(path, "model index %s is out of range", m[3])
			continue
		}
		if model != opt.Model {
			skip(path, "model index %s (%s), not %d", m[3], modelName(m[3]), opt.Model)
			continue
		}
		task, ok := tasks[m[1]]
		if !ok {
			skip(path, "task %s is not under the task root", m[1])
			continue
		}
		if old, ok := seen[task]; ok {
			skip(path, "task %s again (imported from %s)", task, old)
			continue
		}
		seen[task] = path
		tr := readTask(path, task, opt.EOS, sum)
		if len(tr) > 0 {
			recs = append(recs, tr...)
			sum.Tasks++
		}
	}
	lines := make([]string, len(sum.Skipped))
	for i, s := range sum.Skipped {
		lines[i] = "\n" + s.String()
	}
	if opt.Strict && len(sum.Skipped) > 0 {
		return nil, fmt.Errorf("authors: %s (--strict): %d not imported:%s", dir, len(lines), strings.Join(lines, ""))
	}
	if len(recs) == 0 { // the user sees no summary then: say why
		return nil, fmt.Errorf("authors: %s: nothing of model %d could be imported (%d skipped)%s", dir, opt.Model, len(sum.Skipped), strings.Join(lines, ""))
	}
	return recs, nil
}

// modelName names the authors' model index s, if known.
func modelName(s string) string {
	if i, err := strconv.Atoi(s); err == nil && modelNames[i] != "" {
		return modelNames[i]
	}
	return "unknown model"
}

// readTask reads the style directories of one task directory; what it
// cannot read goes to sum.Skipped.
func readTask(path, task string, eos []int, sum *Summary) []runs.Record {
	skip := func(path, reason string) { sum.Skipped = append(sum.Skipped, Skip{path, reason}) }
	entries, err := os.ReadDir(path)
	if err != nil {
		skip(path, err.Error())
		return nil
	}
	files := map[string][]string{} // style → its files, in order
	for _, e := range entries {
		p := filepath.Join(path, e.Name())
		m := styleDirRE.FindStringSubmatch(e.Name())
		if !e.IsDir() || m == nil || styleMethods[m[1]] == "" {
			skip(p, fmt.Sprintf("not a style directory (<style>-<timestamp>, style one of %s)", strings.Join(styleNames(), ", ")))
			continue
		}
		fs, left := runFiles(p)
		for _, l := range left {
			skip(l.Path, l.Reason)
		}
		files[m[1]] = append(files[m[1]], fs...)
	}
	var recs []runs.Record
	starts := map[string][]runs.Record{} // style → its chains' starting states
	for _, style := range styleNames() {
		run := 0
		for _, f := range files[style] {
			rs, next, err := readRun(f, task, style, run, eos)
			if err != nil {
				reason := err.Error()
				if named := (*infile.Error)(nil); errors.As(err, &named) { // says the path itself
					reason = named.Err.Error()
				}
				skip(f, reason)
				continue
			}
			sum.Files++
			recs, run = append(recs, rs...), next
			if chainStyles[style] {
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
	return recs
}

// runFiles returns the run files of a style directory, sorted, and what else
// it holds: the .json.tmp of a run the authors' sampler did not finish, and
// anything else.
func runFiles(dir string) ([]string, []Skip) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, []Skip{{dir, err.Error()}}
	}
	var files []string
	var left []Skip
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		switch {
		case strings.HasSuffix(e.Name(), ".json.tmp"):
			left = append(left, Skip{p, "an unfinished run (the authors' sampler renames it .json when done)"})
		case !strings.HasSuffix(e.Name(), ".json"):
			left = append(left, Skip{p, "not a run file (<timestamp>-n<steps>.json)"})
		default:
			files = append(files, p)
		}
	}
	if len(files) == 0 && len(left) == 0 {
		left = append(left, Skip{dir, "no .json run file"})
	}
	sort.Strings(files)
	return files, left
}

// styleNames returns the styles, sorted.
func styleNames() []string {
	var out []string
	for s := range styleMethods {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// tempPrefix starts the name of the temporary directory an import into
// out writes, beside it, before renaming it to out.
func tempPrefix(out string) string { return "." + filepath.Base(out) + ".import-" }

// removeLeftovers removes the temporary directories of imports into out
// that were killed, and returns them. One that an import still holds is an
// error: both would write out. Where no lock tells, they are an error too,
// for the user to remove.
func removeLeftovers(out string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Dir(out))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("authors: %w", err)
	}
	var removed []string
	for _, e := range entries {
		// os.MkdirTemp's suffix is digits: ".s.import-x.import-1" is not s's.
		n, ok := strings.CutPrefix(e.Name(), tempPrefix(out))
		if !e.IsDir() || !ok || n == "" || strings.Trim(n, "0123456789") != "" {
			continue
		}
		dir := filepath.Join(filepath.Dir(out), e.Name())
		unlock, err := lockDir(dir)
		if errors.Is(err, errLocked) {
			return removed, fmt.Errorf("authors: %s: the temporary directory of an import into %s that is still running (%v); wait for it to end, or remove the directory if none runs",
				dir, out, err)
		}
		if err != nil {
			return removed, fmt.Errorf("authors: %w", err)
		}
		err = os.RemoveAll(dir)
		unlock()
		if err != nil {
			return removed, fmt.Errorf("authors: removing %s, left by an import that did not finish: %w", dir, err)
		}
		removed = append(removed, dir)
	}
	return removed, nil
}

// write writes recs as a run store at out, with meta as its authors.json,
// through a temporary directory beside it renamed into place when complete.
func write(out string, recs []runs.Record, meta []byte) error {
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return fmt.Errorf("authors: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(out), tempPrefix(out)+"*")
	if err != nil {
		return fmt.Errorf("authors: %w", err)
	}
	err = func() error {
		// Held while writing: the next import into out tells a killed
		// one's directory by its lock, released with the process.
		if unlock, err := holdDir(tmp); err == nil {
			defer unlock()
		} else if canLockDir {
			return err
		}
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
		if err := os.WriteFile(filepath.Join(tmp, MetadataFile), meta, 0o644); err != nil {
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

// MetadataFile is the file of an imported store that says where its records
// come from (gasp's run store ignores files beside the task directories).
const MetadataFile = "authors.json"

// metadata is the store's authors.json: the model, the methods, which of
// them are exact, and what was not imported.
func metadata(opt Options, sum Summary) []byte {
	skipped := make([]string, len(sum.Skipped))
	for i, s := range sum.Skipped {
		skipped[i] = s.String()
	}
	b, _ := json.MarshalIndent(struct {
		Source       string            `json:"source"`
		ModelIndex   int               `json:"model_index"`
		Model        string            `json:"model"`
		EOS          []int             `json:"eos"`
		Methods      map[string]string `json:"methods"`
		ExactMethods []string          `json:"exact_methods"`
		Exact        string            `json:"exact"`
		Files        int               `json:"files"`
		Records      int               `json:"records"`
		Skipped      []string          `json:"skipped"`
	}{"the authors' runs_log (github.com/pparys/cars, run_task.py)", opt.Model, modelNames[opt.Model], opt.EOS,
		styleMethods, ExactMethods(), "valid records of the exact methods are samples of P^G (exact given acceptance)",
		sum.Files, sum.Records, skipped}, "", "  ")
	return append(b, '\n')
}
