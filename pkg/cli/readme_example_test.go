package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/modroot"
)

// readmeProgram returns README.md's first Go block: a complete program.
func readmeProgram(t *testing.T, root string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```go\n(.*?)```").FindSubmatch(b)
	if m == nil || !bytes.HasPrefix(m[1], []byte("package main\n")) {
		t.Fatal("README.md has no ```go block holding a complete program (package main)")
	}
	return string(m[1])
}

// README's program, built outside the module (a workspace using this
// checkout, as a user's module with a replace directive would), prints the
// same from the repository's root, a subdirectory, and a directory outside
// the module with and without GASP_ROOT: the same records, since the
// task's name, hence its seeds, does not depend on where it runs. What it
// prints is pkg/experiment's Example output, the same program.
func TestReadmeExampleFromAnywhere(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	example, err := os.ReadFile(filepath.Join(root, "pkg", "experiment", "example_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile(`// Output: (.*)`).FindSubmatch(example)
	if want == nil {
		t.Fatal("pkg/experiment's Example has no // Output line")
	}
	prog := buildOutside(t, root, "readme", readmeProgram(t, root))
	outside := t.TempDir()
	for _, at := range []struct{ wd, env string }{
		{root, ""}, {filepath.Join(root, "pkg", "experiment"), ""}, {outside, ""}, {outside, root},
	} {
		cmd := exec.Command(prog)
		cmd.Dir, cmd.Env = at.wd, append(os.Environ(), modroot.Env+"="+at.env)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("from %s (%s=%s): %v\n%s", at.wd, modroot.Env, at.env, err, stderr.Bytes())
		}
		if got := strings.TrimSpace(string(out)); got != string(want[1]) {
			t.Errorf("from %s (%s=%s): %q, want %q", at.wd, modroot.Env, at.env, got, want[1])
		}
	}
}

// README's first screen (60 lines) holds what a new user needs: the two
// commands, the whole example program and where to go next, benchmarks
// among them.
func TestReadmeFirstScreen(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(b), "\n", 61)
	first := strings.Join(lines[:min(60, len(lines))], "\n")
	prog := readmeProgram(t, root)
	for _, want := range []string{"scripts/main-job.sh", "scripts/test.sh", "```go\n" + prog + "```", "BENCHMARKS.md", "gasp help", "notebooks/README.md"} {
		if !strings.Contains(first, want) {
			t.Errorf("README's first 60 lines lack %q", want)
		}
	}
}
