package experiment

import (
	"path/filepath"
	"testing"
)

// Every committed configuration loads: a typo in one (an unknown field, a
// bad value) fails here, not hours into a run.
func TestCommittedConfigsLoad(t *testing.T) {
	files, err := filepath.Glob("../../experiments/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no experiments/*.json (%v)", err)
	}
	for _, f := range files {
		if _, err := Load(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}
