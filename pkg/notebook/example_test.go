package notebook_test

import (
	"fmt"
	"path/filepath"

	"github.com/gasplab/gasp/pkg/notebook"
)

func Example() {
	// In a notebook, GoNB sets GONB_DIR to the notebook's directory.
	repo, err := notebook.FromDir("../../notebooks")
	fmt.Println(err, filepath.Base(repo.Path("mcmc/quick")))
	// Output: <nil> quick
}
