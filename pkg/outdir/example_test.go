package outdir_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gasplab/gasp/pkg/outdir"
)

// Write replaces what it wrote before, and nothing else: a file it no
// longer writes is removed, a user's file beside its own is kept.
func Example() {
	dir, err := os.MkdirTemp("", "outdir")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "analysis")
	if _, err := outdir.Write(out, map[string][]byte{"kl.csv": []byte("a\n"), "old.svg": []byte("<svg/>")}); err != nil {
		fmt.Println(err)
		return
	}
	if err := os.WriteFile(filepath.Join(out, "notes.md"), []byte("mine"), 0o644); err != nil {
		fmt.Println(err)
		return
	}
	if _, err := outdir.Write(out, map[string][]byte{"kl.csv": []byte("b\n")}); err != nil {
		fmt.Println(err)
		return
	}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		fmt.Println(e.Name())
	}
	// Output:
	// gasp-manifest.txt
	// kl.csv
	// notes.md
}
