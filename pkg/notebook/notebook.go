// Package notebook is the plumbing of the GoNB notebooks under notebooks/:
// it finds the repository from the directory GoNB runs a notebook in, and
// it is the one place where a cell's error is reported, so that a cell
// holds only its experiment.
//
// A cell's program hands its body to Run, which gives it the repository and
// reports the error it returns:
//
//	func main() {
//		notebook.Run(func(repo notebook.Repo) error {
//			d, err := analysis.LoadDirs(repo.Path("mcmc/quick"))
//			if err != nil {
//				return err
//			}
//			...
//			return nil
//		})
//	}
//
// A failing cell prints "error: ..." and ends its program with exit status
// 1, which GoNB prints under the cell as "exit status 1": cmd/nbcheck
// (scripts/notebooks-run.sh, in CI) fails the notebook on that line, so a
// cell that fails stays visibly failing.
package notebook

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gasplab/gasp/pkg/modroot"
)

// Repo is the repository checkout a notebook runs in.
type Repo struct {
	Root string // the repository's directory
}

// FromDir returns the repository of a notebook in directory dir (GoNB's
// GONB_DIR): its parent, which must be the gasp module (package modroot).
func FromDir(dir string) (Repo, error) {
	if dir == "" {
		return Repo{}, errors.New("notebook: GONB_DIR is not set: run the notebook with the GoNB kernel (notebooks/README.md)")
	}
	root := filepath.Join(dir, "..")
	if !modroot.Is(root) {
		return Repo{}, fmt.Errorf("notebook: %s is not a notebook directory of the repository: %s holds no go.mod of module %s", dir, root, modroot.Module)
	}
	return Repo{Root: root}, nil
}

// Path returns a repository path, given slash-separated relative to the
// root ("mcmc/quick"); an absolute path is returned as it is.
func (r Repo) Path(rel string) string {
	if filepath.IsAbs(rel) {
		return rel
	}
	return filepath.Join(r.Root, filepath.FromSlash(rel))
}

// Run runs a cell's body f with the repository of the notebook (from
// GONB_DIR). When f, or finding the repository, fails it prints the error
// and exits with status 1.
func Run(f func(Repo) error) {
	if code := run(os.Stderr, os.Getenv("GONB_DIR"), f); code != 0 {
		os.Exit(code)
	}
}

// run is Run with its output, environment and exit code explicit.
func run(w io.Writer, gonbDir string, f func(Repo) error) int {
	repo, err := FromDir(gonbDir)
	if err == nil {
		err = f(repo)
	}
	if err != nil {
		fmt.Fprintln(w, "error:", err)
		return 1
	}
	return 0
}
