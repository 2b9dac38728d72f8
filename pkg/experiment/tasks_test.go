package experiment

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestConfigTask(t *testing.T) {
	cfg, err := Load(filepath.Join("..", "..", "experiments", "quick.json"))
	if err != nil {
		t.Fatal(err)
	}
	task, err := cfg.Task("SLIA/lastname")
	if err != nil {
		t.Fatal(err)
	}
	if task.Name != "SLIA/lastname" || filepath.Base(task.Grammar) != "grammar.ebnf" || filepath.Base(task.Prompt) != "prompt.txt" {
		t.Errorf("task %+v", task)
	}
	if _, err := cfg.Task("SLIA/nope"); err == nil || !strings.Contains(err.Error(), `no task "SLIA/nope"`) {
		t.Errorf("unknown task: %v", err)
	}
}
