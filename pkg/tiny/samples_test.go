package tiny

import (
	"crypto/sha256"
	"fmt"
	"os"
	"testing"
)

// TestEvalSamplesGolden pins EvalSamples's output on the committed model:
// the same seed must draw the same samples, whatever the refactoring.
func TestEvalSamplesGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("samples the committed model")
	}
	if _, err := os.Stat(committedDir + "/model.safetensors"); err != nil {
		t.Skip("no committed model")
	}
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
