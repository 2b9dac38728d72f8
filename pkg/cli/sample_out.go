package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/gasplab/gasp/pkg/experiment"
	"github.com/gasplab/gasp/pkg/lm"
	"github.com/gasplab/gasp/pkg/runs"
)

// checkTransformFlags checks --temperature, --top-p and --top-k: a
// temperature of 0 or a top-p of 0 would otherwise silently mean "off"
// (lm.Transform's zero values), not greedy decoding.
func checkTransformFlags(temperature, topP float64, topK int) error {
	switch {
	case math.IsNaN(temperature) || math.IsInf(temperature, 0) || temperature <= 0:
		return fmt.Errorf("--temperature must be a positive finite number, got %v (greedy decoding is not a sampler here)", temperature)
	case math.IsNaN(topP) || topP <= 0 || topP > 1:
		return fmt.Errorf("--top-p must be in (0, 1] (1: off), got %v", topP)
	case topK < 0:
		return fmt.Errorf("--top-k must not be negative (0: off), got %d", topK)
	}
	return nil
}

// sampleSettingsOf are the flags of "gasp sample" that change the
// distribution of its records.
type sampleSettingsOf struct {
	grammar  string
	lenient  bool
	prompt   string
	model    string
	template string
	maxNew   int
	tf       lm.Transform
	budget   int
}

// sampleSettings is the settings string of the records of "gasp sample":
// space-separated key=value pairs, files by a digest of their contents.
func sampleSettings(o sampleSettingsOf, warn io.Writer) (string, error) {
	g, err := readInput("--grammar", o.grammar, maxGrammarBytes)
	if err != nil {
		return "", err
	}
	text, err := promptText(o.prompt, warn, "gasp sample")
	if err != nil {
		return "", err
	}
	model := o.model
	if model == "" {
		if model, err = findDefaultModel(); err != nil {
			return "", err
		}
	}
	if abs, err := filepath.Abs(model); err == nil {
		model = abs
	}
	template := o.template
	if template == "" {
		template = "default"
	}
	return fmt.Sprintf("model=%s grammar=%s lenient=%t prompt=%s template=%s temperature=%g top-p=%g top-k=%d max-new-tokens=%d budget=%d",
		strings.ReplaceAll(model, " ", "%20"), digest(g), o.lenient, digest([]byte(text)), template,
		o.tf.Temperature, o.tf.TopP, o.tf.TopK, o.maxNew, o.budget), nil
}

// trieSettings are the settings a trie is learnt under: the records'
// settings but the budget, which bounds a run's attempts, not what they
// learn.
func trieSettings(settings string) string {
	var out []string
	for _, f := range strings.Fields(settings) {
		if !strings.HasPrefix(f, "budget=") {
			out = append(out, f)
		}
	}
	return strings.Join(out, " ")
}

// openSampleOut opens the --out file of "gasp sample" and returns the runs
// it holds. It refuses a path that is not a regular file, a non-empty file
// without --resume, and, with --resume, a file that is not a run-store
// file of this task and method drawn with this seed and these settings.
func openSampleOut(path string, resume bool, task, method string, seed uint64, settings string, warn io.Writer) (*runs.Store, map[runs.Sample]bool, error) {
	fi, err := os.Lstat(path)
	switch {
	case err == nil && fi.IsDir():
		return nil, nil, fmt.Errorf("--out %s is a directory; want a file, such as %s", path, filepath.Join(path, "samples.jsonl"))
	case err == nil && !fi.Mode().IsRegular():
		return nil, nil, fmt.Errorf("--out %s is not a regular file (a device, pipe or symbolic link); without --out the records go to standard output", path)
	case err == nil && fi.Size() > 0 && !resume:
		return nil, nil, fmt.Errorf("--out %s exists and is not empty; --resume continues a killed run written with the same flags, or choose another file", path)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, nil, err
	}
	st, err := runs.OpenFile(path, runs.Options{Warn: func(w runs.Warning) {
		fmt.Fprintf(warn, "gasp sample: warning: %v\n", w)
	}})
	if err != nil {
		return nil, nil, err
	}
	done, err := resumable(st, path, task, method, seed, settings)
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return st, done, nil
}

// resumable returns the runs of st, an opened --out file, after checking
// that they are runs of this task, method, seed and settings.
func resumable(st *runs.Store, path, task, method string, seed uint64, settings string) (map[runs.Sample]bool, error) {
	keys, err := st.Keys()
	if err != nil {
		return nil, fmt.Errorf("--resume: %s is not a run-store file: %w", path, err)
	}
	if len(keys) == 1 && keys[0] != (runs.Key{Task: task, Method: method}) {
		return nil, fmt.Errorf("--resume: %s holds runs of task %q, method %q, not of task %q, method %q: resume with the --method and --task (or --grammar) it was written with",
			path, keys[0].Task, keys[0].Method, task, method)
	}
	done, err := st.Done(task, method)
	if err != nil {
		return nil, fmt.Errorf("--resume: %s is not a run-store file of this sampler: %w", path, err)
	}
	old, err := st.Records(task, method)
	if err != nil {
		return nil, err
	}
	for _, r := range old {
		if r.Seed != experiment.RunSeed(seed, task, method, r.Run) {
			return nil, fmt.Errorf("--resume: %s: run %d was drawn with another --seed than %d", path, r.Run, seed)
		}
		if r.Settings != settings {
			return nil, fmt.Errorf("--resume: %s: run %d was drawn with other settings (%s): one file would hold two distributions",
				path, r.Run, runs.SettingsDiff(r.Settings, settings))
		}
	}
	return done, nil
}

// replace removes the demo's stored samples (its task's, of its methods)
// from the store, whose lock st holds.
func (c *demoCmd) replace(st *runs.Store, stderr io.Writer) error {
	n := 0
	for _, name := range demoMethods {
		err := os.Remove(st.Path(c.task.Name, name))
		if err == nil {
			n++
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	if n > 0 && !c.quiet {
		fmt.Fprintf(stderr, "gasp demo: replacing the demo stored in %s (--resume continues it instead)\n", c.out)
	}
	return nil
}
