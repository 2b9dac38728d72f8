package runstest_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/runs"
	"github.com/gasplab/gasp/pkg/runs/runstest"
)

func TestLines(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "exp")
	st, err := runs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for run := range 2 {
		r := runs.Record{Schema: runs.Schema, Task: "t", Method: "gcd", Run: run, Seed: uint64(run),
			PromptIDs: []int{1}, IDs: []int{2}, Text: "x", Status: runs.StatusComplete, ElapsedMS: 12.5}
		if err := st.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	recs := runstest.Records(t, dir)
	if len(recs) != 2 || recs[0].Run != 0 || recs[1].Run != 1 || recs[0].ElapsedMS != 12.5 {
		t.Fatalf("Records = %+v, want runs 0 and 1 as appended", recs)
	}
	lines := runstest.Lines(t, dir)
	if len(lines) != 2 {
		t.Fatalf("Lines = %q, want 2 lines", lines)
	}
	for _, l := range lines {
		if !strings.Contains(l, `"elapsed_ms":0`) || strings.Contains(l, "12.5") {
			t.Errorf("line %s: want elapsed_ms 0", l)
		}
	}
}
