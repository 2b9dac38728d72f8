package tiny

import (
	"crypto/sha256"
	"fmt"
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/gasplab/gasp/pkg/hf"
)

const committedDir = "../../data/models/tiny"

// needCommitted skips the test in short mode or when the committed model is missing.
func needCommitted(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the committed model")
	}
	if _, err := os.Stat(committedDir + "/model.safetensors"); err != nil {
		t.Skip("no committed model")
	}
}

// TestCommittedModel checks that pkg/llama loads the committed model and that its held-out perplexity is the
// one recorded when it was trained (in the checkpoint's metadata and the README).
func TestCommittedModel(t *testing.T) {
	needCommitted(t)
	ck, err := hf.OpenCheckpoint(committedDir)
	if err != nil {
		t.Fatal(err)
	}
	want, err := strconv.ParseFloat(ck.Metadata()["held_out_perplexity"], 64)
	ck.Close()
	if err != nil {
		t.Fatal(err)
	}
	opts := DefaultOptions()
	opts.Sources = DefaultSources("../..")
	got, n, err := HeldOutPerplexity(committedDir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("held-out perplexity %.4f over %d tokens (recorded %.4f)", got, n, want)
	if math.Abs(got/want-1) > 0.01 {
		t.Errorf("held-out perplexity %.4f, recorded %.4f", got, want)
	}
}

// TestEvalSamplesGolden pins EvalSamples's output on the committed model: the same seed must draw the same
// samples, whatever the refactoring.
func TestEvalSamplesGolden(t *testing.T) {
	needCommitted(t)
	tasks, err := LoadTasks(DefaultSources("../.."))
	if err != nil {
		t.Fatal(err)
	}
	var some []Task
	for _, task := range tasks {
		if task.Name == "SLIA/dr-name" || task.Name == "xml" {
			some = append(some, task)
		}
	}
	if len(some) != 2 {
		t.Fatalf("found %d of the 2 tasks", len(some))
	}
	st, err := EvalSamples(committedDir, some, []string{"SLIA/", "xml"}, 5, 24, 7)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%x", sha256.Sum256(fmt.Appendf(nil, "%+v", st)))[:24]
	t.Logf("%+v: %s", st, got)
	if want := "9e0eba4ace90cf692e2d2351"; got != want {
		t.Errorf("EvalSamples: hash %s, want %s", got, want)
	}
}
