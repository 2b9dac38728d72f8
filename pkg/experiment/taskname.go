package experiment

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gasplab/gasp/pkg/modroot"
)

// TaskRootMarker is the file that makes a directory a task root (data/gad,
// data/fuzz/tasks): the tasks under it are named by their paths relative
// to it ("SLIA/lastname"), as an experiment's TaskRoot names them.
const TaskRootMarker = "TASKROOT"

// TaskName returns the name of the task at path, a task directory or its
// grammar.ebnf (another grammar file is a task of its own): the path,
// slash-separated, relative to the nearest directory above it that is a
// task root (holds TaskRootMarker) or the gasp module; outside both, its
// base name. The name depends on where the task is, not on how path was
// spelled or where the program runs: "data/gad/SLIA/lastname",
// "../../data/gad/SLIA/lastname/" and its absolute path are all
// "SLIA/lastname", the name the grid gives that task, so that its runs'
// seeds (RunSeed) are the same from the grid, gasp sample and a program.
func TaskName(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	} else if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("task %s: %w", path, err)
	}
	if filepath.Base(abs) == "grammar.ebnf" {
		abs = filepath.Dir(abs)
	}
	for d := range modroot.Up(filepath.Dir(abs)) {
		if _, err := os.Stat(filepath.Join(d, TaskRootMarker)); err == nil || modroot.Is(d) {
			rel, err := filepath.Rel(d, abs)
			if err != nil {
				return "", err
			}
			return filepath.ToSlash(rel), nil
		}
	}
	return filepath.Base(abs), nil
}
